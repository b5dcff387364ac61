// Device-independent parts of binary ops: iterator set-up, argument checks, the kernels with
// checks before their stubs (Note [Stubs]), and the Scalar overloads, which wrap the number
// (Note [Wrapped numbers]) and call the Tensor overload.
#include "aten/native/BinaryOps.h"

#include <vector>

#include "aten/native/UnaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/add.h"
#include "generated/ops/add_native.h"
#include "generated/ops/bitwise_and.h"
#include "generated/ops/bitwise_and_native.h"
#include "generated/ops/bitwise_or.h"
#include "generated/ops/bitwise_or_native.h"
#include "generated/ops/bitwise_xor.h"
#include "generated/ops/bitwise_xor_native.h"
#include "generated/ops/div.h"
#include "generated/ops/div_native.h"
#include "generated/ops/eq.h"
#include "generated/ops/eq_native.h"
#include "generated/ops/floor_divide.h"
#include "generated/ops/floor_divide_native.h"
#include "generated/ops/ge.h"
#include "generated/ops/ge_native.h"
#include "generated/ops/gt.h"
#include "generated/ops/gt_native.h"
#include "generated/ops/le.h"
#include "generated/ops/le_native.h"
#include "generated/ops/lt.h"
#include "generated/ops/lt_native.h"
#include "generated/ops/mul.h"
#include "generated/ops/mul_native.h"
#include "generated/ops/ne.h"
#include "generated/ops/ne_native.h"
#include "generated/ops/pow.h"
#include "generated/ops/pow_native.h"
#include "generated/ops/remainder.h"
#include "generated/ops/remainder_native.h"
#include "generated/ops/rsub.h"
#include "generated/ops/rsub_native.h"
#include "generated/ops/sub.h"
#include "generated/ops/sub_native.h"
#include "generated/ops/to.h"
#include "generated/ops/where.h"
#include "generated/ops/where_native.h"

namespace tl::native {

namespace {

bool is_inplace(const Tensor& out, const Tensor& self) { return out.defined() && out.is_same(self); }

}  // namespace

TensorIterator binary_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other) {
  return TensorIteratorConfig()
      .name(name)
      .add_output(out)
      .add_input(self)
      .add_input(other)
      .resize_outputs(!is_inplace(out, self))
      .build();
}

TensorIterator binary_float_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other) {
  return TensorIteratorConfig()
      .name(name)
      .add_output(out)
      .add_input(self)
      .add_input(other)
      .promote_integer_inputs_to_float(true)
      .resize_outputs(!is_inplace(out, self))
      .build();
}

TensorIterator comparison_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other) {
  return TensorIteratorConfig()
      .name(name)
      .add_output(out)
      .add_input(self)
      .add_input(other)
      .output_dtype(ScalarType::Bool)
      .resize_outputs(!is_inplace(out, self))
      .build();
}

TensorIterator where_iter(const char* name, const Tensor& out, const Tensor& condition, const Tensor& self,
                          const Tensor& other) {
  TL_CHECK(condition.dtype() == ScalarType::Bool || condition.dtype() == ScalarType::Byte,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           scalar_type_cpp_name(condition.dtype()));
  // The condition joins the iteration converted to the value dtype (0/1); the iterator casts
  // every input to one compute dtype.
  return TensorIteratorConfig()
      .name(name)
      .add_output(out)
      .add_input(condition)
      .add_input(self)
      .add_input(other)
      .common_dtype(result_type(std::vector<Tensor>{self, other}))
      .build();
}

void check_alpha(const char* name, ScalarType dtype, const Scalar& alpha) {
  (void)name;
  TL_CHECK(!(is_integral(dtype, true) && alpha.is_floating_point()),
           "For integral input tensors, argument alpha must not be a floating point number.");
  TL_CHECK(!(!is_complex(dtype) && alpha.is_complex()),
           "For non-complex input tensors, argument alpha must not be a complex number.");
  TL_CHECK(!(dtype == ScalarType::Bool && alpha.is_integral() && alpha.to_long() != 0 && alpha.to_long() != 1),
           "Boolean alpha only supported for Boolean results.");
}

