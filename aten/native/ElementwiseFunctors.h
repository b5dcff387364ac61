#pragma once
// Note [Shared functors]: the math of every elementwise op, written once as a functor over
// its compute type and used by both the CPU loops (cpu/Loops.h) and the CUDA launcher
// (cuda/Loops.cuh). Half types compute in float (opmath_t) and round on store.
//
// Functors are pure: they never throw (a CUDA thread cannot). Fields come from the stub's
// arguments (Note [Stubs]); a static make() builds them when conversion is not enough. Checks that depend on data,
// such as integer division by zero, are done by the device code before the loop (see
// check_no_zero_divisor in BinaryOps.h); the functors return 0 in that case.
// Branches are written as selects where they can be, so the contiguous CPU loops vectorise.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "aten/core/Macros.h"
#include "aten/core/Scalar.h"
#include "aten/core/ScalarType.h"
#include "aten/native/SpecialFunctions.h"

namespace tl::native {

namespace ew {

template <typename T>
inline constexpr bool is_signed_int_v = std::is_integral_v<T> && std::is_signed_v<T>;
template <typename T>
inline constexpr bool is_unsigned_int_v = std::is_integral_v<T> && !std::is_signed_v<T> && !std::is_same_v<T, bool>;

// -a with two's-complement wrap-around (no UB for the most negative value).
template <typename T>
TL_HOST_DEVICE inline T wrapping_neg(T a) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(0) - static_cast<U>(a));
  } else {
    return -a;
  }
}

// Integer division helpers: b == 0 gives 0 (callers check first); b == -1 avoids the
// INT_MIN / -1 trap.
template <typename T>
TL_HOST_DEVICE inline T int_div_trunc(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrapping_neg(a);
  }
  return static_cast<T>(a / b);
}
template <typename T>
TL_HOST_DEVICE inline T int_div_floor(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrapping_neg(a);
    T q = static_cast<T>(a / b);
    T r = static_cast<T>(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  } else {
    return static_cast<T>(a / b);
  }
}
// C-style integer remainder (the sign of the dividend).
template <typename T>
TL_HOST_DEVICE inline T int_fmod(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}
// Python-style remainder: the result has the sign of the divisor.
template <typename T>
TL_HOST_DEVICE inline T int_remainder(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
    T r = static_cast<T>(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
  } else {
    return static_cast<T>(a % b);
  }
}
template <typename T>
TL_HOST_DEVICE inline T float_remainder(T a, T b) {
  T m = std::fmod(a, b);
  return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
}
// Python's float floor division (what torch.div(rounding_mode='floor') computes).
template <typename T>
TL_HOST_DEVICE inline T float_div_floor(T a, T b) {
  if (b == 0) return a / b;
  T m = std::fmod(a, b);
  T d = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) d -= T(1);
  if (d == 0) return std::copysign(T(0), a / b);
  T f = std::floor(d);
  return (d - f > T(0.5)) ? f + T(1) : f;
}
// Integer power by squaring; negative exponents give 1, +-1 or 0 as torch does.
template <typename T>
TL_HOST_DEVICE inline T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return T(1);
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
  U result = 1, b = static_cast<U>(base);
  auto e = exp;
  while (e) {
    if (e & 1) result *= b;
    b *= b;
    e = static_cast<T>(e >> 1);
  }
  return static_cast<T>(result);
}

// Note [Vectorisable exp]: std::exp is a library call the compiler cannot vectorise, which
// left exp, sigmoid, softmax and friends at a third of the memory bandwidth. On the host,
// float exp is computed branch-free: x = n ln2 + r with |r| <= ln2/2, e^r by its degree-7
// Taylor polynomial (truncation error < 1e-8 relative), and 2^n built from exponent bits in
// two halves so results down in the subnormal range stay right. Error: about 1 ulp. NaN
// propagates; overflow gives inf; underflow gives 0. Doubles keep std::exp.
TL_HOST_DEVICE inline float exp(float x) {
#ifdef __CUDA_ARCH__
  return ::expf(x);
#else
  const float hi = 88.7228394f, lo = -103.972084f;
  float xc = x > hi ? hi : x;
  xc = xc < lo ? lo : xc;  // NaN passes both selects unchanged
  // Round to nearest by adding and subtracting 1.5 * 2^23 (std::floor does not vectorise).
  float n = (xc * 1.44269504f + 12582912.f) - 12582912.f;
  float r = xc - n * 0.693359375f;  // ln2 split in two so n * ln2_hi is exact
  r = r + n * 2.12194440e-4f;
  float p = 1.f / 5040.f;
  p = p * r + 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni / 2, n2 = ni - n1;
  int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof(float));
  std::memcpy(&s2, &b2, sizeof(float));
  float result = p * s1 * s2;
  result = x > hi ? std::numeric_limits<float>::infinity() : result;
  return x < lo ? 0.f : result;
