#include "torchlite/csrc/autograd/functions_manual_complex.h"

#include <complex>

#include "generated/ops/abs.h"
#include "generated/ops/conj.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/mul.h"
#include "generated/ops/real.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros_like.h"
#include "torchlite/csrc/autograd/functions_manual.h"

namespace tl::autograd {

Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!is_complex(self.dtype())) return zeros_like_grad(self);
  Tensor abs2 = self.abs().mul(self.abs());
  Tensor g = grad.mul(self).div(abs2).mul(Scalar(std::complex<double>(0.0, 1.0)));
  return tl::where(self.eq(Scalar(0.0)), Scalar(0.0), g);
}

Tensor polar_angle_backward(const Tensor& grad, const Tensor& result) {
  return tl::real(grad.mul(result.conj()).mul(Scalar(std::complex<double>(0.0, -1.0))));
}

Scalar conj_scalar(const Scalar& s) { return s.is_complex() ? Scalar(std::conj(s.to_complex_double())) : s; }

}  // namespace tl::autograd
