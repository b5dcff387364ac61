#pragma once
// Backward helpers of the reductions, scans and norms. Built from differentiable operators, so the
// formulas that use them can be differentiated again.
#include <optional>

#include "aten/core/Tensor.h"

namespace tl::autograd {

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
// prod over one dim / over everything; correct where the input has zeros (see the .cpp).
Tensor prod_backward(const Tensor& grad, const Tensor& self, int64_t dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self);

// sum_{j >= i} grad_j along dim: the gradient of cumsum.
Tensor reverse_cumsum(const Tensor& grad, int64_t dim);
// The gradient of cumprod, correct where the input has zeros (see the .cpp).
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
// cummax/cummin: each output's gradient goes to the input element its index names.
Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim);
// logcumsumexp: sum_{i >= j} grad_i exp(x_j - result_i), in log space with grad split by sign.
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);
// The gradient of linalg_vector_norm; zero where the norm is zero (as PyTorch).
Tensor vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                            std::optional<IntArrayRef> dim, bool keepdim);

}  // namespace tl::autograd
