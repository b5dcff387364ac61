// Activations: the kernels with checks or a choice of functor before their stubs
// (Note [Stubs]; functors in ActivationFunctors.h), and the composites relu6 = hardtanh(0, 6)
// and log_sigmoid(x) = -softplus(-x), which stays finite for large |x|, selu and celu (elu with
// fixed or derived constants).
#include <limits>
#include <string>

#include "aten/core/Tensor.h"
#include "aten/native/BinaryOps.h"
#include "aten/native/UnaryOps.h"
#include "generated/Stubs.h"
#include "generated/ops/celu_native.h"
#include "generated/ops/elu.h"
#include "generated/ops/elu_backward.h"
#include "generated/ops/elu_backward_native.h"
#include "generated/ops/gelu.h"
#include "generated/ops/gelu_backward.h"
#include "generated/ops/gelu_backward_native.h"
#include "generated/ops/gelu_native.h"
#include "generated/ops/hardtanh.h"
#include "generated/ops/leaky_relu_backward.h"
#include "generated/ops/leaky_relu_backward_native.h"
#include "generated/ops/log_sigmoid.h"
#include "generated/ops/log_sigmoid_native.h"
#include "generated/ops/neg.h"
#include "generated/ops/relu6.h"
#include "generated/ops/relu6_native.h"
#include "generated/ops/selu_native.h"
#include "generated/ops/softshrink_native.h"
#include "generated/ops/softplus.h"

namespace tl::native {

namespace {

bool gelu_is_tanh(const std::string& approximate) {
  TL_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return approximate == "tanh";
}

}  // namespace

// Backward ops compute f(grad_output, self) in their common dtype: a binary_op_iter.
Tensor gelu_out(const Tensor& self, const std::string& approximate, const Tensor& out) {
  TensorIterator iter = unary_op_iter("gelu", out, self);
  (gelu_is_tanh(approximate) ? gelu_tanh_stub : gelu_stub)(iter.device().type, iter);
  return iter.output();
}

Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, const std::string& approximate) {
  TensorIterator iter = binary_op_iter("gelu_backward", Tensor(), grad_output, self);
  (gelu_is_tanh(approximate) ? gelu_tanh_backward_stub : gelu_backward_stub)(iter.device().type, iter);
  return iter.output();
}

Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result) {
  TL_CHECK(!is_result || alpha.to_double() >= 0.0,
           "In-place elu backward calculation is triggered with a negative slope which is not supported. "
           "This is caused by calling in-place forward function with a negative slope, "
           "please call out-of-place version instead.");
  TensorIterator iter = binary_op_iter("elu_backward", Tensor(), grad_output, self_or_result);
  elu_backward_stub(iter.device().type, iter, alpha, scale, input_scale, is_result);
  return iter.output();
}

Tensor leaky_relu_backward(const Tensor& grad_output, const Tensor& self, const Scalar& negative_slope,
                           bool self_is_result) {
  TL_CHECK(!self_is_result || negative_slope.to_double() >= 0.0,
           "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
           "This is caused by calling in-place forward function with a negative slope, "
           "please call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if "
           "you do require supporting in-place leakRelu backward calculation with negative slope");
  TensorIterator iter = binary_op_iter("leaky_relu_backward", Tensor(), grad_output, self);
  leaky_relu_backward_stub(iter.device().type, iter, negative_slope);
  return iter.output();
}

Tensor softshrink_out(const Tensor& self, const Scalar& lambd, const Tensor& out) {
  // As PyTorch, lambd must lie in [0, the input dtype's largest finite value].
  const ScalarType t = self.scalar_type();
  const double max = t == ScalarType::Double     ? std::numeric_limits<double>::max()
                     : t == ScalarType::Half     ? 65504.0
                     : t == ScalarType::BFloat16 ? 3.3895313892515355e38
                                                 : static_cast<double>(std::numeric_limits<float>::max());
  const double l = lambd.to_double();
  TL_CHECK(l >= 0.0 && l <= max, "lambda must be in range [0, ", max, "] for input dtype ", scalar_type_cpp_name(t),
           ", but found ", l);
  TensorIterator iter = unary_op_iter("softshrink", out, self);
  softshrink_stub(iter.device().type, iter, lambd);
  return iter.output();
}

Tensor relu6(const Tensor& self) { return tl::hardtanh(self, Scalar(0), Scalar(6)); }
Tensor relu6_(const Tensor& self) { return tl::hardtanh_(self, Scalar(0), Scalar(6)); }

Tensor log_sigmoid(const Tensor& self) { return tl::softplus(self.neg(), Scalar(1), Scalar(20)).neg(); }


namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

Scalar celu_input_scale(const Scalar& alpha) {
  TL_CHECK(alpha.to_double() != 0.0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return Scalar(1.0 / alpha.to_double());
}

}  // namespace

Tensor selu(const Tensor& self) { return tl::elu(self, Scalar(kSeluAlpha), Scalar(kSeluScale), Scalar(1)); }
Tensor selu_(const Tensor& self) { return tl::elu_(self, Scalar(kSeluAlpha), Scalar(kSeluScale), Scalar(1)); }

Tensor celu(const Tensor& self, const Scalar& alpha) {
  return tl::elu(self, alpha, Scalar(1), celu_input_scale(alpha));
}
Tensor celu_(const Tensor& self, const Scalar& alpha) {
  return tl::elu_(self, alpha, Scalar(1), celu_input_scale(alpha));
}

}  // namespace tl::native
