#include "torchlite/csrc/autograd/saved_variable.h"

#include "generated/ops/empty.h"
#include "torchlite/csrc/autograd/forward_ad.h"
#include "torchlite/csrc/autograd/variable.h"

namespace tl::autograd {

const char* const kBackwardTwiceMessage =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward.";

namespace {
DefaultSavedVariableHooks default_hooks = nullptr;
}  // namespace

void set_default_saved_variable_hooks(DefaultSavedVariableHooks f) { default_hooks = f; }

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  was_default_constructed_ = false;
  saved_version_ = t._version();
  is_output_ = is_output;
  requires_grad_ = requires_grad(t);
  output_nr_ = output_nr(t);
  const auto& fn = grad_fn(t);
  if (fn) grad_fn_name_ = fn->name();
  if (is_output && !is_leaf(t)) {
    // Note [SavedVariable]: keep the data, not the grad_fn (this very node).
    data_ = make_detached(t);
    if (forward_ad::has_fw_grad(t)) {
      fw_grad_ = make_detached(forward_ad::fw_grad(t));  // its history would hold this node: a cycle
      fw_grad_level_id_ = forward_ad::g_level_id.load();
    }
  } else {
    data_ = t;
    if (requires_grad_ && !fn) grad_accumulator_ = grad_accumulator(t);
  }
  if (!is_output && fn) input_grad_fn_ = fn;
  std::unique_ptr<SavedVariableHooks> hooks = default_hooks ? default_hooks() : nullptr;
  if (hooks) pack_with(std::move(hooks), t);
}

// Note [Saved tensor hooks]: the pack hook sees the tensor as the forward made it; what the
// graph keeps is its result (and enough to give the unpacked tensor its history back).
void SavedVariable::pack_with(std::unique_ptr<SavedVariableHooks> hooks, const Tensor& t) {
  hooks_ = std::move(hooks);
  uint32_t version = t._version();
  {
    NoGradGuard no_grad;
    hooks_->call_pack_hook(t);
  }
  TL_CHECK(t._version() == version, "A saved tensor pack hook is modifying its input in place. Tensors provided "
           "as input to pack hook cannot be modified by in-place operations as this can lead to unexpected "
           "side-effects. Please open an issue if you need to perform in-place operations on the input to a pack "
           "hook.");
  data_ = Tensor();
}

void SavedVariable::register_hooks(std::unique_ptr<SavedVariableHooks> hooks) {
  TL_CHECK(!released_, "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
           "of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you "
           "need to backward through the graph a second time or if you need to access saved variables after calling "
           "backward.");
  TL_CHECK(!hooks_, "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair "
           "of hooks is allowed at a time.");
  TL_CHECK(!was_default_constructed_, "Calling register_hooks on a saved tensor with value None is forbidden");
  pack_with(std::move(hooks), data_);
}

void SavedVariable::restore_fw_grad(const Tensor& out) const {
  if (fw_grad_.defined() && fw_grad_level_id_ == forward_ad::g_level_id.load()) forward_ad::set_fw_grad(out, fw_grad_);
}

Tensor SavedVariable::restore_history(Tensor data, const std::shared_ptr<Node>& saved_for) const {
  if (!requires_grad_ || (!is_output_ && requires_grad(data))) return data;
  Tensor out = make_detached(data);
  restore_fw_grad(out);
  AutogradMeta* m = materialize_meta(out);
  if (is_output_ || input_grad_fn_) {
    m->grad_fn_ = is_output_ ? saved_for : input_grad_fn_;
    m->output_nr_ = output_nr_;
  } else {
    m->requires_grad_ = true;
    m->grad_accumulator_ = grad_accumulator_;
  }
  return out;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (released_) TL_ERROR(kBackwardTwiceMessage);
  if (was_default_constructed_) return Tensor();
  // A packed tensor is the hooks' business: PyTorch checks no version for it either.
  if (hooks_) return restore_history(hooks_->call_unpack_hook(), saved_for);
  if (saved_version_ != data_._version()) {
    std::ostringstream os;
    os << "one of the variables needed for gradient computation has been modified by an inplace operation: ["
       << type_name(data_) << " " << data_.sizes() << "]";
    if (!grad_fn_name_.empty()) os << ", which is output " << output_nr_ << " of " << grad_fn_name_ << ",";
    os << " is at version " << data_._version() << "; expected version " << saved_version_
       << " instead. Hint: the backtrace further above shows the operation that failed to compute its "
          "gradient. The variable in question was changed in there or anywhere later. Good luck!";
    TL_ERROR(os.str());
  }
  if (!is_output_ || !requires_grad_ || get_meta(data_) != nullptr) return data_;
  // A saved output: give it its history back (the node that saved it).
  if (saved_for) return restore_history(data_, saved_for);
  Tensor out = make_detached(data_);
  restore_fw_grad(out);
  return out;
}

void SavedVariable::reset_data() {
  if (was_default_constructed_) return;
  data_ = Tensor();
  fw_grad_ = Tensor();
  hooks_.reset();
  released_ = true;
}

std::vector<Tensor> unpack_list(const std::vector<SavedVariable>& vs, const std::shared_ptr<Node>& saved_for) {
  std::vector<Tensor> out;
  out.reserve(vs.size());
  for (const auto& v : vs) out.push_back(v.unpack(saved_for));
  return out;
}

}  // namespace tl::autograd
