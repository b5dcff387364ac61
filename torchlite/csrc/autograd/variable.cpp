#include "torchlite/csrc/autograd/variable.h"

#include "aten/core/Tensor.h"
#include "generated/ops/as_strided.h"
#include "generated/ops/zeros.h"
#include "torchlite/csrc/autograd/anomaly_mode.h"

namespace tl::autograd {

AutogradMeta* materialize_meta(const Tensor& t) {
  TL_CHECK(t.defined(), "autograd: undefined tensor");
  auto* m = get_meta(t);
  if (m == nullptr) {
    t.impl()->set_autograd_meta(std::make_unique<AutogradMeta>());
    m = get_meta(t);
  }
  return m;
}

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> none;
  auto* m = t.defined() ? get_meta(t) : nullptr;
  return m ? m->grad_fn_ : none;
}

bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }

uint32_t output_nr(const Tensor& t) {
  auto* m = t.defined() ? get_meta(t) : nullptr;
  return m ? m->output_nr_ : 0;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  auto* m = get_meta(t);
  if (m == nullptr || !m->requires_grad_ || m->grad_fn_) return nullptr;
  if (auto acc = m->grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m->grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return Edge();
  auto* m = get_meta(t);
  if (m == nullptr) return Edge();
  if (m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  if (m->requires_grad_) return Edge(grad_accumulator(t), 0);
  return Edge();
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, bool differentiable) {
  if (fn->num_inputs() == 0) record_node_creation(fn);  // its first output: the node is new
  if (!t.defined()) {
    fn->add_input_metadata_undefined();
    return;
  }
  if (!differentiable || !is_differentiable_type(t.dtype())) {
    fn->add_input_metadata_undefined();
    return;
  }
  AutogradMeta* m = materialize_meta(t);
  m->output_nr_ = fn->add_input_metadata(t);
  m->grad_fn_ = fn;
}

void set_history(const std::vector<Tensor>& ts, const std::shared_ptr<Node>& fn, bool differentiable) {
  for (const Tensor& t : ts) set_history(t, fn, differentiable);
}

void rebase_history(const Tensor& t, const std::shared_ptr<Node>& fn) {
  if (fn->num_inputs() == 0) record_node_creation(fn);
  if (!is_differentiable_type(t.dtype())) {
    fn->add_input_metadata_undefined();
    return;
  }
  AutogradMeta* m = materialize_meta(t);
  if (m->is_view_ && m->base_.defined()) {
    // Note [In-place on a view]: the base gets the new history; the view becomes a view of
    // the updated base again.
    Tensor base = m->base_;
    auto copy_slices = std::make_shared<CopySlices>(base, t, fn);
    fn->add_input_metadata(t);
    AutogradMeta* bm = materialize_meta(base);
    bm->requires_grad_ = false;
    bm->output_nr_ = copy_slices->add_input_metadata(base);
    bm->grad_fn_ = copy_slices;
    bm->grad_accumulator_.reset();
    Tensor fresh = [&] {
      AutoGradMode grad_on(true);
      return tl::as_strided(base, t.sizes(), t.strides(), t.storage_offset());
    }();
    m->grad_fn_ = grad_fn(fresh);
    m->output_nr_ = 0;
    m->requires_grad_ = false;
    return;
  }
  m->requires_grad_ = false;
  m->output_nr_ = fn->add_input_metadata(t);
  m->grad_fn_ = fn;
  m->grad_accumulator_.reset();
}

void as_view(const Tensor& base, const Tensor& view) {
  if (!view.defined()) return;
  AutogradMeta* m = materialize_meta(view);
  m->is_view_ = true;
  auto* bm = get_meta(base);
  m->base_ = bm && bm->is_view_ && bm->base_.defined() ? bm->base_ : base;
}

void as_view(const Tensor& base, const std::vector<Tensor>& views) {
  for (const Tensor& v : views) as_view(base, v);
}

void check_inplace(const Tensor& t) {
  if (!t.defined() || !GradMode::is_enabled()) return;
  auto* m = get_meta(t);
  if (m == nullptr) return;
  if (m->is_view_ && m->base_.defined() && requires_grad(m->base_) && is_leaf(m->base_)) {
    TL_ERROR("a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  if (m->requires_grad_ && !m->grad_fn_) {
    TL_ERROR("a leaf Variable that requires grad is being used in an in-place operation.");
  }
}

void check_no_requires_grad(const Tensor& t, const char* arg, const char* op) {
  TL_CHECK(!requires_grad(t), "The function '", op, "' is not differentiable with respect to argument '", arg,
           "'. This input cannot have requires_grad True.");
}
void check_no_requires_grad(const std::optional<Tensor>& t, const char* arg, const char* op) {
  if (t) check_no_requires_grad(*t, arg, op);
}
void check_no_requires_grad(TensorList ts, const char* arg, const char* op) {
  for (const Tensor& t : ts) check_no_requires_grad(t, arg, op);
}

void throw_error_out_requires_grad(const char* op) {
  TL_ERROR(op, "(): functions with out=... arguments don't support automatic differentiation, but one of the "
               "arguments requires grad.");
}

void set_requires_grad(const Tensor& t, bool value) {
  auto* m = get_meta(t);
  if (m != nullptr && m->grad_fn_) {
    TL_CHECK(value, "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return;
  }
  if (value) {
    TL_CHECK(is_differentiable_type(t.dtype()),
             "only Tensors of floating point dtype can require gradients");
    materialize_meta(t)->requires_grad_ = true;
  } else if (m != nullptr) {
    m->requires_grad_ = false;
    m->grad_accumulator_.reset();
  }
}

Tensor make_detached(const Tensor& t) {
  TensorImpl* i = t.impl();
  return Tensor::make(i->storage(), i->dtype(), i->sizes().vec(), i->strides().vec(), i->storage_offset());
}

void detach_inplace(const Tensor& t) {
  auto* m = get_meta(t);
  if (m == nullptr) return;
  TL_CHECK(!m->is_view_ || !m->base_.defined() || !requires_grad(m->base_),
           "Can't detach views in-place. Use detach() instead.");
  m->grad_fn_.reset();
  m->requires_grad_ = false;
  m->output_nr_ = 0;
  m->grad_accumulator_.reset();
}

void materialize_grads(const Node& n, variable_list& grads) {
  for (size_t i = 0; i < grads.size() && i < n.num_inputs(); ++i) {
    if (!grads[i].defined() && n.input_metadata(i).defined) grads[i] = n.input_metadata(i).zeros();
  }
}

std::string type_name(const Tensor& t) {
  const char* n = "Float";
  switch (t.dtype()) {
    case ScalarType::Bool: n = "Bool"; break;
    case ScalarType::Byte: n = "Byte"; break;
    case ScalarType::Char: n = "Char"; break;
    case ScalarType::Short: n = "Short"; break;
    case ScalarType::Int: n = "Int"; break;
    case ScalarType::Long: n = "Long"; break;
    case ScalarType::Half: n = "Half"; break;
    case ScalarType::BFloat16: n = "BFloat16"; break;
    case ScalarType::Float: n = "Float"; break;
    case ScalarType::Double: n = "Double"; break;
    case ScalarType::ComplexFloat: n = "ComplexFloat"; break;
    case ScalarType::ComplexDouble: n = "ComplexDouble"; break;
  }
  return std::string(t.is_cuda() ? "torchlite.cuda." : "torchlite.") + n + "Tensor";
}

}  // namespace tl::autograd
