#pragma once
// Note [Forward AD]: forward-mode automatic differentiation (dual tensors).
// While a dual level is open, a tensor may carry a tangent (AutogradMeta::fw_grad_), stamped
// with the id of the level it was set in. Each generated autograd wrapper (VariableType) whose
// differentiable inputs carry tangents computes the output's tangent from the forward formula
// of derivatives.yaml (`result: ...`) and stamps it on the output. As in PyTorch only one level
// may be open at a time; exiting it drops the tangents set in it (the level keeps weak
// references to those tensors), and a stale stamp is never seen again.
// Tangent formulas run under FormulaGuard, so the ops they call (which see the primal inputs,
// still dual) do not compute tangents of their own; they do record backward history, which
// keeps forward-over-reverse (jacfwd(jacrev(f))) working.
#include <atomic>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "torchlite/csrc/autograd/variable.h"

namespace tl::autograd::forward_ad {

// The open level's id, 0 while none is open: the one load the operator fast path pays.
extern std::atomic<uint64_t> g_level_id;
inline bool level_open() { return g_level_id.load(std::memory_order_relaxed) != 0; }

// False on this thread while a tangent formula runs.
bool formula_running();
class FormulaGuard {
 public:
  FormulaGuard();
  ~FormulaGuard();
  FormulaGuard(const FormulaGuard&) = delete;
  FormulaGuard& operator=(const FormulaGuard&) = delete;

 private:
  bool prev_;
};

int64_t enter_level();
void exit_level(int64_t level);

// The tangent of t at the open level, or an undefined tensor.
Tensor fw_grad(const Tensor& t);
// Sets (or, with an undefined tangent, clears) t's tangent at the open level.
void set_fw_grad(const Tensor& t, const Tensor& tangent);
void set_fw_grad(const std::vector<Tensor>& ts, const std::vector<Tensor>& tangents);
// The tangent of `self` after an in-place op, as PyTorch keeps it: written into self's tangent
// (so the tangents of views of self follow), or for a view without one, into the matching
// region of its base's tangent (made of zeros if the base has none).
void set_fw_grad_inplace(const Tensor& self, const Tensor& tangent);

inline bool has_fw_grad(const Tensor& t) {
  if (!t.defined()) return false;
  const uint64_t id = g_level_id.load(std::memory_order_relaxed);
  auto* m = get_meta(t);
  return id != 0 && m != nullptr && m->fw_grad_level_id_ == id;
}
inline bool has_fw_grad(const std::optional<Tensor>& t) { return t.has_value() && has_fw_grad(*t); }
inline bool has_fw_grad(TensorList ts) {
  for (const Tensor& t : ts)
    if (has_fw_grad(t)) return true;
  return false;
}
inline bool has_fw_grad(const std::vector<Tensor>& ts) { return has_fw_grad(TensorList(ts)); }
inline bool has_fw_grad(const std::vector<std::optional<Tensor>>& ts) {
  for (const auto& t : ts)
    if (has_fw_grad(t)) return true;
  return false;
}
template <typename T>
inline bool has_fw_grad(const T&) {
  return false;
}

// True if a level is open, no tangent formula is running on this thread and a tensor argument
// carries a tangent; non-tensor arguments are ignored, like any_requires_grad.
template <typename... Args>
inline bool any_fw_grad(const Args&... args) {
  if (!level_open()) return false;
  if (formula_running()) return false;
  return (has_fw_grad(args) || ...);
}

// A tangent formula's view of an input's tangent: zeros where the input carries none.
Tensor fw_grad_or_zeros(const Tensor& t);
std::optional<Tensor> fw_grad_or_zeros(const std::optional<Tensor>& t);
std::vector<Tensor> fw_grad_or_zeros(TensorList ts);

// PyTorch's error for an op that has no forward formula (NotImplementedError).
[[noreturn]] void throw_not_supported(const char* op, const char* why = "");

// A view of `primal` carrying `tangent` at `level`; differentiable in `primal` for backward.
Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level);
// (a view of t without its tangent, its tangent or an undefined tensor).
std::tuple<Tensor, Tensor> unpack_dual(const Tensor& t, int64_t level);

}  // namespace tl::autograd::forward_ad
