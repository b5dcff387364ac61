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
// tensor (where Note [Device check] allows, those join an op on another device), else the first one's.
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

// Note [Device check]: every tensor argument of an op must live on the op's device, with one
// exception: a 0-dim CPU tensor where the kernel reads it as a scalar, as PyTorch allows
// `cuda_tensor * torch.tensor(2.)`. Those places are decided in native_functions.yaml: the inputs
// of a `structured:` op (its generated kernel hands them to a TensorIterator, which moves such a
// tensor to the device) and the arguments an entry lists under `cpu_scalars:` (its kernels read
// them through a TensorIterator or with item()). Anywhere else (mm, an index, a conv weight, an
// out= tensor) a CUDA kernel would read a host pointer, so the generated code checks with
// check_same_device, and with check_same_device_or_cpu_scalar only the arguments listed.
inline void check_one_device(const char* schema, Device device, const Tensor& t, bool cpu_scalar_ok) {
  if (!t.defined()) return;
  Device d = t.device();
  if (TL_UNLIKELY(d.type != device.type || (d.is_cuda() && d.index != device.index))) {
    if (cpu_scalar_ok && d.is_cpu() && t.dim() == 0) return;
    device_mismatch(schema, device, d);
  }
}
inline void check_one_device(const char* schema, Device device, const std::optional<Tensor>& t, bool cpu_scalar_ok) {
  if (t) check_one_device(schema, device, *t, cpu_scalar_ok);
}
inline void check_one_device(const char* schema, Device device, TensorList ts, bool cpu_scalar_ok) {
  for (const Tensor& t : ts) check_one_device(schema, device, t, cpu_scalar_ok);
}
template <typename... Ts>
void check_same_device(const char* schema, Device device, const Ts&... ts) {
  (check_one_device(schema, device, ts, false), ...);
}
template <typename... Ts>
void check_same_device_or_cpu_scalar(const char* schema, Device device, const Ts&... ts) {
  (check_one_device(schema, device, ts, true), ...);
}

}  // namespace tl
