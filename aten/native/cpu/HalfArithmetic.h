#pragma once
// Note [Half arithmetic in registers]: add, sub, mul and div of float16 / bfloat16 arrays whose
// output and inputs are contiguous (one input may be a broadcast value), the loops behind
// a + b & co., and neg, abs, sqrt and relu of contiguous arrays. Each vector of halves is
// converted to float in registers (cpu/SimdHalf.h), computed and rounded back once: one pass
// over memory, where the general path of Note [Half elementwise in float] stages every operand
// through float buffers (float16 a + b of 1M elements was 1.2x PyTorch's time; 64K elements
// in cache now take half the time they did). The results are that path's bit for bit: float32
// arithmetic rounded once, a + alpha * b with one rounding as the contracted float functor
// (the DEFAULT copy's fma rounds twice when the sum is no float, as SimdF32.h's).
// Not AVX512-FP16 arithmetic: IEEE makes half +, -, *, / and sqrt equal to the float result
// rounded once, but on the development machine (a Xeon with AVX512-FP16) a 512-bit half add was
// only 1.3x faster than the convert-add-convert loop in L1/L2, equal at 1M elements (memory
// bound), and half division 2.8x slower; a fourth capability was not worth its copies.
// Compiled once per CPU capability (Note [CPU capabilities]).
#include <cstdint>

#include "aten/core/Half.h"
#include "aten/native/cpu/CpuCapability.h"

namespace tl::native::cpu {

// a + alpha * b, a - alpha * b, a * b, a / b.
enum class HalfBinary : uint8_t { Add, Sub, Mul, Div };

// out[i] = a[i] op b[i] for i < n, all contiguous; a_broadcast / b_broadcast: that input is the
// single value *a / *b (not both).
TL_DECLARE_CPU_KERNEL(template <typename T> void half_binary(HalfBinary op, float alpha, const T* a, bool a_broadcast,
                                                             const T* b, bool b_broadcast, T* out, int64_t n))

// neg, abs, sqrt, relu (NaN stays NaN).
enum class HalfUnary : uint8_t { Neg, Abs, Sqrt, Relu };

// out[i] = op(x[i]) for i < n, both contiguous.
TL_DECLARE_CPU_KERNEL(template <typename T> void half_unary(HalfUnary op, const T* x, T* out, int64_t n))

template <typename T>
inline void half_unary(HalfUnary op, const T* x, T* out, int64_t n) {
  TL_CPU_KERNEL(half_unary<T>)(op, x, out, n);
}

template <typename T>
inline void half_binary(HalfBinary op, float alpha, const T* a, bool a_broadcast, const T* b, bool b_broadcast, T* out,
                        int64_t n) {
  TL_CPU_KERNEL(half_binary<T>)(op, alpha, a, a_broadcast, b, b_broadcast, out, n);
}

}  // namespace tl::native::cpu
