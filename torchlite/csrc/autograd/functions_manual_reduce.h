#pragma once
// Backward helpers of the h-reduce ops (scans, norms). Built from differentiable operators,
// so the formulas that use them can be differentiated again.
#include "aten/ATen.h"

namespace tl::autograd {

// sum_{j >= i} grad_j along dim: the gradient of cumsum.
Tensor reverse_cumsum(const Tensor& grad, int64_t dim);
// The gradient of cumprod, correct where the input has zeros (see the .cpp).
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
// The gradient of linalg_vector_norm; zero where the norm is zero (as PyTorch).
Tensor vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                            std::optional<IntArrayRef> dim, bool keepdim);

}  // namespace tl::autograd
