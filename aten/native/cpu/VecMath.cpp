// The vector math layer (Note [Vector math]). Every core sets a flag for the lanes it does not
// cover (those get libm in a scalar pass) and is written with selects only. The double cores
// are plain C++ that `#pragma omp simd` vectorises; the float cores are written against
// SimdF32.h's vector type and computed in float, twice the lanes of double. Mish is still
// computed in double for float inputs.
#include "aten/native/cpu/VecMath.h"

#include "aten/native/cpu/SimdF32.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

namespace tl::native::vecmath::CPU_CAPABILITY {
namespace {

using u64 = uint64_t;

// Round-to-nearest by adding and subtracting 1.5 * 2^52; the low bits of the sum's pattern
// hold the integer, which avoids double -> int64 conversions that AVX2 lacks.
constexpr double kShift = 0x1.8p52;
constexpr double kLog2e = 1.4426950408889634, kLn2 = 0.6931471805599453;
// ln2 and log10(2) split so that k * hi is exact for |k| < 2^11.
constexpr double kLn2Hi = 0.6931471806019545, kLn2Lo = -4.2009150726810846e-11;
constexpr double kLog10_2Hi = 0.3010299956640665, kLog10_2Lo = -8.532344317057107e-14;
constexpr double kLog10e = 0.4342944819032518;
constexpr double kTwoOverPi = 0.6366197723675814;
// pi/2 in three parts of 33, 33 and 53 bits: n * part is exact for |n| < 2^20.
constexpr double kPio2_1 = 1.5707963267341256, kPio2_2 = 6.077100506303966e-11, kPio2_3 = 2.0222662487959506e-21;
constexpr double kPio2Hi = 1.5707963267948966, kPio2Lo = 6.123233995736766e-17;
constexpr double kPio4Hi = 0.7853981633974483, kPio4Lo = 3.061616997868383e-17;
constexpr double kPiHi = 3.141592653589793, kPiLo = 1.2246467991473532e-16;

template <size_t N>
inline double horner(double x, const std::array<double, N>& c) {  // c[0]: highest degree
  double p = c[0];
  for (size_t i = 1; i < N; ++i) p = p * x + c[i];
  return p;
}

constexpr double factorial(int k) {
  double f = 1;
  for (int i = 2; i <= k; ++i) f *= i;
  return f;
}
// Coefficients of sum_{j < N} s^j x^j / (first + step j)!, highest degree first; s = +-1.
template <size_t N>
constexpr std::array<double, N> taylor(int first, int step, int s) {
  std::array<double, N> c{};
  for (size_t j = 0; j < N; ++j) c[N - 1 - j] = (s < 0 && j % 2 ? -1.0 : 1.0) / factorial(first + step * static_cast<int>(j));
  return c;
}
// 2 / (2k + 1) for k = 1..N: log(1+f) = 2 atanh(s) with s = f / (2 + f).
template <size_t N>
constexpr std::array<double, N> atanh_series() {
  std::array<double, N> c{};
  for (size_t k = 1; k <= N; ++k) c[N - k] = 2.0 / (2.0 * static_cast<double>(k) + 1.0);
  return c;
}

// Chebyshev fits (mpmath.chebyfit), relative error below 1.2e-16 on their intervals:
// atan(t) = t + t z g(z), z = t^2 <= tan(pi/8)^2.
constexpr std::array<double, 12> kAtanG = {
    0.016285756855221028, -0.034570561981427744, 0.04551593220626549, -0.05230454270650244,
    0.05878928997834775,  -0.06666424885738255,  0.07692296375032143, -0.09090908753500877,
    0.11111111105155447,  -0.14285714285659828,  0.19999999999999804, -0.3333333333333333};
// tanh(x) = x + x z g(z), z = x^2 <= 0.3025.
constexpr std::array<double, 11> kTanhG = {
    -2.060276537636634e-05, 8.511313685577672e-05,  -0.0002346347410887237, 0.0005889360520074057,
    -0.001455661830100716,  0.003592110378689024,   -0.008863234397814355,  0.021869488493666944,
    -0.053968253967434016,  0.13333333333332714,    -0.3333333333333333};
// asin(x) = x + x z g(z), z = x^2 <= 0.25.
constexpr std::array<double, 13> kAsinG = {
    0.028757851367421566, -0.014851887071247204, 0.01740087944269402,  0.005457506718640358,
    0.01032281435018578,  0.011479177415184906,  0.013971212973552933, 0.017352392720869973,
    0.02237217294214989,  0.030381944138531247,  0.04464285714635543,  0.07499999999998433,
    0.16666666666666669};
// tan(r) = r + r z g(z), z = r^2 <= (pi/4)^2.
constexpr std::array<double, 15> kTanG = {
    8.48334725267473e-06,  -1.83153428020867e-05, 3.651618193613342e-05, -1.1013613221811344e-05,
    5.558784710570148e-05, 8.998520298342289e-05, 0.000241226353512688,  0.0005895756061544555,
    0.0014559027390503058, 0.0035921209805615966, 0.008863236003485818,  0.02186948851707438,
    0.05396825396865546,   0.13333333333333,      0.3333333333333333};
inline double keep_zero(double x, double r) { return x == 0 ? x : r; }  // f(+-0) = +-0

// e^x for |x| <= 708, so that 2^n is normal: x = n ln2 + r, |r| <= ln2/2, e^r by Taylor.
inline double exp_core(double x) {
  static constexpr auto c = taylor<14>(0, 1, 1);
  double kd = x * kLog2e + kShift;
  u64 ki = std::bit_cast<u64>(kd);
  double n = kd - kShift;
  double r = (x - n * kLn2Hi) - n * kLn2Lo;
  return horner(r, c) * std::bit_cast<double>((ki + 1023) << 52);
}

// log(x) = k ln2 + log(m) for positive normal x, m in [sqrt(1/2), sqrt(2)); log(m) = log(1 + f)
// = f - hfsq + s (hfsq + R(s^2)) as in fdlibm, which keeps the leading term f exact.
struct LogParts {
  double k, f, hfsq, tail;  // log(m) = f - (hfsq - tail)
};
inline LogParts log_parts(double x) {
  static constexpr auto c = atanh_series<10>();
  constexpr u64 kSqrtHalfBits = 0x3fe6a09e667f3bcdULL, kOne = 0x3ff0000000000000ULL;
  u64 ix = std::bit_cast<u64>(x);
  u64 kb = (ix + (kOne - kSqrtHalfBits)) >> 52;  // k + 1023
  double m = std::bit_cast<double>(ix + kOne - (kb << 52));
  double k = std::bit_cast<double>(kb | 0x4330000000000000ULL) - (0x1p52 + 1023.0);
  double f = m - 1.0;
  double hfsq = 0.5 * f * f;
  double s = f / (2.0 + f);
  double z = s * s;
  double R = z * horner(z, c);
  return {k, f, hfsq, s * (hfsq + R)};
}
inline double log_core(double x) {
  LogParts p = log_parts(x);
  return p.k * kLn2Hi + (p.f - (p.hfsq - (p.tail + p.k * kLn2Lo)));
}
inline bool log_domain(double x) { return x >= 0x1p-1022 && x <= 0x1.fffffffffffffp1023; }

// log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the second term restores
// what the rounding of u lost.
inline double log1p_core(double x) {
  double u = 1.0 + x;
  return keep_zero(x, log_core(u) + (x - (u - 1.0)) / u);
}

// a - b = s + err exactly (Knuth's TwoSum).
inline double two_diff(double a, double b, double& err) {
  double s = a - b, bb = s - a;
  err = (a - (s - bb)) - (b + bb);
  return s;
}
// x = n pi/2 + r + lo for |x| <= 4e5: |r| <= pi/4, q = n mod 4. With FMA, as the float form
// (reduce_pio2 in f32 below) with pi/2 = kPio2Hi + kPio2Lo + kPio2Lo2: r1 = x - n kPio2Hi is
// exact (x and n kPio2Hi share the ulp 2^-52 or finer, the difference is below 1), r = r1 - n
// kPio2Lo rounds once, and where |r1| >= 2^-34 >= 2 |n kPio2Lo| that rounding's error is exact
// (Sterbenz); `near` flags the other lanes with n != 0 for libm (about one double in 10^10).
// Without FMA, lo holds the two subtractions' rounding errors (carried to first order).
struct Reduced {
  double r, lo;
  u64 q;
};
inline Reduced reduce_pio2(double x, bool& near) {
  double kd = x * kTwoOverPi + kShift;
  double n = kd - kShift;
#if defined(__FMA__)
  constexpr double kPio2Lo2 = -1.4973849048591698e-33;
  double r1 = std::fma(n, -kPio2Hi, x);
  double r = std::fma(n, -kPio2Lo, r1);
  near = (std::fabs(r1) < 0x1p-34) & (n != 0);
  return {r, std::fma(n, -kPio2Lo2, std::fma(n, -kPio2Lo, r1 - r)), std::bit_cast<u64>(kd)};
#else
  double e1, e2;
  double b = two_diff(x - n * kPio2_1, n * kPio2_2, e1);  // x - n * part 1 and n * part 2 are exact
  double r = two_diff(b, n * kPio2_3, e2);
  near = false;
  return {r, e1 + e2, std::bit_cast<u64>(kd)};
#endif
}
struct SinCos {
  double s, c;
  u64 q;
};
inline SinCos sincos_core(double x, bool& near) {
  static constexpr auto cs = taylor<8>(3, 2, -1);  // 1/3! - z/5! + ...
  static constexpr auto cc = taylor<8>(4, 2, -1);  // 1/4! - z/6! + ...
  auto [r, lo, q] = reduce_pio2(x, near);
  double z = r * r;
  return {r + (lo - r * z * horner(z, cs)), 1.0 - 0.5 * z + (z * z * horner(z, cc) - r * lo), q};
}
constexpr double kTrigMax = 4e5;

inline double tanh_core(double x) {
  double a = std::fabs(x), z = x * x;
  double small = x + x * z * horner(z, kTanhG);
  double e = exp_core(std::min(2.0 * a, 44.0));
  double big = std::copysign(1.0 - 2.0 / (e + 1.0), x);
  return keep_zero(x, a < 0.55 ? small : big);
}

// atan with fdlibm's reduction: |x| > tan(3pi/8) -> pi/2 + atan(-1/|x|); |x| > tan(pi/8) ->
// pi/4 + atan((|x| - 1) / (|x| + 1)). dx, for x >= 0: the error of x (atan2's quotient),
// applied to the reduced argument to first order.
inline double atan_core(double x, double dx = 0.0) {
  double a = std::fabs(x);
  bool big = a > 2.414213562373095, mid = a > 0.41421356237309503;
  // a - 1 and a + 1 round; their errors are carried into the quotient (the sum with pi/4
  // cancels up to a bit, which would show them).
  double e_num, e_den;
  double num = two_diff(a, 1.0, e_num), den = two_diff(a, -1.0, e_den);
  double q = num / den;
  q += (e_num - q * e_den) / den;
  double t = big ? -1.0 / a : (mid ? q : a);
  t += dx * (big ? 1.0 / (a * a) : (mid ? 2.0 / (den * den) : 1.0));
  double hi = big ? kPio2Hi : (mid ? kPio4Hi : 0.0), lo = big ? kPio2Lo : (mid ? kPio4Lo : 0.0);
  double z = t * t;
  return std::copysign(hi + (lo + (t + t * z * horner(z, kAtanG))), x);
}

// asin(w) for w = |x| <= 1/2, or for w = sqrt((1 - |x|) / 2) (asin|x| = pi/2 - 2 asin w); the
// square root's rounding error wc is added back (fdlibm's trick).
struct AsinParts {
  bool small;
  double p;
};
inline AsinParts asin_parts(double a) {
  bool small = a <= 0.5;
  double z = small ? a * a : (1.0 - a) * 0.5;
  double w = small ? a : std::sqrt(z);
  double wc = (small || w == 0) ? 0.0 : std::fma(-w, w, z) / (w + w);
  return {small, w + (wc + w * z * horner(z, kAsinG))};
}
inline double asin_core(double x) {
  AsinParts p = asin_parts(std::fabs(x));
  return keep_zero(x, std::copysign(p.small ? p.p : kPio2Hi - (2.0 * p.p - kPio2Lo), x));
}
inline double acos_core(double x) {
  AsinParts p = asin_parts(std::fabs(x));
  if (p.small) return kPio2Hi - (std::copysign(p.p, x) - kPio2Lo);
  return x > 0 ? 2.0 * p.p : kPiHi - (2.0 * p.p - kPiLo);
}

// Scalar libm for the lanes a core flags.
#define TL_VM_LIBM(fn) [](auto v) { return std::fn(v); }
// Float lanes take double libm, correctly rounded but for double rounding (glibc's float
// functions reach 1 ulp).
#define TL_VM_LIBM_F(fn) [](float v) { return static_cast<float>(std::fn(static_cast<double>(v))); }

// Blocks of the input are copied first so that y may alias x: the scalar pass re-reads them.
constexpr int64_t kBlock = 256;

template <typename T, typename Core, typename Slow>
void run_unary_in_double(const T* x, T* y, int64_t n, Core core, Slow slow) {
  T in[kBlock];
  bool flag[kBlock];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t m = std::min(kBlock, n - i0);
    std::memcpy(in, x + i0, static_cast<size_t>(m) * sizeof(T));
    T* out = y + i0;
    int any = 0;
#pragma omp simd reduction(| : any)
    for (int64_t j = 0; j < m; ++j) {
      bool s = false;
      out[j] = static_cast<T>(core(static_cast<double>(in[j]), s));
      flag[j] = s;
      any |= s;
    }
    if (!any) continue;
    for (int64_t j = 0; j < m; ++j)
      if (flag[j]) out[j] = slow(in[j]);
  }
}

// mish in double, for float and double: x tanh(log(1 + e)) with e = e^x is x m / (m + 2),
// m = e (e + 2): no log1p or tanh to compound errors; the ratio is 1 in double above x = 40.
// Below -700 it is x e^x to double precision, taken as x (e^(x/2))^2 so that subnormal results
// round once. NaN and -inf give NaN as x * tanh(0) does.
template <typename T>
void run_mish(const T* x, T* y, int64_t n) {
  run_unary_in_double(x, y, n, [](double v, bool& s) {
    s = !(v >= -700.0);
    double e = exp_core(std::min(v, 40.0));
    double m = e * (e + 2.0);
    return v * (m / (m + 2.0));
  }, [](T v) {
    T h = std::exp(v / 2);
    return v * h * h;
  });
}

template <typename T, typename Core, typename Slow>
void run_binary_in_double(const T* a, const T* b, T* y, int64_t n, Core core, Slow slow) {
  T ina[kBlock], inb[kBlock];
  bool flag[kBlock];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t m = std::min(kBlock, n - i0);
    std::memcpy(ina, a + i0, static_cast<size_t>(m) * sizeof(T));
    std::memcpy(inb, b + i0, static_cast<size_t>(m) * sizeof(T));
    T* out = y + i0;
    int any = 0;
#pragma omp simd reduction(| : any)
    for (int64_t j = 0; j < m; ++j) {
      bool s = false;
      out[j] = static_cast<T>(core(static_cast<double>(ina[j]), static_cast<double>(inb[j]), s));
      flag[j] = s;
      any |= s;
    }
    if (!any) continue;
    for (int64_t j = 0; j < m; ++j)
      if (flag[j]) out[j] = slow(ina[j], inb[j]);
  }
}


