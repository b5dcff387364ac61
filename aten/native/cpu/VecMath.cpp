// The vector math layer (Note [Vector math]). Every core works in double, takes a flag it
// sets for lanes it does not cover (those get libm in a scalar pass), and is written with
// selects only, so `#pragma omp simd` vectorises it. F32 = true picks polynomials of float
// accuracy (relative error below 1e-10) for float inputs.
#include "aten/native/cpu/VecMath.h"

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
// Float erf and erfc: erf(x) = x P(x^2) for |x| < 0.75 (5.7e-15); erfc(x) = e^{-x^2} h(x) with
// h(x) = Q1(x) on [0.75, 2] (2.2e-10), Q2(1/x^2) / x on [2, 4] (1.7e-10), Q3(1/x^2) / x on [4, 10.1] (3.1e-11).
constexpr std::array<double, 9> kErfSmall = {
    1.2824644750883275e-06, -1.4558754662882209e-05, 0.00012034918346604412, -0.0008547658830825731,
    0.0052239647170253785,  -0.026866169240359568,   0.1128379166328238,     -0.37612638903022166,
    1.128379167095507};
constexpr std::array<double, 11> kErfcQ1 = {
    3.87484914122684e-05, -0.0006535320577290885, 0.005112955375621545, -0.02477630118903132,
    0.08400520205531126,  -0.21413896346679084,   0.43166083110490633,  -0.7134926702000186,
    0.9851192238351715,   -1.1249274035276906,    0.9996354857884967};
constexpr std::array<double, 9> kErfcQ2 = {
    11.770464987241867, -19.347380811378628, 14.83091718839177,   -7.296864889208118, 2.7757762329890405,
    -0.9902841463776174, 0.41982774543897566, -0.28199851199560355, 0.564188343056826};
constexpr std::array<double, 7> kErfcQ3 = {
    24.660770423681587, -11.643842613788182, 3.4686067627081316, -1.0512423511734852,
    0.42303355193561637, -0.2820938533987503, 0.564189580301673};

inline double keep_zero(double x, double r) { return x == 0 ? x : r; }  // f(+-0) = +-0

