// Internal to the Vulkan executor: small command-recording helpers shared by the prepared plan.
// Every dependency point is one global VkMemoryBarrier in a Vulkan 1.0 vkCmdPipelineBarrier
// (IREE / VkFFT style), never per-buffer barriers.
//
// Thread-safety: none of these synchronize; the command buffer must be externally synchronized.
#pragma once

#include <span>

#include "executors/vulkan/context.hpp"

namespace vkstark::vulkan {

// A buffer-to-buffer copy waiting to be recorded (uploads, host-task data).
struct PendingCopy {
  VkBuffer src = VK_NULL_HANDLE;
  VkBuffer dst = VK_NULL_HANDLE;
  VkBufferCopy region{};
  bool operator==(const PendingCopy& o) const {
    return src == o.src && dst == o.dst && region.srcOffset == o.region.srcOffset &&
           region.dstOffset == o.region.dstOffset && region.size == o.region.size;
  }
};

struct GlobalBarrier {
  VkPipelineStageFlags src_stages;
  VkAccessFlags src_access;
  VkPipelineStageFlags dst_stages;
  VkAccessFlags dst_access;
};

constexpr VkPipelineStageFlags kComputeStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags kTransferStage = VK_PIPELINE_STAGE_TRANSFER_BIT;

// Plan barriers (counted in the trace): read-after-write / write-after-write between dispatches.
constexpr GlobalBarrier kComputeToCompute{kComputeStage, VK_ACCESS_SHADER_WRITE_BIT, kComputeStage,
                                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
// Transfer barriers (not counted): around upload copies, before download copies, and before the
// host reads what the device wrote.
constexpr GlobalBarrier kBeforeUpload{kComputeStage | kTransferStage,
                                      VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, kTransferStage,
                                      VK_ACCESS_TRANSFER_WRITE_BIT};
constexpr GlobalBarrier kAfterUpload{kTransferStage, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeStage | kTransferStage,
                                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                         VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
constexpr GlobalBarrier kBeforeDownload{kComputeStage | kTransferStage,
                                        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, kTransferStage,
                                        VK_ACCESS_TRANSFER_READ_BIT};
constexpr GlobalBarrier kToHost{kComputeStage | kTransferStage,
                                VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT};

// After a host task inside a submission: its writes (made before the semaphore that the batch waits
// on) to the copies that bring them back and to the shaders that read them.
constexpr GlobalBarrier kFromHost{VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, kComputeStage | kTransferStage,
                                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT};

void memory_barrier(const Context& ctx, VkCommandBuffer cb, const GlobalBarrier& b);
// Compute -> compute with no memory barrier: write-after-read needs only an execution dependency.
void execution_barrier(const Context& ctx, VkCommandBuffer cb);
void record_copies(const Context& ctx, VkCommandBuffer cb, std::span<const PendingCopy> copies);

// `reusable`: recorded once and submitted many times (no ONE_TIME_SUBMIT).
void begin_commands(const Context& ctx, VkCommandBuffer cb, bool reusable = false);
void end_commands(const Context& ctx, VkCommandBuffer cb);
// One vkQueueSubmit of the command buffers, in order, with `fence`, then one wait for it (one host sync).
void submit_and_wait(const Context& ctx, std::span<const VkCommandBuffer> cbs, VkFence fence);
// The two halves of submit_and_wait, on `queue` (one of ctx.queues); the submission waits for
// `wait` (a binary semaphore another submission signals) before any of its commands, when given.
void submit(const Context& ctx, VkQueue queue, std::span<const VkCommandBuffer> cbs, VkFence fence,
            VkSemaphore wait = VK_NULL_HANDLE);
void wait_fence(const Context& ctx, VkFence fence);

}  // namespace vkstark::vulkan
