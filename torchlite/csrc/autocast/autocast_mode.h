#pragma once
// Note [Autocast]: automatic mixed precision (torch.autocast). Operators whose YAML entry has an
// `autocast:` policy check, at the top of their generated `call`, whether autocast is on for the
// device of their tensor arguments. If it is, they cast those arguments and call themselves again
// with autocast excluded, so that autograd (one layer below) records the casts and gradients
// flow back to the float32 originals:
//   - lower_precision_fp (matmul, conv, linear): floating arguments to the autocast dtype
//     (bfloat16 on CPU, float16 on CUDA unless set);
//   - fp32 (losses, norms, linalg, exp/log on CUDA): floating arguments to float32;
//   - promote (cat, stack, addcmul): floating arguments to the widest floating type among them.
// float64 arguments are never cast, as in PyTorch. The state is per thread.
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autocast {

enum class Policy : int8_t { None, LowerPrecisionFp, Fp32, Promote };

bool is_enabled(DeviceType device);
void set_enabled(DeviceType device, bool enabled);
ScalarType get_dtype(DeviceType device);
void set_dtype(DeviceType device, ScalarType dtype);
bool is_cache_enabled();
void set_cache_enabled(bool enabled);
void clear_cache();
int64_t increment_nesting();
int64_t decrement_nesting();

// True when some device has autocast on and no ExcludeGuard is active: one thread-local read,
// the only cost autocast adds to an operator call while it is off.
bool is_active();

// RAII: autocast off for the calls inside (the re-call of an operator with cast arguments).
class ExcludeGuard {
 public:
  ExcludeGuard();
  ~ExcludeGuard();
  ExcludeGuard(const ExcludeGuard&) = delete;
  ExcludeGuard& operator=(const ExcludeGuard&) = delete;

 private:
  bool prev_;
};

// The device type of the first defined tensor among an operator's tensor arguments.
inline void first_device(std::optional<DeviceType>& d, const Tensor& t) {
  if (!d && t.defined()) d = t.device().type;
}
inline void first_device(std::optional<DeviceType>& d, const std::optional<Tensor>& t) {
  if (t) first_device(d, *t);
}
inline void first_device(std::optional<DeviceType>& d, TensorList ts) {
  for (const Tensor& t : ts) first_device(d, t);
}
template <typename... Tensors>
std::optional<DeviceType> device_type_of(const Tensors&... tensors) {
  std::optional<DeviceType> d;
  (first_device(d, tensors), ...);
  return d;
}

// The dtype `policy` casts to on `device`; for Promote, the widest floating type among `tensors`.
ScalarType target_dtype(Policy policy, DeviceType device, const std::vector<Tensor>& tensors);
// Collects the tensor arguments Promote compares (others are ignored).
inline void collect(std::vector<Tensor>&) {}
template <typename T, typename... Rest>
void collect(std::vector<Tensor>& out, const T& arg, const Rest&... rest);

// A tensor argument cast to `dtype` if autocast casts it: floating, not float64, on `device`.
Tensor cast(const Tensor& t, DeviceType device, ScalarType dtype);
std::optional<Tensor> cast(const std::optional<Tensor>& t, DeviceType device, ScalarType dtype);
std::vector<Tensor> cast(TensorList ts, DeviceType device, ScalarType dtype);

template <typename T, typename... Rest>
void collect(std::vector<Tensor>& out, const T& arg, const Rest&... rest) {
  if constexpr (std::is_same_v<T, Tensor>) {
    out.push_back(arg);
  } else if constexpr (std::is_same_v<T, std::optional<Tensor>>) {
    if (arg) out.push_back(*arg);
  } else if constexpr (std::is_same_v<T, TensorList>) {
    out.insert(out.end(), arg.begin(), arg.end());
  }
  collect(out, rest...);
}

}  // namespace tl::autocast
