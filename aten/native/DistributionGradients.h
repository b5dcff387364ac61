#pragma once
// The reparameterisation gradients of Gamma and Dirichlet samples, one element each (Note
// [Implicit reparameterisation] in Distributions.cpp), for every device, and the stubs that run
// them over contiguous float64 operands on devices other than the CPU.
#include <cmath>
#include <limits>

#include "aten/core/Macros.h"
#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"
#include "aten/native/SpecialFunctions.h"

namespace tl::native {

// dx/da for x ~ Gamma(a, 1) (Note [Implicit reparameterisation]). With the density
// f = x^(a-1) e^-x / Gamma(a) and P(a, x) = sum_n e^-x x^(a+n) / Gamma(a+n+1):
// (dP/da) / f = sum_n r_n (log x - digamma(a+n+1)), r_n = x^(n+1) / (a (a+1) ... (a+n)).
TL_HOST_DEVICE inline double standard_gamma_grad_one(double a, double x) {
  if (!(a > 0.0) || !(x > 0.0) || x == std::numeric_limits<double>::infinity()) return x == 0.0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  const double log_x = std::log(x);
  double r = x / a, psi = ew::digamma(a + 1.0);
  double sum = r * (log_x - psi), r_total = r;
  for (double n = 1.0; n < 1e9; n += 1.0) {
    psi += 1.0 / (a + n);
    r *= x / (a + n);
    sum += r * (log_x - psi);
    r_total += r;
    if (!(r - r == 0.0)) break;  // x far in the tail of a tiny a: no finite answer
    if (n > x - a && !(r > 1e-17 * r_total)) break;  // past the largest term, and negligible
  }
  return -sum;
}

// The Dirichlet's reparameterisation factor (Note [Implicit reparameterisation]): for
// x ~ Beta(a, b), (dx/da at fixed b) / (1 - x). A Dirichlet coordinate x_i is such a Beta with
// b = total - a_i, and dx_j/da_i = this * (delta_ij - x_j) (the caller's projection).
// I_x(a, b) = sum_n T_n, T_n = x^(a+n) (1-x)^b Gamma(a+b+n) / (Gamma(a+n+1) Gamma(b)), so
// (dI/da) / (dI/dx) = sum_n R_n (log x + digamma(a+b+n) - digamma(a+n+1)) with
// R_0 = x (1-x) / a and R_n / R_(n-1) = x (a+b+n-1) / (a+n). Below the mode the ratio is < 1 from
// the start; above it the series of 1 - x ~ Beta(b, a) converges instead, where a is the second
// parameter: dx/da = sum_n R_n(1-x; b, a) (log x + digamma(a+b+n) - digamma(a)).
TL_HOST_DEVICE inline double dirichlet_grad_one(double x, double alpha, double total) {
  const double beta = total - alpha;
  if (x != x || alpha != alpha || total != total) return std::numeric_limits<double>::quiet_NaN();
  if (!(x > 0.0 && x < 1.0) || !(alpha > 0.0) || !(beta > 0.0)) return 0.0;
  const bool flip = x > (alpha + 1.0) / (total + 2.0);
  const double z = flip ? 1.0 - x : x, p = flip ? beta : alpha, log_x = std::log(x);
  double r = z * (1.0 - z) / p, psi_total = ew::digamma(total);
  double psi_a = flip ? ew::digamma(alpha) : ew::digamma(alpha + 1.0);
  double sum = r * (log_x + psi_total - psi_a), r_total = r;
  for (double n = 1.0; n < 1e9; n += 1.0) {
    r *= z * (total + n - 1.0) / (p + n);
    psi_total += 1.0 / (total + n - 1.0);
    if (!flip) psi_a += 1.0 / (alpha + n);
    sum += r * (log_x + psi_total - psi_a);
    r_total += r;
    if (!(r > 1e-17 * r_total)) break;  // negligible (or not a number: an infinite total)
  }
  return (flip ? sum : -sum) / (1.0 - x);
}

// out = standard_gamma_grad_one(a, x) / dirichlet_grad_one(x, alpha, total), elementwise.
extern DispatchStub<void(const Tensor& a, const Tensor& x, const Tensor& out)> standard_gamma_grad_stub;
extern DispatchStub<void(const Tensor& x, const Tensor& alpha, const Tensor& total, const Tensor& out)>
    dirichlet_grad_stub;

}  // namespace tl::native
