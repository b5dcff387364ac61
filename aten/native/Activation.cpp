// Activations: the kernels with checks or a choice of functor before their stubs
// (Note [Stubs]; functors in ActivationFunctors.h), and the composites relu6 = hardtanh(0, 6)
// and log_sigmoid(x) = -softplus(-x), which stays finite for large |x|.
#include <string>

#include "aten/core/Tensor.h"
#include "aten/native/BinaryOps.h"
#include "aten/native/UnaryOps.h"
#include "generated/Stubs.h"
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

Tensor relu6(const Tensor& self) { return tl::hardtanh(self, Scalar(0), Scalar(6)); }
Tensor relu6_(const Tensor& self) { return tl::hardtanh_(self, Scalar(0), Scalar(6)); }

Tensor log_sigmoid(const Tensor& self) { return tl::softplus(self.neg(), Scalar(1), Scalar(20)).neg(); }

}  // namespace tl::native