void check_sub_dtypes(const Tensor& self, const Tensor& other) {
  TL_CHECK(self.dtype() != ScalarType::Bool || other.dtype() != ScalarType::Bool,
           "Subtraction, the `-` operator, with two bool tensors is not supported. "
           "Use the `^` or `logical_xor()` operator instead.");
  TL_CHECK(self.dtype() != ScalarType::Bool && other.dtype() != ScalarType::Bool,
           "Subtraction, the `-` operator, with a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

void check_no_zero_divisor(const TensorIterator& iter, int arg) {
  const Tensor& divisor = iter.operand(arg);
  if (!is_integral(divisor.dtype(), true) || iter.numel() == 0) return;  // no division happens
  // Scan the divisor as stored (not broadcast), on the host: a synchronising copy for GPU
  // divisors only; CPU divisors are read in place, without a trip through the dispatcher.
  const Tensor d = divisor.is_cpu() ? divisor : divisor.to(Device(DeviceType::CPU));
  TensorIterator scan = TensorIteratorConfig().name("check_no_zero_divisor").add_input(d).build();
  bool zero = false;
  dispatch_integral_types(d.dtype(), "check_no_zero_divisor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    scan.serial_for_each(
        [&](char** data, const int64_t* strides, int64_t n) {
          bool z = false;
          for (int64_t i = 0; i < n; ++i) z |= *reinterpret_cast<const T*>(data[0] + i * strides[0]) == T(0);
          zero |= z;
        },
        0, scan.numel());
  });
  TL_CHECK(!zero, "ZeroDivisionError");
}

RoundingMode parse_rounding_mode(const std::optional<std::string>& mode) {
  if (!mode) return RoundingMode::True;
  if (*mode == "trunc") return RoundingMode::Trunc;
  if (*mode == "floor") return RoundingMode::Floor;
  TL_ERROR("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}

Tensor add_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  TensorIterator iter = binary_op_iter("add", out, self, other);
  check_alpha("add", iter.common_dtype(), alpha);
  add_stub(iter.device().type, iter, alpha);
  return iter.output();
}

Tensor sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  check_sub_dtypes(self, other);
  TensorIterator iter = binary_op_iter("sub", out, self, other);
  check_alpha("sub", iter.common_dtype(), alpha);
  sub_stub(iter.device().type, iter, alpha);
  return iter.output();
}

namespace {

// Integer-preserving division-like ops: zero integer divisors raise (bool has no kernel).
Tensor int_division_out(const char* name, const DispatchStub<void(TensorIterator&)>& stub, const Tensor& self,
                        const Tensor& other, const Tensor& out) {
  TensorIterator iter = binary_op_iter(name, out, self, other);
  if (iter.common_dtype() != ScalarType::Bool) check_no_zero_divisor(iter, 2);
  stub(iter.device().type, iter);
  return iter.output();
}

}  // namespace

Tensor div_out_mode(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode,
                    const Tensor& out) {
  switch (parse_rounding_mode(rounding_mode)) {
    case RoundingMode::Trunc:
      return int_division_out("div", div_trunc_stub, self, other, out);
    case RoundingMode::Floor:
      return int_division_out("div", div_floor_stub, self, other, out);
    case RoundingMode::True:
      break;
  }
  return native::div_out(self, other, out);  // qualified: tl::div_out (out first) is found by ADL
}

Tensor floor_divide_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return int_division_out("floor_divide", div_floor_stub, self, other, out);
}

Tensor remainder_Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  return int_division_out("remainder", remainder_stub, self, other, out);
}

