// The thread-local autocast state and the casts behind Note [Autocast].
#include "torchlite/csrc/autocast/autocast_mode.h"

#include <unordered_map>
#include <utility>

#include "generated/ops/to.h"
#include "torchlite/csrc/autograd/variable.h"

namespace tl::autocast {

namespace {

struct State {
  bool enabled[kNumDeviceTypes] = {};
  ScalarType dtype[kNumDeviceTypes] = {ScalarType::BFloat16, ScalarType::Half};  // CPU, CUDA: PyTorch's defaults
  bool excluded = false;
  bool cache_enabled = true;
  int64_t nesting = 0;
  // Casts of float32 leaf weights to the lower-precision dtype, kept for one autocast region so
  // that a weight used by several operators is cast once (cleared when the outermost region
  // exits). The source is held too, so its TensorImpl* key cannot be reused while cached.
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> cache;
};

thread_local State state;
thread_local bool active = false;  // some device enabled and not excluded: the fast check

void refresh_active() {
  bool any = false;
  for (bool e : state.enabled) any = any || e;
  active = any && !state.excluded;
}

int index(DeviceType device) { return static_cast<int>(device); }

bool castable(const Tensor& t, DeviceType device) {
  return t.defined() && t.device().type == device && is_floating_point(t.dtype()) && t.dtype() != ScalarType::Double;
}

}  // namespace

bool is_enabled(DeviceType device) { return state.enabled[index(device)]; }
void set_enabled(DeviceType device, bool enabled) {
  state.enabled[index(device)] = enabled;
  refresh_active();
}
ScalarType get_dtype(DeviceType device) { return state.dtype[index(device)]; }
void set_dtype(DeviceType device, ScalarType dtype) { state.dtype[index(device)] = dtype; }
bool is_cache_enabled() { return state.cache_enabled; }
void set_cache_enabled(bool enabled) { state.cache_enabled = enabled; }
void clear_cache() { state.cache.clear(); }
int64_t increment_nesting() { return ++state.nesting; }
int64_t decrement_nesting() { return --state.nesting; }
bool is_active() { return active; }

ExcludeGuard::ExcludeGuard() : prev_(state.excluded) {
  state.excluded = true;
  refresh_active();
}
ExcludeGuard::~ExcludeGuard() {
  state.excluded = prev_;
  refresh_active();
}

ScalarType target_dtype(Policy policy, DeviceType device, const std::vector<Tensor>& tensors) {
  switch (policy) {
    case Policy::LowerPrecisionFp:
      return get_dtype(device);
    case Policy::Fp32:
      return ScalarType::Float;
    case Policy::Promote: {
      std::optional<ScalarType> widest;
      for (const Tensor& t : tensors) {
        if (!castable(t, device)) continue;
        widest = widest ? promote_types(*widest, t.dtype()) : t.dtype();
      }
      return widest.value_or(get_dtype(device));
    }
    case Policy::None:
      break;
  }
  TL_CHECK(false, "autocast: no policy");
  return ScalarType::Float;
}

Tensor cast(const Tensor& t, DeviceType device, ScalarType dtype) {
  if (!castable(t, device) || t.dtype() == dtype) return t;
  const bool cacheable = state.cache_enabled && dtype == get_dtype(device) && t.dtype() == ScalarType::Float &&
                         autograd::requires_grad(t) && autograd::is_leaf(t);
  if (cacheable) {
    auto it = state.cache.find(t.impl());
    if (it != state.cache.end()) return it->second.second;
  }
  Tensor result = t.to(dtype, false, false, std::nullopt);
  if (cacheable) state.cache.emplace(t.impl(), std::make_pair(t, result));
  return result;
}

std::optional<Tensor> cast(const std::optional<Tensor>& t, DeviceType device, ScalarType dtype) {
  if (!t) return t;
  return cast(*t, device, dtype);
}

std::vector<Tensor> cast(TensorList ts, DeviceType device, ScalarType dtype) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(cast(t, device, dtype));
  return out;
}

}  // namespace tl::autocast
