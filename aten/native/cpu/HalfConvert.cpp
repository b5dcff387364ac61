// Bulk half <-> float conversions (Note [Half conversions]), compiled once per CPU capability
// (Note [CPU capabilities]): the F16C and AVX-512 forms exist only in those copies.
#include "aten/native/cpu/HalfConvert.h"

// The 512-bit conversions are written in their zero-masked form: the plain intrinsics of
// gcc 12 warn of an uninitialised (unused) merge operand.

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tl::native::cpu::CPU_CAPABILITY {

void half_to_float(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(dst + i, _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
#elif defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
#endif
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void float_to_half(const float* src, Half* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) || defined(__AVX512F__)
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
#endif
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_maskz_cvtps_ph(0xffff, _mm512_loadu_ps(src + i), kNearest));
#elif defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), kNearest));
#endif
  for (; i < n; ++i) dst[i] = Half(src[i]);
}

void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16(src[i]);
}

}  // namespace tl::native::cpu::CPU_CAPABILITY