Tensor pow_Tensor_Scalar_out(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  TL_CHECK(!(is_integral(self.dtype(), true) && !exponent.is_floating_point() && exponent.to_long() < 0),
           "Integers to negative integer powers are not allowed.");
  ScalarType dtype = result_type(std::vector<Tensor>{self, wrapped_scalar_tensor(exponent)});
  TensorIterator iter = unary_op_iter_with_dtype("pow", out, self, dtype);
  if (is_floating_point(dtype) && exponent.equal(2.0)) pow_square_stub(iter.device().type, iter);
  else pow_scalar_stub(iter.device().type, iter, exponent);
  return iter.output();
}

// ---- Scalar overloads ------------------------------------------------------------------------

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tl::add(self, wrapped_scalar_tensor(other), alpha);
}
Tensor add_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.add_(wrapped_scalar_tensor(other), alpha);
}

Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tl::sub(self, wrapped_scalar_tensor(other), alpha);
}
Tensor sub_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.sub_(wrapped_scalar_tensor(other), alpha);
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha, const Tensor& out) {
  return tl::add_out(out, self, wrapped_scalar_tensor(other), alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha, const Tensor& out) {
  return tl::sub_out(out, self, wrapped_scalar_tensor(other), alpha);
}
Tensor div(const Tensor& self, const Scalar& other, const std::optional<std::string>& rounding_mode,
           const Tensor& out) {
  return tl::div_out(out, self, wrapped_scalar_tensor(other), rounding_mode);
}
// rsub(self, other) = other - alpha * self (Python's `2 - t`).
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return tl::sub(other, self, alpha); }
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return tl::sub(wrapped_scalar_tensor(other), self, alpha);
}

Tensor div(const Tensor& self, const Scalar& other, const std::optional<std::string>& rounding_mode) {
  return tl::div(self, wrapped_scalar_tensor(other), rounding_mode);
}
Tensor div_(const Tensor& self, const Scalar& other, const std::optional<std::string>& rounding_mode) {
  return self.div_(wrapped_scalar_tensor(other), rounding_mode);
}

Tensor remainder(const Scalar& self, const Tensor& other) { return tl::remainder(wrapped_scalar_tensor(self), other); }
Tensor remainder(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::remainder_out(out, self, wrapped_scalar_tensor(other));
}

Tensor pow(const Scalar& self, const Tensor& exponent) { return tl::pow(wrapped_scalar_tensor(self), exponent); }
Tensor pow(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  return tl::pow_out(out, wrapped_scalar_tensor(self), exponent);
}

