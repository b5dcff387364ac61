#pragma once
// A float32 vector for the vector math cores (VecMath.cpp, Note [Vector math]): 16 lanes with
// AVX-512, 8 with AVX2 + FMA, one lane otherwise. The cores are written once against this
// type; only the operations below differ per ISA (AVX-512 adds lookup(t, i): t[i mod 32] per
// lane, one permute of two registers). ldexp(a, n) is a 2^n for integral n with 2^n a normal
// float (AVX-512: one vscalefps). rcp(a) is 1 / a within a relative 2^-14, for
// the cores that correct a quotient's error anyway (cheaper than a division). The unit that includes it is compiled with
// the ISA's flags, so each build sees exactly one of the three definitions.
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

// The vector type differs per CPU capability, so each copy of the including file (Note [CPU
// capabilities]) gets its own, under its capability's name: one definition per mangled name.
namespace tl::native::simd {
inline namespace CPU_CAPABILITY {

#if defined(__AVX512F__)

constexpr int kLanes = 16;
struct VF { __m512 v; };
struct VI { __m512i v; };  // int32 lanes
struct VM { __mmask16 m; };
// Zero-masked forms where gcc 12 warns that the plain intrinsic's undefined source may be
// uninitialised (sqrt, min, shifts, conversion); the code is the same.

inline VF load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void store(float* p, VF a) { _mm512_storeu_ps(p, a.v); }
inline VF splat(float c) { return {_mm512_set1_ps(c)}; }
inline VI splat_i(int32_t c) { return {_mm512_set1_epi32(c)}; }
inline VF operator+(VF a, VF b) { return {_mm512_add_ps(a.v, b.v)}; }
inline VF operator-(VF a, VF b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline VF operator*(VF a, VF b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline VF operator/(VF a, VF b) { return {_mm512_div_ps(a.v, b.v)}; }
inline VF fma(VF a, VF b, VF c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline VF sqrt(VF a) { return {_mm512_maskz_sqrt_ps(0xffff, a.v)}; }
inline VF rcp(VF a) { return {_mm512_maskz_rcp14_ps(0xffff, a.v)}; }
inline VF min(VF a, VF b) { return {_mm512_maskz_min_ps(0xffff, a.v, b.v)}; }  // b where either is NaN
inline VF ldexp(VF a, VF n) { return {_mm512_maskz_scalef_ps(0xffff, a.v, n.v)}; }
inline VF max(VF a, VF b) { return {_mm512_maskz_max_ps(0xffff, a.v, b.v)}; }  // likewise
inline VM operator<(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)}; }
inline VM operator<=(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline VM operator==(VF a, VF b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)}; }
inline VM operator|(VM a, VM b) { return {static_cast<__mmask16>(a.m | b.m)}; }
inline VM operator&(VM a, VM b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline VM operator!(VM a) { return {static_cast<__mmask16>(~a.m)}; }
inline VF select(VM m, VF a, VF b) { return {_mm512_mask_blend_ps(m.m, b.v, a.v)}; }
inline VI select(VM m, VI a, VI b) { return {_mm512_mask_blend_epi32(m.m, b.v, a.v)}; }
inline unsigned bits(VM m) { return m.m; }
inline VI as_int(VF a) { return {_mm512_castps_si512(a.v)}; }
inline VF as_float(VI a) { return {_mm512_castsi512_ps(a.v)}; }
inline VF to_float(VI a) { return {_mm512_maskz_cvtepi32_ps(0xffff, a.v)}; }
inline VI operator+(VI a, VI b) { return {_mm512_add_epi32(a.v, b.v)}; }
inline VI operator-(VI a, VI b) { return {_mm512_sub_epi32(a.v, b.v)}; }
inline VI operator&(VI a, VI b) { return {_mm512_and_si512(a.v, b.v)}; }
inline VI operator|(VI a, VI b) { return {_mm512_or_si512(a.v, b.v)}; }
inline VI operator^(VI a, VI b) { return {_mm512_xor_si512(a.v, b.v)}; }
inline VI shl(VI a, int s) { return {_mm512_maskz_slli_epi32(0xffff, a.v, static_cast<unsigned>(s))}; }
inline VI shr(VI a, int s) { return {_mm512_maskz_srli_epi32(0xffff, a.v, static_cast<unsigned>(s))}; }  // logical
inline VM test(VI a) { return {_mm512_test_epi32_mask(a.v, a.v)}; }  // lanes != 0
inline VF lookup(const float (&t)[32], VI i) { return {_mm512_permutex2var_ps(_mm512_loadu_ps(t), i.v, _mm512_loadu_ps(t + 16))}; }

#elif defined(__AVX2__) && defined(__FMA__)

constexpr int kLanes = 8;
struct VF { __m256 v; };
struct VI { __m256i v; };
struct VM { __m256 m; };  // all-ones or all-zero lanes

inline VF load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline void store(float* p, VF a) { _mm256_storeu_ps(p, a.v); }
inline VF splat(float c) { return {_mm256_set1_ps(c)}; }
inline VI splat_i(int32_t c) { return {_mm256_set1_epi32(c)}; }
inline VF operator+(VF a, VF b) { return {_mm256_add_ps(a.v, b.v)}; }
inline VF operator-(VF a, VF b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline VF operator*(VF a, VF b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline VF operator/(VF a, VF b) { return {_mm256_div_ps(a.v, b.v)}; }
inline VF fma(VF a, VF b, VF c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline VF sqrt(VF a) { return {_mm256_sqrt_ps(a.v)}; }
inline VF rcp(VF a) {  // 12 bits, then a Newton step
  __m256 y = _mm256_rcp_ps(a.v);
  return {_mm256_fmadd_ps(y, _mm256_fnmadd_ps(a.v, y, _mm256_set1_ps(1.f)), y)};
}
inline VF min(VF a, VF b) { return {_mm256_min_ps(a.v, b.v)}; }
inline VF ldexp(VF a, VF n) {
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127)), 23);
  return {_mm256_mul_ps(a.v, _mm256_castsi256_ps(e))};
}
inline VF max(VF a, VF b) { return {_mm256_max_ps(a.v, b.v)}; }
inline VM operator<(VF a, VF b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ)}; }
inline VM operator<=(VF a, VF b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline VM operator==(VF a, VF b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ)}; }
inline VM operator|(VM a, VM b) { return {_mm256_or_ps(a.m, b.m)}; }
inline VM operator&(VM a, VM b) { return {_mm256_and_ps(a.m, b.m)}; }
inline VM operator!(VM a) { return {_mm256_xor_ps(a.m, _mm256_castsi256_ps(_mm256_set1_epi32(-1)))}; }
inline VF select(VM m, VF a, VF b) { return {_mm256_blendv_ps(b.v, a.v, m.m)}; }
inline VI select(VM m, VI a, VI b) {
  return {_mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b.v), _mm256_castsi256_ps(a.v), m.m))};
}
inline unsigned bits(VM m) { return static_cast<unsigned>(_mm256_movemask_ps(m.m)); }
inline VI as_int(VF a) { return {_mm256_castps_si256(a.v)}; }
inline VF as_float(VI a) { return {_mm256_castsi256_ps(a.v)}; }
inline VF to_float(VI a) { return {_mm256_cvtepi32_ps(a.v)}; }
inline VI operator+(VI a, VI b) { return {_mm256_add_epi32(a.v, b.v)}; }
inline VI operator-(VI a, VI b) { return {_mm256_sub_epi32(a.v, b.v)}; }
inline VI operator&(VI a, VI b) { return {_mm256_and_si256(a.v, b.v)}; }
inline VI operator|(VI a, VI b) { return {_mm256_or_si256(a.v, b.v)}; }
inline VI operator^(VI a, VI b) { return {_mm256_xor_si256(a.v, b.v)}; }
inline VI shl(VI a, int s) { return {_mm256_slli_epi32(a.v, s)}; }
inline VI shr(VI a, int s) { return {_mm256_srli_epi32(a.v, s)}; }
inline VM test(VI a) {
  return {_mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(a.v, _mm256_setzero_si256()), _mm256_set1_epi32(-1)))};
}

