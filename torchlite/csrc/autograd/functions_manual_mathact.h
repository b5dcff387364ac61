#pragma once
// Backward helpers of the activations and pointwise math ops (h-mathact). Built from
// differentiable ops, like functions_manual.h: the second derivatives the formulas of the
// *_backward operators need.
#include <optional>
#include <string>

#include "aten/ATen.h"

namespace tl::autograd {

// grad * d^2/dx^2 f(self) for f = gelu, silu, softplus; used by the backward ops' formulas
// with grad = (incoming gradient) * grad_output.
Tensor gelu_double_backward(const Tensor& grad, const Tensor& self, const std::string& approximate);
Tensor silu_double_backward(const Tensor& grad, const Tensor& self);
Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold);
// Derivative of elu_backward in self_or_result (self: x; result: elu's output).
Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result);

}  // namespace tl::autograd

namespace tl::autograd {

// native_dropout's output scale: 1 / (1 - p) in training (0 for p == 1), 1 otherwise.
double dropout_scale(double p, std::optional<bool> train);

}  // namespace tl::autograd