#endif
}
TL_HOST_DEVICE inline double exp(double x) { return std::exp(x); }
template <typename V>
inline std::complex<V> exp(std::complex<V> x) { return std::exp(x); }  // host only (Note [Complex dtypes])

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
TL_HOST_DEVICE TL_DEVICE_OUTLINED inline double erfinv(double x) {
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

// ---- binary arithmetic (inputs and output of type T) ---------------------------------------

template <typename T>
struct AddFunctor {
  using op_t = opmath_t<T>;
  op_t alpha;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a || (alpha && b);
    else return static_cast<T>(static_cast<op_t>(a) + alpha * static_cast<op_t>(b));
  }
};

template <typename T>
struct SubFunctor {
  using op_t = opmath_t<T>;
  op_t alpha;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    return static_cast<T>(static_cast<op_t>(a) - alpha * static_cast<op_t>(b));
  }
};

template <typename T>
struct MulFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return static_cast<T>(static_cast<op_t>(a) * static_cast<op_t>(b));
  }
};

// True division; the iterator promotes integer inputs to float first.
template <typename T>
struct DivFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(static_cast<op_t>(a) / static_cast<op_t>(b)); }
};

template <typename T>
struct DivTruncFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return ew::int_div_trunc(a, b);
    else return static_cast<T>(std::trunc(static_cast<op_t>(a) / static_cast<op_t>(b)));
  }
};

// Also floor_divide.
template <typename T>
struct DivFloorFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return ew::int_div_floor(a, b);
    else return static_cast<T>(ew::float_div_floor(static_cast<op_t>(a), static_cast<op_t>(b)));
  }
};

template <typename T>
struct RemainderFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return ew::int_remainder(a, b);
    else return static_cast<T>(ew::float_remainder(static_cast<op_t>(a), static_cast<op_t>(b)));
  }
};

template <typename T>
struct PowFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return ew::int_pow(a, b);
    else return static_cast<T>(std::pow(static_cast<op_t>(a), static_cast<op_t>(b)));
  }
};

// a ** exponent for a fixed exponent (pow.Tensor_Scalar; 2 has a stub of its own). The
// exponents PyTorch computes in closed form get the same forms, so the edge values agree:
// (-inf) ** 0.5 is sqrt's NaN and (-0.) ** 0.5 is -0., where std::pow gives inf and +0.
template <typename T>
struct PowScalarFunctor {
  using op_t = opmath_t<T>;
  op_t exponent;
  TL_HOST_DEVICE T operator()(T a) const {
    if constexpr (std::is_integral_v<T>) {
      return ew::int_pow(a, static_cast<T>(exponent));
    } else {
      const op_t x = static_cast<op_t>(a);
      if (exponent == op_t(0.5)) return static_cast<T>(std::sqrt(x));
      if (exponent == op_t(-0.5)) return static_cast<T>(op_t(1) / std::sqrt(x));
      if (exponent == op_t(3)) return static_cast<T>(x * x * x);
      if (exponent == op_t(-1)) return static_cast<T>(op_t(1) / x);
      if (exponent == op_t(-2)) return static_cast<T>(op_t(1) / (x * x));
      return static_cast<T>(std::pow(x, exponent));
    }
  }
};
template <typename T>
struct SquareFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const { return static_cast<T>(static_cast<op_t>(a) * static_cast<op_t>(a)); }
};

// maximum/minimum propagate NaN.
template <typename T>
struct MaximumFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (std::is_integral_v<T>) return a > b ? a : b;
    else {
      op_t x = static_cast<op_t>(a), y = static_cast<op_t>(b);
      return static_cast<T>(x != x ? x : (y != y ? y : (x > y ? x : y)));
    }
  }
};
template <typename T>
struct MinimumFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (std::is_integral_v<T>) return a < b ? a : b;
    else {
      op_t x = static_cast<op_t>(a), y = static_cast<op_t>(b);
      return static_cast<T>(x != x ? x : (y != y ? y : (x < y ? x : y)));
    }
  }
};