// ---- float32, computed in float (SimdF32.h) -------------------------------------------------
// Same shapes as the double cores above, with float polynomials (Chebyshev fits, relative error
// below 2^-27) and the roundings that would cost a float ulp carried as hi + lo pairs: Cody-Waite
// reductions whose products are exact under fma, TwoSum for the final additions.
namespace f32 {
using namespace simd;

constexpr float kShiftF = 0x1.8p23f;  // round-to-nearest; the sum's low bits hold the integer
constexpr float kLog2eF = 1.44269502f, kLog2eLoF = 1.92596303e-08f;
constexpr float kLn2F = 0.693147182f, kLn2LoF = -1.90465421e-09f;
// 16-bit high parts: k * hi is exact for the |k| <= 150 of a float's exponent.
constexpr float kLn2Hi16 = 0.693145752f, kLn2Lo16 = 1.42860677e-06f;
constexpr float kLog10_2Hi16 = 0.30103302f, kLog10_2Lo16 = -3.02435546e-06f;
constexpr float kLog10eF = 0.434294492f, kLog10eLoF = -1.010305e-08f;
constexpr float kTwoOverPiF = 0.636619747f;
constexpr float kPio2F = 1.57079637f, kPio2LoF = -4.37113883e-08f, kPio2Lo2F = -1.71512451e-15f;
constexpr float kPio4F = 0.785398185f, kPio4LoF = -2.18556941e-08f;
constexpr float kPiF = 3.14159274f, kPiLoF = -8.74227766e-08f;
constexpr float kTrigMaxF = 8192.f;  // sin/cos/tan fast path; above it the reduction would need more parts

// e^r = 1 + r + r^2 P(r), |r| <= ln2/2.
constexpr float kExpP[] = {0.000198909809f, 0.00139336416f, 0.00833331048f, 0.0416664667f, 0.166666672f, 0.5f};
// tanh(x) = x + x z g(z), z = x^2 <= 0.3025.
constexpr float kTanhG[] = {-0.00624284893f, 0.021050714f, -0.0538475476f, 0.133325443f, -0.333333164f};
// log(1 + f) = f - f^2/2 + f^3 Q(f), f in [sqrt(1/2) - 1, sqrt(2) - 1].
constexpr float kLogQ[] = {-0.0620150007f, 0.105308644f, -0.10646192f, 0.110377833f, -0.124507435f,
                           0.142865241f,   -0.166680008f, 0.200000107f, -0.249999896f, 0.333333343f};
// sin(r) = r + r z S(z), cos(r) = 1 - z/2 + z^2 C(z), tan(r) = r + r z T(z); z = r^2 <= (pi/4)^2.
constexpr float kSinS[] = {-0.000195180852f, 0.00833218824f, -0.166666552f};
constexpr float kCosC[] = {2.44325438e-05f, -0.00138873106f, 0.0416666456f};
constexpr float kTanT[] = {0.00155756588f, 0.000480392511f, 0.00403749989f, 0.00876257848f, 0.0218801107f, 0.0539678372f, 0.13333334f};
constexpr float kThird = 0.333333343f, kThirdLo = -9.93410776e-09f;  // tan's T(z) = 1/3 + z kTanT(z)
// atan(t) = t + t z g(z), z <= tan(pi/8)^2; asin(w) = w + w z g(z), z <= 1/4.
constexpr float kAtanG[] = {-0.0404322483f, 0.0713532493f, -0.0902898386f, 0.111074954f, -0.142856121f, 0.199999988f, -0.333333343f};
constexpr float kAsinG[] = {0.0336908475f, 0.0171492379f, 0.0311006624f, 0.0445994027f, 0.0750009418f, 0.166666657f};

inline VM none() { return VM{}; }  // no lane set (zero-initialised in every ISA), a constant
inline VF keep_zero(VF x, VF r) { return select(x == 0.f, x, r); }  // f(+-0) = +-0
inline VF flip_sign(VF v, VI bit31) { return as_float(as_int(v) ^ bit31); }
struct Split {  // hi + lo, |lo| below hi's ulp
  VF hi, lo;
};
// a + b = s + err exactly when |a| >= |b| or a = 0 (Fast2Sum).
inline VF fast_two_sum(VF a, VF b, VF& err) {
  VF s = a + b;
  err = (a - s) + b;
  return s;
}

// e^x = scale (w + lo) for x in [-80, 87.3] (scale = 2^n normal, scale lo not subnormal):
// x = n ln2 + r + rlo, e^r = 1 + r + r^2 P(r) summed with TwoSums into w = e^r rounded and a
// tail lo far below w's ulp.
struct ExpParts {
  VF scale, w, lo;
};
// From kd = n + kShiftF and x - n ln2 = r + rlo, r exact.
inline ExpParts exp_from(VF kd, VF r, VF rlo) {
  VF ev, e;
  VF v = fast_two_sum(r, r * r * horner(r, kExpP), ev);
  VF w = fast_two_sum(splat(1.f), v, e);
  // The low bits of kd's pattern hold n; shifting them into the exponent field gives 2^n.
  VF scale = as_float(shl(as_int(kd), 23) + splat_i(127 << 23));
  return {scale, w, fma(rlo, w, e + ev)};
}
inline ExpParts exp_parts(VF x) {
  VF kd = fma(x, kLog2eF, kShiftF);
  VF n = kd - kShiftF;
  VF r = fma(n, -kLn2F, x);  // exact: the fma's product is, and so is the difference
  return exp_from(kd, r, n * -kLn2LoF);
}
// 2^x for x in [-115, 127]: x = n + f exactly, 2^f = e^(f ln2) with f ln2 split in two.
inline ExpParts exp2_parts(VF x) {
  VF kd = x + kShiftF;
  VF f = x - (kd - kShiftF);
  VF r = f * kLn2F;
  return exp_from(kd, r, fma(f, splat(kLn2F), -r) + f * kLn2LoF);
}
// e^x for x in [-87.3, 87.3], within 1 ulp (0.88, every float checked) at a third of
// exp_parts' cost: r = x - n ln2 rounded once (the first fma is exact), e^r = 1 + r Q(r) with Q
// a minimax fit (relative error 2^-29 on |r| <= ln2/2) whose last fma rounds once at the
// result's scale, and the scaling by 2^n is exact.
constexpr float kExpQ[] = {0.00019767655f, 0.001394591f, 0.008333569f, 0.041666273f, 0.16666666f, 0.5f, 1.f};
inline VF exp_core(VF x) {
  VF kd = fma(x, kLog2eF, kShiftF);
  VF n = kd - kShiftF;
  VF r = fma(n, -kLn2LoF, fma(n, -kLn2F, x));
  return ldexp(fma(r, horner(r, kExpQ), splat(1.f)), n);
}
constexpr float kExpMaxF = 87.3f;
// exp's lanes for libm: results near the bottom of the normal range, or the overflow threshold.
inline VM exp_slow(VF x) { return ((x >= -103.9f) & (x < -80.f)) | ((x > 87.3f) & (x <= 88.8f)); }

// e^x - 1 = scale (w + lo) - 1, one TwoSum from exact; no cancellation is left to round.
inline VF expm1_core(VF x) {
  ExpParts e = exp_parts(x);
  VF a = e.scale * e.w;  // exact
  VF s = a - 1.f;
  VF bb = s - a;
  VF err = (a - (s - bb)) - (1.f + bb);
  return s + fma(e.scale, e.lo, err);
}

// e/2 + sign / (2e) for e = scale (w + lo) >= 1 (cosh: sign 1, sinh: -1), the reciprocal
// refined by one Newton step so that only the last addition rounds.
inline VF half_exp_pm_inv(const ExpParts& e, float sign) {
  VF eh = e.scale * e.w, el = e.scale * e.lo;
  VF y = 1.f / eh;
  VF ylo = y * (fma(-y, eh, splat(1.f)) - y * el);  // 1/e = y + ylo
  VF err;
  VF s = fast_two_sum(0.5f * eh, (0.5f * sign) * y, err);
  return s + (err + 0.5f * fma(splat(sign), ylo, el));
}
// sinh(x) = x + x z S(z), z = x^2 <= 1.
constexpr float kSinhS[] = {2.5456707e-08f, 2.75537695e-06f, 0.000198412832f, 0.00833333377f, 0.166666672f};
constexpr float kHypMaxF = 89.5f;  // sinh and cosh overflow above 89.416; e^x alone does above 88.72
inline VF sinh_core(VF x) {
  VF a = abs(x), z = x * x;
  VF small = fma(x * z, horner(z, kSinhS), x);
  VF big = select(a > kHypMaxF, splat(INFINITY), half_exp_pm_inv(exp_parts(a), -1.f));
  return select(a >= 1.f, copysign(big, x), small);  // NaN takes the small arm
}

#if defined(__AVX512F__)
// tanh: below 0.5 the odd polynomial x + x z g(z); above, a table of 32 intervals, 8 per binade
// of [0.5, 8) (the last one stretched to 9.1, past which tanh rounds to 1), picked by a's
// exponent and top three mantissa bits. On each, tanh(c + t) = H + P(t) with c the interval's
// midpoint, H = tanh(c) rounded, t = a - c exact and P of degree 4 (fits within 0.15 ulp, its
// constant term holding H's rounding error), so only the last addition rounds at the result's
// scale. The lookups are permutes: no division, no exp, no compensated sums (1.6x faster than
// the form below, which AVX2 keeps: there the lookups would be gathers, slower than it).
constexpr float kTanhH[32] = {
    0.486336023f, 0.53258729f, 0.575862408f, 0.616134405f, 0.653423607f, 0.687790215f, 0.719327509f, 0.748154461f,
    0.786618829f, 0.829801917f, 0.864906609f, 0.893193364f, 0.915824533f, 0.933828056f, 0.948085308f, 0.959335268f,
    0.971872747f, 0.982845008f, 0.98955977f, 0.993654609f, 0.99614656f, 0.997660995f, 0.998580635f, 0.999138892f,
    0.999593139f, 0.999850333f, 0.999944925f, 0.999979734f, 0.999992549f, 0.999997258f, 0.999998987f, 0.999999642f,
};
// P's coefficients, highest degree first.
constexpr float kTanhP[5][32] = {
    {
        0.159860477f, 0.146076381f, 0.128929198f, 0.109708786f, 0.089759849f, 0.0701880828f, 0.0518292896f,
        0.0352528431f, 0.0144954417f, -0.00554381963f, -0.0176470652f, -0.0236217082f, -0.0253762752f, -0.0245209467f,
        -0.0222557765f, -0.0193872843f, -0.0149935093f, -0.0100277299f, -0.00644202856f, -0.00404348364f,
        -0.00250346586f, -0.00153737492f, -0.000939478923f, -0.000572412915f, -0.000274335791f, -0.000101139805f,
        -3.72366958e-05f, -1.37026e-05f, -5.04144418e-06f, -1.85471674e-06f, -6.82322025e-07f, -9.54144781e-08f,
    },
    {
        -0.0739542991f, -0.0356523022f, -0.0012188548f, 0.0286389142f, 0.0535751171f, 0.0735512152f, 0.088771604f,
        0.0996159762f, 0.108626023f, 0.110507891f, 0.104417764f, 0.093888931f, 0.0815022141f, 0.0689485669f,
        0.0572156347f, 0.0467922911f, 0.0339869745f, 0.0215867907f, 0.0134620862f, 0.00830349978f, 0.00508779986f,
        0.00310497358f, 0.00189030555f, 0.00114912621f, 0.000550173805f, 0.000202615964f, 7.45678117e-05f,
        2.74359663e-05f, 1.00936695e-05f, 3.71332703e-06f, 1.36606661e-06f, 4.02691398e-07f,
    },
    {
        -0.371306658f, -0.381519288f, -0.384896338f, -0.382236451f, -0.374436289f, -0.362427354f, -0.347124398f,
        -0.329386145f, -0.299883604f, -0.258424431f, -0.217901751f, -0.180608854f, -0.147690877f, -0.119497515f,
        -0.0958839506f, -0.0764358044f, -0.0539032221f, -0.0334319584f, -0.0205545183f, -0.0125701055f, -0.0076623885f,
        -0.00466160243f, -0.00283261691f, -0.00171998958f, -0.000813097227f, -0.000299275329f, -0.000110118039f,
        -4.05129758e-05f, -1.49042717e-05f, -5.4830266e-06f, -2.01709986e-06f, -7.3434353e-07f,
    },
    {
        0.763477266f, 0.716350794f, 0.668382525f, 0.620378375f, 0.573037624f, 0.526944637f, 0.482567966f, 0.44026491f,
        0.38123104f, 0.311428905f, 0.251936615f, 0.202205688f, 0.161265403f, 0.127965167f, 0.10113427f, 0.0796757713f,
        0.0554630235f, 0.0340153873f, 0.0207713246f, 0.012650351f, 0.00769201573f, 0.00467252405f, 0.00283663883f,
        0.00172146945f, 0.000813409744f, 0.000299313484f, 0.000110121677f, 4.05129067e-05f, 1.49040561e-05f,
        5.48292155e-06f, 2.01705757e-06f, 7.48292337e-07f,
    },
    {
        -5.55419088e-09f, -3.64276032e-09f, -1.63982108e-08f, 2.19624621e-08f, -1.92118748e-08f, -9.91281368e-09f,
        -8.3865217e-09f, 8.94153551e-09f, -1.65627636e-08f, -7.00656821e-09f, 8.73336514e-09f, -2.37035511e-08f,
        1.16138219e-08f, -1.26143052e-08f, -2.24618528e-08f, 2.57715413e-08f, -1.16623744e-09f, 2.0606759e-08f,
        -2.11653006e-08f, 2.54793022e-08f, -2.91118312e-08f, -1.51065862e-08f, 2.45791387e-08f, -5.87770499e-09f,
        6.80003653e-09f, -2.53960692e-08f, 3.23444893e-09f, 5.5695577e-09f, -2.70816991e-09f, -1.04509457e-10f,
        4.58276661e-09f, -1.3779208e-08f,
    },
};
// The permutes read an index's low five bits: a's bits >> 20 are the interval's number plus
// 0x3f0 (0.5 is 0x3f000000), 16 mod 32, so the tables are read rotated by 16.
struct Table32 {
  float v[32];
};
constexpr Table32 rotated16(const float (&t)[32]) {
  Table32 r{};
  for (int k = 0; k < 32; ++k) r.v[(k + 16) % 32] = t[k];
  return r;
}
constexpr Table32 kTanhHr = rotated16(kTanhH);
constexpr Table32 kTanhPr[5] = {rotated16(kTanhP[0]), rotated16(kTanhP[1]), rotated16(kTanhP[2]),
                                rotated16(kTanhP[3]), rotated16(kTanhP[4])};
// (a & b) | c, one vpternlogd.
inline VI and_or(VI a, VI b, VI c) { return {_mm512_ternarylogic_epi32(a.v, b.v, c.v, 0xea)}; }
inline VF tanh_core(VF x) {
  VF a = abs(x), z = x * x;
  VF small = fma(x * z, horner(z, kTanhG), x);
  VI ai = as_int(min(a, splat(7.99f)));
  VI i = shr(ai, 20);
  VF c = as_float(and_or(ai, splat_i(-1 << 20), splat_i(1 << 19)));  // the interval's start, plus half its width
  VF t = min(a, splat(9.1f)) - c;
  VF p = lookup(kTanhPr[0].v, i);
  for (int k = 1; k < 5; ++k) p = fma(p, t, lookup(kTanhPr[k].v, i));
  VF big = lookup(kTanhHr.v, i) + p;  // positive: its sign is x's
  return select(a >= 0.5f, as_float(and_or(as_int(x), splat_i(INT32_MIN), as_int(big))), small);  // NaN: small arm
}
#else
// tanh(a) = 1 - q with q = 2 / d, d = e^{2a} + 1 = dh + dl; q's remainder and 1 - q's rounding
// are carried so that the result rounds once. q comes from rcp, not a division: the remainder
// corrects its relative error e to e^2 q, below 2^-29 of the result.
inline VF tanh_core(VF x) {
  VF a = abs(x), z = x * x;
  VF small = fma(x * z, horner(z, kTanhG), x);
  ExpParts e = exp_parts(min(splat(20.f), a + a));  // tanh(10) rounds to 1
  VF de;
  VF dh = fast_two_sum(e.scale * e.w, splat(1.f), de);  // the product is exact
  VF dl = fma(e.scale, e.lo, de);
  VF q = 2.f * rcp(dh);
  VF rem = fma(-q, dh, splat(2.f)) - q * dl;
  VF eh;
  VF h = fast_two_sum(splat(1.f), -q, eh);
  VF big = h + (eh - rem * (q * 0.5f));  // rem / d = rem q / 2 to first order
  return select(a >= 0.55f, copysign(big, x), small);  // NaN takes the small arm
}
#endif

// log(x) = k ln2 + hi + lo for positive normal x: x = 2^k m, m in [sqrt(1/2), sqrt(2)), f = m - 1.
struct LogParts {
  VF k, hi, lo;
};
// x = 2^k (1 + f) for positive normal x, 1 + f in [sqrt(1/2), sqrt(2)), f exact.
struct Mantissa {
  VF k, f;
};
inline Mantissa split_mantissa(VF x) {
  VI ix = as_int(x);
  VI kb = shr(ix + splat_i(0x3f800000 - 0x3f3504f3), 23);  // k + 127
  VF m = as_float(ix - shl(kb, 23) + splat_i(127 << 23));
  return {to_float(kb - splat_i(127)), m - 1.f};
}
inline LogParts log_parts(VF x) {
  auto [k, f] = split_mantissa(x);
  VF d = fma(0.5f * f, f, -(f * f * f * horner(f, kLogQ)));  // f^2/2 - f^3 Q, rounded once
  VF lo;
  VF hi = fast_two_sum(f, -d, lo);
  return {k, hi, lo};
}
inline VM log_slow(VF x) { return !((x >= 0x1p-126f) & (x <= 0x1.fffffep127f)); }
// k (chi + clo) + (hi + lo) (mhi + mlo): the base's two scalings (chi k exact), summed so that
// only the last addition rounds at the result's scale.
inline VF log_finish(const LogParts& p, float chi, float clo, float mhi, float mlo) {
  VF khi = p.k * chi;
  VF m = p.hi * mhi;
  VF tail = fma(p.hi, splat(mhi), -m) + fma(p.lo, splat(mhi), p.hi * mlo) + p.k * clo;
  VF err;
  VF s = fast_two_sum(khi, m, err);  // |khi| >= |m| unless k = 0
  return s + (err + tail);
}

// log2(x) = hi + lo to about 2^-40 for positive normal x, for pow: log(m) = 2 atanh(s) = 2s +
// 2s^3/3 + s^5 A(s^2) with s = f / (2 + f), the first two terms and s itself in two parts.
constexpr float kAtanhA[] = {0.191203579f, 0.222047657f, 0.285715312f, 0.400000006f};
constexpr float kTwoThirds = 0.666666687f, kTwoThirdsLo = -1.98682155e-08f;
inline Split log2_ext(VF x) {
  auto [k, f] = split_mantissa(x);
  VF dlo;
  VF d = fast_two_sum(splat(2.f), f, dlo);
  VF sh = f / d;
  VF sl = (fma(-sh, d, f) - sh * dlo) / d;
  VF z = sh * sh;
  VF zl = fma(sh, sh, -z) + 2.f * sh * sl;
  VF s3 = z * sh;
  VF s3l = fma(z, sh, -s3) + fma(zl, sh, z * sl);
  VF th = s3 * kTwoThirds;
  VF tl = fma(s3, splat(kTwoThirds), -th) + fma(s3, splat(kTwoThirdsLo), s3l * kTwoThirds);
  VF ue;
  VF u = fast_two_sum(2.f * sh, th, ue);
  VF ul = ue + (2.f * sl + (tl + s3 * z * horner(z, kAtanhA)));  // log(m) = u + ul
  VF ph = u * kLog2eF;
  VF pl = fma(u, splat(kLog2eF), -ph) + fma(u, splat(kLog2eLoF), ul * kLog2eF);
  VF e, lo;
  VF s = fast_two_sum(k, ph, e);  // |k| >= |ph| unless k = 0
  VF hi = fast_two_sum(s, e + pl, lo);  // s^5 A(s^2) may exceed ph's ulp: renormalise
  return {hi, lo};
}

// x = n pi/2 + r + lo for |x| <= kTrigMaxF, q = n mod 4 in the low bits; pi/2 = p1 + p2 + p3.
// r1 = x - n p1 is exact (x and n p1 share the ulp 2^-23 or finer, and the difference is below
// 1). Then r = r1 - n p2 rounds once in an fma; where |r| >= 2^-10, |r1| >= 2^-11 >= 2 |n p2|
// so r1 - r is exact (Sterbenz) and d - n p2 is the fma's rounding error: seven operations in
// all. The rare vectors with a lane near a nonzero multiple of pi/2, or with a lane past
// kTrigMaxF, take a TwoSum instead; s gets the latter lanes (for libm). Testing both in
// one branch keeps the common path to one mask test.
struct Reduced {
  VF r, lo;
  VI q;
};
inline Reduced reduce_pio2(VF x, VM& s) {
  VF kd = fma(x, kTwoOverPiF, kShiftF);
  VF n = kd - kShiftF;
  VF r1 = fma(n, -kPio2F, x);
  VF r = fma(n, -kPio2LoF, r1);
  VF lo;
  VM far = !(abs(x) <= kTrigMaxF);
  // n = 0 (|x| < pi/4: zeros, tiny values, a tail's padding) is exact as it is: r = x, lo = 0.
  if (bits(((r * r < 0x1p-20f) & !(n == 0.f)) | far)) [[unlikely]] {
    s = far;
    VF t = n * kPio2LoF;
    VF te = fma(n, splat(kPio2LoF), -t);  // n p2 = t + te
    r = r1 - t;
    VF bb = r - r1;
    lo = ((r1 - (r - bb)) - (t + bb)) - te;  // TwoSum: r1 - t = r + error
  } else {
    lo = fma(n, -kPio2LoF, r1 - r);
  }
  return {r, fma(n, -kPio2Lo2F, lo), as_int(kd)};
}
// sin(r + lo) = r + (r z S(z) + lo) and cos(r + lo) = 1 - r^2/2 + (z^2 C(z) - r lo), z = r^2,
// with 1 - r^2/2 = w + ew exactly (w rounded in an fma, 1 - w exact): the tails are far below
// the leading terms' ulp, so each result rounds about once. sin leaves out -lo z/2 (at most
// 0.16 ulp): 0.87 ulp at most, every float of the fast range checked (cos: 0.86).
struct SinCos {
  VF s, c;
};
inline SinCos sincos_poly(VF r, VF lo) {
  VF z = r * r;
  VF s = r + fma(r * z, horner(z, kSinS), lo);
  VF hr = -0.5f * r;
  VF w = fma(hr, r, splat(1.f));
  VF ew = fma(hr, r, 1.f - w);
  VF c = w + fma(z * z, horner(z, kCosC), ew - r * lo);
  return {s, c};
}
// Lanes with n odd (one vptestmd with AVX-512).
inline VM odd(VI q) {
#if defined(__AVX512F__)
  return {_mm512_test_epi32_mask(q.v, _mm512_set1_epi32(1))};
#else
  return test(q & splat_i(1));
#endif
}
// Both reduce |x|: sin(-x) = -sin(x) goes into the sign flip with n's bit 1 (n mod 4 in {2, 3}).
inline VF sin_core(VF x, VM& s) {
  Reduced d = reduce_pio2(abs(x), s);
  SinCos sc = sincos_poly(d.r, d.lo);
  VF v = select(odd(d.q), sc.c, sc.s);
  return flip_sign(v, (as_int(x) ^ shl(d.q, 30)) & splat_i(INT32_MIN));
}
inline VF cos_core(VF x, VM& s) {
  Reduced d = reduce_pio2(abs(x), s);
  SinCos sc = sincos_poly(d.r, d.lo);
  VF v = select(odd(d.q), sc.s, sc.c);
  return flip_sign(v, shl(d.q + splat_i(1), 30) & splat_i(INT32_MIN));
}
// tan(r + lo) = s + slo; for odd n, -1 / (s + slo) with one Newton step on the reciprocal.
inline VF tan_core(VF x, VM& slow) {
  Reduced d = reduce_pio2(x, slow);
  VF z = d.r * d.r;
  VF zlo = fma(d.r, d.r, -z);
  VF rz = d.r * z;
  VF rzlo = fma(d.r, z, -rz) + d.r * zlo;  // r^3 = rz + rzlo
  VF tl = fma(z, horner(z, kTanT), splat(kThirdLo));  // T(z) - kThird
  VF p = fma(rz, splat(kThird), fma(rz, tl, rzlo * kThird));  // r^3 T(z), rounded once
  VF t0 = d.r + p;
  VF w = fma(fma(t0, t0, splat(1.f)), d.lo, p);  // lo (1 + tan^2)
  VF slo;
  VF s = fast_two_sum(d.r, w, slo);
  VF y = 1.f / s;
  VF e = fma(-y, s, splat(1.f)) - y * slo;
  VF inv = -fma(y, e, y);
  return keep_zero(x, select(test(d.q & splat_i(1)), inv, s + slo));
}

// atan(a + da) for a >= 0 as hi + lo, with fdlibm's reduction: a > tan(3pi/8) -> pi/2 +
// atan(-1/a); a > tan(pi/8) -> pi/4 + atan((a - 1) / (a + 1)). The reduced argument's rounding
// (division remainder, the rounding errors of a - 1 and a + 1) and da are carried in tlo.
inline Split atan_parts(VF a, VF da) {
  VM big = a > 2.41421356f, mid = a > 0.414213562f;
  VF den = a + 1.f;
  VF bb = den - a;
  VF eden = (a - (den - bb)) + (1.f - bb);
  VF num_err;
  VF num = fast_two_sum(splat(-1.f), a, num_err);
  num = select(big, -1.f, num);
  den = select(big, min(splat(0x1p64f), a), den);  // caps infinity
  VF q = num / den;
  VF qlo = (fma(-q, den, num) + select(big, 0.f, num_err - q * eden)) / den;
  VF t = select(mid, q, a);
  VF dt = select(big, q * q, select(mid, 0.5f * (1.f - q) * (1.f - q), splat(1.f)));  // d t / d a
  VF tlo = fma(da, dt, select(mid, qlo, 0.f));
  VF base = select(big, kPio2F, select(mid, splat(kPio4F), 0.f));
  VF blo = select(big, kPio2LoF, select(mid, splat(kPio4LoF), 0.f));
  VF z = t * t;
  VF p = fma(t * z, horner(z, kAtanG), fma(-z, tlo, tlo));
  VF err;
  VF s = fast_two_sum(base, t, err);
  return {s, err + (blo + p)};
}

// erf(x) = x (c0 + z E(z)), z = x^2 <= 0.5625, c0 = 2 / sqrt(pi) in two parts (used below 0.5).
constexpr float kErfE[] = {9.806452e-05f, -0.000841131841f, 0.00522005232f, -0.0268656574f, 0.112837896f, -0.376126379f};
constexpr float kErfC0 = 1.12837923f, kErfC0Lo = -5.86353828e-08f;
// erfc(a) = e^{-a^2} h(a). For a in [0.5, 2]: h(c + t) = H0 + H1 t + t^2 H'(t), c = 0.875 or
// 1.625, |t| <= 0.375 (the leading two terms in two parts). For a in [2, 8.9]: a h(a) = H2 +
// u H2'(u), u = 1 / a^2.
constexpr float kErfcNear[2][8] = {
    {-0.000621812185f, 0.0016677375f, -0.00406622235f, 0.00991319027f, -0.0229259785f, 0.0498288982f, -0.100914389f, 0.187956914f},
    {-5.08895246e-05f, 0.000161043426f, -0.000474448258f, 0.00139313343f, -0.00392620871f, 0.0105615193f, -0.0269779097f, 0.0649620742f}};
constexpr float kErfcNearH0[2][2] = {{0.46431157f, 1.32974876e-08f}, {0.302261204f, 5.83770809e-09f}};
constexpr float kErfcNearH1[2][2] = {{-0.315833896f, -1.00574125e-10f}, {-0.146030232f, -4.3543853e-09f}};
constexpr float kErfcH2[] = {271.568359f, -441.509003f, 328.385651f, -151.064514f, 49.9888344f,
                             -13.5803223f, 3.5363574f,  -1.05178845f, 0.423004717f, -0.282093108f};
constexpr float kErfcH2c = 0.564189553f, kErfcH2cLo = 2.19637215e-08f;
constexpr float kErfcMaxF = 8.9f;  // e^{-a^2} stays normal, and so erfc
inline Split erf_small(VF x) {
  VF z = x * x;
  VF hi = x * kErfC0;
  return {hi, fma(x, splat(kErfC0), -hi) + x * fma(z, horner(z, kErfE), splat(kErfC0Lo))};
}
// erfc(a) = scale (hi + lo) for a in [0.5, kErfcMaxF].
struct ErfcParts {
  VF scale, hi, lo;
};
inline ErfcParts erfc_parts(VF a) {
  VF z = a * a;
  VF kd = fma(z, -kLog2eF, kShiftF);
  VF n = kd - kShiftF;
  ExpParts e = exp_from(kd, fma(n, -kLn2F, -z), fma(n, -kLn2LoF, -fma(a, a, -z)));  // e^{-a^2}
  VM upper = a >= 1.25f;
  auto pick = [&](const float (&c)[2][2], int i) { return select(upper, c[1][i], c[0][i]); };
  VF t = a - select(upper, 1.625f, 0.875f);  // exact
  VF c1 = pick(kErfcNearH1, 0);
  VF m = t * c1;  // t H1 = m + mlo exactly
  VF mlo = fma(t, c1, -m);
  VF h1lo;
  VF h1 = fast_two_sum(pick(kErfcNearH0, 0), m, h1lo);
  VF near_poly = horner2(upper, t, kErfcNear[1], kErfcNear[0]);
  h1lo = h1lo + ((mlo + pick(kErfcNearH0, 1)) + fma(t, pick(kErfcNearH1, 1), t * t * near_poly));
  VF ra = 1.f / a, h2lo;
  VF u = ra * ra;  // the fit is far less sensitive to u's rounding than a float ulp
  VF h2 = fast_two_sum(splat(kErfcH2c), u * horner(u, kErfcH2), h2lo);
  VF q = h2 * ra;  // h = (h2 + h2lo) / a = q + qlo
  VF qlo = (fma(-q, a, h2) + (h2lo + kErfcH2cLo)) * ra;
  VM far = a >= 2.f;
  VF hh = select(far, q, h1), hl = select(far, qlo, h1lo);
  VF ph = e.w * hh;
  return {e.scale, ph, fma(e.w, hl, fma(e.w, hh, -ph)) + e.lo * hh};
}
// c - erfc(a) for c in {1, 2} (erf, and erfc of negative arguments), rounded once.
inline VF minus_erfc(float c, const ErfcParts& p) {
  VF err;
  VF s = fast_two_sum(splat(c), -(p.scale * p.hi), err);
  return s + (err - p.scale * p.lo);
}

// asin(a) for a in [0, 1]: w = a, or w = sqrt((1 - a) / 2) with asin(a) = pi/2 - 2 asin(w);
// asin(w) = w + plo, plo holding sqrt's rounding error (fdlibm's correction).
struct AsinParts {
  VM small;
  VF w, plo;
};
inline AsinParts asin_parts(VF a) {
  VM small = a <= 0.5f;
  VF z = select(small, a * a, (1.f - a) * 0.5f);
  VF w = select(small, a, sqrt(z));
  VF wc = select(small | (w == 0.f), splat(0.f), fma(-w, w, z) / (w + w));
  return {small, w, wc + w * z * horner(z, kAsinG)};
}
// c - 2 (w + plo), c = chi + clo >= 2w.
inline VF minus_twice(float chi, float clo, VF w, VF plo) {
  VF err;
  VF s = fast_two_sum(splat(chi), -(w + w), err);
  return s + (err + (clo - (plo + plo)));
}
inline VF asin_core(VF x) {
  AsinParts p = asin_parts(abs(x));
  VF big = minus_twice(kPio2F, kPio2LoF, p.w, p.plo);
  return copysign(select(p.small, p.w + p.plo, big), x);
}
inline VF acos_core(VF x) {
  AsinParts p = asin_parts(abs(x));
  VF err;
  VF s = fast_two_sum(splat(kPio2F), -x, err);
  VF small = s + (err + (kPio2LoF - copysign(p.plo, x)));  // pi/2 - asin(x)
  VF big = select(x > 0.f, 2.f * (p.w + p.plo), minus_twice(kPiF, kPiLoF, p.w, p.plo));
  return select(p.small, small, big);
}

// core(v, flag) with the lanes it flags replaced by slow(x) (libm).
template <typename Core, typename Slow>
inline VF with_slow_lanes(VF v, Core core, Slow slow) {
  VM flag = none();
  VF r = core(v, flag);
  if (unsigned b = bits(flag)) {
    float xs[kLanes], rs[kLanes];
    store(xs, v);
    store(rs, r);
    for (int j = 0; j < kLanes; ++j)
      if (b >> j & 1) rs[j] = slow(xs[j]);
    r = load(rs);
  }
  return r;
}

// e^v, flagging for libm the lanes near underflow and overflow; NaN stays NaN.
inline VF exp_lanes(VF v, VM& s) {
  VF r = exp_core(v);
  if (bits(!((v >= -80.f) & (v <= kExpMaxF)))) {  // rare: past the fast range, or NaN
    s = exp_slow(v);
    r = select(v < -103.9f, 0.f, select(v > 88.8f, splat(INFINITY), r));
  }
  return r;
}

// Runs core over x in vectors; lanes the core flags get slow(x) (libm) instead. The vector loop
// makes no calls (a call there would evict its constants from registers): it keeps a copy of
// each flagged vector's input (y may alias x) and libm redoes those lanes after every chunk.
// kPairs: two vectors per iteration, which schedules the long trigonometric cores better
// (sin: 10% faster) but not exp's short one (10% slower). The tail is padded with zeros into a
// vector's worth of stack.
template <bool kPairs = false, typename Core, typename Slow>
void run_unary(const float* x, float* y, int64_t n, Core core, Slow slow) {
  constexpr int64_t kChunk = 64;  // vectors
  float saved[kChunk][kLanes];
  int64_t at[kChunk];
  unsigned lanes[kChunk];
  const int64_t full = n - n % kLanes;
  for (int64_t i0 = 0; i0 < full; i0 += kChunk * kLanes) {
    const int64_t end = std::min(full, i0 + kChunk * kLanes);
    int k = 0;
    auto one = [&](int64_t i) {
      VF v = load(x + i);
      VM flag = none();
      store(y + i, core(v, flag));
      if (unsigned b = bits(flag)) [[unlikely]] {
        store(saved[k], v);
        at[k] = i;
        lanes[k++] = b;
      }
    };
    int64_t i = i0;
    if constexpr (kPairs)
      for (; i + 2 * kLanes <= end; i += 2 * kLanes) {
        one(i);
        one(i + kLanes);
      }
    for (; i < end; i += kLanes) one(i);
    for (int j = 0; j < k; ++j)
      for (int l = 0; l < kLanes; ++l)
        if (lanes[j] >> l & 1) y[at[j] + l] = slow(saved[j][l]);
  }
  if (full < n) {
    float in[kLanes] = {}, out[kLanes];
    std::memcpy(in, x + full, static_cast<size_t>(n - full) * sizeof(float));
    store(out, with_slow_lanes(load(in), core, slow));
    std::memcpy(y + full, out, static_cast<size_t>(n - full) * sizeof(float));
  }
}
template <typename Core, typename Slow>
void run_binary(const float* a, const float* b, float* y, int64_t n, Core core, Slow slow) {
  auto block = [&](const float* ina, const float* inb, float* out) {
    VF u = load(ina), v = load(inb);
    VM flag = none();
    VF r = core(u, v, flag);
    if (unsigned m = bits(flag)) {
      float us[kLanes], vs[kLanes], rs[kLanes];
      store(us, u);
      store(vs, v);
      store(rs, r);
      for (int j = 0; j < kLanes; ++j)
        if (m >> j & 1) rs[j] = slow(us[j], vs[j]);
      r = load(rs);
    }
    store(out, r);
  };
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) block(a + i, b + i, y + i);
  if (i < n) {
    float ina[kLanes] = {}, inb[kLanes] = {}, out[kLanes];
    std::memcpy(ina, a + i, static_cast<size_t>(n - i) * sizeof(float));
    std::memcpy(inb, b + i, static_cast<size_t>(n - i) * sizeof(float));
    block(ina, inb, out);
    std::memcpy(y + i, out, static_cast<size_t>(n - i) * sizeof(float));
  }
}

}  // namespace f32

