#pragma once
// Functors of the activations (gelu, silu, elu, leaky_relu, softplus, hardtanh) and their
// backward ops, and of the pointwise math ops (erf, erfc, erfinv, atan2, fmod, lerp, addcmul,
// addcdiv, isnan..., nan_to_num). Written once for the CPU loops and the CUDA launcher, as in
// Note [Shared functors] (ElementwiseFunctors.h): pure, branches as selects where possible.
#include <cmath>
#include <limits>
#include <type_traits>

#include "aten/native/ElementwiseFunctors.h"

namespace tl::native {

namespace ew {

// Note [Vectorisable erf]: like std::exp (Note [Vectorisable exp]), std::erf is a library
// call that blocks vectorisation, and gelu lives on it. Float erf on the host is the odd
// rational approximation x P(x^2) / Q(x^2) on [-4, 4] (erf(4) rounds to 1 in float) with
// Eigen's minimax coefficients: at most 4.3e-7 relative error, no division-free tail needed.
// Doubles keep std::erf.
TL_HOST_DEVICE inline float erf(float a) {
#ifdef __CUDA_ARCH__
  return ::erff(a);
#else
  float x = a > 4.f ? 4.f : a;
  x = x < -4.f ? -4.f : x;  // NaN passes both selects unchanged
  const float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
  return x * p / q;
#endif
}
TL_HOST_DEVICE inline double erf(double x) { return std::erf(x); }

// erfinv: Giles' single-precision approximation ("Approximating the erfinv function", GPU
// Computing Gems, 2011) refined by two Newton steps on erf(y) = x in double, which gives full
// double precision. erfinv(+-1) = +-inf, |x| > 1 gives NaN.
TL_HOST_DEVICE inline double erfinv(double x) {
  if (!(x > -1.0 && x < 1.0)) {
    if (x == 1.0) return std::numeric_limits<double>::infinity();
    if (x == -1.0) return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  double w = -std::log((1.0 - x) * (1.0 + x)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double y = p * x;
  constexpr double two_over_sqrt_pi = 1.1283791670955126;
  for (int i = 0; i < 2; ++i) y -= (std::erf(y) - x) / (two_over_sqrt_pi * std::exp(-y * y));
  return y;
}

// 1 / (1 + e^-x) with the vectorisable exp.
template <typename T>
TL_HOST_DEVICE inline T sigmoid(T x) {
  return T(1) / (T(1) + exp(-x));
}

}  // namespace ew

// ---- activations -------------------------------------------------------------------------
// Floating types only; opmath_t computes Half/BFloat16 in float.

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kGeluBeta = 0.79788456080286535588;    // sqrt(2 / pi)
constexpr double kGeluKappa = 0.044715;

// gelu(x) = x Phi(x); approximate='tanh': 0.5 x (1 + tanh(u)) = x sigmoid(2u),
// u = sqrt(2/pi) (x + 0.044715 x^3).
template <typename T>
struct GeluFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x * op_t(0.5) * (op_t(1) + ew::erf(x * op_t(kSqrt1_2))));
  }
};
template <typename T>
struct GeluTanhFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    op_t u = op_t(kGeluBeta) * (x + op_t(kGeluKappa) * x * x * x);
    return static_cast<T>(x * ew::sigmoid(op_t(2) * u));
  }
};
// d/dx x Phi(x) = Phi(x) + x phi(x).
template <typename T>
struct GeluBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t cdf = op_t(0.5) * (op_t(1) + ew::erf(x * op_t(kSqrt1_2)));
    op_t pdf = op_t(kInvSqrt2Pi) * ew::exp(op_t(-0.5) * x * x);
    return static_cast<T>(static_cast<op_t>(g) * (cdf + x * pdf));
  }
};
// d/dx 0.5 x (1 + t) = 0.5 (1 + t) + 0.5 x (1 - t^2) u', t = tanh(u) = 2 sigmoid(2u) - 1.
template <typename T>
struct GeluTanhBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t x2 = x * x;
    op_t u = op_t(kGeluBeta) * (x + op_t(kGeluKappa) * x2 * x);
    op_t t = op_t(2) * ew::sigmoid(op_t(2) * u) - op_t(1);
    op_t du = op_t(kGeluBeta) * (op_t(1) + op_t(3 * kGeluKappa) * x2);
    return static_cast<T>(static_cast<op_t>(g) * op_t(0.5) * ((op_t(1) + t) + x * (op_t(1) - t * t) * du));
  }
};

template <typename T>
struct SiluFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x * ew::sigmoid(x));
  }
};
// d/dx x s(x) = s (1 + x (1 - s)).
template <typename T>
struct SiluBackwardFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    op_t s = ew::sigmoid(x);
    return static_cast<T>(static_cast<op_t>(g) * s * (op_t(1) + x * (op_t(1) - s)));
  }
};

// elu(x) = scale x for x > 0, scale alpha (e^(input_scale x) - 1) otherwise.
template <typename T>
struct EluFunctor {
  using op_t = opmath_t<T>;
  op_t alpha, scale, input_scale;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x > op_t(0) ? x * scale : std::expm1(x * input_scale) * alpha * scale);
  }
};
// With is_result the second input is elu's output y (y + alpha scale = alpha scale e^(..)).
template <typename T>
struct EluBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t alpha, scale, input_scale;
  bool is_result;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a), go = static_cast<op_t>(g);
    op_t neg = is_result ? input_scale * (x + alpha * scale) : input_scale * alpha * scale * ew::exp(x * input_scale);
    return static_cast<T>(x > op_t(0) ? go * scale : go * neg);
  }
};