// ---- comparisons and logical ops (inputs T, output bool) -----------------------------------

#define TL_COMPARISON_FUNCTOR(Name, op)                                                      \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE bool operator()(T a, T b) const {                                         \
      return static_cast<op_t>(a) op static_cast<op_t>(b);                                   \
    }                                                                                        \
  };
TL_COMPARISON_FUNCTOR(EqFunctor, ==)
TL_COMPARISON_FUNCTOR(NeFunctor, !=)
TL_COMPARISON_FUNCTOR(LtFunctor, <)
TL_COMPARISON_FUNCTOR(LeFunctor, <=)
TL_COMPARISON_FUNCTOR(GtFunctor, >)
TL_COMPARISON_FUNCTOR(GeFunctor, >=)
#undef TL_COMPARISON_FUNCTOR

#define TL_LOGICAL_FUNCTOR(Name, op)                                                         \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE bool operator()(T a, T b) const {                                         \
      return (static_cast<op_t>(a) != op_t(0)) op (static_cast<op_t>(b) != op_t(0));         \
    }                                                                                        \
  };
TL_LOGICAL_FUNCTOR(LogicalAndFunctor, &&)
TL_LOGICAL_FUNCTOR(LogicalOrFunctor, ||)
TL_LOGICAL_FUNCTOR(LogicalXorFunctor, !=)
#undef TL_LOGICAL_FUNCTOR

template <typename T>
struct LogicalNotFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE bool operator()(T a) const { return static_cast<op_t>(a) == op_t(0); }
};

// ---- bitwise ops (integral and bool) -------------------------------------------------------

#define TL_BITWISE_FUNCTOR(Name, op)                                                         \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    TL_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(a op b); }           \
  };
TL_BITWISE_FUNCTOR(BitwiseAndFunctor, &)
TL_BITWISE_FUNCTOR(BitwiseOrFunctor, |)
TL_BITWISE_FUNCTOR(BitwiseXorFunctor, ^)
#undef TL_BITWISE_FUNCTOR

template <typename T>
struct BitwiseNotFunctor {
  TL_HOST_DEVICE T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>) return !a;
    else return static_cast<T>(~a);
  }
};

// ---- nullary -------------------------------------------------------------------------------

// fill_: the value converts straight to T (through opmath_t it would round twice for Half).
template <typename T>
struct FillFunctor {
  T value;
  static FillFunctor make(const Scalar& value) { return {value.to<T>()}; }
  TL_HOST_DEVICE T operator()() const { return value; }
};

// ---- ternary -------------------------------------------------------------------------------

// where(condition, self, other); the condition arrives converted to T (0 or 1).
template <typename T>
struct WhereFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T c, T a, T b) const { return static_cast<op_t>(c) != op_t(0) ? a : b; }
};

// clamp(a, lo, hi) = min(max(a, lo), hi); NaN inputs stay NaN. Absent bounds are +-inf
// (or the integer type's limits).
template <typename T>
struct ClampFunctor {
  using op_t = opmath_t<T>;
  op_t lo, hi;
  // Bounds outside T's range saturate instead of wrapping.
  static ClampFunctor make(const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
    constexpr bool is_int = std::numeric_limits<T>::is_integer;
    constexpr op_t lowest = is_int ? static_cast<op_t>(std::numeric_limits<T>::lowest())
                                   : -std::numeric_limits<op_t>::infinity();
    constexpr op_t highest = is_int ? static_cast<op_t>(std::numeric_limits<T>::max())
                                    : std::numeric_limits<op_t>::infinity();
    auto bound = [&](const std::optional<Scalar>& s, op_t absent) -> op_t {
      if (!s) return absent;
      if constexpr (is_int) {
        double v = s->to_double();
        if (v <= static_cast<double>(lowest)) return lowest;
        if (v >= static_cast<double>(highest)) return highest;
      }
      return s->template to<op_t>();
    };
    return {bound(min, lowest), bound(max, highest)};
  }
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    // A NaN bound makes every element NaN, as in PyTorch (`lo != lo` is false for integers).
    op_t y = x < lo || lo != lo ? lo : x;
    y = y > hi || hi != hi ? hi : y;
    if constexpr (std::is_integral_v<T>) return static_cast<T>(y);
    else return static_cast<T>(x != x ? x : y);
  }
};

