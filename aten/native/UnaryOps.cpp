// Device-independent parts of unary ops and clamp: iterator set-up, the kernels with checks
// before their stub (Note [Stubs]), clamp's dtype rule, and the composites clamp_min /
// clamp_max.
#include "aten/native/UnaryOps.h"

#include <vector>

#include "generated/Stubs.h"
#include "generated/ops/clamp.h"
#include "generated/ops/clamp_max.h"
#include "generated/ops/clamp_max_native.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clamp_min_native.h"
#include "generated/ops/clamp_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/nan_to_num.h"
#include "generated/ops/nan_to_num_native.h"
#include "generated/ops/neg.h"
#include "generated/ops/neg_native.h"
#include "generated/ops/relu.h"
#include "generated/ops/relu_native.h"

namespace tl::native {

namespace {

TensorIteratorConfig unary_config(const char* name, const Tensor& out, const Tensor& self) {
  bool inplace = out.defined() && out.is_same(self);
  TensorIteratorConfig c;
  c.name(name).add_output(out).add_input(self).resize_outputs(!inplace);
  return c;
}

}  // namespace

TensorIterator unary_op_iter(const char* name, const Tensor& out, const Tensor& self) {
  return unary_config(name, out, self).build();
}

TensorIterator unary_to_real_op_iter(const char* name, const Tensor& out, const Tensor& self) {
  if (!is_complex(self.dtype())) return unary_op_iter(name, out, self);
  TL_CHECK(!out.defined() || !out.is_same(self), "In-place ", name, " is not supported for complex tensors.");
  return unary_config(name, out, self).output_dtype(to_real_type(self.dtype())).build();
}

TensorIterator unary_float_op_iter(const char* name, const Tensor& out, const Tensor& self) {
  return unary_config(name, out, self).promote_integer_inputs_to_float(true).build();
}

TensorIterator unary_bool_op_iter(const char* name, const Tensor& out, const Tensor& self) {
  return unary_config(name, out, self).output_dtype(ScalarType::Bool).build();
}

TensorIterator unary_op_iter_with_dtype(const char* name, const Tensor& out, const Tensor& self, ScalarType dtype) {
  return unary_config(name, out, self).common_dtype(dtype).build();
}

ScalarType clamp_result_type(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  TL_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  if (is_floating_point(self.dtype())) return self.dtype();
  std::vector<Tensor> operands{self};
  if (min) operands.push_back(wrapped_scalar_tensor(*min));
  if (max) operands.push_back(wrapped_scalar_tensor(*max));
  return result_type(operands);
}

Tensor clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
                 const Tensor& out) {
  TensorIterator iter = unary_op_iter_with_dtype("clamp", out, self, clamp_result_type(self, min, max));
  clamp_stub(iter.device().type, iter, min, max);
  return iter.output();
}

Tensor neg_out(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool,
           "Negation, the `-` operator, on a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  TensorIterator iter = unary_op_iter("neg", out, self);
  neg_stub(iter.device().type, iter);
  return iter.output();
}

namespace {

Tensor relu_into(const Tensor& self, const Tensor& out) {
  TL_CHECK(self.dtype() != ScalarType::Bool, "Boolean inputs not supported for relu");
  TensorIterator iter = unary_op_iter("relu", out, self);
  relu_stub(iter.device().type, iter);
  return iter.output();
}

}  // namespace

Tensor relu(const Tensor& self) { return relu_into(self, Tensor()); }
Tensor relu_(const Tensor& self) { return relu_into(self, self); }

// Integer tensors hold no NaN or infinity: the result is a copy.
Tensor nan_to_num_out(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                      std::optional<double> neginf, const Tensor& out) {
  TensorIterator iter = unary_op_iter("nan_to_num", out, self);
  if (is_integral(iter.common_dtype(), true)) {
    iter.output().copy_(self);
    return iter.output();
  }
  nan_to_num_stub(iter.device().type, iter, nan, posinf, neginf);
  return iter.output();
}

Tensor clamp_min(const Tensor& self, const Scalar& min) { return tl::clamp(self, min, std::nullopt); }
Tensor clamp_min_(const Tensor& self, const Scalar& min) { return tl::clamp_(self, min, std::nullopt); }
Tensor clamp_min(const Tensor& self, const Scalar& min, const Tensor& out) {
  return tl::clamp_out(out, self, min, std::nullopt);
}
Tensor clamp_max(const Tensor& self, const Scalar& max) { return tl::clamp(self, std::nullopt, max); }
Tensor clamp_max_(const Tensor& self, const Scalar& max) { return tl::clamp_(self, std::nullopt, max); }
Tensor clamp_max(const Tensor& self, const Scalar& max, const Tensor& out) {
  return tl::clamp_out(out, self, std::nullopt, max);
}

}  // namespace tl::native
