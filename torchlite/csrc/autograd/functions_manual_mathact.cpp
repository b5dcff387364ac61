// Second derivatives of the activations (functions_manual_mathact.h).
#include "torchlite/csrc/autograd/functions_manual_mathact.h"

namespace tl::autograd {

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

namespace tl::autograd {

double dropout_scale(double p, std::optional<bool> train) {
  if (train.has_value() && !*train) return 1.0;
  return p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
}

}  // namespace tl::autograd