// ---- unary ---------------------------------------------------------------------------------

template <typename T>
struct NegFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    if constexpr (std::is_integral_v<T>) return ew::wrapping_neg(a);
    else return static_cast<T>(-static_cast<op_t>(a));
  }
};

template <typename T>
struct AbsFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    if constexpr (ew::is_unsigned_int_v<T> || std::is_same_v<T, bool>) return a;
    else if constexpr (std::is_integral_v<T>) return a < 0 ? ew::wrapping_neg(a) : a;
    else return static_cast<T>(std::fabs(static_cast<op_t>(a)));
  }
};

// sign(nan) = 0 as in torch.
template <typename T>
struct SignFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>) return a;
    else if constexpr (ew::is_unsigned_int_v<T>) return static_cast<T>(a > 0);
    else {
      op_t x = static_cast<op_t>(a);
      return static_cast<T>(static_cast<op_t>((op_t(0) < x) - (x < op_t(0))));
    }
  }
};

template <typename T>
struct ReluFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    if constexpr (std::is_integral_v<T>) return x > 0 ? a : T(0);
    else return static_cast<T>((x > op_t(0) || x != x) ? x : op_t(0));
  }
};

// Rounding ops: identity on integers.
#define TL_ROUNDING_FUNCTOR(Name, fn)                                                        \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE T operator()(T a) const {                                                 \
      if constexpr (std::is_integral_v<T>) return a;                                         \
      else return static_cast<T>(fn(static_cast<op_t>(a)));                                  \
    }                                                                                        \
  };
TL_ROUNDING_FUNCTOR(FloorFunctor, std::floor)
TL_ROUNDING_FUNCTOR(CeilFunctor, std::ceil)
TL_ROUNDING_FUNCTOR(TruncFunctor, std::trunc)
TL_ROUNDING_FUNCTOR(RoundFunctor, std::nearbyint)  // half to even (default rounding mode)
#undef TL_ROUNDING_FUNCTOR
// round(decimals=d): scaled by 10^|d| on the side that keeps the scale exact (125 with d=-1 is
// nearbyint(12.5) * 10 = 120, half to even as PyTorch gives).
template <typename T>
struct RoundDecimalsFunctor {
  using op_t = opmath_t<T>;
  int64_t decimals;
  TL_HOST_DEVICE T operator()(T a) const {
    const op_t x = static_cast<op_t>(a);
    if (decimals == 0) return static_cast<T>(std::nearbyint(x));
    const op_t scale = static_cast<op_t>(std::pow(op_t(10), static_cast<op_t>(decimals < 0 ? -decimals : decimals)));
    return static_cast<T>(decimals < 0 ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale);
  }
};

// Floating-point math; the iterator promotes integer inputs to the default float dtype. This
// macro and TL_FLOAT_BINARY_FUNCTOR stay defined for the other functor headers
// (SpecialFunctors.h) to use.
#define TL_FLOAT_UNARY_FUNCTOR(Name, expr)                                                   \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE T operator()(T a) const {                                                 \
      op_t x = static_cast<op_t>(a);                                                         \
      return static_cast<T>(expr);                                                           \
    }                                                                                        \
  };