void unary_f32(Unary f, const float* x, float* y, int64_t n) {
  using namespace f32;
  switch (f) {
    case Unary::Exp:
      run_unary(x, y, n, [](VF v, VM& s) { return exp_lanes(v, s); }, TL_VM_LIBM_F(exp));
      return;
    case Unary::Exp2:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = ((v >= -150.f) & (v < -115.f)) | ((v > 127.f) & (v < 128.f));
        ExpParts e = exp2_parts(v);
        VF r = fma(e.scale, e.w, e.scale * e.lo);
        return select(v < -150.f, 0.f, select(v >= 128.f, splat(INFINITY), r));
      }, TL_VM_LIBM_F(exp2));
      return;
    case Unary::Expm1:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = (v > 87.3f) & (v <= 88.8f);
        VF r = select(v < -80.f, -1.f, expm1_core(v));
        return keep_zero(v, select(v > 88.8f, splat(INFINITY), r));
      }, TL_VM_LIBM_F(expm1));
      return;
    case Unary::Sinh:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = (abs(v) > kExpMaxF) & (abs(v) <= kHypMaxF);
        return sinh_core(v);
      }, TL_VM_LIBM_F(sinh));
      return;
    case Unary::Cosh:
      run_unary(x, y, n, [](VF v, VM& s) {
        VF a = abs(v);
        s = (a > kExpMaxF) & (a <= kHypMaxF);
        return select(a > kHypMaxF, splat(INFINITY), half_exp_pm_inv(exp_parts(a), 1.f));
      }, TL_VM_LIBM_F(cosh));
      return;
    case Unary::Log:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = log_slow(v);
        return log_finish(log_parts(v), kLn2Hi16, kLn2Lo16, 1.f, 0.f);
      }, TL_VM_LIBM_F(log));
      return;
    case Unary::Log2:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = log_slow(v);
        return log_finish(log_parts(v), 1.f, 0.f, kLog2eF, kLog2eLoF);
      }, TL_VM_LIBM_F(log2));
      return;
    case Unary::Log10:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = log_slow(v);
        return log_finish(log_parts(v), kLog10_2Hi16, kLog10_2Lo16, kLog10eF, kLog10eLoF);
      }, TL_VM_LIBM_F(log10));
      return;
    case Unary::Log1p:
      // log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded (as for double).
      run_unary(x, y, n, [](VF v, VM& s) {
        s = !((v > -1.f) & (v <= 0x1.fffffep127f));
        VF u = 1.f + v;
        f32::LogParts p = log_parts(u);
        p.lo = p.lo + (v - (u - 1.f)) / u;
        return keep_zero(v, log_finish(p, kLn2Hi16, kLn2Lo16, 1.f, 0.f));
      }, TL_VM_LIBM_F(log1p));
      return;
    case Unary::Sin:
      run_unary<true>(x, y, n, [](VF v, VM& s) { return sin_core(v, s); }, TL_VM_LIBM_F(sin));
      return;
    case Unary::Cos:
      run_unary<true>(x, y, n, [](VF v, VM& s) { return cos_core(v, s); }, TL_VM_LIBM_F(cos));
      return;
    case Unary::Tan:
      run_unary<true>(x, y, n, [](VF v, VM& s) { return tan_core(v, s); }, TL_VM_LIBM_F(tan));
      return;
    case Unary::Tanh:
      run_unary<true>(x, y, n, [](VF v, VM&) { return tanh_core(v); }, TL_VM_LIBM_F(tanh));
      return;
    case Unary::Sigmoid:
      // PyTorch's formula 1 / (1 + e^-x), and so its saturation: 0 below x = -88.72, where
      // e^-x overflows. Below x = -87.3 (e^-x past exp_core's range) it is computed by libm.
      run_unary(x, y, n, [](VF v, VM& s) {
        VF t = max(splat(-80.f), -v);  // the result rounds to 1 long before; NaN is kept
        s = t > kExpMaxF;
        return 1.f / (1.f + exp_core(t));
      }, [](float v) { return 1.f / (1.f + std::exp(-v)); });
      return;
    case Unary::Atan:
      run_unary(x, y, n, [](VF v, VM&) {
        Split p = atan_parts(abs(v), splat(0.f));
        return copysign(p.hi + p.lo, v);
      }, TL_VM_LIBM_F(atan));
      return;
    case Unary::Asin:
      run_unary(x, y, n, [](VF v, VM&) { return asin_core(v); }, TL_VM_LIBM_F(asin));
      return;
    case Unary::Acos:
      run_unary(x, y, n, [](VF v, VM&) { return acos_core(v); }, TL_VM_LIBM_F(acos));
      return;
    case Unary::Erf:
      run_unary(x, y, n, [](VF v, VM& s) {
        s = !(v == v);
        VF a = abs(v);
        Split lo = erf_small(v);
        VF big = copysign(minus_erfc(1.f, erfc_parts(min(splat(kErfcMaxF), a))), v);  // erf(8.9) rounds to 1
        return keep_zero(v, select(a < 0.5f, lo.hi + lo.lo, big));
      }, TL_VM_LIBM_F(erf));
      return;
    case Unary::Erfc:
      run_unary(x, y, n, [](VF v, VM& s) {
        VF a = abs(v);
        s = (!(v == v)) | ((v > kErfcMaxF) & (v <= 10.5f));
        Split lo = erf_small(v);
        VF err;
        VF small = fast_two_sum(splat(1.f), -lo.hi, err);
        small = small + (err - lo.lo);
        ErfcParts p = erfc_parts(min(splat(kErfcMaxF), a));
        VF big = select(v > 0.f, fma(p.scale, p.hi, p.scale * p.lo), minus_erfc(2.f, p));
        return select(a < 0.5f, small, select(v > 10.5f, 0.f, big));  // erfc(10.5) rounds to 0
      }, TL_VM_LIBM_F(erfc));
      return;
    // Computed in double.
    case Unary::Mish:
      return run_mish(x, y, n);
  }
}

