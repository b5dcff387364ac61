// Device-independent parts of unary ops and clamp: iterator set-up, clamp's dtype rule, and
// the composites clamp_min / clamp_max.
#include "aten/native/UnaryOps.h"

#include <vector>

#include "generated/NativeFunctions.h"

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
