#pragma once
// Special functions used by the elementwise functors (digamma, Hurwitz zeta, modified Bessel
// I0/I1). Host and device code: no exceptions, no static state; they compute in T (opmath).
#include <cmath>
#include <limits>

#include "aten/core/Macros.h"

namespace tl::native::ew {

template <typename T>
TL_HOST_DEVICE inline T digamma(T x) {
  // psi(+-0) = -+inf, psi of a negative integer (and of -inf) is NaN, as in PyTorch.
  if (x == T(0)) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  T result = 0;
  if (x < T(0)) {
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    // Reflection psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so the signed
    // fractional part (x - trunc(x), exact) keeps the argument small. In double, as PyTorch:
    // near a pole, pi * r in float (or x - floor(x), which rounds for small |x|) lost the
    // digits that matter (float32 results were off by 1e-3 relative).
    const double pi = 3.14159265358979323846, r = static_cast<double>(x - std::trunc(x));
    result = static_cast<T>(-pi / std::tan(pi * r));
    x = T(1) - x;
  }
  // Recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the asymptotic series.
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  T z = T(1) / (x * x);
  T tail = z * (T(1) / 12 - z * (T(1) / 120 - z * (T(1) / 252 - z * (T(1) / 240 - z * (T(1) / 132)))));
  return result + std::log(x) - T(0.5) / x - tail;
}

// zeta(s, q) = sum_{k >= 0} (q + k)^-s for s > 1 (polygamma passes integer s >= 2, so negative
// non-integer q are fine): direct sum until q + k > 9, then Euler-Maclaurin with the
// Bernoulli terms (2j)! / B_2j.
template <typename T>
TL_HOST_DEVICE inline T hurwitz_zeta(T s, T q) {
  const T inf = std::numeric_limits<T>::infinity();
  if (q <= T(0) && q == std::floor(q)) return inf;  // a pole (q = +inf gives NaN, as in PyTorch)
  const T eps = std::numeric_limits<T>::epsilon();
  T sum = std::pow(q, -s);
  T a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= T(9)) {
    ++i;
    a += T(1);
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b / sum) < eps) return sum;
  }
  const double bernoulli[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                                7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                                -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18};
  sum += b * a / (s - T(1)) - T(0.5) * b;
  T fac = 1, k = 0;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= a;
    T t = fac * b / static_cast<T>(bernoulli[j]);
    sum += t;
    if (std::fabs(t / sum) < eps) break;
    k += T(1);
    fac *= s + k;
    b /= a;
    k += T(1);
  }
  return sum;
}

// Modified Bessel function of the first kind, order 0 or 1: the power series
// sum (x/2)^(2k+nu) / (k! (k+nu)!) up to |x| = 30 (positive terms, no cancellation), then the
// asymptotic series e^x / sqrt(2 pi x) sum_k prod_{j<=k} ((2j-1)^2 - 4 nu^2) / (k! (8x)^k).
template <typename T>
TL_HOST_DEVICE inline T bessel_i(T x, bool order1) {
  const T eps = std::numeric_limits<T>::epsilon();
  T ax = std::fabs(x);
  T result;
  if (ax <= T(30)) {
    T h = ax / T(2), h2 = h * h;
    T term = order1 ? h : T(1);
    T sum = term;
    for (int k = 1; k < 200 && term > sum * eps; ++k) {
      term *= h2 / (T(k) * T(k + (order1 ? 1 : 0)));
      sum += term;
    }
    result = sum;
  } else {
    T mu = order1 ? T(4) : T(0);
    T term = 1, sum = 1;
    for (int k = 1; k < 40 && std::fabs(term) > eps * std::fabs(sum); ++k) {
      T f = T(2 * k - 1);
      term *= (f * f - mu) / (T(k) * T(8) * ax);
      sum += term;
    }
    // e^x split in two halves so results near the overflow threshold stay finite.
    T half = std::exp(ax / T(2));
    result = half * (half * sum / std::sqrt(T(2 * 3.14159265358979323846) * ax));
  }
  return (order1 && x < T(0)) ? -result : result;
}

}  // namespace tl::native::ew