// e^x for |x| <= 708, so that 2^n is normal: x = n ln2 + r, |r| <= ln2/2, e^r by Taylor.
template <bool F32>
inline double exp_core(double x) {
  static constexpr auto c = taylor<F32 ? 10 : 14>(0, 1, 1);
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
template <bool F32>
inline LogParts log_parts(double x) {
  static constexpr auto c = atanh_series<F32 ? 6 : 10>();
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
template <bool F32>
inline double log_core(double x) {
  LogParts p = log_parts<F32>(x);
  return p.k * kLn2Hi + (p.f - (p.hfsq - (p.tail + p.k * kLn2Lo)));
}
inline bool log_domain(double x) { return x >= 0x1p-1022 && x <= 0x1.fffffffffffffp1023; }

// log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the second term restores
// what the rounding of u lost.
template <bool F32>
inline double log1p_core(double x) {
  double u = 1.0 + x;
  return keep_zero(x, log_core<F32>(u) + (x - (u - 1.0)) / u);
}

// a - b = s + err exactly (Knuth's TwoSum).
inline double two_diff(double a, double b, double& err) {
  double s = a - b, bb = s - a;
  err = (a - (s - bb)) - (b + bb);
  return s;
}
// x = n pi/2 + r + lo for |x| <= 4e5: |r| <= pi/4, lo holds the two subtractions' rounding
// errors (carried to first order), q = n mod 4.
struct Reduced {
  double r, lo;
  u64 q;
};
inline Reduced reduce_pio2(double x) {
  double kd = x * kTwoOverPi + kShift;
  double n = kd - kShift;
  double e1, e2;
  double b = two_diff(x - n * kPio2_1, n * kPio2_2, e1);  // x - n * part 1 and n * part 2 are exact
  double r = two_diff(b, n * kPio2_3, e2);
  return {r, e1 + e2, std::bit_cast<u64>(kd)};
}
struct SinCos {
  double s, c;
  u64 q;
};
template <bool F32>
inline SinCos sincos_core(double x) {
  static constexpr auto cs = taylor<F32 ? 5 : 8>(3, 2, -1);  // 1/3! - z/5! + ...
  static constexpr auto cc = taylor<F32 ? 5 : 8>(4, 2, -1);  // 1/4! - z/6! + ...
  auto [r, lo, q] = reduce_pio2(x);
  double z = r * r;
  return {r + (lo - r * z * horner(z, cs)), 1.0 - 0.5 * z + (z * z * horner(z, cc) - r * lo), q};
}
constexpr double kTrigMax = 4e5;

template <bool F32>
inline double tanh_core(double x) {
  double a = std::fabs(x), z = x * x;
  double small = x + x * z * horner(z, kTanhG);
  double e = exp_core<F32>(std::min(2.0 * a, 44.0));
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

// Float erf / erfc (Note above kErfSmall); exact x^2 since x came from a float.
struct ErfParts {
  double small_erf, erfc_abs;  // erf(x) for |x| < 0.75; erfc(|x|) for |x| >= 0.75
};
inline ErfParts erf_parts(double x) {
  double a = std::min(std::fabs(x), 10.1);
  double u = 1.0 / (a * a);
  double h = a < 2.0 ? horner(a, kErfcQ1) : (a < 4.0 ? horner(u, kErfcQ2) : horner(u, kErfcQ3)) / a;
  return {x * horner(x * x, kErfSmall), exp_core<true>(-a * a) * h};
}

// Scalar libm for the lanes a core flags.
#define TL_VM_LIBM(fn) [](auto v) { return std::fn(v); }

// Blocks of the input are copied first so that y may alias x: the scalar pass re-reads them.
constexpr int64_t kBlock = 256;

template <typename T, typename Core, typename Slow>
void run_unary(const T* x, T* y, int64_t n, Core core, Slow slow) {
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

template <typename T, typename Core, typename Slow>
void run_binary(const T* a, const T* b, T* y, int64_t n, Core core, Slow slow) {
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

}  // namespace

template <typename T>
void unary(Unary f, const T* x, T* y, int64_t n) {
  constexpr bool F32 = sizeof(T) == 4;
  switch (f) {
    case Unary::Exp:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 708.0);
        return exp_core<F32>(v);
      }, TL_VM_LIBM(exp));
    case Unary::Exp2:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 1020.0);
        double kd = v + kShift;
        u64 ki = std::bit_cast<u64>(kd);
        double r = v - (kd - kShift);  // exact
        static constexpr auto c = taylor<F32 ? 10 : 14>(0, 1, 1);
        return horner(r * kLn2, c) * std::bit_cast<double>((ki + 1023) << 52);
      }, TL_VM_LIBM(exp2));
    case Unary::Expm1:
      // expm1(x) = 2^n (e^r - 1) + (2^n - 1); e^r - 1 = r + r^2 P(r) keeps r's accuracy.
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 700.0);
        static constexpr auto c = taylor<F32 ? 8 : 12>(2, 1, 1);
        double kd = v * kLog2e + kShift;
        u64 ki = std::bit_cast<u64>(kd);
        double k = kd - kShift;
        double r = (v - k * kLn2Hi) - k * kLn2Lo;
        double em1 = r + r * r * horner(r, c);
        double scale = std::bit_cast<double>((ki + 1023) << 52);
        return keep_zero(v, scale * em1 + (scale - 1.0));
      }, TL_VM_LIBM(expm1));
    case Unary::Log:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !log_domain(v);
        return log_core<F32>(v);
      }, TL_VM_LIBM(log));
    case Unary::Log2:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !log_domain(v);
        LogParts p = log_parts<F32>(v);
        return p.k + (p.f - (p.hfsq - p.tail)) * kLog2e;
      }, TL_VM_LIBM(log2));
    case Unary::Log10:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !log_domain(v);
        LogParts p = log_parts<F32>(v);
        return p.k * kLog10_2Hi + ((p.f - (p.hfsq - p.tail)) * kLog10e + p.k * kLog10_2Lo);
      }, TL_VM_LIBM(log10));
    case Unary::Log1p:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(v > -1.0 && v < 1e300);
        return log1p_core<F32>(v);
      }, TL_VM_LIBM(log1p));
    case Unary::Sin:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= kTrigMax);
        SinCos t = sincos_core<F32>(v);
        double r = (t.q & 1) ? t.c : t.s;
        return keep_zero(v, (t.q & 2) ? -r : r);
      }, TL_VM_LIBM(sin));
    case Unary::Cos:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= kTrigMax);
        SinCos t = sincos_core<F32>(v);
        double r = (t.q & 1) ? t.s : t.c;
        return ((t.q + 1) & 2) ? -r : r;
      }, TL_VM_LIBM(cos));
    case Unary::Tan:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= kTrigMax);
        auto [r, lo, q] = reduce_pio2(v);
        double t = r + r * (r * r) * horner(r * r, kTanG);
        t = t + lo * (1.0 + t * t);
        return keep_zero(v, (q & 1) ? -1.0 / t : t);  // tan(r + pi/2) = -1 / tan(r)
      }, TL_VM_LIBM(tan));
    case Unary::Tanh:
      return run_unary(x, y, n, [](double v, bool&) { return tanh_core<F32>(v); }, TL_VM_LIBM(tanh));
    case Unary::Erf:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !F32 || v != v;  // double erf is not vectorised (VecMath.h): libm
        ErfParts p = erf_parts(v);
        return std::fabs(v) < 0.75 ? p.small_erf : std::copysign(1.0 - p.erfc_abs, v);
      }, TL_VM_LIBM(erf));
    case Unary::Erfc:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !F32 || v != v;
        ErfParts p = erf_parts(v);
        double big = v > 10.1 ? 0.0 : (v > 0 ? p.erfc_abs : 2.0 - p.erfc_abs);
        return std::fabs(v) < 0.75 ? 1.0 - p.small_erf : big;
      }, TL_VM_LIBM(erfc));
    case Unary::Atan:
      return run_unary(x, y, n, [](double v, bool&) { return atan_core(v); }, TL_VM_LIBM(atan));
    case Unary::Asin:
      return run_unary(x, y, n, [](double v, bool&) { return asin_core(v); }, TL_VM_LIBM(asin));
    case Unary::Acos:
      return run_unary(x, y, n, [](double v, bool&) { return acos_core(v); }, TL_VM_LIBM(acos));
    case Unary::Sinh:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 708.0);
        static constexpr auto c = taylor<F32 ? 5 : 8>(3, 2, 1);
        double a = std::fabs(v), z = v * v;
        double e = exp_core<F32>(a);
        double big = std::copysign(0.5 * e - 0.5 / e, v);
        return keep_zero(v, a < 1.0 ? v + v * z * horner(z, c) : big);
      }, TL_VM_LIBM(sinh));
    case Unary::Cosh:
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(std::fabs(v) <= 708.0);
        double e = exp_core<F32>(std::fabs(v));
        return 0.5 * e + 0.5 / e;
      }, TL_VM_LIBM(cosh));
    case Unary::Mish:
      // x tanh(log(1 + e)) with e = e^x is x m / (m + 2), m = e (e + 2): no log1p or tanh to
      // compound errors; the ratio is 1 in double above x = 40. Below -700 it is x e^x to double
      // precision, taken as x (e^(x/2))^2 so that subnormal results round once. NaN and -inf
      // give NaN as x * tanh(0) does.
      return run_unary(x, y, n, [](double v, bool& s) {
        s = !(v >= -700.0);
        double e = exp_core<F32>(std::min(v, 40.0));
        double m = e * (e + 2.0);
        return v * (m / (m + 2.0));
      }, [](T v) {
        T h = std::exp(v / 2);
        return v * h * h;
      });
  }
}

