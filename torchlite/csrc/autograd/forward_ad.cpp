#include "torchlite/csrc/autograd/forward_ad.h"

#include <memory>
#include <mutex>
#include <sstream>

#include "generated/ops/as_strided.h"
#include "generated/ops/clone.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty_strided.h"
#include "generated/ops/zero.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::forward_ad {

std::atomic<uint64_t> g_level_id{0};

namespace {
// Ids are never reused, so a tangent stamped in a closed level never matches a later one.
std::atomic<uint64_t> next_level_id{1};
thread_local bool tls_formula_running = false;

// The tensors given a tangent in the open level. Exiting the level drops their tangents: a
// tangent's backward graph may hold its own primal (exp's tangent is result * self_t), and
// only dropping it breaks that cycle.
std::mutex level_tensors_mutex;
std::vector<std::weak_ptr<TensorImpl>> level_tensors;

void remember(const Tensor& t) {
  std::lock_guard<std::mutex> lock(level_tensors_mutex);
  if (level_tensors.size() == level_tensors.capacity() && level_tensors.size() >= 1024) {
    std::erase_if(level_tensors, [](const std::weak_ptr<TensorImpl>& w) { return w.expired(); });
  }
  level_tensors.push_back(t.impl_ptr());
}

std::string sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

void check_level(int64_t level) {
  TL_CHECK(level == 0 && level_open(), "Trying to use forward AD level ", level,
           " that does not exist or has been exited.");
}

// An alias of t with t's geometry that records backward history but gets no tangent.
Tensor alias_without_tangent(const Tensor& t) {
  FormulaGuard no_fw;
  return tl::as_strided(t, t.sizes(), t.strides(), t.storage_offset());
}
}  // namespace

bool formula_running() { return tls_formula_running; }

FormulaGuard::FormulaGuard() : prev_(tls_formula_running) { tls_formula_running = true; }
FormulaGuard::~FormulaGuard() { tls_formula_running = prev_; }

int64_t enter_level() {
  TL_CHECK(!level_open(), "Nested forward mode AD is not supported at the moment");
  g_level_id.store(next_level_id.fetch_add(1));
  return 0;
}

void exit_level(int64_t level) {
  check_level(level);
  g_level_id.store(0);
  std::vector<std::weak_ptr<TensorImpl>> tensors;
  {
    std::lock_guard<std::mutex> lock(level_tensors_mutex);
    tensors.swap(level_tensors);
  }
  for (const auto& w : tensors) {
    if (auto impl = w.lock()) {
      if (auto* m = static_cast<AutogradMeta*>(impl->autograd_meta())) {
        m->fw_grad_ = Tensor();
        m->fw_grad_level_id_ = 0;
      }
    }
  }
}

Tensor fw_grad(const Tensor& t) {
  if (!has_fw_grad(t)) return Tensor();
  return get_meta(t)->fw_grad_;
}

void set_fw_grad(const Tensor& t, const Tensor& tangent) {
  if (!t.defined()) return;
  if (!tangent.defined() || !is_differentiable_type(t.dtype())) {
    if (auto* m = get_meta(t)) {
      m->fw_grad_ = Tensor();
      m->fw_grad_level_id_ = 0;
    }
    return;
  }
  TL_CHECK(tangent.sizes().equals(t.sizes()), "Trying to set a forward gradient that has a different size than that of "
           "the original Tensor, this is not supported. Tensor is of size ", sizes_str(t.sizes()),
           " while the given forward gradient is of size ", sizes_str(tangent.sizes()), ".");
  AutogradMeta* m = materialize_meta(t);
  const uint64_t id = g_level_id.load(std::memory_order_relaxed);
  if (m->fw_grad_level_id_ != id) remember(t);
  m->fw_grad_ = tangent;
  m->fw_grad_level_id_ = id;
}

void set_fw_grad(const std::vector<Tensor>& ts, const std::vector<Tensor>& tangents) {
  for (size_t i = 0; i < ts.size() && i < tangents.size(); ++i) set_fw_grad(ts[i], tangents[i]);
}

void set_fw_grad_inplace(const Tensor& self, const Tensor& tangent) {
  if (!self.defined() || !tangent.defined() || !is_differentiable_type(self.dtype())) return;
  if (Tensor current = fw_grad(self); current.defined()) {
    current.copy_(tangent);
    return;
  }
  AutogradMeta* m = get_meta(self);
  if (m == nullptr || !m->is_view_ || !m->base_.defined()) {
    set_fw_grad(self, tangent.clone());  // self's own memory: later in-place ops write into it
    return;
  }
  const Tensor& base = m->base_;
  Tensor base_t = fw_grad(base);
  if (!base_t.defined() || !base_t.strides().equals(base.strides())) {
    Tensor laid_out = tl::empty_strided(base.sizes(), base.strides(), base.dtype(), std::nullopt, base.device());
    base_t = base_t.defined() ? laid_out.copy_(base_t) : laid_out.zero_();
    set_fw_grad(base, base_t);
  }
  Tensor region = tl::as_strided(base_t, self.sizes(), self.strides(),
                                 base_t.storage_offset() + self.storage_offset() - base.storage_offset());
  region.copy_(tangent);
  set_fw_grad(self, region);
}

Tensor fw_grad_or_zeros(const Tensor& t) {
  Tensor g = fw_grad(t);
  return g.defined() ? g : tl::zeros_like(t);
}

std::optional<Tensor> fw_grad_or_zeros(const std::optional<Tensor>& t) {
  if (!t.has_value() || !t->defined()) return t;
  return fw_grad_or_zeros(*t);
}

std::vector<Tensor> fw_grad_or_zeros(TensorList ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(fw_grad_or_zeros(t));
  return out;
}

void throw_not_supported(const char* op, const char* why) {
  TL_NOT_IMPLEMENTED("Trying to use forward AD with ", op, " that does not support it", why, ".");
}

Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level) {
  check_level(level);
  TL_CHECK(!has_fw_grad(primal), "Making a dual Tensor based on a Tensor that already has a forward gradient at "
           "the same level ", level, " is not supported.");
  TL_CHECK(tangent.dtype() == primal.dtype(), "Expected tangent to have the same dtype as primal, but got ",
           type_name(tangent), " and ", type_name(primal), ".");
  TL_CHECK(tangent.device() == primal.device(), "Expected tangent to be on the same device as primal.");
  Tensor dual = alias_without_tangent(primal);
  set_fw_grad(dual, tangent);
  return dual;
}

std::tuple<Tensor, Tensor> unpack_dual(const Tensor& t, int64_t level) {
  check_level(level);
  return {alias_without_tangent(t), fw_grad(t)};
}

}  // namespace tl::autograd::forward_ad