void binary_f32(Binary f, const float* a, const float* b, float* y, int64_t n) {
  using namespace f32;
  switch (f) {
    case Binary::Atan2:
      run_binary(a, b, y, n, [](VF u, VF v, VM& s) {
        VF au = abs(u), av = abs(v);
        VF t = au / av;
        s = !((t > 1e-30f) & (t < 1e30f));  // zeros, infinities, NaN
        Split p = atan_parts(t, fma(-t, av, au) / av);  // the quotient's rounding error
        VF err;
        VF pi_minus = fast_two_sum(splat(kPiF), -p.hi, err);
        VF r = select(v < 0.f, pi_minus + (err + (kPiLoF - p.lo)), p.hi + p.lo);
        return copysign(r, u);
      }, [](float u, float v) { return static_cast<float>(std::atan2(static_cast<double>(u), static_cast<double>(v))); });
      return;
    case Binary::Pow:
      // 2^(y log2 x) with y log2 x in two parts; x <= 0, subnormal or non-finite x, non-finite
      // y, and results near the ends of the normal range go to libm.
      run_binary(a, b, y, n, [](VF u, VF v, VM& s) {
        Split l = log2_ext(u);
        VF th = v * l.hi;
        VF tl = fma(v, l.hi, -th) + v * l.lo;
        s = log_slow(u) | !(abs(v) <= 0x1.fffffep127f) | !((th >= -115.f) & (th < 127.f));
        VF kd = th + kShiftF;
        VF f = th - (kd - kShiftF);  // exact
        VF r = f * kLn2F;
        ExpParts e = exp_from(kd, r, fma(f, splat(kLn2F), -r) + fma(f, splat(kLn2LoF), tl * kLn2F));
        return fma(e.scale, e.w, e.scale * e.lo);
      }, [](float u, float v) { return static_cast<float>(std::pow(static_cast<double>(u), static_cast<double>(v))); });
      return;
  }
}

