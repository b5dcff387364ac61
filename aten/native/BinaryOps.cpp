// Device-independent parts of binary ops: iterator set-up and the Scalar overloads, which
// wrap the number (Note [Wrapped numbers]) and call the Tensor overload.
#include "aten/native/BinaryOps.h"

#include "generated/NativeFunctions.h"

namespace tl::native {

TensorIterator binary_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other) {
  bool inplace = out.defined() && out.is_same(self);
  return TensorIteratorConfig().name(name).add_output(out).add_input(self).add_input(other).resize_outputs(!inplace).build();
}

void check_alpha(const char* name, ScalarType dtype, const Scalar& alpha) {
  TL_CHECK(!(is_integral(dtype, true) && alpha.is_floating_point()), name,
           ": for integral input tensors, argument alpha must not be a floating point number.");
  TL_CHECK(!(dtype == ScalarType::Bool && alpha.is_integral() && alpha.to_long() != 0 && alpha.to_long() != 1),
           name, ": boolean alpha only supported for Tensor[bool]");
}

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tl::add(self, wrapped_scalar_tensor(other), alpha);
}

Tensor add_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.add_(wrapped_scalar_tensor(other), alpha);
}

}  // namespace tl::native
