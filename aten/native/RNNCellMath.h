#pragma once
// The per-unit math of the fused RNN cells (Note [Fused RNN kernels], native_functions.yaml),
// shared by the CPU row loops (RNN.cpp) and the CUDA kernels (cuda/RNNKernel.cu). Each function
// computes hidden unit j of one batch row: row pointers in, row pointers out. Gate blocks are
// laid out [gate 0 | gate 1 | ...], H wide each. A null gradient or bias pointer reads as zero.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "aten/core/Macros.h"
#include "aten/native/ElementwiseFunctors.h"

// The unit functions must inline into the CPU's element loops before GCC's vectoriser sees them
// (it leaves them out of line otherwise, and the loops scalar).
#if defined(__CUDACC__) || !defined(__GNUC__)
#define TL_RNN_UNIT_INLINE inline
#else
#define TL_RNN_UNIT_INLINE inline __attribute__((always_inline))
#endif

namespace tl::native::rnn {

// Note [Gate exp]: e^x for the host's float gate math, x clamped to [-87, 88]: there 2^n is a
// normal float built from exponent bits in one step, so ew::exp's handling of overflow, underflow
// and subnormal results is not needed (without it the gate pass of an LSTM layer of seq 50 x
// batch 32 x hidden 256 took 2.4 ms of one core, 2.9 ms with it); beyond, every gate has
// saturated (1 / (1 + e^-x) is 1 or below 1e-38 either way). x = n ln2 + r with |r| <= ln2/2, e^r by its
// degree-6 Taylor polynomial: relative error below 2.3e-7 (2 ulp) over the range. NaN propagates.
inline float gate_exp(float x) {
  float xc = x > 88.f ? 88.f : x;
  xc = xc < -87.f ? -87.f : xc;
  const float n = (xc * 1.44269504f + 12582912.f) - 12582912.f;  // round to nearest
  const float r = (xc - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.f / 720.f;
  p = p * r + 1.f / 120.f;
  p = p * r + 1.f / 24.f;
  p = p * r + 1.f / 6.f;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  // n is in [-126, 127]; a NaN x converts 0 instead (float-to-int of NaN is undefined) and p is NaN.
  const int32_t bits = (static_cast<int32_t>(n == n ? n : 0.f) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(float));
  return p * scale;
}

// The gates' sigmoid: 1 / (1 + e^-x), with gate_exp for float on the host (Note [Gate exp]).
TL_HOST_DEVICE inline float sigmoid(float x) {
#ifdef __CUDA_ARCH__
  return ew::sigmoid(x);
#else
  return 1.f / (1.f + gate_exp(-x));
#endif
}
TL_HOST_DEVICE inline double sigmoid(double x) { return ew::sigmoid(x); }

// float tanh without a library call on the host, so the CPU gate loops vectorise: (1 - e) / (1 + e)
// with e = exp(-2|x|), and below |x| = 1/4 (where 1 - e would cancel) its Taylor series to x^11
// (relative error < 1e-9 there). About 2 ulp. Doubles, and the device, use the library's tanh.
TL_HOST_DEVICE inline float tanh(float x) {
#ifdef __CUDA_ARCH__
  return ::tanhf(x);
#else
  const float a = std::fabs(x), x2 = x * x;
  const float e = gate_exp(-2.f * a);
  float big = (1.f - e) / (1.f + e);
  big = x < 0 ? -big : big;
  float p = -1382.f / 155925.f;
  p = p * x2 + 62.f / 2835.f;
  p = p * x2 - 17.f / 315.f;
  p = p * x2 + 2.f / 15.f;
  p = p * x2 - 1.f / 3.f;
  const float small = x + x * x2 * p;
  return a < 0.25f ? small : big;
#endif
}
TL_HOST_DEVICE inline double tanh(double x) { return std::tanh(x); }

// LSTM: pre-activations a = ig + hg (+ biases); c = f c0 + i g, h = o tanh(c); w gets the
// activated gates i, f, g, o (4H).
template <typename T>
TL_HOST_DEVICE TL_RNN_UNIT_INLINE void lstm_cell_unit(int64_t H, int64_t j, const T* ig, const T* hg, const T* bi, const T* bh,
                                          const T* c0, T* h, T* c, T* w) {
  // Gate by gate, not a loop over an array of four: gcc vectorised that little loop (four
  // scattered loads into one vector) and left the CPU's loop over j scalar, 5x slower.
  const auto pre = [&](int64_t q) { return ig[q] + hg[q] + (bi ? bi[q] : T(0)) + (bh ? bh[q] : T(0)); };
  const T i = sigmoid(pre(j)), f = sigmoid(pre(H + j)), g = tanh(pre(2 * H + j));
  const T o = sigmoid(pre(3 * H + j));
  const T ct = f * c0[j] + i * g;
  c[j] = ct;
  h[j] = o * tanh(ct);
  w[j] = i;
  w[H + j] = f;
  w[2 * H + j] = g;
  w[3 * H + j] = o;
}

// LSTM backward from dh (the gradient of h) and dc (of c, from later steps): the pre-activation
// gradients (4H) into dg and the gradient of c0 into dc0 (which may be dc itself: read first).
template <typename T>
TL_HOST_DEVICE TL_RNN_UNIT_INLINE void lstm_cell_backward_unit(int64_t H, int64_t j, const T* dh, const T* dc, const T* c0,
                                                   const T* c1, const T* w, T* dg, T* dc0) {
  const T i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j];
  const T tc = tanh(c1[j]);
  const T gh = dh ? dh[j] : T(0);
  const T dct = (dc ? dc[j] : T(0)) + gh * o * (T(1) - tc * tc);
  dg[j] = dct * g * i * (T(1) - i);
  dg[H + j] = dct * c0[j] * f * (T(1) - f);
  dg[2 * H + j] = dct * i * (T(1) - g * g);
  dg[3 * H + j] = gh * tc * o * (T(1) - o);
  dc0[j] = dct * f;
}

// GRU: r = s(ig_r + hg_r), z = s(ig_z + hg_z), n = tanh(ig_n + r hn) with hn = hg_n + b_hn,
// h = n + z (h0 - n); w gets r, z, n, h0, hn (5H).
template <typename T>
TL_HOST_DEVICE TL_RNN_UNIT_INLINE void gru_cell_unit(int64_t H, int64_t j, const T* ig, const T* hg, const T* bi, const T* bh,
                                         const T* h0, T* h, T* w) {
  // Gate by gate, as in lstm_cell_unit, so that the CPU's loop over j vectorises.
  const auto in = [&](int64_t q) { return ig[q] + (bi ? bi[q] : T(0)); };
  const auto hid = [&](int64_t q) { return hg[q] + (bh ? bh[q] : T(0)); };
  const T hn_pre = hid(2 * H + j);
  const T r = sigmoid(in(j) + hid(j)), z = sigmoid(in(H + j) + hid(H + j));
  const T n = tanh(in(2 * H + j) + r * hn_pre);
  const T hp = h0[j];
  h[j] = n + z * (hp - n);
  w[j] = r;
  w[H + j] = z;
  w[2 * H + j] = n;
  w[3 * H + j] = hp;
  w[4 * H + j] = hn_pre;
}

// GRU backward from dh: the input-gate (dgi) and hidden-gate (dgh) pre-activation gradients (3H
// each; they differ in n) and the direct part of the h0 gradient, z dh, into dh0 (may be dh).
template <typename T>
TL_HOST_DEVICE TL_RNN_UNIT_INLINE void gru_cell_backward_unit(int64_t H, int64_t j, const T* dh, const T* w, T* dgi, T* dgh,
                                                  T* dh0) {
  const T r = w[j], z = w[H + j], n = w[2 * H + j], hp = w[3 * H + j], hn = w[4 * H + j];
  const T gy = dh ? dh[j] : T(0);
  const T dan = gy * (T(1) - z) * (T(1) - n * n);
  const T dar = dan * hn * r * (T(1) - r);
  const T daz = gy * (hp - n) * z * (T(1) - z);
  dgi[j] = dar;
  dgi[H + j] = daz;
  dgi[2 * H + j] = dan;
  dgh[j] = dar;
  dgh[H + j] = daz;
  dgh[2 * H + j] = dan * r;
  dh0[j] = gy * z;
}

}  // namespace tl::native::rnn
