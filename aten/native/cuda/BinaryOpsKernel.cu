// CUDA kernels of binary elementwise ops: the twin of cpu/BinaryOpsKernel.cpp, with
// gpu_kernel for cpu_kernel and the same functors (aten/native/ElementwiseFunctors.h).
#include "aten/native/cuda/ElementwiseKernel.cuh"
#include "aten/native/UnaryOps.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  TensorIterator iter = binary_op_iter("add", out, self, other);
  check_alpha("add", iter.common_dtype(), alpha);
  gpu_elementwise_kernel<AddFunctor>(iter, "add_cuda", alpha);
  return iter.output();
}

Tensor sub_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  check_sub_dtypes(self, other);
  TensorIterator iter = binary_op_iter("sub", out, self, other);
  check_alpha("sub", iter.common_dtype(), alpha);
  gpu_elementwise_kernel<SubFunctor, Types::NoBool>(iter, "sub_cuda", alpha);
  return iter.output();
}

Tensor div_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  TensorIterator iter = binary_float_op_iter("div", out, self, other);
  gpu_elementwise_kernel<DivFunctor, Types::Floating>(iter, "div_true_cuda");
  return iter.output();
}

namespace {

// Integer-preserving division-like ops: zero divisors raise for integer dtypes, as on the
// CPU. The divisor lives on the GPU, so it is copied to the CPU and scanned there
// (a synchronising copy, only for integer divisors).
template <template <class> class Functor>
Tensor int_division_out_cuda(const char* name, const char* kernel, const Tensor& self, const Tensor& other,
                             const Tensor& out) {
  TensorIterator iter = binary_op_iter(name, out, self, other);
  if (iter.common_dtype() == ScalarType::Bool) dtype_not_implemented(kernel, ScalarType::Bool);
  const Tensor& d = iter.operand(2);
  if (is_integral(d.dtype(), true) && d.numel() != 0) {
    Tensor host = d.to(Device(DeviceType::CPU));
    TensorIterator scan = TensorIteratorConfig().name("check_no_zero_divisor").add_input(host).build();
    check_no_zero_divisor(scan, 0);
  }
  gpu_elementwise_kernel<Functor, Types::NoBool>(iter, kernel);
  return iter.output();
}

}  // namespace

Tensor div_out_mode_cuda(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode,
                         const Tensor& out) {
  switch (parse_rounding_mode(rounding_mode)) {
    case RoundingMode::Trunc:
      return int_division_out_cuda<DivTruncFunctor>("div", "div_trunc_cuda", self, other, out);
    case RoundingMode::Floor:
      return int_division_out_cuda<DivFloorFunctor>("div", "div_floor_cuda", self, other, out);
    case RoundingMode::True:
      break;
  }
  return div_out_cuda(self, other, out);
}

Tensor floor_divide_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return int_division_out_cuda<DivFloorFunctor>("floor_divide", "div_floor_cuda", self, other, out);
}

Tensor remainder_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return int_division_out_cuda<RemainderFunctor>("remainder", "remainder_cuda", self, other, out);
}

Tensor pow_out_cuda(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  return run_gpu_kernel<PowFunctor, Types::NoBool>(binary_op_iter("pow", out, self, exponent), "pow_cuda");
}

Tensor pow_scalar_out_cuda(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  TL_CHECK(!(is_integral(self.dtype(), true) && !exponent.is_floating_point() && exponent.to_long() < 0),
           "Integers to negative integer powers are not allowed.");
  ScalarType dtype = result_type(std::vector<Tensor>{self, wrapped_scalar_tensor(exponent)});
  TensorIterator iter = unary_op_iter_with_dtype("pow", out, self, dtype);
  if (is_floating_point(dtype) && exponent.equal(2.0)) {
    gpu_elementwise_kernel<SquareFunctor, Types::Floating>(iter, "pow_cuda");
  } else {
    gpu_elementwise_kernel<PowScalarFunctor, Types::NoBool>(iter, "pow_cuda", exponent);
  }
  return iter.output();
}

Tensor mul_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<MulFunctor, Types::All>(binary_op_iter("mul", out, self, other), "mul_cuda");
}
Tensor maximum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<MaximumFunctor, Types::All>(binary_op_iter("maximum", out, self, other), "maximum_cuda");
}
Tensor minimum_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<MinimumFunctor, Types::All>(binary_op_iter("minimum", out, self, other), "minimum_cuda");
}
Tensor eq_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<EqFunctor, Types::All>(comparison_op_iter("eq", out, self, other), "eq_cuda");
}
Tensor ne_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<NeFunctor, Types::All>(comparison_op_iter("ne", out, self, other), "ne_cuda");
}
Tensor lt_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<LtFunctor, Types::All>(comparison_op_iter("lt", out, self, other), "lt_cuda");
}
Tensor le_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<LeFunctor, Types::All>(comparison_op_iter("le", out, self, other), "le_cuda");
}
Tensor gt_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<GtFunctor, Types::All>(comparison_op_iter("gt", out, self, other), "gt_cuda");
}
Tensor ge_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<GeFunctor, Types::All>(comparison_op_iter("ge", out, self, other), "ge_cuda");
}
Tensor logical_and_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<LogicalAndFunctor, Types::All>(comparison_op_iter("logical_and", out, self, other), "logical_and_cuda");
}
Tensor logical_or_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<LogicalOrFunctor, Types::All>(comparison_op_iter("logical_or", out, self, other), "logical_or_cuda");
}
Tensor logical_xor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<LogicalXorFunctor, Types::All>(comparison_op_iter("logical_xor", out, self, other), "logical_xor_cuda");
}
Tensor bitwise_and_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<BitwiseAndFunctor, Types::Integral>(binary_op_iter("bitwise_and", out, self, other), "bitwise_and_cuda");
}
Tensor bitwise_or_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<BitwiseOrFunctor, Types::Integral>(binary_op_iter("bitwise_or", out, self, other), "bitwise_or_cuda");
}
Tensor bitwise_xor_out_cuda(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_gpu_kernel<BitwiseXorFunctor, Types::Integral>(binary_op_iter("bitwise_xor", out, self, other), "bitwise_xor_cuda");
}

}  // namespace tl::native
