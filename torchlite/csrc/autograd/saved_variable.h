#pragma once
// Note [SavedVariable]: a tensor a backward formula needs, saved at forward time together
// with its version counter value. If the tensor is modified in place before backward, unpack
// raises instead of computing a wrong gradient. A saved *output* of the node is stored without
// its grad_fn (which is the node itself: keeping it would be a reference cycle) and gets it
// back at unpack time.
#include <memory>
#include <string>

#include "torchlite/csrc/autograd/function.h"

namespace tl::autograd {

// Note [Saved tensor hooks]: under torchlite.autograd.graph.saved_tensors_hooks, a saved tensor
// is handed to the pack hook at forward time and only what it returns is kept; backward gets
// the tensor back from the unpack hook. One object holds the pair and the packed value.
struct SavedVariableHooks {
  virtual ~SavedVariableHooks() = default;
  virtual void call_pack_hook(const Tensor& t) = 0;
  virtual Tensor call_unpack_hook() = 0;
};

// The innermost saved_tensors_hooks of this thread as a fresh hooks object, or null when there
// is none; installed by the Python bindings.
using DefaultSavedVariableHooks = std::unique_ptr<SavedVariableHooks> (*)();
void set_default_saved_variable_hooks(DefaultSavedVariableHooks f);

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  SavedVariable(const std::optional<Tensor>& t, bool is_output)
      : SavedVariable(t.has_value() ? *t : Tensor(), is_output) {}

  // `saved_for` is the node that saved this variable (needed to restore a saved output's
  // history).
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  void reset_data();
  // grad_fn._raw_saved_<name>.register_hooks: hooks for this one saved tensor.
  void register_hooks(std::unique_ptr<SavedVariableHooks> hooks);
  bool was_default_constructed() const { return was_default_constructed_; }

 private:
  Tensor restore_history(Tensor data, const std::shared_ptr<Node>& saved_for) const;
  void restore_fw_grad(const Tensor& out) const;
  void pack_with(std::unique_ptr<SavedVariableHooks> hooks, const Tensor& t);

  Tensor data_;  // undefined while hooks_ hold the packed value
  // A saved output's tangent and its level (Note [Forward AD]): the output is saved detached,
  // and forward over reverse needs the unpacked output to carry the tangent again.
  Tensor fw_grad_;
  uint64_t fw_grad_level_id_ = 0;
  std::shared_ptr<SavedVariableHooks> hooks_;
  std::shared_ptr<Node> input_grad_fn_;  // history a packed non-leaf input gets back
  std::weak_ptr<Node> grad_accumulator_;
  std::string grad_fn_name_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_default_constructed_ = true;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

inline std::vector<SavedVariable> make_saved_list(TensorList ts, bool is_output) {
  std::vector<SavedVariable> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.emplace_back(t, is_output);
  return out;
}
// A `Tensor?[]` argument (advanced indexing): None is saved as an undefined tensor.
inline std::vector<SavedVariable> make_saved_list(const std::vector<std::optional<Tensor>>& ts, bool is_output) {
  std::vector<SavedVariable> out;
  out.reserve(ts.size());
  for (const std::optional<Tensor>& t : ts) out.emplace_back(t, is_output);
  return out;
}
std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& vs, const std::shared_ptr<Node>& saved_for);

// The message of a backward through freed saved tensors.
extern const char* const kBackwardTwiceMessage;

}  // namespace tl::autograd
