#include "torchlite/csrc/autograd/functions_manual_special.h"

#include "generated/ops/add.h"
#include "generated/ops/eq.h"
#include "generated/ops/mul.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/sgn.h"
#include "generated/ops/special_i0e.h"
#include "generated/ops/sub.h"
#include "generated/ops/where.h"

namespace tl::autograd {

Tensor i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result) {
  Tensor d = tl::special_i0e(self).sub(result.mul(self.sgn().add(self.reciprocal())));
  return grad.mul(tl::where(self.eq(0), Scalar(0.5), d));
}

}  // namespace tl::autograd
