#pragma once
// Autograd state of a tensor (Note [Autograd graph]) and the helpers the generated autograd
// wrappers (VariableType) use: requires_grad checks, next edges, set/rebase history.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "torchlite/csrc/autograd/function.h"
#include "torchlite/csrc/autograd/grad_mode.h"

namespace tl::autograd {

// Lives in TensorImpl's autograd_meta slot; created lazily, so tensors that never touch
// autograd carry a null pointer and cost nothing.
struct AutogradMeta final : AutogradMetaInterface {
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  std::weak_ptr<Node> grad_accumulator_;
  // Hooks of a leaf (run by its AccumulateGrad); a non-leaf's hooks live on its grad_fn.
  std::vector<std::pair<int, Node::TensorHook>> hooks_;
  // Tensor.register_post_accumulate_grad_hook: run with the leaf after .grad is updated.
  std::vector<std::pair<int, std::function<void(const Tensor&)>>> post_acc_grad_hooks_;
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;  // the leaf flag; a non-leaf requires grad through grad_fn_
  bool retains_grad_ = false;
  // Set on outputs of view ops recorded by autograd: the tensor they view.
  bool is_view_ = false;
  Tensor base_;
  // Forward-mode tangent and the dual level it belongs to (Note [Forward AD] in forward_ad.h).
  Tensor fw_grad_;
  uint64_t fw_grad_level_id_ = 0;

  bool requires_grad() const { return requires_grad_ || grad_fn_ != nullptr; }
};

inline AutogradMeta* get_meta(const Tensor& t) {
  // Only this layer ever installs an AutogradMeta, so the downcast is safe.
  return static_cast<AutogradMeta*>(t.impl()->autograd_meta());
}
AutogradMeta* materialize_meta(const Tensor& t);

inline bool requires_grad(const Tensor& t) {
  if (!t.defined()) return false;
  auto* m = get_meta(t);
  return m != nullptr && m->requires_grad();
}
inline bool requires_grad(const std::optional<Tensor>& t) { return t.has_value() && requires_grad(*t); }
inline bool requires_grad(TensorList ts) {
  for (const Tensor& t : ts)
    if (requires_grad(t)) return true;
  return false;
}
inline bool requires_grad(const std::vector<std::optional<Tensor>>& ts) {
  for (const auto& t : ts)
    if (requires_grad(t)) return true;
  return false;
}
inline bool requires_grad(const std::vector<Tensor>& ts) { return requires_grad(TensorList(ts)); }
template <typename T>
inline bool requires_grad(const T&) {
  return false;
}

// Note [Autograd fast path]: true if any tensor argument requires grad. Non-tensor
// arguments are ignored, so generated code can pass a whole argument list.
template <typename... Args>
inline bool any_requires_grad(const Args&... args) {
  return (requires_grad(args) || ...);
}
inline bool any_requires_grad() { return false; }

inline bool is_differentiable_type(ScalarType t) { return is_floating_point(t) || is_complex(t); }

const std::shared_ptr<Node>& grad_fn(const Tensor& t);  // null for leaves and plain tensors
bool is_leaf(const Tensor& t);
uint32_t output_nr(const Tensor& t);
// The AccumulateGrad of a leaf that requires grad, created on first use.
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
// Where a gradient for `t` goes: its grad_fn, its AccumulateGrad, or nowhere.
Edge gradient_edge(const Tensor& t);

inline void collect_edge(edge_list& out, const Tensor& t) { out.push_back(gradient_edge(t)); }
inline void collect_edge(edge_list& out, const std::optional<Tensor>& t) {
  out.push_back(t.has_value() ? gradient_edge(*t) : Edge());
}
inline void collect_edge(edge_list& out, TensorList ts) {
  for (const Tensor& t : ts) out.push_back(gradient_edge(t));
}
template <typename... Args>
edge_list collect_next_edges(const Args&... args) {
  edge_list out;
  (collect_edge(out, args), ...);
  return out;
}

// Makes `t` (a fresh output of the op `fn` backs) output number `fn->num_inputs()` of fn.
// Outputs of non-differentiable dtype (integers, bool) get no history.
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, bool differentiable = true);
void set_history(const std::vector<Tensor>& ts, const std::shared_ptr<Node>& fn, bool differentiable = true);
// In-place: `t` was modified by the op `fn` backs and now has that op as its history.
void rebase_history(const Tensor& t, const std::shared_ptr<Node>& fn);
// Marks `view` (output of a view op) as a view of `base` for in-place checks.
void as_view(const Tensor& base, const Tensor& view);
void as_view(const Tensor& base, const std::vector<Tensor>& views);
inline void as_view(const Tensor&, const std::tuple<>&) {}

// The errors of in-place ops on leaves that require grad (and views of them).
void check_inplace(const Tensor& t);
inline void check_inplace(const std::optional<Tensor>& t) {
  if (t) check_inplace(*t);
}
// Raises if a tensor the op is not differentiable in requires grad.
void check_no_requires_grad(const Tensor& t, const char* arg, const char* op);
void check_no_requires_grad(const std::optional<Tensor>& t, const char* arg, const char* op);
void check_no_requires_grad(TensorList t, const char* arg, const char* op);
[[noreturn]] void throw_error_out_requires_grad(const char* op);

// requires_grad_ on a leaf; errors on non-leaves and non-floating dtypes.
void set_requires_grad(const Tensor& t, bool requires_grad);
// A tensor sharing t's storage and geometry, with no autograd history (detach()).
Tensor make_detached(const Tensor& t);
void detach_inplace(const Tensor& t);

inline bool any_defined(const variable_list& v) {
  for (const Tensor& t : v)
    if (t.defined()) return true;
  return false;
}
// Replaces undefined incoming gradients of a multi-output node by zeros.
void materialize_grads(const Node& n, variable_list& grads);

// Python-style type name for messages: torchlite.FloatTensor
std::string type_name(const Tensor& t);

}  // namespace tl::autograd