template <typename T>
void binary(Binary f, const T* a, const T* b, T* y, int64_t n) {
  constexpr bool F32 = sizeof(T) == 4;
  switch (f) {
    case Binary::Atan2:
      return run_binary(a, b, y, n, [](double u, double v, bool& s) {
        double au = std::fabs(u), av = std::fabs(v);
        double t = au / av;
        s = !(t > 1e-300 && t < 1e300);  // zeros, infinities, NaN
        double r = atan_core(t, std::fma(-t, av, au) / av);  // the quotient's rounding error
        return std::copysign(v < 0 ? kPiHi - (r - kPiLo) : r, u);
      }, [](T u, T v) { return std::atan2(u, v); });
    case Binary::Pow:
      // Float only (double pow is libm): exp(y log x) in double is far below a float ulp
      // off; signs, zeros, infinities, NaN and overflow go to libm.
      return run_binary(a, b, y, n, [](double u, double v, bool& s) {
        double t = v * log_core<false>(u);
        s = !F32 || !(u > 0.0 && u <= 0x1.fffffffffffffp1023 && std::fabs(v) <= 0x1.fffffffffffffp1023 && std::fabs(t) <= 700.0);
        return exp_core<false>(t);
      }, [](T u, T v) { return std::pow(u, v); });
  }
}

template void unary<float>(Unary, const float*, float*, int64_t);
template void unary<double>(Unary, const double*, double*, int64_t);
template void binary<float>(Binary, const float*, const float*, float*, int64_t);
template void binary<double>(Binary, const double*, const double*, double*, int64_t);

}  // namespace tl::native::vecmath::CPU_CAPABILITY