template <typename T>
struct LeakyReluFunctor {
  using op_t = opmath_t<T>;
  op_t negative_slope;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x > op_t(0) ? x : x * negative_slope);
  }
};
template <typename T>
struct LeakyReluBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t negative_slope;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t go = static_cast<op_t>(g);
    return static_cast<T>(static_cast<op_t>(a) > op_t(0) ? go : go * negative_slope);
  }
};

// softplus(x) = log(1 + e^(beta x)) / beta, linear where beta x > threshold.
template <typename T>
struct SoftplusFunctor {
  using op_t = opmath_t<T>;
  op_t beta, threshold;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a), bx = x * beta;
    return static_cast<T>(bx > threshold ? x : std::log1p(std::exp(bx)) / beta);
  }
};
template <typename T>
struct SoftplusBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t beta, threshold;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t bx = static_cast<op_t>(a) * beta, go = static_cast<op_t>(g);
    return static_cast<T>(bx > threshold ? go : go * ew::sigmoid(bx));
  }
};

template <typename T>
struct HardtanhBackwardFunctor {
  using op_t = opmath_t<T>;
  op_t min_val, max_val;
  TL_HOST_DEVICE T operator()(T g, T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x <= min_val || x >= max_val ? op_t(0) : static_cast<op_t>(g));
  }
};

}  // namespace tl::native

namespace tl::native {

// ---- pointwise math ------------------------------------------------------------------------

#define TL_MATH_UNARY_FUNCTOR(Name, expr)                                                    \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE T operator()(T a) const {                                                 \
      op_t x = static_cast<op_t>(a);                                                         \
      return static_cast<T>(expr);                                                           \
    }                                                                                        \
  };
TL_MATH_UNARY_FUNCTOR(ErfFunctor, ew::erf(x))
TL_MATH_UNARY_FUNCTOR(ErfcFunctor, std::erfc(x))
TL_MATH_UNARY_FUNCTOR(ErfinvFunctor, ew::erfinv(static_cast<double>(x)))
#undef TL_MATH_UNARY_FUNCTOR

template <typename T>
struct Atan2Functor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(std::atan2(static_cast<op_t>(a), static_cast<op_t>(b))); }
};

// C-style remainder: the result has the sign of the dividend. Integer zero divisors are
// rejected before the loop.
template <typename T>
struct FmodFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return (b == 0 || b == T(-1)) ? T(0) : static_cast<T>(a % b);
    else return static_cast<T>(std::fmod(static_cast<op_t>(a), static_cast<op_t>(b)));
  }
};

// self + weight (end - self), written from the nearer end so weight 0 and 1 are exact.
template <typename T>
TL_HOST_DEVICE inline T lerp(T s, T e, T w) {
  T d = e - s;
  return (w < T(0.5) ? s + w * d : e - d * (T(1) - w));
}
template <typename T>
struct LerpFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T s, T e, T w) const {
    return static_cast<T>(lerp(static_cast<op_t>(s), static_cast<op_t>(e), static_cast<op_t>(w)));
  }
};
template <typename T>
struct LerpScalarFunctor {
  using op_t = opmath_t<T>;
  op_t weight;
  TL_HOST_DEVICE T operator()(T s, T e) const { return static_cast<T>(lerp(static_cast<op_t>(s), static_cast<op_t>(e), weight)); }
};

template <typename T>
struct AddcmulFunctor {
  using op_t = opmath_t<T>;
  op_t value;
  TL_HOST_DEVICE T operator()(T s, T a, T b) const {
    return static_cast<T>(static_cast<op_t>(s) + value * static_cast<op_t>(a) * static_cast<op_t>(b));
  }
};
template <typename T>
struct AddcdivFunctor {
  using op_t = opmath_t<T>;
  op_t value;
  TL_HOST_DEVICE T operator()(T s, T a, T b) const {
    return static_cast<T>(static_cast<op_t>(s) + value * (static_cast<op_t>(a) / static_cast<op_t>(b)));
  }
};

// Classification (output bool); integers are always finite.
#define TL_CLASSIFY_FUNCTOR(Name, int_value, expr)                                           \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE bool operator()(T a) const {                                              \
      if constexpr (std::is_integral_v<T>) {                                                 \
        return int_value;                                                                    \
      } else {                                                                               \
        op_t x = static_cast<op_t>(a);                                                       \
        constexpr op_t inf = std::numeric_limits<op_t>::infinity();                          \
        (void)inf;                                                                           \
        return expr;                                                                         \
      }                                                                                      \
    }                                                                                        \
  };
TL_CLASSIFY_FUNCTOR(IsnanFunctor, false, x != x)
TL_CLASSIFY_FUNCTOR(IsinfFunctor, false, x == inf || x == -inf)
TL_CLASSIFY_FUNCTOR(IsfiniteFunctor, true, x - x == op_t(0))
TL_CLASSIFY_FUNCTOR(IsposinfFunctor, false, x == inf)
TL_CLASSIFY_FUNCTOR(IsneginfFunctor, false, x == -inf)
#undef TL_CLASSIFY_FUNCTOR

// Replacements are already rounded to T by the caller (inf becomes T's largest finite value).
template <typename T>
struct NanToNumFunctor {
  using op_t = opmath_t<T>;
  op_t nan, posinf, neginf;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    constexpr op_t inf = std::numeric_limits<op_t>::infinity();
    return x != x ? static_cast<T>(nan) : (x == inf ? static_cast<T>(posinf) : (x == -inf ? static_cast<T>(neginf) : a));
  }
};

}  // namespace tl::native
