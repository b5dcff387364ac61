// CPU kernels of the pointwise math ops (functors: MathActivationFunctors.h).
#include <limits>
#include <optional>

#include "aten/native/MathActivationFunctors.h"
#include "aten/native/PointwiseOps.h"
#include "aten/native/UnaryOps.h"
#include "aten/native/cpu/ElementwiseKernel.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

// Integer inputs compute in the default float dtype.
Tensor erf_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<ErfFunctor, Types::Floating>(unary_float_op_iter("erf", out, self), "erf_cpu");
}
Tensor erfc_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<ErfcFunctor, Types::Floating>(unary_float_op_iter("erfc", out, self), "erfc_cpu");
}
Tensor erfinv_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<ErfinvFunctor, Types::Floating>(unary_float_op_iter("erfinv", out, self), "erfinv_cpu");
}
Tensor atan2_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  return run_kernel<Atan2Functor, Types::Floating>(binary_float_op_iter("atan2", out, self, other), "atan2_cpu");
}

Tensor fmod_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TensorIterator iter = binary_op_iter("fmod", out, self, other);
  check_no_zero_divisor(iter, 2);
  elementwise_kernel<FmodFunctor, Types::NoBool>(iter, "fmod_cpu");
  return iter.output();
}

Tensor lerp_scalar_out_cpu(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  check_lerp_dtypes(self, end, Tensor());
  return run_kernel<LerpScalarFunctor, Types::Floating>(binary_op_iter("lerp", out, self, end), "lerp_kernel_scalar",
                                                        weight);
}
Tensor lerp_tensor_out_cpu(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  check_lerp_dtypes(self, end, weight);
  return run_kernel<LerpFunctor, Types::Floating>(ternary_op_iter("lerp", out, self, end, weight),
                                                  "lerp_kernel_tensor");
}

Tensor addcmul_out_cpu(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                       const Tensor& out) {
  TensorIterator iter = ternary_op_iter("addcmul", out, self, tensor1, tensor2);
  check_alpha("addcmul", iter.common_dtype(), value);
  elementwise_kernel<AddcmulFunctor, Types::NoBool>(iter, "addcmul_cpu_out", value);
  return iter.output();
}
Tensor addcdiv_out_cpu(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                       const Tensor& out) {
  check_addcdiv_dtypes(tensor1, tensor2);
  return run_kernel<AddcdivFunctor, Types::NoBool>(ternary_op_iter("addcdiv", out, self, tensor1, tensor2),
                                                   "addcdiv_cpu_out", value);
}

Tensor isnan_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<IsnanFunctor>(unary_bool_op_iter("isnan", out, self), "isnan_cpu");
}
Tensor isinf_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<IsinfFunctor>(unary_bool_op_iter("isinf", out, self), "isinf_cpu");
}
Tensor isposinf_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<IsposinfFunctor>(unary_bool_op_iter("isposinf", out, self), "isposinf_cpu");
}
Tensor isneginf_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<IsneginfFunctor>(unary_bool_op_iter("isneginf", out, self), "isneginf_cpu");
}
Tensor isfinite_cpu(const Tensor& self) {
  return run_kernel<IsfiniteFunctor>(unary_bool_op_iter("isfinite", Tensor(), self), "isfinite_cpu");
}

namespace {

template <typename T>
opmath_t<T> largest_finite() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0f;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.38953139e38f;
  else return std::numeric_limits<T>::max();
}

}  // namespace

Tensor nan_to_num_out_cpu(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf, const Tensor& out) {
  TensorIterator iter = unary_op_iter("nan_to_num", out, self);
  if (is_integral(iter.common_dtype(), true)) {  // nothing to replace
    iter.output().copy_(self);
    return iter.output();
  }
  dispatch_types<Types::Floating>(iter.common_dtype(), "nan_to_num", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    // Infinities default to T's largest finite values; other replacements round to T.
    auto to_t = [](double v) { return static_cast<op_t>(static_cast<T>(v)); };
    const op_t hi = largest_finite<T>();
    cpu_kernel(iter, NanToNumFunctor<T>{to_t(nan.value_or(0.0)), posinf ? to_t(*posinf) : hi, neginf ? to_t(*neginf) : -hi});
  });
  return iter.output();
}

}  // namespace tl::native