void softmax_row_f32(const float* x, float* y, int64_t n, bool log) {
  using namespace f32;
  auto exp_v = [](VF v) { return with_slow_lanes(v, exp_lanes, TL_VM_LIBM_F(exp)); };
  int64_t i = 0;
  VF vm = splat(-INFINITY);
  for (; i + kLanes <= n; i += kLanes) {
    VF v = load(x + i);
    vm = select(v > vm, v, vm);  // NaN is skipped: it makes its own e^(x - m), and the sum, NaN
  }
  float lanes[kLanes];
  store(lanes, vm);
  float m = -INFINITY;
  for (float l : lanes) m = l > m ? l : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  // e^(x - m), stored for softmax, and summed; the tail is padded with -inf (e^-inf = 0).
  VF shift = splat(m), vsum = splat(0.f);
  for (i = 0; i + kLanes <= n; i += kLanes) {
    VF e = exp_v(load(x + i) - shift);
    if (!log) store(y + i, e);
    vsum = vsum + e;
  }
  if (i < n) {
    float in[kLanes], out[kLanes];
    std::fill(in, in + kLanes, -INFINITY);
    std::memcpy(in, x + i, static_cast<size_t>(n - i) * sizeof(float));
    VF e = exp_v(load(in) - shift);
    store(out, e);
    if (!log) std::memcpy(y + i, out, static_cast<size_t>(n - i) * sizeof(float));
    vsum = vsum + e;
  }
  store(lanes, vsum);
  float sum = 0.f;
  for (float l : lanes) sum += l;
  if (log) {
    // (x - m) - log(sum): exact near the maximum, where x - (m + log(sum)) would cancel. A row of
    // -inf gives NaN, as in PyTorch.
    const float log_sum = std::log(sum);
    for (i = 0; i < n; ++i) y[i] = (x[i] - m) - log_sum;
  } else {
    const float inv = 1.f / sum;
    for (i = 0; i < n; ++i) y[i] *= inv;
  }
}

