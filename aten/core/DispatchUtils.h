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

// The device of an op with several tensor arguments: the first one that is not a 0-dim CPU
// tensor (those may join an op on any device), else the first one's.
template <typename... Ts>
Device dispatch_device_of(const Tensor& first, const Ts&... rest) {
  Device found = first.device();
  bool settled = !(found.is_cpu() && first.dim() == 0);
  auto consider = [&](const Tensor& t) {
    if (settled || !t.defined()) return;
    if (!(t.is_cpu() && t.dim() == 0)) {
      found = t.device();
      settled = true;
    }
  };
  (consider(rest), ...);
  return found;
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
