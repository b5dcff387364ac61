#pragma once
// float16 and bfloat16 lanes of the float vector of cpu/SimdF32.h: load(p) reads kLanes
// half values into float lanes, store(p, v) rounds kLanes float lanes to nearest even and
// writes them, with the results of Half.h's scalar conversions bit for bit (NaN payloads
// aside; a bfloat16 NaN becomes 0x7fc0). float16 uses the conversion instructions (F16C with
// AVX2, their 512-bit forms with AVX-512). For the units compiled once per CPU capability
// (Note [CPU capabilities]), as SimdF32.h.
#include "aten/core/Half.h"
#include "aten/native/cpu/SimdF32.h"

namespace tl::native::simd {
inline namespace CPU_CAPABILITY {

// bfloat16 -> float is a shift; float -> bfloat16 adds 0x7fff plus the lowest kept bit, then
// shifts (ties to even). Written on the 32-bit lanes; only the 16-bit loads and stores differ.
inline VI bf16_round(VF a) {
  const VI x = as_int(a);
  const VI rounded = shr(x + splat_i(0x7fff) + (shr(x, 16) & splat_i(1)), 16);
  return select(a == a, rounded, splat_i(0x7fc0));
}

#if defined(__AVX512F__)

// Zero-masked forms, as in SimdF32.h: gcc 12 warns of the plain intrinsics' undefined source.
inline VF load(const Half* p) {
  return {_mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
}
inline void store(Half* p, VF a) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                      _mm512_maskz_cvtps_ph(0xffff, a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
inline VF load(const BFloat16* p) {
  return as_float(shl({_mm512_maskz_cvtepu16_epi32(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))}, 16));
}
inline void store(BFloat16* p, VF a) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_maskz_cvtepi32_epi16(0xffff, bf16_round(a).v));
}

#elif defined(__AVX2__) && defined(__FMA__)

// The AVX2 capability includes F16C (CpuCapability.cpp checks it with AVX2 and FMA).
inline VF load(const Half* p) { return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))}; }
inline void store(Half* p, VF a) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
inline VF load(const BFloat16* p) {
  return as_float(shl({_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))}, 16));
}
inline void store(BFloat16* p, VF a) {
  // The rounded values fit 16 bits: packing them with unsigned saturation changes none.
  const __m256i r = bf16_round(a).v;
  const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), packed);
}

#else

inline VF load(const Half* p) { return {static_cast<float>(*p)}; }
inline void store(Half* p, VF a) { *p = Half(a.v); }
inline VF load(const BFloat16* p) { return {static_cast<float>(*p)}; }
inline void store(BFloat16* p, VF a) { *p = BFloat16(a.v); }

#endif

}  // namespace CPU_CAPABILITY
}  // namespace tl::native::simd
