// CPU kernels of the activations and their backward ops (functors: MathActivationFunctors.h).
// Floating dtypes only, as in PyTorch ("GeluKernelImpl" not implemented for 'Long').
#include <string>

#include "aten/native/MathActivationFunctors.h"
#include "aten/native/UnaryOps.h"
#include "aten/native/cpu/ElementwiseKernel.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

namespace {

bool gelu_is_tanh(const std::string& approximate) {
  TL_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return approximate == "tanh";
}

// Backward ops: out = f(grad_output, self) in their common dtype.
TensorIterator backward_iter(const char* name, const Tensor& grad_output, const Tensor& self) {
  return binary_op_iter(name, Tensor(), grad_output, self);
}

}  // namespace

Tensor gelu_out_cpu(const Tensor& self, const std::string& approximate, const Tensor& out) {
  TensorIterator iter = unary_op_iter("gelu", out, self);
  if (gelu_is_tanh(approximate)) elementwise_kernel<GeluTanhFunctor, Types::Floating>(iter, "GeluKernelImpl");
  else elementwise_kernel<GeluFunctor, Types::Floating>(iter, "GeluKernelImpl");
  return iter.output();
}

Tensor gelu_backward_cpu(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  TensorIterator iter = backward_iter("gelu_backward", grad_output, self);
  if (gelu_is_tanh(approximate)) elementwise_kernel<GeluTanhBackwardFunctor, Types::Floating>(iter, "GeluBackwardKernelImpl");
  else elementwise_kernel<GeluBackwardFunctor, Types::Floating>(iter, "GeluBackwardKernelImpl");
  return iter.output();
}

Tensor silu_out_cpu(const Tensor& self, const Tensor& out) {
  return run_kernel<SiluFunctor, Types::Floating>(unary_op_iter("silu", out, self), "silu_cpu");
}

Tensor silu_backward_cpu(const Tensor& grad_output, const Tensor& self) {
  return run_kernel<SiluBackwardFunctor, Types::Floating>(backward_iter("silu_backward", grad_output, self),
                                                          "silu_backward_cpu");
}

Tensor elu_out_cpu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                   const Tensor& out) {
  return run_kernel<EluFunctor, Types::Floating>(unary_op_iter("elu", out, self), "elu_cpu", alpha, scale, input_scale);
}

Tensor elu_backward_cpu(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                        const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  TL_CHECK(!is_result || alpha.to_double() >= 0.0,
           "In-place elu backward calculation is triggered with a negative slope which is not supported. "
           "This is caused by calling in-place forward function with a negative slope, "
           "please call out-of-place version instead.");
  TensorIterator iter = backward_iter("elu_backward", grad_output, self_or_result);
  dispatch_types<Types::Floating>(iter.common_dtype(), "elu_backward_cpu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    cpu_kernel(iter, EluBackwardFunctor<T>{alpha.to<op_t>(), scale.to<op_t>(), input_scale.to<op_t>(), is_result});
  });
  return iter.output();
}

Tensor leaky_relu_out_cpu(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  return run_kernel<LeakyReluFunctor, Types::Floating>(unary_op_iter("leaky_relu", out, self), "leaky_relu_cpu",
                                                       negative_slope);
}

Tensor leaky_relu_backward_cpu(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                               bool self_is_result) {
  TL_CHECK(!self_is_result || negative_slope.to_double() >= 0.0,
           "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
           "This is caused by calling in-place forward function with a negative slope, "
           "please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if "
           "you do require supporting in-place leakRelu backward calculation with negative slope");
  return run_kernel<LeakyReluBackwardFunctor, Types::Floating>(
      backward_iter("leaky_relu_backward", grad_output, self), "leaky_relu_backward_cpu", negative_slope);
}

Tensor softplus_out_cpu(const Tensor& self, const Scalar& beta, const Scalar& threshold, const Tensor& out) {
  return run_kernel<SoftplusFunctor, Types::Floating>(unary_op_iter("softplus", out, self), "softplus_cpu", beta,
                                                      threshold);
}

Tensor softplus_backward_cpu(const Tensor& grad_output, const Tensor& self, const Scalar& beta,
                             const Scalar& threshold) {
  return run_kernel<SoftplusBackwardFunctor, Types::Floating>(backward_iter("softplus_backward", grad_output, self),
                                                              "softplus_backward_cpu", beta, threshold);
}

// hardtanh is clamp to [min_val, max_val] (NaN stays NaN).
Tensor hardtanh_out_cpu(const Tensor& self, const Scalar& min_val, const Scalar& max_val, const Tensor& out) {
  return run_kernel<ClampFunctor, Types::Floating>(unary_op_iter("hardtanh", out, self), "hardtanh_cpu", min_val,
                                                   max_val);
}

Tensor hardtanh_backward_cpu(const Tensor& grad_output, const Tensor& self, const Scalar& min_val,
                             const Scalar& max_val) {
  return run_kernel<HardtanhBackwardFunctor, Types::Floating>(backward_iter("hardtanh_backward", grad_output, self),
                                                              "hardtanh_backward_cpu", min_val, max_val);
}

}  // namespace tl::native
