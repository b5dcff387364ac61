#pragma once
// Backward helpers of the unary math ops (sinc, i1, logit, mvlgamma). Built from
// differentiable operators, so second derivatives work.
#include <optional>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// grad * (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0.
Tensor sinc_backward(const Tensor& grad, const Tensor& self);
// grad * (i0(x) - i1(x) / x), 1/2 at x = 0.
Tensor i1_backward(const Tensor& grad, const Tensor& self);
// grad / (x (1 - x)); without eps NaN outside [0, 1], with eps 0 outside [eps, 1 - eps].
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
// grad * sum_{j < p} digamma(x - j/2).
Tensor mvlgamma_backward(const Tensor& grad, const Tensor& self, int64_t p);

}  // namespace tl::autograd