#else

constexpr int kLanes = 1;
struct VF { float v; };
struct VI { uint32_t v; };  // unsigned: wrap-around arithmetic and logical shifts
struct VM { bool m; };

inline VF load(const float* p) { return {*p}; }
inline void store(float* p, VF a) { *p = a.v; }
inline VF splat(float c) { return {c}; }
inline VI splat_i(int32_t c) { return {static_cast<uint32_t>(c)}; }
inline VF operator+(VF a, VF b) { return {a.v + b.v}; }
inline VF operator-(VF a, VF b) { return {a.v - b.v}; }
inline VF operator*(VF a, VF b) { return {a.v * b.v}; }
inline VF operator/(VF a, VF b) { return {a.v / b.v}; }
// Without FMA hardware std::fma is a slow software routine. The product of two floats is
// exact in double, so this rounds twice only when the sum is not a float: the cores rely on
// fma's single rounding only where the result is exact (split products and reductions).
inline VF fma(VF a, VF b, VF c) {
  return {static_cast<float>(static_cast<double>(a.v) * static_cast<double>(b.v) + static_cast<double>(c.v))};
}
inline VF sqrt(VF a) { return {std::sqrt(a.v)}; }
inline VF rcp(VF a) { return {1.f / a.v}; }
inline VF min(VF a, VF b) { return {a.v < b.v ? a.v : b.v}; }
inline VF ldexp(VF a, VF n) { return {std::ldexp(a.v, static_cast<int>(n.v))}; }
inline VF max(VF a, VF b) { return {a.v > b.v ? a.v : b.v}; }
inline VM operator<(VF a, VF b) { return {a.v < b.v}; }
inline VM operator<=(VF a, VF b) { return {a.v <= b.v}; }
inline VM operator==(VF a, VF b) { return {a.v == b.v}; }
inline VM operator|(VM a, VM b) { return {a.m || b.m}; }
inline VM operator&(VM a, VM b) { return {a.m && b.m}; }
inline VM operator!(VM a) { return {!a.m}; }
inline VF select(VM m, VF a, VF b) { return m.m ? a : b; }
inline VI select(VM m, VI a, VI b) { return m.m ? a : b; }
inline unsigned bits(VM m) { return m.m ? 1u : 0u; }
inline VI as_int(VF a) {
  VI r;
  std::memcpy(&r.v, &a.v, sizeof(float));
  return r;
}
inline VF as_float(VI a) {
  VF r;
  std::memcpy(&r.v, &a.v, sizeof(float));
  return r;
}
inline VF to_float(VI a) { return {static_cast<float>(static_cast<int32_t>(a.v))}; }
inline VI operator+(VI a, VI b) { return {a.v + b.v}; }
inline VI operator-(VI a, VI b) { return {a.v - b.v}; }
inline VI operator&(VI a, VI b) { return {a.v & b.v}; }
inline VI operator|(VI a, VI b) { return {a.v | b.v}; }
inline VI operator^(VI a, VI b) { return {a.v ^ b.v}; }
inline VI shl(VI a, int s) { return {a.v << s}; }
inline VI shr(VI a, int s) { return {a.v >> s}; }
inline VM test(VI a) { return {a.v != 0}; }

