#pragma once
// Backward helpers of torch.special (derivatives.yaml).
#include "aten/core/Tensor.h"

namespace tl::autograd {

// d/dx [I1(x) e^-|x|] = i0e(x) - i1e(x) (sgn x + 1/x); 1/2 at x = 0.
Tensor i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result);

}  // namespace tl::autograd
