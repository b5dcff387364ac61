#pragma once
// Note [Half conversions]: bulk float16/bfloat16 <-> float32 conversion of contiguous arrays,
// for the CPU kernels that compute half types in float (vector math, casts, GEMM operands).
// float16 uses the F16C / AVX-512 conversion instructions where the build enables them;
// elsewhere, and for bfloat16 (a shift), the branch-free scalar conversions of Half.h, which
// the compiler vectorises. float -> 16 bits rounds to nearest even. Defined in one translation
// unit, so the headers that call them pull in no intrinsics.
#include <cstdint>

#include "aten/core/Half.h"

namespace tl::native::cpu {

void convert(const Half* src, float* dst, int64_t n);
void convert(const BFloat16* src, float* dst, int64_t n);
void convert(const float* src, Half* dst, int64_t n);
void convert(const float* src, BFloat16* dst, int64_t n);

}  // namespace tl::native::cpu
