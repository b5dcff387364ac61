#pragma once
// Note [Half conversions]: bulk float16/bfloat16 <-> float32 conversion of contiguous arrays,
// for the CPU kernels that compute half types in float (elementwise loops, casts, GEMM operands).
// The vector loads and stores of cpu/SimdHalf.h do the work (float16: the F16C / AVX-512
// conversion instructions; bfloat16: a shift, and integer rounding back); the DEFAULT copy and
// the tails use the branch-free scalar conversions of Half.h. float -> 16 bits rounds to nearest
// even. Defined in one translation unit, so the headers that call them pull in no intrinsics;
// that unit is compiled once per CPU capability (Note [CPU capabilities]), since the baseline
// has no F16C.
#include <cstdint>

#include "aten/core/Half.h"
#include "aten/native/cpu/CpuCapability.h"

namespace tl::native::cpu {

TL_DECLARE_CPU_KERNEL(void half_to_float(const Half* src, float* dst, int64_t n))
TL_DECLARE_CPU_KERNEL(void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n))
TL_DECLARE_CPU_KERNEL(void float_to_half(const float* src, Half* dst, int64_t n))
TL_DECLARE_CPU_KERNEL(void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n))

inline void convert(const Half* src, float* dst, int64_t n) { TL_CPU_KERNEL(half_to_float)(src, dst, n); }
inline void convert(const BFloat16* src, float* dst, int64_t n) { TL_CPU_KERNEL(bfloat16_to_float)(src, dst, n); }
inline void convert(const float* src, Half* dst, int64_t n) { TL_CPU_KERNEL(float_to_half)(src, dst, n); }
inline void convert(const float* src, BFloat16* dst, int64_t n) { TL_CPU_KERNEL(float_to_bfloat16)(src, dst, n); }

}  // namespace tl::native::cpu
