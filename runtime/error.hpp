// The error model, one exception type per layer (architecture.md, "Errors").
// Verification failures are not exceptions: verifiers return a result with a reason.
#pragma once

#include <stdexcept>
#include <string>

namespace vkstark {

// Base of every exception vkstark throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A mistake while building a task graph (type or size mismatch, view out of range, write to an
// Input, read of a Transient nobody wrote). The message names the task and the buffer.
class GraphError : public Error {
 public:
  using Error::Error;
};

// A device failure: no device, a VkResult error, out of device memory. The message names the
// operation and the VkResult.
class DeviceError : public Error {
 public:
  using Error::Error;
};

// The device is gone (VK_ERROR_DEVICE_LOST): nothing more runs on it; a batch retires it and moves
// its jobs to other workers.
class DeviceLost : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// An allocation the device (or the driver's host memory) refused: a batch retries the job once with
// nothing else in flight on its worker.
class OutOfDeviceMemory : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// Bad user input: trace shape does not match the AIR, a value outside the field, parameters outside
// the supported range. The message names what is wrong (AIR, column, field).
class InputError : public Error {
 public:
  using Error::Error;
};

// A field operation without a result, e.g. the inverse of zero.
class ArithmeticError : public Error {
 public:
  using Error::Error;
};

// A kernel body failed while a plan ran; the message names the task.
class ExecutionError : public Error {
 public:
  using Error::Error;
};

}  // namespace vkstark
