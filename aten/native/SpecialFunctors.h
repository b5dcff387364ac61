#pragma once
// Functors of torch.special and of fmax/fmin: Note [Shared functors] (ElementwiseFunctors.h).
// The math lives in SpecialFunctions.h and SpecialPolynomials.h; these only convert to the
// compute type (opmath_t) and back, with ElementwiseFunctors.h's TL_FLOAT_*_FUNCTOR macros.
#include <cmath>

#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/SpecialFunctions.h"
#include "aten/native/SpecialPolynomials.h"

namespace tl::native {

TL_FLOAT_UNARY_FUNCTOR(I0eFunctor, ew::bessel_i(x, false, true))
TL_FLOAT_UNARY_FUNCTOR(I1eFunctor, ew::bessel_i(x, true, true))
TL_FLOAT_UNARY_FUNCTOR(ErfcxFunctor, ew::erfcx(x))
TL_FLOAT_UNARY_FUNCTOR(LogNdtrFunctor, ew::log_ndtr(x))
TL_FLOAT_UNARY_FUNCTOR(BesselJ0Functor, ew::bessel_j(x, false))
TL_FLOAT_UNARY_FUNCTOR(BesselJ1Functor, ew::bessel_j(x, true))
TL_FLOAT_UNARY_FUNCTOR(BesselY0Functor, ew::bessel_y(x, false))
TL_FLOAT_UNARY_FUNCTOR(BesselY1Functor, ew::bessel_y(x, true))
TL_FLOAT_UNARY_FUNCTOR(BesselK0Functor, ew::bessel_k(x, false, false))
TL_FLOAT_UNARY_FUNCTOR(BesselK1Functor, ew::bessel_k(x, true, false))
TL_FLOAT_UNARY_FUNCTOR(BesselK0eFunctor, ew::bessel_k(x, false, true))
TL_FLOAT_UNARY_FUNCTOR(BesselK1eFunctor, ew::bessel_k(x, true, true))
TL_FLOAT_UNARY_FUNCTOR(SphericalBesselJ0Functor, ew::spherical_bessel_j0(x))
TL_FLOAT_UNARY_FUNCTOR(AiryAiFunctor, ew::airy_ai(static_cast<double>(x)))

// x log1p(y), and 0 where x == 0 unless y is NaN (as xlogy).
TL_FLOAT_BINARY_FUNCTOR(Xlog1pyFunctor, y != y ? y : (x == op_t(0) ? op_t(0) : x * std::log1p(y)))
TL_FLOAT_BINARY_FUNCTOR(ZetaFunctor, ew::zeta(x, y))
TL_FLOAT_BINARY_FUNCTOR(IgammaFunctor, ew::incomplete_gamma(x, y, false))
TL_FLOAT_BINARY_FUNCTOR(IgammacFunctor, ew::incomplete_gamma(x, y, true))
// The polynomials take (x, n); the shifted Chebyshev ones are the plain ones at 2x - 1.
TL_FLOAT_BINARY_FUNCTOR(ChebyshevTFunctor, ew::chebyshev_polynomial(x, y, 0))
TL_FLOAT_BINARY_FUNCTOR(ChebyshevUFunctor, ew::chebyshev_polynomial(x, y, 1))
TL_FLOAT_BINARY_FUNCTOR(ChebyshevVFunctor, ew::chebyshev_polynomial(x, y, 2))
TL_FLOAT_BINARY_FUNCTOR(ChebyshevWFunctor, ew::chebyshev_polynomial(x, y, 3))
TL_FLOAT_BINARY_FUNCTOR(ShiftedChebyshevTFunctor, ew::chebyshev_polynomial(x + x - op_t(1), y, 0))
TL_FLOAT_BINARY_FUNCTOR(ShiftedChebyshevUFunctor, ew::chebyshev_polynomial(x + x - op_t(1), y, 1))
TL_FLOAT_BINARY_FUNCTOR(ShiftedChebyshevVFunctor, ew::chebyshev_polynomial(x + x - op_t(1), y, 2))
TL_FLOAT_BINARY_FUNCTOR(ShiftedChebyshevWFunctor, ew::chebyshev_polynomial(x + x - op_t(1), y, 3))
TL_FLOAT_BINARY_FUNCTOR(HermiteHFunctor, ew::hermite_polynomial(x, y, false))
TL_FLOAT_BINARY_FUNCTOR(HermiteHeFunctor, ew::hermite_polynomial(x, y, true))
TL_FLOAT_BINARY_FUNCTOR(LaguerreLFunctor, ew::laguerre_polynomial(x, y))
TL_FLOAT_BINARY_FUNCTOR(LegendrePFunctor, ew::legendre_polynomial(x, y))

// fmax/fmin ignore NaN: the other operand wins unless both are NaN; otherwise maximum/minimum.
template <typename T>
struct FmaxFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (!std::is_integral_v<T>) {
      if (a != a) return b;
      if (b != b) return a;
    }
    return MaximumFunctor<T>{}(a, b);
  }
};
template <typename T>
struct FminFunctor {
  TL_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (!std::is_integral_v<T>) {
      if (a != a) return b;
      if (b != b) return a;
    }
    return MinimumFunctor<T>{}(a, b);
  }
};

// frexp's two outputs, one stub each: the mantissa in [0.5, 1) with x's sign (x itself for 0,
// inf and NaN) and the int32 exponent (0 for those).
template <typename T>
struct FrexpMantissaFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE T operator()(T a) const {
    int e;
    return static_cast<T>(std::frexp(static_cast<op_t>(a), &e));
  }
};
template <typename T>
struct FrexpExponentFunctor {
  using op_t = opmath_t<T>;
  TL_HOST_DEVICE int32_t operator()(T a) const {
    int e = 0;
    std::frexp(static_cast<op_t>(a), &e);
    return static_cast<int32_t>(e);
  }
};

}  // namespace tl::native