TL_FLOAT_UNARY_FUNCTOR(ExpFunctor, ew::exp(x))
TL_FLOAT_UNARY_FUNCTOR(Exp2Functor, std::exp2(x))
TL_FLOAT_UNARY_FUNCTOR(AsinFunctor, std::asin(x))
TL_FLOAT_UNARY_FUNCTOR(AcosFunctor, std::acos(x))
TL_FLOAT_UNARY_FUNCTOR(AtanFunctor, std::atan(x))
TL_FLOAT_UNARY_FUNCTOR(SinhFunctor, std::sinh(x))
TL_FLOAT_UNARY_FUNCTOR(CoshFunctor, std::cosh(x))
TL_FLOAT_UNARY_FUNCTOR(AsinhFunctor, std::asinh(x))
TL_FLOAT_UNARY_FUNCTOR(AcoshFunctor, std::acosh(x))
TL_FLOAT_UNARY_FUNCTOR(AtanhFunctor, std::atanh(x))
TL_FLOAT_UNARY_FUNCTOR(Log2Functor, std::log2(x))
TL_FLOAT_UNARY_FUNCTOR(Log10Functor, std::log10(x))
TL_FLOAT_UNARY_FUNCTOR(FracFunctor, x - std::trunc(x))
// sin(pi x) / (pi x), 1 at 0.
TL_FLOAT_UNARY_FUNCTOR(SincFunctor, x == op_t(0) ? op_t(1) : std::sin(x * op_t(3.14159265358979323846)) / (x * op_t(3.14159265358979323846)))
TL_FLOAT_UNARY_FUNCTOR(LgammaFunctor, std::lgamma(x))
TL_FLOAT_UNARY_FUNCTOR(DigammaFunctor, ew::digamma(x))
TL_FLOAT_UNARY_FUNCTOR(I0Functor, ew::bessel_i(x, false))
TL_FLOAT_UNARY_FUNCTOR(I1Functor, ew::bessel_i(x, true))
// logit(x) = log(x / (1 - x)); with eps >= 0 x is first clamped to [eps, 1 - eps] (NaN stays).
template <typename T>
struct LogitFunctor {
  using op_t = opmath_t<T>;
  op_t lo;  // < 0: no clamping (eps None or negative, as in PyTorch)
  static LogitFunctor make(std::optional<double> eps) { return {static_cast<op_t>(eps.value_or(-1.0))}; }
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    if (lo >= op_t(0)) {
      op_t hi = op_t(1) - lo;
      x = x < lo ? lo : (x > hi ? hi : x);
    }
    return static_cast<T>(std::log(x / (op_t(1) - x)));
  }
};

// Output bool; integers are negative by value, bool and unsigned never. Floats read the sign
// bit through copysign (-0 and -NaN count), not std::signbit, whose vectorised form crashes
// GCC 12 with AVX-512.
template <typename T>
struct SignbitFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE bool operator()(T a) const {
    if constexpr (ew::is_signed_int_v<T>) return a < 0;
    else if constexpr (std::is_integral_v<T>) return false;
    else return std::copysign(op_t(1), static_cast<op_t>(a)) < op_t(0);
  }
};

// polygamma(0, x) = digamma(x); for n >= 1, (-1)^(n+1) n! zeta(n + 1, x). n >= 0 is checked
// before the loop. At +inf PyTorch gives 0 for n = 1 (its trigamma) and NaN for n >= 2 (zeta).
template <typename T>
struct PolygammaFunctor {
  using op_t = opmath_t<T>;
  int64_t n;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    if (n == 0) return static_cast<T>(ew::digamma(x));
    if (n == 1 && x == std::numeric_limits<op_t>::infinity()) return T(0);
    op_t sign = (n % 2) ? op_t(1) : op_t(-1);
    op_t nf = static_cast<op_t>(n);
    return static_cast<T>(sign * std::exp(std::lgamma(nf + op_t(1))) * ew::hurwitz_zeta(nf + op_t(1), x));
  }
};

// Multivariate log-gamma: sum_{j < p} lgamma(x - j/2) + p (p - 1) / 4 log(pi). p >= 1 and the
// domain are checked before the loop.
template <typename T>
struct MvlgammaFunctor {
  using op_t = opmath_t<T>;
  int64_t p;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    op_t sum = 0;
    for (int64_t j = 0; j < p; ++j) sum += std::lgamma(x - op_t(0.5) * static_cast<op_t>(j));
    op_t pf = static_cast<op_t>(p);
    return static_cast<T>(sum + pf * (pf - op_t(1)) * op_t(0.25) * op_t(1.1447298858494002));  // log(pi)
  }
};

