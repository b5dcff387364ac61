#pragma once
// Backward helpers of the pointwise ops: arithmetic (div, pow, maximum/minimum, clamp) and the
// second derivatives the formulas of the activations' *_backward operators need. Built from
// differentiable operators.
#include <optional>
#include <string>

#include "aten/core/Tensor.h"

namespace tl::autograd {

Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, const std::optional<std::string>& rounding_mode,
                              IntArrayRef self_sizes);
Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               const std::optional<std::string>& rounding_mode, IntArrayRef other_sizes);
Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
// 1 / (self^2 + other^2), the factor of both partial derivatives of atan2's backward; 0 at the
// origin, where atan2 has no derivative (PyTorch's backward choice, so a gradient through
// atan2(0, 0) stays finite; its forward mode, like PyTorch's, gives NaN there).
Tensor atan2_reciprocal_norm(const Tensor& self, const Tensor& other);
Tensor max_min_backward(const Tensor& grad, const Tensor& a, const Tensor& b, bool is_max);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);

// grad * d^2/dx^2 f(self) for f = gelu, silu, softplus; used by the backward ops' formulas
// with grad = (incoming gradient) * grad_output.
Tensor gelu_double_backward(const Tensor& grad, const Tensor& self, const std::string& approximate);
Tensor silu_double_backward(const Tensor& grad, const Tensor& self);
Tensor mish_double_backward(const Tensor& grad, const Tensor& self);
Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold);
// Derivative of elu_backward in self_or_result (self: x; result: elu's output).
Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result);

}  // namespace tl::autograd

