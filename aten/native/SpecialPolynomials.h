#pragma once
// Classical orthogonal polynomials of torch.special, evaluated at x for degree n by their
// three-term recurrences (host and device code, computing in T). As in PyTorch, n is truncated to
// an integer; a negative (or NaN) degree gives 0, and the loops stop once a value is NaN.
// Inside (-1, 1) the Chebyshev polynomials of high degree use their trigonometric forms, which
// are exact there and cost no loop.
#include <cmath>
#include <cstdint>
#include <limits>

#include "aten/core/Macros.h"

namespace tl::native::ew {

// Degree n truncated to an integer, as PyTorch's cast does (-0.5 is degree 0); -1 for n <= -1,
// NaN and values beyond int64, which PyTorch's cast turns negative on x86.
template <typename T>
TL_HOST_DEVICE inline int64_t polynomial_degree(T n) {
  return (n > T(-1) && n < T(9.2e18)) ? static_cast<int64_t>(n) : int64_t(-1);
}

// p_{k+1} = (2x) p_k - p_{k-1} from p0 = 1 and p1: Chebyshev T (p1 = x), U (2x), V (2x - 1) and
// W (2x + 1).
template <typename T>
TL_HOST_DEVICE inline T chebyshev_recurrence(T x, int64_t n, T p1) {
  if (n == 0) return T(1);
  T p = T(1), q = p1;
  for (int64_t k = 1; k < n && q == q; ++k) {
    T r = (x + x) * q - p;
    p = q;
    q = r;
  }
  return q;
}

// kind: 0 = T, 1 = U, 2 = V, 3 = W.
template <typename T>
TL_HOST_DEVICE TL_DEVICE_OUTLINED inline T chebyshev_polynomial(T x, T degree, int kind) {
  int64_t n = polynomial_degree(degree);
  if (n < 0) return T(0);
  bool odd = n % 2 == 1;
  // Values at the end points: T_n(1) = V_n(1) = 1, U_n(1) = n + 1, W_n(1) = 2n + 1, and the
  // parities T_n(-x) = (-1)^n T_n(x), V_n(-1) = (-1)^n (2n + 1), W_n(-1) = (-1)^n.
  if (std::fabs(x) == T(1)) {
    T sign = (x < T(0) && odd) ? T(-1) : T(1);
    switch (kind) {
      case 0: return sign;
      case 1: return sign * T(n + 1);
      case 2: return x > T(0) ? T(1) : sign * T(2 * n + 1);
      default: return x > T(0) ? T(2 * n + 1) : sign;
    }
  }
  if (n > 8 && std::fabs(x) < T(1)) {
    // x = cos t: T_n = cos nt, U_n = sin((n+1)t) / sin t, V_n = cos((n+1/2)t) / cos(t/2),
    // W_n = sin((n+1/2)t) / sin(t/2).
    T t = std::acos(x);
    switch (kind) {
      case 0: return std::cos(T(n) * t);
      case 1: return std::sin(T(n + 1) * t) / std::sin(t);
      case 2: return std::cos((T(n) + T(0.5)) * t) / std::cos(t / T(2));
      default: return std::sin((T(n) + T(0.5)) * t) / std::sin(t / T(2));
    }
  }
  T p1 = kind == 0 ? x : (kind == 1 ? x + x : (kind == 2 ? x + x - T(1) : x + x + T(1)));
  return chebyshev_recurrence(x, n, p1);
}

// Physicists' Hermite H (H_{k+1} = 2x H_k - 2k H_{k-1}) or, with `probabilists`, He
// (He_{k+1} = x He_k - k He_{k-1}).
template <typename T>
TL_HOST_DEVICE TL_DEVICE_OUTLINED inline T hermite_polynomial(T x, T degree, bool probabilists) {
  int64_t n = polynomial_degree(degree);
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  // Beyond these degrees the values overflow T (H_n(0) = +-n! / (n/2)!), as PyTorch caps them.
  if (n > (sizeof(T) < 8 ? 128 : 512)) return std::numeric_limits<T>::quiet_NaN();
  T scale = probabilists ? T(1) : T(2);
  T p = T(1), q = scale * x;
  for (int64_t k = 1; k < n && q == q; ++k) {
    T r = scale * (x * q - T(k) * p);
    p = q;
    q = r;
  }
  return q;
}

// Laguerre L: (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}.
template <typename T>
TL_HOST_DEVICE TL_DEVICE_OUTLINED inline T laguerre_polynomial(T x, T degree) {
  int64_t n = polynomial_degree(degree);
  if (n < 0) return T(0);
  if (n == 0 || x == T(0)) return T(1);
  T p = T(1), q = T(1) - x;
  for (int64_t k = 1; k < n && q == q; ++k) {
    T r = ((T(2 * k + 1) - x) * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return q;
}

// Legendre P: (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; P_n(+-1) = (+-1)^n.
template <typename T>
TL_HOST_DEVICE TL_DEVICE_OUTLINED inline T legendre_polynomial(T x, T degree) {
  int64_t n = polynomial_degree(degree);
  if (n < 0) return T(0);
  if (std::fabs(x) == T(1)) return (x < T(0) && n % 2 == 1) ? T(-1) : T(1);
  if (n == 0) return T(1);
  T p = T(1), q = x;
  for (int64_t k = 1; k < n && q == q; ++k) {
    T r = (T(2 * k + 1) * x * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
  }
  return q;
}

}  // namespace tl::native::ew