// Scalar overloads that just wrap the number: op.Scalar, op_.Scalar, op.Scalar_out and,
// for bitwise ops, op.Scalar_Tensor.
Tensor mul(const Tensor& self, const Scalar& other) { return tl::mul(self, wrapped_scalar_tensor(other)); }
Tensor mul_(const Tensor& self, const Scalar& other) { return self.mul_(wrapped_scalar_tensor(other)); }
Tensor mul(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::mul_out(out, self, wrapped_scalar_tensor(other));
}
Tensor div(const Tensor& self, const Scalar& other) { return tl::div(self, wrapped_scalar_tensor(other)); }
Tensor div_(const Tensor& self, const Scalar& other) { return self.div_(wrapped_scalar_tensor(other)); }
Tensor div(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::div_out(out, self, wrapped_scalar_tensor(other));
}
Tensor floor_divide(const Tensor& self, const Scalar& other) { return tl::floor_divide(self, wrapped_scalar_tensor(other)); }
Tensor floor_divide_(const Tensor& self, const Scalar& other) { return self.floor_divide_(wrapped_scalar_tensor(other)); }
Tensor floor_divide(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::floor_divide_out(out, self, wrapped_scalar_tensor(other));
}
Tensor remainder(const Tensor& self, const Scalar& other) { return tl::remainder(self, wrapped_scalar_tensor(other)); }
Tensor remainder_(const Tensor& self, const Scalar& other) { return self.remainder_(wrapped_scalar_tensor(other)); }
Tensor eq(const Tensor& self, const Scalar& other) { return tl::eq(self, wrapped_scalar_tensor(other)); }
Tensor eq_(const Tensor& self, const Scalar& other) { return self.eq_(wrapped_scalar_tensor(other)); }
Tensor eq(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::eq_out(out, self, wrapped_scalar_tensor(other));
}
Tensor ne(const Tensor& self, const Scalar& other) { return tl::ne(self, wrapped_scalar_tensor(other)); }
Tensor ne_(const Tensor& self, const Scalar& other) { return self.ne_(wrapped_scalar_tensor(other)); }
Tensor ne(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::ne_out(out, self, wrapped_scalar_tensor(other));
}
Tensor lt(const Tensor& self, const Scalar& other) { return tl::lt(self, wrapped_scalar_tensor(other)); }
Tensor lt_(const Tensor& self, const Scalar& other) { return self.lt_(wrapped_scalar_tensor(other)); }
Tensor lt(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::lt_out(out, self, wrapped_scalar_tensor(other));
}
Tensor le(const Tensor& self, const Scalar& other) { return tl::le(self, wrapped_scalar_tensor(other)); }
Tensor le_(const Tensor& self, const Scalar& other) { return self.le_(wrapped_scalar_tensor(other)); }
Tensor le(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::le_out(out, self, wrapped_scalar_tensor(other));
}
Tensor gt(const Tensor& self, const Scalar& other) { return tl::gt(self, wrapped_scalar_tensor(other)); }
Tensor gt_(const Tensor& self, const Scalar& other) { return self.gt_(wrapped_scalar_tensor(other)); }
Tensor gt(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::gt_out(out, self, wrapped_scalar_tensor(other));
}
Tensor ge(const Tensor& self, const Scalar& other) { return tl::ge(self, wrapped_scalar_tensor(other)); }
Tensor ge_(const Tensor& self, const Scalar& other) { return self.ge_(wrapped_scalar_tensor(other)); }
Tensor ge(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::ge_out(out, self, wrapped_scalar_tensor(other));
}
Tensor bitwise_and(const Tensor& self, const Scalar& other) { return tl::bitwise_and(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_and_(const Tensor& self, const Scalar& other) { return self.bitwise_and_(wrapped_scalar_tensor(other)); }
Tensor bitwise_and(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::bitwise_and_out(out, self, wrapped_scalar_tensor(other));
}
Tensor bitwise_and(const Scalar& self, const Tensor& other) { return tl::bitwise_and(wrapped_scalar_tensor(self), other); }
Tensor bitwise_or(const Tensor& self, const Scalar& other) { return tl::bitwise_or(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_or_(const Tensor& self, const Scalar& other) { return self.bitwise_or_(wrapped_scalar_tensor(other)); }
Tensor bitwise_or(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::bitwise_or_out(out, self, wrapped_scalar_tensor(other));
}
Tensor bitwise_or(const Scalar& self, const Tensor& other) { return tl::bitwise_or(wrapped_scalar_tensor(self), other); }
Tensor bitwise_xor(const Tensor& self, const Scalar& other) { return tl::bitwise_xor(self, wrapped_scalar_tensor(other)); }
Tensor bitwise_xor_(const Tensor& self, const Scalar& other) { return self.bitwise_xor_(wrapped_scalar_tensor(other)); }
Tensor bitwise_xor(const Tensor& self, const Scalar& other, const Tensor& out) {
  return tl::bitwise_xor_out(out, self, wrapped_scalar_tensor(other));
}
Tensor bitwise_xor(const Scalar& self, const Tensor& other) { return tl::bitwise_xor(wrapped_scalar_tensor(self), other); }

Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return tl::where(condition, wrapped_scalar_tensor(self), other);
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return tl::where(condition, self, wrapped_scalar_tensor(other));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return tl::where(condition, wrapped_scalar_tensor(self), wrapped_scalar_tensor(other));
}

}  // namespace tl::native
