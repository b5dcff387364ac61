// Backward helpers of the h-reduce ops; see functions_manual_reduce.h.
#include "torchlite/csrc/autograd/functions_manual_reduce.h"

#include <cmath>

#include "generated/Functions.h"
#include "torchlite/csrc/autograd/functions_manual.h"

namespace tl::autograd {

Tensor reverse_cumsum(const Tensor& grad, int64_t dim) {
  // total - inclusive prefix + own term = the sum from i to the end.
  return grad.sum(IntArrayRef{dim}, true).sub(grad.cumsum(dim)).add(grad);
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result) {
  // d out_j / d x_k = prod_{i <= j, i != k} x_i for j >= k. Let z be the first zero of the slice.
  // - k < z: that product is out_j / x_k (and out_j = 0 for j >= z), so the gradient is
  //   reverse_cumsum(grad * out)_k / x_k.
  // - k = z: with x' = x where x_z is replaced by 1, prod_{i <= j, i != z} x_i = cumprod(x')_j,
  //   so the gradient is reverse_cumsum(grad * cumprod(x'))_z.
  // - k > z: every such product holds x_z = 0.
  if (self.numel() == 0) return zeros_like_grad(self);
  Tensor is_zero = self.eq(Scalar(0));
  Tensor zeros_so_far = is_zero.cumsum(dim);
  Tensor before = zeros_so_far.eq(Scalar(0));
  Tensor first = is_zero.logical_and(zeros_so_far.eq(Scalar(1)));
  Tensor safe = tl::where(before, self, Scalar(1.0));
  Tensor g = tl::where(before, reverse_cumsum(grad.mul(result), dim).div(safe), Scalar(0.0));
  Tensor x1 = tl::where(first, Scalar(1.0), self);
  Tensor at_zero = reverse_cumsum(grad.mul(x1.cumprod(dim)), dim);
  return g.add(tl::where(first, at_zero, Scalar(0.0)));
}

Tensor vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                            std::optional<IntArrayRef> dim, bool keepdim) {
  const double p = ord.to_double();
  if (p == 0.0) return zeros_like_grad(self);
  // With dtype= the norm (and grad) may be wider than self: compute in self's dtype.
  Tensor g = sum_backward(grad.to(self.scalar_type()), self.sizes(), dim, keepdim);
  Tensor norm = sum_backward(result.to(self.scalar_type()), self.sizes(), dim, keepdim);
  if (p == 1.0) return self.sign().mul(g);
  if (std::isinf(p)) {
    // Evenly split among the elements whose |x| is the norm (as amax's gradient).
    Tensor mask = self.abs().eq(norm);
    Tensor count = sum_backward(mask.sum(dim, keepdim), self.sizes(), dim, keepdim);
    return tl::where(mask, self.sign().mul(g).div(count), Scalar(0.0));
  }
  Tensor scale = p == 2.0 ? self : self.sign().mul(self.abs().pow(Scalar(p - 1)));
  Tensor r = scale.mul(g).div(p == 2.0 ? norm : norm.pow(Scalar(p - 1)));
  return tl::where(norm.eq(Scalar(0)), Scalar(0.0), r);
}

}  // namespace tl::autograd
