// CPU kernels of binary elementwise ops (Note [Elementwise kernel helper]).
#include "aten/native/cpu/ElementwiseKernel.h"
#include "aten/native/UnaryOps.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  TensorIterator iter = binary_op_iter("add", out, self, other);
  check_alpha("add", iter.common_dtype(), alpha);
  elementwise_kernel<AddFunctor>(iter, "add_cpu", alpha);
  return iter.output();
}

Tensor sub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  check_sub_dtypes(self, other);
  TensorIterator iter = binary_op_iter("sub", out, self, other);
  check_alpha("sub", iter.common_dtype(), alpha);
  elementwise_kernel<SubFunctor, Types::NoBool>(iter, "sub_cpu", alpha);
  return iter.output();
}

Tensor div_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TensorIterator iter = binary_float_op_iter("div", out, self, other);
  elementwise_kernel<DivFunctor, Types::Floating>(iter, "div_true_cpu");
  return iter.output();
}

namespace {

// Integer-preserving division-like ops: zero divisors raise for integer dtypes.
template <template <class> class Functor>
Tensor int_division_out(const char* name, const char* kernel, const Tensor& self, const Tensor& other,
                        const Tensor& out) {
  TensorIterator iter = binary_op_iter(name, out, self, other);
  if (iter.common_dtype() == ScalarType::Bool) dtype_not_implemented(kernel, ScalarType::Bool);
  check_no_zero_divisor(iter, 2);
  elementwise_kernel<Functor, Types::NoBool>(iter, kernel);
  return iter.output();
}

}  // namespace

Tensor div_out_mode_cpu(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode,
                        const Tensor& out) {
  switch (parse_rounding_mode(rounding_mode)) {
    case RoundingMode::Trunc:
      return int_division_out<DivTruncFunctor>("div", "div_trunc_cpu", self, other, out);
    case RoundingMode::Floor:
      return int_division_out<DivFloorFunctor>("div", "div_floor_cpu", self, other, out);
    case RoundingMode::True:
      break;
  }
  return div_out_cpu(self, other, out);
}

Tensor floor_divide_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return int_division_out<DivFloorFunctor>("floor_divide", "div_floor_cpu", self, other, out);
}

Tensor remainder_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return int_division_out<RemainderFunctor>("remainder", "remainder_cpu", self, other, out);
}

Tensor pow_out_cpu(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  TensorIterator iter = binary_op_iter("pow", out, self, exponent);
  elementwise_kernel<PowFunctor, Types::NoBool>(iter, "pow");
  return iter.output();
}

Tensor pow_scalar_out_cpu(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  TL_CHECK(!(is_integral(self.dtype(), true) && !exponent.is_floating_point() && exponent.to_long() < 0),
           "Integers to negative integer powers are not allowed.");
  ScalarType dtype = result_type(std::vector<Tensor>{self, wrapped_scalar_tensor(exponent)});
  TensorIterator iter = unary_op_iter_with_dtype("pow", out, self, dtype);
  if (is_floating_point(dtype) && exponent.equal(2.0)) {
    elementwise_kernel<SquareFunctor, Types::Floating>(iter, "pow");
  } else {
    elementwise_kernel<PowScalarFunctor, Types::NoBool>(iter, "pow", exponent);
  }
  return iter.output();
}

// Kernels that are exactly "iterator + functor".
Tensor mul_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<MulFunctor>(binary_op_iter("mul", out, self, other), "mul_cpu");
}
Tensor maximum_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<MaximumFunctor>(binary_op_iter("maximum", out, self, other), "maximum_cpu");
}
Tensor minimum_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<MinimumFunctor>(binary_op_iter("minimum", out, self, other), "minimum_cpu");
}
Tensor eq_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<EqFunctor>(comparison_op_iter("eq", out, self, other), "eq_cpu");
}
Tensor ne_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<NeFunctor>(comparison_op_iter("ne", out, self, other), "ne_cpu");
}
Tensor lt_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<LtFunctor>(comparison_op_iter("lt", out, self, other), "lt_cpu");
}
Tensor le_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<LeFunctor>(comparison_op_iter("le", out, self, other), "le_cpu");
}
Tensor gt_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<GtFunctor>(comparison_op_iter("gt", out, self, other), "gt_cpu");
}
Tensor ge_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<GeFunctor>(comparison_op_iter("ge", out, self, other), "ge_cpu");
}
Tensor logical_and_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<LogicalAndFunctor>(comparison_op_iter("logical_and", out, self, other), "logical_and_cpu");
}
Tensor logical_or_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<LogicalOrFunctor>(comparison_op_iter("logical_or", out, self, other), "logical_or_cpu");
}
Tensor logical_xor_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<LogicalXorFunctor>(comparison_op_iter("logical_xor", out, self, other), "logical_xor_cpu");
}
Tensor bitwise_and_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<BitwiseAndFunctor, Types::Integral>(binary_op_iter("bitwise_and", out, self, other), "bitwise_and_cpu");
}
Tensor bitwise_or_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<BitwiseOrFunctor, Types::Integral>(binary_op_iter("bitwise_or", out, self, other), "bitwise_or_cpu");
}
Tensor bitwise_xor_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<BitwiseXorFunctor, Types::Integral>(binary_op_iter("bitwise_xor", out, self, other), "bitwise_xor_cpu");
}

}  // namespace tl::native