TL_FLOAT_UNARY_FUNCTOR(LogFunctor, std::log(x))
TL_FLOAT_UNARY_FUNCTOR(Log1pFunctor, std::log1p(x))
TL_FLOAT_UNARY_FUNCTOR(Expm1Functor, std::expm1(x))
TL_FLOAT_UNARY_FUNCTOR(SqrtFunctor, std::sqrt(x))
TL_FLOAT_UNARY_FUNCTOR(RsqrtFunctor, op_t(1) / std::sqrt(x))
TL_FLOAT_UNARY_FUNCTOR(SinFunctor, std::sin(x))
TL_FLOAT_UNARY_FUNCTOR(CosFunctor, std::cos(x))
TL_FLOAT_UNARY_FUNCTOR(TanFunctor, std::tan(x))
TL_FLOAT_UNARY_FUNCTOR(TanhFunctor, std::tanh(x))
TL_FLOAT_UNARY_FUNCTOR(SigmoidFunctor, op_t(1) / (op_t(1) + ew::exp(-x)))
TL_FLOAT_UNARY_FUNCTOR(ReciprocalFunctor, op_t(1) / x)
TL_FLOAT_UNARY_FUNCTOR(ErfFunctor, ew::erf(x))
TL_FLOAT_UNARY_FUNCTOR(ErfcFunctor, std::erfc(x))
TL_FLOAT_UNARY_FUNCTOR(ErfinvFunctor, ew::erfinv(static_cast<double>(x)))

// ---- pointwise math ------------------------------------------------------------------------

template <typename T>
struct Atan2Functor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const { return static_cast<T>(std::atan2(static_cast<op_t>(a), static_cast<op_t>(b))); }
};

// max(x, y) + log1p(base^-|x - y|) / ln(base) = log_base(base^x + base^y), which never
// overflows. Equal infinities are returned as they are: their difference would be NaN.
template <bool Base2, typename T>
TL_HOST_DEVICE inline T log_add_exp(T x, T y) {
  if (x == y && x - x != T(0)) return x;
  T m = x > y ? x : y;
  T d = -std::fabs(x - y);
  if constexpr (Base2) return m + std::log1p(std::exp2(d)) * T(1.4426950408889634);
  else return m + std::log1p(ew::exp(d));
}

// Binary float math on the compute type; integer inputs are promoted (or rejected) by the
// op's iterator.
#define TL_FLOAT_BINARY_FUNCTOR(Name, expr)                                                  \
  template <typename T>                                                                      \
  struct Name {                                                                              \
    using op_t = opmath_t<T>;                                                                \
    TL_HOST_DEVICE T operator()(T a, T b) const {                                            \
      op_t x = static_cast<op_t>(a), y = static_cast<op_t>(b);                               \
      return static_cast<T>(expr);                                                           \
    }                                                                                        \
  };
TL_FLOAT_BINARY_FUNCTOR(HypotFunctor, std::hypot(x, y))  // no overflow or underflow in the squares
TL_FLOAT_BINARY_FUNCTOR(LogAddExpFunctor, log_add_exp<false>(x, y))
TL_FLOAT_BINARY_FUNCTOR(LogAddExp2Functor, log_add_exp<true>(x, y))
TL_FLOAT_BINARY_FUNCTOR(CopysignFunctor, std::copysign(x, y))
// x log(y), and 0 where x == 0 unless y is NaN.
TL_FLOAT_BINARY_FUNCTOR(XlogyFunctor, y != y ? y : (x == op_t(0) ? op_t(0) : x * std::log(y)))

// The next representable T after a towards b. Half types step their own bits: the float
// neighbour would round back to a.
template <typename T>
struct NextafterFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return std::nextafter(a, b);
    } else {
      float x = a, y = b;
      if (x != x || y != y) return T(x + y);
      if (x == y) return b;
      T r;
      if (x == 0.f) r.x = y > 0.f ? 0x0001 : 0x8001;  // the smallest subnormal, signed like b
      else r.x = static_cast<uint16_t>((x < y) == (x > 0.f) ? a.x + 1 : a.x - 1);  // away from 0: +1
      return r;
    }
  }
};

// 0 where a < 0, values where a == 0, 1 where a > 0 (NaN stays NaN).
template <typename T>
struct HeavisideFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T values) const {
    op_t x = static_cast<op_t>(a);
    return x == op_t(0) ? values : (x != x ? a : static_cast<T>(x > op_t(0)));
  }
};

// Euclid on |a| and |b|, as PyTorch computes it: gcd(INT_MIN, 0) wraps to INT_MIN.
template <typename T>
TL_HOST_DEVICE inline T int_gcd(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    a = a < 0 ? ew::wrapping_neg(a) : a;
    b = b < 0 ? ew::wrapping_neg(b) : b;
  }
  while (a != 0) {
    T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}

