#pragma once
// The functors whose contiguous floating-point CPU loops call the vector math layer
// (Note [Vector math]) instead of the functor; strided loops, other dtypes and CUDA keep the
// functor. cpu_kernel asks VecMathOp<F>::value. Silu and gelu keep their functors (vectorised
// through ew::exp by the compiler); so does double sigmoid.
#include <cstdint>
#include <type_traits>

#include "aten/native/ActivationFunctors.h"
#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/cpu/VecMath.h"

namespace tl::native {

template <typename F>
struct VecMathOp {
  static constexpr bool value = false;
};

// float16 and bfloat16 reach them through the float functor (Note [Half elementwise in float]).
template <typename T>
inline constexpr bool is_vecmath_type_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

#define TL_VECMATH_UNARY(Functor, fn)                                                          \
  template <typename T>                                                                        \
    requires is_vecmath_type_v<T>                                                              \
  struct VecMathOp<Functor<T>> {                                                               \
    static constexpr bool value = vecmath::has_unary<T>(vecmath::Unary::fn);                   \
    static void run(char** data, int64_t n) {                                                  \
      vecmath::unary<T>(vecmath::Unary::fn, reinterpret_cast<const T*>(data[1]), reinterpret_cast<T*>(data[0]), n); \
    }                                                                                          \
  };
#define TL_VECMATH_BINARY(Functor, fn)                                                         \
  template <typename T>                                                                        \
    requires is_vecmath_type_v<T>                                                              \
  struct VecMathOp<Functor<T>> {                                                               \
    static constexpr bool value = vecmath::has_binary<T>(vecmath::Binary::fn);                 \
    static void run(char** data, int64_t n) {                                                  \
      vecmath::binary<T>(vecmath::Binary::fn, reinterpret_cast<const T*>(data[1]),             \
                         reinterpret_cast<const T*>(data[2]), reinterpret_cast<T*>(data[0]), n); \
    }                                                                                          \
  };

TL_VECMATH_UNARY(ExpFunctor, Exp)
TL_VECMATH_UNARY(Exp2Functor, Exp2)
TL_VECMATH_UNARY(Expm1Functor, Expm1)
TL_VECMATH_UNARY(LogFunctor, Log)
TL_VECMATH_UNARY(Log2Functor, Log2)
TL_VECMATH_UNARY(Log10Functor, Log10)
TL_VECMATH_UNARY(Log1pFunctor, Log1p)
TL_VECMATH_UNARY(SinFunctor, Sin)
TL_VECMATH_UNARY(CosFunctor, Cos)
TL_VECMATH_UNARY(TanFunctor, Tan)
TL_VECMATH_UNARY(TanhFunctor, Tanh)
// torchlite.compile keeps the functors listed above out of its fused loops (it reads the
// TL_VECMATH_UNARY/BINARY lines: their fused loops would call scalar libm). Sigmoid's functor
// vectorises through ew::exp, so fused loops may keep it: the same macro under another name.
#define TL_VECMATH_UNARY_FUSABLE TL_VECMATH_UNARY
TL_VECMATH_UNARY_FUSABLE(SigmoidFunctor, Sigmoid)
TL_VECMATH_UNARY(ErfFunctor, Erf)
TL_VECMATH_UNARY(ErfcFunctor, Erfc)
TL_VECMATH_UNARY(AtanFunctor, Atan)
TL_VECMATH_UNARY(AsinFunctor, Asin)
TL_VECMATH_UNARY(AcosFunctor, Acos)
TL_VECMATH_UNARY(SinhFunctor, Sinh)
TL_VECMATH_UNARY(CoshFunctor, Cosh)
TL_VECMATH_UNARY(MishFunctor, Mish)
TL_VECMATH_BINARY(Atan2Functor, Atan2)
TL_VECMATH_BINARY(PowFunctor, Pow)

#undef TL_VECMATH_UNARY_FUSABLE
#undef TL_VECMATH_UNARY
#undef TL_VECMATH_BINARY

}  // namespace tl::native
