// Binary pointwise math beyond the arithmetic of BinaryOps.cpp: the kernels with checks
// before their stubs (heaviside, gcd, lcm, shifts), the compositions (ldexp, float_power),
// and the Scalar overloads. PyTorch's alias names (arctan2, clip, divide, greater, ...) are
// `alias_of:` entries in the YAML: the generator writes their forwarding (Note [Aliases]).
#include <vector>

#include "aten/native/BinaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/bitwise_left_shift.h"
#include "generated/ops/bitwise_left_shift_native.h"
#include "generated/ops/bitwise_right_shift.h"
#include "generated/ops/bitwise_right_shift_native.h"
#include "generated/ops/copysign.h"
#include "generated/ops/copysign_native.h"
#include "generated/ops/float_power_native.h"
#include "generated/ops/gcd_native.h"
#include "generated/ops/heaviside_native.h"
#include "generated/ops/lcm_native.h"
#include "generated/ops/ldexp_native.h"
#include "generated/ops/mul.h"
#include "generated/ops/pow.h"
#include "generated/ops/to.h"
#include "generated/ops/xlogy.h"
#include "generated/ops/xlogy_native.h"

namespace tl::native {

namespace {

// gcd, lcm and the shifts: integer dtypes only (the stub rejects floating ones; PyTorch has
// no bool kernel either).
Tensor integer_op_out(const char* name, const DispatchStub<void(TensorIterator&)>& stub, const Tensor& self,
                      const Tensor& other, const Tensor& out) {
  TensorIterator iter = binary_op_iter(name, out, self, other);
  if (iter.common_dtype() == ScalarType::Bool) dtype_not_implemented(name, ScalarType::Bool);
  stub(iter.device().type, iter);
  return iter.output();
}

// float_power computes in double; an out= or in-place result of any other dtype is an error.
void check_float_power_dtype(const char* what, const Tensor& t) {
  TL_CHECK(t.dtype() == ScalarType::Double, "the ", what, " has dtype ", scalar_type_cpp_name(t.dtype()),
           " but the operation's result requires dtype Double");
}

Tensor as_double(const Tensor& t) { return t.to(ScalarType::Double); }

// 2 ** other, in the default float dtype for integer exponents (ldexp's scale factor).
Tensor pow2(const Tensor& other) { return tl::pow(Scalar(2.0), other); }

}  // namespace

Tensor heaviside_out(const Tensor& self, const Tensor& values, const Tensor& out) {
  TL_CHECK(self.dtype() == values.dtype(), "heaviside is not yet implemented for tensors with different dtypes.");
  TensorIterator iter = binary_op_iter("heaviside", out, self, values);
  heaviside_stub(iter.device().type, iter);
  return iter.output();
}

Tensor gcd_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return integer_op_out("gcd", gcd_stub, self, other, out);
}
Tensor lcm_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return integer_op_out("lcm", lcm_stub, self, other, out);
}
Tensor bitwise_left_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return integer_op_out("lshift", lshift_stub, self, other, out);
}
Tensor bitwise_right_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return integer_op_out("rshift", rshift_stub, self, other, out);
}

// ---- compositions ----------------------------------------------------------------------------

// ldexp(x, e) = x * 2^e; gradients come from mul and pow.
Tensor ldexp(const Tensor& self, const Tensor& other) { return tl::mul(self, pow2(other)); }
Tensor ldexp_(const Tensor& self, const Tensor& other) { return self.mul_(pow2(other)); }
Tensor ldexp(const Tensor& self, const Tensor& other, const Tensor& out) {
  return tl::mul_out(out, self, pow2(other));
}

Tensor float_power(const Tensor& self, const Tensor& exponent) { return tl::pow(as_double(self), as_double(exponent)); }
Tensor float_power(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  check_float_power_dtype("output given to float_power", out);
  return tl::pow_out(out, as_double(self), as_double(exponent));
}
Tensor float_power(const Scalar& self, const Tensor& exponent) { return tl::pow(self, as_double(exponent)); }
Tensor float_power(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  check_float_power_dtype("output given to float_power", out);
  return tl::pow_out(out, self, as_double(exponent));
}
Tensor float_power(const Tensor& self, const Scalar& exponent) { return tl::pow(as_double(self), exponent); }
Tensor float_power(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  check_float_power_dtype("output given to float_power", out);
  return tl::pow_out(out, as_double(self), exponent);
}
Tensor float_power_(const Tensor& self, const Scalar& exponent) {
  check_float_power_dtype("base given to float_power_", self);
  return self.pow_(exponent);
}
Tensor float_power_(const Tensor& self, const Tensor& exponent) {
  check_float_power_dtype("base given to float_power_", self);
  return self.pow_(as_double(exponent));
}

// ---- Scalar overloads (Note [Wrapped numbers]) ----------------------------------------------

Tensor copysign(const Tensor& self, const Scalar& other) { return tl::copysign(self, wrapped_scalar_tensor(other)); }
Tensor copysign_(const Tensor& self, const Scalar& other) { return self.copysign_(wrapped_scalar_tensor(other)); }
Tensor copysign(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::copysign_out(out, self, wrapped_scalar_tensor(other));
}

Tensor xlogy(const Scalar& self, const Tensor& other) { return tl::xlogy(wrapped_scalar_tensor(self), other); }
Tensor xlogy(const Tensor& self, const Scalar& other) { return tl::xlogy(self, wrapped_scalar_tensor(other)); }
Tensor xlogy_(const Tensor& self, const Scalar& other) { return self.xlogy_(wrapped_scalar_tensor(other)); }
Tensor xlogy(const Scalar& self, const Tensor& other, const Tensor& out) {
  return tl::xlogy_out(out, wrapped_scalar_tensor(self), other);
}
Tensor xlogy(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::xlogy_out(out, self, wrapped_scalar_tensor(other));
}

Tensor bitwise_left_shift(const Tensor& self, const Scalar& other) {
  return tl::bitwise_left_shift(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift_(const Tensor& self, const Scalar& other) {
  return self.bitwise_left_shift_(wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::bitwise_left_shift_out(out, self, wrapped_scalar_tensor(other));
}
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other) {
  return tl::bitwise_left_shift(wrapped_scalar_tensor(self), other);
}
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other) {
  return tl::bitwise_right_shift(self, wrapped_scalar_tensor(other));
}
Tensor bitwise_right_shift_(const Tensor& self, const Scalar& other) {
  return self.bitwise_right_shift_(wrapped_scalar_tensor(other));
}
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::bitwise_right_shift_out(out, self, wrapped_scalar_tensor(other));
}
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other) {
  return tl::bitwise_right_shift(wrapped_scalar_tensor(self), other);
}

}  // namespace tl::native
