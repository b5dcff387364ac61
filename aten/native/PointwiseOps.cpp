// Device-independent parts of the pointwise math ops: the ternary iterator, argument checks,
// the kernels with checks before their stubs (Note [Stubs]), and the composites fmod.Scalar
// and clamp with tensor bounds.
#include "aten/native/PointwiseOps.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "aten/core/Tensor.h"
#include "aten/native/BinaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/addcdiv.h"
#include "generated/ops/addcdiv_native.h"
#include "generated/ops/addcmul.h"
#include "generated/ops/addcmul_native.h"
#include "generated/ops/clamp.h"
#include "generated/ops/clamp_max.h"
#include "generated/ops/clamp_max_native.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clamp_min_native.h"
#include "generated/ops/clamp_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/fmod.h"
#include "generated/ops/fmod_native.h"
#include "generated/ops/lerp_native.h"
#include "generated/ops/maximum.h"
#include "generated/ops/minimum.h"

namespace tl::native {

TensorIterator ternary_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& a,
                               const Tensor& b) {
  return TensorIteratorConfig()
      .name(name)
      .add_output(out)
      .add_input(self)
      .add_input(a)
      .add_input(b)
      .resize_outputs(!(out.defined() && out.is_same(self)))
      .build();
}

namespace {

// PyTorch's lower-case type names in lerp's messages ("float", "double").
std::string lower_type_name(ScalarType t) {
  std::string s = scalar_type_cpp_name(t);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

void check_lerp_dtypes(const Tensor& self, const Tensor& end, const Tensor& weight) {
  TL_CHECK(self.dtype() == end.dtype(), "expected dtype ", lower_type_name(self.dtype()), " for `end` but got dtype ",
           lower_type_name(end.dtype()));
  TL_CHECK(!weight.defined() || self.dtype() == weight.dtype(), "expected dtype ", lower_type_name(self.dtype()),
           " for `weight` but got dtype ", lower_type_name(weight.dtype()));
}

void check_addcdiv_dtypes(const Tensor& tensor1, const Tensor& tensor2) {
  TL_CHECK(!(is_integral(tensor1.dtype(), true) && is_integral(tensor2.dtype(), true)),
           "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
           "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
           "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
           "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
}

Tensor fmod_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  TensorIterator iter = binary_op_iter("fmod", out, self, other);
  check_no_zero_divisor(iter, 2);
  fmod_stub(iter.device().type, iter);
  return iter.output();
}

Tensor lerp_Scalar_out(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  check_lerp_dtypes(self, end, Tensor());
  TensorIterator iter = binary_op_iter("lerp", out, self, end);
  lerp_scalar_stub(iter.device().type, iter, weight);
  return iter.output();
}

Tensor lerp_Tensor_out(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  check_lerp_dtypes(self, end, weight);
  TensorIterator iter = ternary_op_iter("lerp", out, self, end, weight);
  lerp_tensor_stub(iter.device().type, iter);
  return iter.output();
}

Tensor addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                   const Tensor& out) {
  TensorIterator iter = ternary_op_iter("addcmul", out, self, tensor1, tensor2);
  check_alpha("addcmul", iter.common_dtype(), value);
  addcmul_stub(iter.device().type, iter, value);
  return iter.output();
}

Tensor addcdiv_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                   const Tensor& out) {
  check_addcdiv_dtypes(tensor1, tensor2);
  TensorIterator iter = ternary_op_iter("addcdiv", out, self, tensor1, tensor2);
  addcdiv_stub(iter.device().type, iter, value);
  return iter.output();
}

// The number takes part in type promotion as a weak scalar (Note [Wrapped numbers]).
Tensor fmod(const Tensor& self, const Scalar& other) { return tl::fmod(self, wrapped_scalar_tensor(other)); }
Tensor fmod_(const Tensor& self, const Scalar& other) { return self.fmod_(wrapped_scalar_tensor(other)); }
Tensor fmod(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::fmod_out(out, self, wrapped_scalar_tensor(other));
}

namespace {

bool given(const std::optional<Tensor>& t) { return t && t->defined(); }

void check_clamp_bounds(const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  TL_CHECK(given(min) || given(max), "torch.clamp: At least one of 'min' or 'max' must not be None");
}

}  // namespace

Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  check_clamp_bounds(min, max);
  Tensor r = given(min) ? tl::maximum(self, *min) : self;
  return given(max) ? tl::minimum(r, *max) : r;
}
Tensor clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return self.copy_(tl::clamp(self, min, max));
}
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
             const Tensor& out) {
  check_clamp_bounds(min, max);
  if (!given(max)) return tl::maximum_out(out, self, *min);
  return tl::minimum_out(out, given(min) ? tl::maximum(self, *min) : self, *max);
}
Tensor clamp_min(const Tensor& self, const Tensor& min) { return tl::maximum(self, min); }
Tensor clamp_min_(const Tensor& self, const Tensor& min) { return self.copy_(tl::maximum(self, min)); }
Tensor clamp_min(const Tensor& self, const Tensor& min, const Tensor& out) { return tl::maximum_out(out, self, min); }
Tensor clamp_max(const Tensor& self, const Tensor& max) { return tl::minimum(self, max); }
Tensor clamp_max_(const Tensor& self, const Tensor& max) { return self.copy_(tl::minimum(self, max)); }
Tensor clamp_max(const Tensor& self, const Tensor& max, const Tensor& out) { return tl::minimum_out(out, self, max); }

}  // namespace tl::native