void unary_f64(Unary f, const double* x, double* y, int64_t n) {
  switch (f) {
    case Unary::Exp:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 708.0);
        return exp_core(v);
      }, TL_VM_LIBM(exp));
    case Unary::Exp2:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 1020.0);
        double kd = v + kShift;
        u64 ki = std::bit_cast<u64>(kd);
        double r = v - (kd - kShift);  // exact
        static constexpr auto c = taylor<14>(0, 1, 1);
        return horner(r * kLn2, c) * std::bit_cast<double>((ki + 1023) << 52);
      }, TL_VM_LIBM(exp2));
    case Unary::Expm1:
      // expm1(x) = 2^n (e^r - 1) + (2^n - 1); e^r - 1 = r + r^2 P(r) keeps r's accuracy.
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 700.0);
        static constexpr auto c = taylor<12>(2, 1, 1);
        double kd = v * kLog2e + kShift;
        u64 ki = std::bit_cast<u64>(kd);
        double k = kd - kShift;
        double r = (v - k * kLn2Hi) - k * kLn2Lo;
        double em1 = r + r * r * horner(r, c);
        double scale = std::bit_cast<double>((ki + 1023) << 52);
        return keep_zero(v, scale * em1 + (scale - 1.0));
      }, TL_VM_LIBM(expm1));
    case Unary::Log:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !log_domain(v);
        return log_core(v);
      }, TL_VM_LIBM(log));
    case Unary::Log2:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !log_domain(v);
        LogParts p = log_parts(v);
        return p.k + (p.f - (p.hfsq - p.tail)) * kLog2e;
      }, TL_VM_LIBM(log2));
    case Unary::Log10:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !log_domain(v);
        LogParts p = log_parts(v);
        return p.k * kLog10_2Hi + ((p.f - (p.hfsq - p.tail)) * kLog10e + p.k * kLog10_2Lo);
      }, TL_VM_LIBM(log10));
    case Unary::Log1p:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !(v > -1.0 && v < 1e300);
        return log1p_core(v);
      }, TL_VM_LIBM(log1p));
    case Unary::Sin:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        bool near;
        SinCos t = sincos_core(v, near);
        s = !(std::fabs(v) <= kTrigMax) | near;
        double r = (t.q & 1) ? t.c : t.s;
        return keep_zero(v, (t.q & 2) ? -r : r);
      }, TL_VM_LIBM(sin));
    case Unary::Cos:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        bool near;
        SinCos t = sincos_core(v, near);
        s = !(std::fabs(v) <= kTrigMax) | near;
        double r = (t.q & 1) ? t.s : t.c;
        return ((t.q + 1) & 2) ? -r : r;
      }, TL_VM_LIBM(cos));
    case Unary::Tan:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        bool near;
        auto [r, lo, q] = reduce_pio2(v, near);
        s = !(std::fabs(v) <= kTrigMax) | near;
        double t = r + r * (r * r) * horner(r * r, kTanG);
        t = t + lo * (1.0 + t * t);
        return keep_zero(v, (q & 1) ? -1.0 / t : t);  // tan(r + pi/2) = -1 / tan(r)
      }, TL_VM_LIBM(tan));
    case Unary::Tanh:
      return run_unary_in_double(x, y, n, [](double v, bool&) { return tanh_core(v); }, TL_VM_LIBM(tanh));
    case Unary::Sigmoid:  // not vectorised for double (VecMath.h)
      for (int64_t i = 0; i < n; ++i) y[i] = 1.0 / (1.0 + std::exp(-x[i]));
      return;
    case Unary::Erf:  // not vectorised for double (VecMath.h)
      for (int64_t i = 0; i < n; ++i) y[i] = std::erf(x[i]);
      return;
    case Unary::Erfc:
      for (int64_t i = 0; i < n; ++i) y[i] = std::erfc(x[i]);
      return;
    case Unary::Atan:
      return run_unary_in_double(x, y, n, [](double v, bool&) { return atan_core(v); }, TL_VM_LIBM(atan));
    case Unary::Asin:
      return run_unary_in_double(x, y, n, [](double v, bool&) { return asin_core(v); }, TL_VM_LIBM(asin));
    case Unary::Acos:
      return run_unary_in_double(x, y, n, [](double v, bool&) { return acos_core(v); }, TL_VM_LIBM(acos));
    case Unary::Sinh:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 708.0);
        static constexpr auto c = taylor<8>(3, 2, 1);
        double a = std::fabs(v), z = v * v;
        double e = exp_core(a);
        double big = std::copysign(0.5 * e - 0.5 / e, v);
        return keep_zero(v, a < 1.0 ? v + v * z * horner(z, c) : big);
      }, TL_VM_LIBM(sinh));
    case Unary::Cosh:
      return run_unary_in_double(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 708.0);
        double e = exp_core(std::fabs(v));
        return 0.5 * e + 0.5 / e;
      }, TL_VM_LIBM(cosh));
    case Unary::Mish:
      return run_mish(x, y, n);
  }
}

