// Bulk half <-> float conversions (Note [Half conversions]), compiled once per CPU capability
// (Note [CPU capabilities]): the vector loads and stores of cpu/SimdHalf.h exist only in those copies.
#include "aten/native/cpu/HalfConvert.h"

#include "aten/native/cpu/SimdHalf.h"

namespace tl::native::cpu::CPU_CAPABILITY {

namespace {

template <typename T>
void to_float(const T* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes) simd::store(dst + i, simd::load(src + i));
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

template <typename T>
void from_float(const float* src, T* dst, int64_t n) {
  int64_t i = 0;
  for (; i + simd::kLanes <= n; i += simd::kLanes) simd::store(dst + i, simd::load(src + i));
  for (; i < n; ++i) dst[i] = T(src[i]);
}

}  // namespace

void half_to_float(const Half* src, float* dst, int64_t n) { to_float(src, dst, n); }
void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n) { to_float(src, dst, n); }
void float_to_half(const float* src, Half* dst, int64_t n) { from_float(src, dst, n); }
void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n) { from_float(src, dst, n); }

}  // namespace tl::native::cpu::CPU_CAPABILITY