// gcd, lcm and the shifts run on the integer types; their kernels reject bool before the
// loop, so the bool instantiations only need to compile.
template <typename T>
struct GcdFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a;
    else return int_gcd(a, b);
  }
};
// |a / gcd * b|, wrapping on overflow like PyTorch. PyTorch's C++ promotes types narrower than
// int to int, so for them the product and its absolute value are taken before the wrap
// (int8: lcm(42, -56) is |-168| = 168, stored as -88), and for int32/int64 after it.
template <typename T>
struct LcmFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a;
    } else if constexpr (sizeof(T) < sizeof(int)) {
      T g = int_gcd(a, b);
      if (g == 0) return T(0);
      const int l = static_cast<int>(ew::int_div_trunc(a, g)) * static_cast<int>(b);
      return static_cast<T>(l < 0 ? -l : l);
    } else {
      T g = int_gcd(a, b);
      if (g == 0) return T(0);
      using U = std::make_unsigned_t<T>;
      T l = static_cast<T>(static_cast<U>(ew::int_div_trunc(a, g)) * static_cast<U>(b));
      if constexpr (std::is_signed_v<T>) return l < 0 ? ew::wrapping_neg(l) : l;
      else return l;
    }
  }
};

// Shifts by a negative amount or by the width or more give 0 (left) or the sign fill
// (right), as in PyTorch, instead of C++'s undefined behaviour. As unsigned, a negative
// amount is larger than any width.
template <typename T>
struct LshiftFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a;
    } else {
      using U = std::make_unsigned_t<T>;
      if (static_cast<U>(b) >= sizeof(T) * 8) return T(0);
      return static_cast<T>(static_cast<U>(a) << b);
    }
  }
};
template <typename T>
struct RshiftFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a;
    } else {
      using U = std::make_unsigned_t<T>;
      if (static_cast<U>(b) < sizeof(T) * 8) return static_cast<T>(a >> b);
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      else return T(0);
    }
  }
};

// C-style remainder: the result has the sign of the dividend. Integer zero divisors are
// rejected before the loop.
template <typename T>
struct FmodFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return ew::int_fmod(a, b);
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
      } else if constexpr (is_complex_v<T>) { /* finite: both parts; nan, inf: either */     \
        Name<typename T::value_type> part;                                                   \
        return int_value ? part(a.real()) && part(a.imag()) : part(a.real()) || part(a.imag()); \
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

// Replacements round to T; infinities default to T's largest finite values.
template <typename T>
struct NanToNumFunctor {
  using op_t = opmath_t<T>;
  op_t nan, posinf, neginf;
  static NanToNumFunctor make(std::optional<double> nan, std::optional<double> posinf,
                              std::optional<double> neginf) {
    auto to_t = [](double v) { return static_cast<op_t>(static_cast<T>(v)); };
    op_t largest;
    if constexpr (std::is_same_v<T, Half>) largest = 65504.0f;
    else if constexpr (std::is_same_v<T, BFloat16>) largest = 3.38953139e38f;
    else largest = std::numeric_limits<T>::max();
    return {to_t(nan.value_or(0.0)), posinf ? to_t(*posinf) : largest, neginf ? to_t(*neginf) : -largest};
  }
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    constexpr op_t inf = std::numeric_limits<op_t>::infinity();
    return x != x ? static_cast<T>(nan) : (x == inf ? static_cast<T>(posinf) : (x == -inf ? static_cast<T>(neginf) : a));
  }
};


// ---- complex numbers (Note [Complex dtypes]) -------------------------------------------------
// Host-only: complex types never reach a CUDA loop in this phase.

// |z| has the real type; every other AbsFunctor keeps T.
template <typename V>
struct AbsFunctor<std::complex<V>> {
  V operator()(std::complex<V> a) const { return std::abs(a); }
};

// conj_physical: the identity on real types.
template <typename T>
struct ConjFunctor {
  TL_HOST_DEVICE T operator()(T a) const {
    if constexpr (is_complex_v<T>) return std::conj(a);
    else return a;
  }
};

// angle: arg(z) for complex; 0 or pi by sign for real (NaN stays NaN), as PyTorch.
template <typename T>
struct AngleFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    op_t x = static_cast<op_t>(a);
    return static_cast<T>(x != x ? x : (x < op_t(0) ? op_t(3.14159265358979323846) : op_t(0)));
  }
};
template <typename V>
struct AngleFunctor<std::complex<V>> {
  V operator()(std::complex<V> a) const { return std::arg(a); }
};

}  // namespace tl::native
