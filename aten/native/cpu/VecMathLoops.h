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

// The third column is for torchlite.compile, which reads this list (the C++ side ignores it):
// whether its fused loops may run the functor. false where the functor calls scalar libm, which
// a fused loop cannot vectorise (several times slower than eager's vector math); true where the
// compiler vectorises the functor (sigmoid, through ew::exp).
#define TL_VECMATH_UNARY(Functor, fn, fusible)                                                 \
  template <typename T>                                                                        \
    requires is_vecmath_type_v<T>                                                              \
  struct VecMathOp<Functor<T>> {                                                               \
    static constexpr bool value = vecmath::has_unary<T>(vecmath::Unary::fn);                   \
    static void run(char** data, int64_t n) {                                                  \
      vecmath::unary<T>(vecmath::Unary::fn, reinterpret_cast<const T*>(data[1]), reinterpret_cast<T*>(data[0]), n); \
    }                                                                                          \
  };
#define TL_VECMATH_BINARY(Functor, fn, fusible)                                                \
  template <typename T>                                                                        \
    requires is_vecmath_type_v<T>                                                              \
  struct VecMathOp<Functor<T>> {                                                               \
    static constexpr bool value = vecmath::has_binary<T>(vecmath::Binary::fn);                 \
    static void run(char** data, int64_t n) {                                                  \
      vecmath::binary<T>(vecmath::Binary::fn, reinterpret_cast<const T*>(data[1]),             \
                         reinterpret_cast<const T*>(data[2]), reinterpret_cast<T*>(data[0]), n); \
    }                                                                                          \
  };

TL_VECMATH_UNARY(ExpFunctor, Exp, false)
TL_VECMATH_UNARY(Exp2Functor, Exp2, false)
TL_VECMATH_UNARY(Expm1Functor, Expm1, false)
TL_VECMATH_UNARY(LogFunctor, Log, false)
TL_VECMATH_UNARY(Log2Functor, Log2, false)
TL_VECMATH_UNARY(Log10Functor, Log10, false)
TL_VECMATH_UNARY(Log1pFunctor, Log1p, false)
TL_VECMATH_UNARY(SinFunctor, Sin, false)
TL_VECMATH_UNARY(CosFunctor, Cos, false)
TL_VECMATH_UNARY(TanFunctor, Tan, false)
TL_VECMATH_UNARY(TanhFunctor, Tanh, false)
TL_VECMATH_UNARY(SigmoidFunctor, Sigmoid, true)
TL_VECMATH_UNARY(ErfFunctor, Erf, false)
TL_VECMATH_UNARY(ErfcFunctor, Erfc, false)
TL_VECMATH_UNARY(AtanFunctor, Atan, false)
TL_VECMATH_UNARY(AsinFunctor, Asin, false)
TL_VECMATH_UNARY(AcosFunctor, Acos, false)
TL_VECMATH_UNARY(SinhFunctor, Sinh, false)
TL_VECMATH_UNARY(CoshFunctor, Cosh, false)
TL_VECMATH_UNARY(MishFunctor, Mish, false)
TL_VECMATH_BINARY(Atan2Functor, Atan2, false)
TL_VECMATH_BINARY(PowFunctor, Pow, false)

#undef TL_VECMATH_UNARY
#undef TL_VECMATH_BINARY

}  // namespace tl::native
