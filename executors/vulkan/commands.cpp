#include "executors/vulkan/commands.hpp"

#include <cstdint>

namespace vkstark::vulkan {

void memory_barrier(const Context& ctx, VkCommandBuffer cb, const GlobalBarrier& b) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, b.src_access, b.dst_access};
  ctx.fn.vkCmdPipelineBarrier(cb, b.src_stages, b.dst_stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void execution_barrier(const Context& ctx, VkCommandBuffer cb) {
  ctx.fn.vkCmdPipelineBarrier(cb, kComputeStage, kComputeStage, 0, 0, nullptr, 0, nullptr, 0, nullptr);
}

void record_copies(const Context& ctx, VkCommandBuffer cb, std::span<const PendingCopy> copies) {
  for (const PendingCopy& c : copies)
    if (c.region.size > 0) ctx.fn.vkCmdCopyBuffer(cb, c.src, c.dst, 1, &c.region);
}

void begin_commands(const Context& ctx, VkCommandBuffer cb, bool reusable) {
  auto info = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  info.flags = reusable ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk_check(ctx.fn.vkBeginCommandBuffer(cb, &info), "vkBeginCommandBuffer");
}

void end_commands(const Context& ctx, VkCommandBuffer cb) {
  vk_check(ctx.fn.vkEndCommandBuffer(cb), "vkEndCommandBuffer");
}

void submit(const Context& ctx, VkQueue queue, std::span<const VkCommandBuffer> cbs, VkFence fence, VkSemaphore wait) {
  vk_check(ctx.fn.vkResetFences(ctx.device, 1, &fence), "vkResetFences");
  auto info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  info.commandBufferCount = static_cast<uint32_t>(cbs.size());
  info.pCommandBuffers = cbs.data();
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  if (wait) {
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &wait;
    info.pWaitDstStageMask = &stage;
  }
  vk_check(ctx.fn.vkQueueSubmit(queue, 1, &info, fence), "vkQueueSubmit");
}

void wait_fence(const Context& ctx, VkFence fence) {
  vk_check(ctx.fn.vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void submit_and_wait(const Context& ctx, std::span<const VkCommandBuffer> cbs, VkFence fence) {
  submit(ctx, ctx.queue, cbs, fence);
  wait_fence(ctx, fence);
}

}  // namespace vkstark::vulkan
