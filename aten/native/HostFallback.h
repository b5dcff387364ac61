#pragma once
// Note [Host fallback]: `CUDA: host_fallback` in an entry's dispatch registers, as its CUDA kernel,
// HostFallback<&cpu_kernel>::run: the entry's CPU kernel run on host copies of the tensor
// arguments, its results copied back to the arguments' device. It is how the LAPACK-backed linear
// algebra and the FFTs run on CUDA until a device library (cuSOLVER, cuFFT) takes an op over, as
// MLX runs its linalg on the CPU stream. Correct by construction: the same code computes both
// devices' results, and its errors (a singular matrix, a failed check_errors) are the CPU's, word
// for word. The copies synchronise: a device-to-host copy waits for the stream that wrote the
// input (Note in CopyKernel.cu), and host-to-device copies of the results are ordered on it.
// The generator only allows it on ops that write no argument, so nothing must be copied back in place.
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/core/Tensor.h"
#include "generated/ops/to.h"
#include "generated/ops/view_as_complex.h"
#include "generated/ops/view_as_real.h"

namespace tl::native {
namespace host_fallback {

// t on `device`. A complex tensor moves as its real view: the CUDA copy kernels that gather a
// strided tensor or lay one out cover the real dtypes.
inline Tensor moved(const Tensor& t, Device device) {
  if (!t.defined()) return t;
  if (!is_complex(t.dtype())) return t.to(device);
  return tl::view_as_complex(tl::view_as_real(t).to(device));
}

inline Tensor to_host(const Tensor& t) { return moved(t, Device(DeviceType::CPU)); }
inline std::optional<Tensor> to_host(const std::optional<Tensor>& t) {
  return t.has_value() ? std::optional<Tensor>(to_host(*t)) : t;
}
template <typename T>
const T& to_host(const T& value) {  // a bool, an int[], a str: as it is
  static_assert(!std::is_same_v<T, TensorList>, "host fallback: tensor list arguments are not copied");
  return value;
}

inline Tensor to_device(const Tensor& t, Device device) { return moved(t, device); }
inline std::vector<Tensor> to_device(const std::vector<Tensor>& ts, Device device) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(to_device(t, device));
  return out;
}
template <typename... Ts>
std::tuple<Ts...> to_device(const std::tuple<Ts...>& results, Device device) {
  return std::apply([&](const auto&... r) { return std::tuple<Ts...>(to_device(r, device)...); }, results);
}

// The device the op was dispatched for: that of its first tensor not on the host.
inline void note_device(Device& device, const Tensor& t) {
  if (device.is_cpu() && t.defined() && !t.is_cpu()) device = t.device();
}
inline void note_device(Device& device, const std::optional<Tensor>& t) {
  if (t.has_value()) note_device(device, *t);
}
template <typename T>
void note_device(Device&, const T&) {}

}  // namespace host_fallback

template <auto cpu_kernel>
struct HostFallback;

template <typename R, typename... Args, R (*cpu_kernel)(Args...)>
struct HostFallback<cpu_kernel> {
  static R run(Args... args) {
    Device device(DeviceType::CPU);
    (host_fallback::note_device(device, args), ...);
    return host_fallback::to_device(cpu_kernel(host_fallback::to_host(args)...), device);
  }
};

}  // namespace tl::native
