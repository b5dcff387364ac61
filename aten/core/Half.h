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
TL_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return static_cast<uint16_t>(sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (mag < 0x38800000u) {                                                // subnormal or zero
    float v = bits_float(mag) + 0.5f;  // 0.5 = 2^-1: pushes the half mantissa to the low bits
    return static_cast<uint16_t>(sign | (float_bits(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (mag >> 13) & 1u;
  mag += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (mag >> 13));
}

TL_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

TL_HOST_DEVICE inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;  // NaN
  uint32_t rounding_bias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding_bias) >> 16);
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
