#include "torchlite/csrc/autograd/functions_manual_pointwise.h"

#include "generated/ops/add.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/ge.h"
#include "generated/ops/gt.h"
#include "generated/ops/le.h"
#include "generated/ops/log.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/lt.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/pow.h"
#include "generated/ops/reciprocal.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/softplus.h"
#include "generated/ops/sub.h"
#include "generated/ops/tanh.h"
#include "generated/ops/where.h"
#include "torchlite/csrc/autograd/functions_manual.h"

namespace tl::autograd {

Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, const std::optional<std::string>& rounding_mode,
                              IntArrayRef self_sizes) {
  if (rounding_mode.has_value()) return zeros_like_grad(sum_to(grad, self_sizes));
  return sum_to(grad.div(other), self_sizes);
}

Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               const std::optional<std::string>& rounding_mode, IntArrayRef other_sizes) {
  if (rounding_mode.has_value()) return zeros_like_grad(sum_to(grad, other_sizes));
  return sum_to(grad.neg().mul(self).div(other.mul(other)), other_sizes);
}

Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent) {
  double e = exponent.to_double();
  if (e == 0.0) return zeros_like_grad(grad);
  return grad.mul(self.pow(Scalar(e - 1.0)).mul(exponent));
}

Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent) {
  // exponent * self^(exponent - 1), with 0 where the exponent is 0 (as PyTorch).
  Tensor g = grad.mul(exponent.mul(self.pow(exponent.sub(1))));
  return tl::where(exponent.eq(0), Scalar(0.0), g);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result) {
  // result * log(self); 0 where self == 0 and exponent >= 0.
  Tensor g = grad.mul(result.mul(self.log()));
  return tl::where(self.eq(0).logical_and(exponent.ge(0)), Scalar(0.0), g);
}

Tensor atan2_reciprocal_norm(const Tensor& self, const Tensor& other) {
  const Tensor norm = self.mul(self).add(other.mul(other));
  return norm.reciprocal().masked_fill(norm.eq(0), 0);
}

Tensor max_min_backward(const Tensor& grad, const Tensor& a, const Tensor& b, bool is_max) {
  // The larger (smaller) input gets the gradient; ties split it evenly.
  Tensor wins = is_max ? a.gt(b) : a.lt(b);
  Tensor g = tl::where(wins, grad, Scalar(0.0));
  return tl::where(a.eq(b), grad.div(2), g);
}

Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  Tensor g = grad;
  if (min) g = tl::where(self.ge(*min), g, Scalar(0.0));
  if (max) g = tl::where(self.le(*max), g, Scalar(0.0));
  return g;
}

// ---- activations: second derivatives ----

Tensor gelu_double_backward(const Tensor& grad, const Tensor& self, const std::string& approximate) {
  const Tensor x2 = self.mul(self);
  if (approximate == "tanh") {
    // y = 0.5 x (1 + t), t = tanh(u), u = k (x + c x^3):
    // y'' = (1 - t^2) (u' - x t u'^2 + 0.5 x u''), u' = k (1 + 3 c x^2), u'' = 6 k c x.
    constexpr double k = 0.79788456080286535588, c = 0.044715;
    const Tensor u = self.add(x2.mul(self).mul(c)).mul(k);
    const Tensor t = u.tanh();
    const Tensor du = x2.mul(3 * c).add(1).mul(k);
    const Tensor inner = du.sub(self.mul(t).mul(du.mul(du))).add(x2.mul(3 * k * c));
    return grad.mul(t.mul(t).neg().add(1)).mul(inner);
  }
  // y = x Phi(x): y'' = phi(x) (2 - x^2).
  const Tensor pdf = x2.mul(-0.5).exp().mul(0.39894228040143267794);
  return grad.mul(pdf).mul(x2.neg().add(2));
}

Tensor silu_double_backward(const Tensor& grad, const Tensor& self) {
  // (x s)'' = s (1 - s) (2 + x (1 - 2 s)).
  const Tensor s = self.sigmoid();
  const Tensor ds = s.mul(s.neg().add(1));
  return grad.mul(ds).mul(self.mul(s.mul(-2).add(1)).add(2));
}

Tensor mish_double_backward(const Tensor& grad, const Tensor& self) {
  // (x t)'' = s (1 - t^2) (2 + x (1 - s - 2 t s)), t = tanh(softplus(x)), s = sigmoid(x).
  const Tensor s = self.sigmoid();
  const Tensor t = tl::softplus(self, Scalar(1), Scalar(20)).tanh();
  const Tensor inner = self.mul(s.neg().add(1).sub(t.mul(s).mul(2))).add(2);
  return grad.mul(s).mul(t.mul(t).neg().add(1)).mul(inner);
}

Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  const Tensor bx = self.mul(beta);
  const Tensor s = bx.sigmoid();
  return tl::where(bx.gt(threshold), Scalar(0.0), grad.mul(s).mul(s.neg().add(1)).mul(beta));
}

Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result) {
  const double is = input_scale.to_double();
  const Tensor g = grad.mul(grad_output).mul(is);
  // Negative branch of elu_backward: is (y + alpha scale) in y, or is alpha scale e^(is x) in x.
  const Tensor d = is_result ? g : g.mul(self_or_result.mul(is).exp()).mul(is * alpha.to_double() * scale.to_double());
  return tl::where(self_or_result.gt(0), Scalar(0.0), d);
}

}  // namespace tl::autograd
