#pragma once
// Note [Vector math]: elementary functions over contiguous arrays, for the CPU loops of the
// unary and binary float ops (cpu/VecMathLoops.h picks the functors). libm's scalar calls
// cannot be vectorised and left sin, tanh and friends several times slower than PyTorch.
//
// Each function is a branch-free core (range reduction, a polynomial, selects) plus a scalar
// libm pass over the rare lanes the core does not cover (huge trigonometric arguments,
// overflow, NaN, zeros of log, ...). Double cores are plain C++ that the compiler vectorises
// for the ISA it is built for. Float cores are computed in float, written once against the
// vector type of cpu/SimdF32.h (AVX-512: 16 lanes, AVX2 + FMA: 8, otherwise scalar), with
// the roundings that would cost an ulp carried in hi + lo pairs: float results are within
// 1 ulp, double results within 2 (tests/test_vecmath.py measures both). Float sigmoid is
// PyTorch's formula 1 / (1 + e^-x), within 2.5 ulp; float mish is still computed in double.
//
// Own code rather than SLEEF: no SLEEF package installs through pip, and PyTorch's own copy
// is compiled from source. The definitions live in one translation unit (VecMath.cpp) so
// the stub shards that call them do not pay for them at compile time; that unit is compiled
// once per CPU capability (Note [CPU capabilities]).
#include <cstdint>

#include "aten/native/cpu/CpuCapability.h"

namespace tl::native::vecmath {

enum class Unary : uint8_t {
  Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Tanh, Sigmoid, Erf, Erfc, Atan, Asin, Acos,
  Sinh, Cosh, Mish,
};
enum class Binary : uint8_t { Atan2, Pow };

TL_DECLARE_CPU_KERNEL(template <typename T> void unary(Unary f, const T* x, T* y, int64_t n))
TL_DECLARE_CPU_KERNEL(template <typename T> void binary(Binary f, const T* a, const T* b, T* y, int64_t n))

// y[i] = f(x[i]); y may alias x.
template <typename T>
inline void unary(Unary f, const T* x, T* y, int64_t n) {
  TL_CPU_KERNEL(unary<T>)(f, x, y, n);
}
// y[i] = f(a[i], b[i]); y may alias a or b.
template <typename T>
inline void binary(Binary f, const T* a, const T* b, T* y, int64_t n) {
  TL_CPU_KERNEL(binary<T>)(f, a, b, y, n);
}

// softmax (log_softmax if log) of n contiguous floats, one row of SoftMax.cpp: the maximum,
// e^(x - max) stored and summed with the vector exp, then the scaling, three passes over a row
// that stays in cache.
TL_DECLARE_CPU_KERNEL(void softmax_row(const float* x, float* y, int64_t n, bool log))
inline void softmax_row(const float* x, float* y, int64_t n, bool log) { TL_CPU_KERNEL(softmax_row)(x, y, n, log); }

// Whether (f, T) has a vectorised form; the others keep their scalar functor.
template <typename T>
constexpr bool has_unary(Unary f) {
  if constexpr (sizeof(T) == 8) return f != Unary::Erf && f != Unary::Erfc && f != Unary::Sigmoid;
  return true;
}
template <typename T>
constexpr bool has_binary(Binary f) {
  return sizeof(T) != 8 || f != Binary::Pow;
}

}  // namespace tl::native::vecmath