void binary_f64(Binary f, const double* a, const double* b, double* y, int64_t n) {
  switch (f) {
    case Binary::Atan2:
      return run_binary_in_double(a, b, y, n, [](double u, double v, bool& s) {
        double au = std::fabs(u), av = std::fabs(v);
        double t = au / av;
        s = !(t > 1e-300 && t < 1e300);  // zeros, infinities, NaN
        double r = atan_core(t, std::fma(-t, av, au) / av);  // the quotient's rounding error
        return std::copysign(v < 0 ? kPiHi - (r - kPiLo) : r, u);
      }, [](double u, double v) { return std::atan2(u, v); });
    case Binary::Pow:  // not vectorised for double (VecMath.h)
      for (int64_t i = 0; i < n; ++i) y[i] = std::pow(a[i], b[i]);
      return;
  }
}

}  // namespace

template <typename T>
void unary(Unary f, const T* x, T* y, int64_t n) {
  if constexpr (sizeof(T) == 4) unary_f32(f, x, y, n);
  else unary_f64(f, x, y, n);
}
template <typename T>
void binary(Binary f, const T* a, const T* b, T* y, int64_t n) {
  if constexpr (sizeof(T) == 4) binary_f32(f, a, b, y, n);
  else binary_f64(f, a, b, y, n);
}

void softmax_row(const float* x, float* y, int64_t n, bool log) { softmax_row_f32(x, y, n, log); }

template void unary<float>(Unary, const float*, float*, int64_t);
template void unary<double>(Unary, const double*, double*, int64_t);
template void binary<float>(Binary, const float*, const float*, float*, int64_t);
template void binary<double>(Binary, const double*, const double*, double*, int64_t);

}  // namespace tl::native::vecmath::CPU_CAPABILITY
