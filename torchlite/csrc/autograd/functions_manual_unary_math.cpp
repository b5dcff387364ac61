#include "torchlite/csrc/autograd/functions_manual_unary_math.h"

#include <limits>

#include "generated/ops/add.h"
#include "generated/ops/cos.h"
#include "generated/ops/digamma.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/gt.h"
#include "generated/ops/i0.h"
#include "generated/ops/logical_or.h"
#include "generated/ops/lt.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/sin.h"
#include "generated/ops/special_i1.h"
#include "generated/ops/sub.h"
#include "generated/ops/where.h"

namespace tl::autograd {

Tensor sinc_backward(const Tensor& grad, const Tensor& self) {
  constexpr double pi = 3.14159265358979323846;
  Tensor px = self.mul(pi);
  Tensor d = px.mul(px.cos()).sub(px.sin()).div(px.mul(self));
  return tl::where(self.eq(0), Scalar(0.0), grad.mul(d));
}

Tensor i1_backward(const Tensor& grad, const Tensor& self) {
  Tensor d = self.i0().sub(tl::special_i1(self).div(self));
  return grad.mul(tl::where(self.eq(0), Scalar(0.5), d));
}

Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps) {
  Tensor g = grad.div(self.mul(self.neg().add(1)));
  // eps < 0 means no clamping, as in the forward.
  double lo = eps.value_or(-1.0);
  if (lo < 0) {
    Tensor outside = self.lt(0).logical_or(self.gt(1));
    return tl::where(outside, Scalar(std::numeric_limits<double>::quiet_NaN()), g);
  }
  Tensor outside = self.lt(lo).logical_or(self.gt(1.0 - lo));
  return tl::where(outside, Scalar(0.0), g);
}

Tensor mvlgamma_backward(const Tensor& grad, const Tensor& self, int64_t p) {
  Tensor sum = self.digamma();
  for (int64_t j = 1; j < p; ++j) sum = sum.add(self.sub(0.5 * static_cast<double>(j)).digamma());
  return grad.mul(sum);
}

}  // namespace tl::autograd