#endif

// Shared by every ISA.
inline VF operator-(VF a) { return as_float(as_int(a) ^ splat_i(INT32_MIN)); }
inline VF abs(VF a) { return as_float(as_int(a) & splat_i(INT32_MAX)); }
inline VF copysign(VF mag, VF sgn) { return as_float(as_int(abs(mag)) | (as_int(sgn) & splat_i(INT32_MIN))); }
inline VM operator>(VF a, VF b) { return b < a; }
inline VM operator>=(VF a, VF b) { return b <= a; }
inline VF operator+(VF a, float b) { return a + splat(b); }
inline VF operator-(VF a, float b) { return a - splat(b); }
inline VF operator*(VF a, float b) { return a * splat(b); }
inline VF operator+(float a, VF b) { return splat(a) + b; }
inline VF operator-(float a, VF b) { return splat(a) - b; }
inline VF operator*(float a, VF b) { return splat(a) * b; }
inline VF operator/(float a, VF b) { return splat(a) / b; }
inline VM operator<(VF a, float b) { return a < splat(b); }
inline VM operator<=(VF a, float b) { return a <= splat(b); }
inline VM operator>(VF a, float b) { return a > splat(b); }
inline VM operator>=(VF a, float b) { return a >= splat(b); }
inline VM operator==(VF a, float b) { return a == splat(b); }
inline VF select(VM m, VF a, float b) { return select(m, a, splat(b)); }
inline VF select(VM m, float a, VF b) { return select(m, splat(a), b); }
inline VF select(VM m, float a, float b) { return select(m, splat(a), splat(b)); }
inline VF fma(VF a, float b, VF c) { return fma(a, splat(b), c); }
inline VF fma(VF a, VF b, float c) { return fma(a, b, splat(c)); }
inline VF fma(VF a, float b, float c) { return fma(a, splat(b), splat(c)); }

// Polynomial with float coefficients, c[0] the highest degree.
template <size_t N>
inline VF horner(VF x, const float (&c)[N]) {
  VF p = splat(c[0]);
  for (size_t i = 1; i < N; ++i) p = fma(p, x, c[i]);
  return p;
}

// The same over two coefficient sets, a where m is set and b elsewhere.
template <size_t N>
inline VF horner2(VM m, VF x, const float (&a)[N], const float (&b)[N]) {
  VF p = select(m, a[0], b[0]);
  for (size_t i = 1; i < N; ++i) p = fma(p, x, select(m, a[i], b[i]));
  return p;
}

}  // namespace CPU_CAPABILITY
}  // namespace tl::native::simd
