#pragma once
// 16-bit floating types. Storage is the raw bit pattern; arithmetic goes through float
// (the "opmath" type), so one conversion pair serves CPU and CUDA alike.
#include <cstdint>
#include <cstring>

#include "aten/core/Macros.h"

namespace tl {

namespace detail {
TL_HOST_DEVICE inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
TL_HOST_DEVICE inline float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// IEEE binary16 <-> binary32 with round-to-nearest-even, handling subnormals, inf and NaN.
// Branch-free (every case computed, then selected) so that loops converting contiguous
// arrays vectorise; bit-exact against the hardware conversions (tests/test_half_precision.py).
TL_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mag = x & 0x7fffffffu;
  uint32_t big = mag > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN, or overflow and inf
  // Subnormal or zero: adding 0.5 = 2^-1 pushes the half mantissa to the low bits, rounded.
  uint32_t tiny = float_bits(bits_float(mag) + 0.5f) - 0x3f000000u;
  // Normal: rebias the exponent (-112 << 23) and round to nearest even.
  uint32_t normal = (mag + 0xc8000fffu + ((mag >> 13) & 1u)) >> 13;
  uint32_t r = mag >= 0x477ff000u ? big : (mag < 0x38800000u ? tiny : normal);
  return static_cast<uint16_t>(sign | r);
}

TL_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t shifted = static_cast<uint32_t>(h & 0x7fffu) << 13;  // exponent and mantissa in place
  uint32_t r = shifted >= 0x0f800000u ? (shifted | 0x7f800000u) : shifted + 0x38000000u;  // inf/NaN : rebias
  // Subnormal or zero: mant * 2^-24, exactly, as (1 + mant / 2^10) * 2^-14 - 2^-14.
  uint32_t tiny = float_bits(bits_float(shifted + 0x38800000u) - 6.103515625e-05f);
  r = shifted < 0x00800000u ? tiny : r;
  return bits_float(sign | r);
}

TL_HOST_DEVICE inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;  // round to nearest even
  return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? 0x7fc0u : rounded);  // NaN: quiet NaN
}
TL_HOST_DEVICE inline float bf16_bits_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }
}  // namespace detail

struct Half {
  uint16_t x;
  Half() = default;
  TL_HOST_DEVICE Half(float f) : x(detail::float_to_half_bits(f)) {}
  TL_HOST_DEVICE operator float() const { return detail::half_bits_to_float(x); }
};

struct BFloat16 {
  uint16_t x;
  BFloat16() = default;
  TL_HOST_DEVICE BFloat16(float f) : x(detail::float_to_bf16_bits(f)) {}
  TL_HOST_DEVICE operator float() const { return detail::bf16_bits_to_float(x); }
};

}  // namespace tl
