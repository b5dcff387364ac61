#pragma once
// Helpers the generated Operators.cpp uses to pick a device and report dispatch errors.
#include <optional>

#include "aten/core/Tensor.h"

namespace tl {

[[noreturn]] void no_kernel(const char* schema, Device device);
[[noreturn]] void device_mismatch(const char* schema, Device a, Device b);

inline Device device_of(TensorList ts) {
  for (const Tensor& t : ts)
    if (t.defined()) return t.device();
  return Device(DeviceType::CPU);
}
inline Device device_of(const std::optional<Tensor>& t) {
  return (t && t->defined()) ? t->device() : Device(DeviceType::CPU);
}

// Note [Device check]: all tensor arguments must live on the op's device, except 0-dim CPU
// tensors, which kernels read as scalars (as PyTorch allows `cuda_tensor * cpu_scalar_tensor`).
inline void check_one_device(const char* schema, Device device, const Tensor& t) {
  if (!t.defined()) return;
  Device d = t.device();
  if (TL_UNLIKELY(d.type != device.type || (d.is_cuda() && d.index != device.index))) {
    if (d.is_cpu() && t.dim() == 0) return;
    device_mismatch(schema, device, d);
  }
}
inline void check_one_device(const char* schema, Device device, const std::optional<Tensor>& t) {
  if (t) check_one_device(schema, device, *t);
}
inline void check_one_device(const char* schema, Device device, TensorList ts) {
  for (const Tensor& t : ts) check_one_device(schema, device, t);
}
template <typename... Ts>
void check_same_device(const char* schema, Device device, const Ts&... ts) {
  (check_one_device(schema, device, ts), ...);
}

}  // namespace tl
