// CPU convolution loops: im2col / col2im around the blocked GEMM (Note [CPU GEMM]).
// For one sample and one group, the column matrix col (Cg*KD*KH*KW x OD*OH*OW) holds in row
// (c, kd, kh, kw) the input elements that kernel tap meets at every output position (zero where
// it falls into the padding). Then
//   F:  y  (Og x L)     = w (Og x CgK) @ col
//   Bx: col             = w^T @ gy, then col2im adds each column entry back to its element
//   Bw: gw (Og x CgK)  += gy @ col^T   (computed as its transpose, col @ gy^T)
// Samples go through these products in chunks of nb (sample_chunks): the chunk's column matrices
// sit side by side (CgK x nb*L), so the small planes of deep layers (L = 64 or 16) still make
// GEMMs wide enough to run at the micro-kernel's speed instead of re-packing the weight per
// sample. The y side of a chunk is gathered into (or scattered from) an Og x nb*L matrix.
// A 1x1(x1) kernel with stride 1 and no padding in a one-sample chunk needs no column matrix:
// col is x itself.
// Chunks run in parallel (OpenMP) when there are enough; otherwise the GEMM parallelises.
// 2-d 3x3 stride-1 convolutions with enough channels and output tiles run as Winograd
// F(4x4, 3x3) instead (forward, input gradient and weight gradient:
// Note [Winograd convolution] in ConvolutionWinograd.h).
// Depthwise convolutions (one x-side channel per group) skip both: a GEMM of one row per group
// costs more in calls and column copies than the multiply-adds, so they run as direct loops over
// the kernel taps, parallel over channels.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "aten/native/Convolution.h"
#include "aten/native/Parallel.h"
#include "aten/native/cpu/ConvolutionWinograd.h"
#include "aten/native/cpu/Gemm.h"

namespace tl::native {

namespace {

// Output positions o in [lo, hi) (within [0, count)) whose input coordinate o*s + off lies in
// [0, n). Written so that no step overflows for any geometry Convolution.cpp accepts.
inline void valid_range(int64_t off, int64_t s, int64_t n, int64_t count, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : std::min(count, -off / s + (-off % s != 0));
  hi = off >= n ? 0 : std::min(count, (n - 1 - off) / s + 1);
  if (hi < lo) hi = lo;
}

bool is_pointwise(const ConvGeom& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.stride[i] != 1 || g.pad[i] != 0 || g.in[i] != g.out[i]) return false;
  return true;
}

// Where kernel tap (kd, kh, kw) meets the input: along each dimension, output position o reads
// input coordinate o*stride + off, which lies inside the input for o in [o*0, o*1).
struct TapRows {
  int64_t od0, od1, oh0, oh1, ow0, ow1, off_d, off_h, off_w;
};

inline TapRows tap_rows(const ConvGeom& g, int64_t kd, int64_t kh, int64_t kw) {
  TapRows t;
  t.off_d = kd * g.dil[0] - g.pad[0];
  t.off_h = kh * g.dil[1] - g.pad[1];
  t.off_w = kw * g.dil[2] - g.pad[2];
  valid_range(t.off_d, g.stride[0], g.in[0], g.out[0], t.od0, t.od1);
  valid_range(t.off_h, g.stride[1], g.in[1], g.out[1], t.oh0, t.oh1);
  valid_range(t.off_w, g.stride[2], g.in[2], g.out[2], t.ow0, t.ow1);
  return t;
}

// Every kernel tap's TapRows, in weight order (computed once per call: small planes would
// otherwise spend more time in its divisions than in the multiply-adds).
std::vector<TapRows> all_taps(const ConvGeom& g) {
  std::vector<TapRows> taps;
  for (int64_t kd = 0; kd < g.k[0]; ++kd)
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw) taps.push_back(tap_rows(g, kd, kh, kw));
  return taps;
}

// x: Cg x D x H x W of one sample and group -> col (Cg*KD*KH*KW x OD*OH*OW; rows ld apart).
template <typename T>
void im2col(const ConvGeom& g, const std::vector<TapRows>& taps, int64_t Cg, const T* x, T* col, int64_t ld) {
  const int64_t L = g.out_numel(), OW = g.out[2], OHW = g.out[1] * g.out[2];
  const int64_t H = g.in[1], W = g.in[2], sw = g.stride[2];
  T* row = col;
  for (int64_t c = 0; c < Cg; ++c) {
    const T* xc = x + c * g.in_numel();
    for (size_t tap = 0; tap < taps.size(); ++tap, row += ld) {
      const TapRows& t = taps[tap];
      if (t.od0 == t.od1 || t.oh0 == t.oh1) {
        std::fill(row, row + L, T(0));
        continue;
      }
      std::fill(row, row + t.od0 * OHW, T(0));
      for (int64_t od = t.od0; od < t.od1; ++od) {
        T* plane = row + od * OHW;
        const T* xd = xc + (od * g.stride[0] + t.off_d) * H * W;
        std::fill(plane, plane + t.oh0 * OW, T(0));
        for (int64_t oh = t.oh0; oh < t.oh1; ++oh) {
          T* r = plane + oh * OW;
          const T* xr = xd + (oh * g.stride[1] + t.off_h) * W + t.off_w;
          std::fill(r, r + t.ow0, T(0));
          if (sw == 1) {
            std::memcpy(r + t.ow0, xr + t.ow0, sizeof(T) * static_cast<size_t>(t.ow1 - t.ow0));
          } else {
            for (int64_t ow = t.ow0; ow < t.ow1; ++ow) r[ow] = xr[ow * sw];
          }
          std::fill(r + t.ow1, r + OW, T(0));
        }
        std::fill(plane + t.oh1 * OW, plane + OHW, T(0));
      }
      std::fill(row + t.od1 * OHW, row + L, T(0));
    }
  }
}

// The adjoint of im2col: x (Cg x D x H x W, zeroed by the caller) += each col entry at its element.
template <typename T>
void col2im(const ConvGeom& g, const std::vector<TapRows>& taps, int64_t Cg, const T* col, int64_t ld, T* x) {
  const int64_t OW = g.out[2], OHW = g.out[1] * g.out[2];
  const int64_t H = g.in[1], W = g.in[2], sw = g.stride[2];
  const T* row = col;
  for (int64_t c = 0; c < Cg; ++c) {
    T* xc = x + c * g.in_numel();
    for (size_t tap = 0; tap < taps.size(); ++tap, row += ld) {
      const TapRows& t = taps[tap];
      for (int64_t od = t.od0; od < t.od1; ++od) {
        const T* plane = row + od * OHW;
        T* xd = xc + (od * g.stride[0] + t.off_d) * H * W;
        for (int64_t oh = t.oh0; oh < t.oh1; ++oh) {
          const T* __restrict r = plane + oh * OW;
          T* __restrict xr = xd + (oh * g.stride[1] + t.off_h) * W + t.off_w;
          if (sw == 1) {
            for (int64_t ow = t.ow0; ow < t.ow1; ++ow) xr[ow] += r[ow];
          } else {
            for (int64_t ow = t.ow0; ow < t.ow1; ++ow) xr[ow * sw] += r[ow];
          }
        }
      }
    }
  }
}

// How the batch is cut into chunks of nb samples for the GEMMs (Note at the top of the file).
struct SampleChunks {
  int64_t nb = 1, count = 1;
  bool parallel = false;  // chunks run in parallel (each GEMM then runs on one thread)
};

SampleChunks sample_chunks(const ConvGeom& g) {
  // A GEMM this wide runs near the micro-kernel's peak; wider ones only cost column memory.
  constexpr int64_t kMinCols = 512;
  const int64_t L = g.out_numel(), threads = omp_get_max_threads();
  SampleChunks ch;
  int64_t count = std::min(g.N, std::max<int64_t>(1, g.N * L / kMinCols));
  if (threads > 1 && count > 1) count = std::min(g.N, (count + threads - 1) / threads * threads);
  ch.nb = (g.N + count - 1) / count;
  ch.count = (g.N + ch.nb - 1) / ch.nb;
  const int64_t work = g.N * g.O * (g.C / g.groups) * g.k_numel() * L;
  ch.parallel = threads > 1 && ch.count >= threads && work >= (1 << 18);
  return ch;
}

// rows x L blocks of nb samples (sample s's block at src + s * sample_stride, rows L apart) <->
// one rows x nb*L matrix; `bias` (may be null) is added per row on the way out.
template <typename T>
void gather_chunk(const T* src, int64_t sample_stride, int64_t nb, int64_t rows, int64_t L, T* dst, bool par) {
#pragma omp parallel for schedule(static) if (par)
  for (int64_t s = 0; s < nb; ++s)
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(dst + r * nb * L + s * L, src + s * sample_stride + r * L, sizeof(T) * static_cast<size_t>(L));
}

template <typename T>
void scatter_chunk(const T* src, int64_t nb, int64_t rows, int64_t L, const T* bias, T* dst, int64_t sample_stride,
                   bool par) {
#pragma omp parallel for schedule(static) if (par)
  for (int64_t s = 0; s < nb; ++s)
    for (int64_t r = 0; r < rows; ++r) {
      const T* __restrict a = src + r * nb * L + s * L;
      T* __restrict d = dst + s * sample_stride + r * L;
      const T b = bias ? bias[r] : T(0);
      for (int64_t l = 0; l < L; ++l) d[l] = a[l] + b;
    }
}

// y (channels x L) += bias per channel.
template <typename T>
void add_bias(T* y, const T* bias, int64_t channels, int64_t L) {
  for (int64_t c = 0; c < channels; ++c) {
    T* yc = y + c * L;
    const T b = bias[c];
    for (int64_t l = 0; l < L; ++l) yc[l] += b;
  }
}

bool is_depthwise(const ConvGeom& g) { return g.groups > 1 && g.C == g.groups; }

// Calls f(tap, y_offset, x_offset, ow0, ow1) for every output row that kernel tap meets inside the
// input: along it, y[y_offset + ow] meets x[x_offset + ow * stride_w] for ow in [ow0, ow1).
template <typename F>
void for_each_tap_row(const ConvGeom& g, const std::vector<TapRows>& taps, F&& f) {
  const int64_t OH = g.out[1], OW = g.out[2], H = g.in[1], W = g.in[2];
  for (size_t tap = 0; tap < taps.size(); ++tap) {
    const TapRows& t = taps[tap];
    for (int64_t od = t.od0; od < t.od1; ++od)
      for (int64_t oh = t.oh0; oh < t.oh1; ++oh)
        f(static_cast<int64_t>(tap), (od * OH + oh) * OW,
          ((od * g.stride[0] + t.off_d) * H + oh * g.stride[1] + t.off_h) * W + t.off_w, t.ow0, t.ow1);
  }
}

bool planes_parallel(const ConvGeom& g, int64_t planes) {
  return worth_parallel(planes, planes * g.k_numel() * g.out_numel(), int64_t(1) << 16);
}

// Depthwise forward: y channel o reads x channel o / (O / C).
template <typename T>
void depthwise_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  const std::vector<TapRows> taps = all_taps(g);
  const int64_t Og = g.O / g.groups, K = g.k_numel(), L = g.out_numel(), HW = g.in_numel(), sw = g.stride[2];
#pragma omp parallel for schedule(static) if (planes_parallel(g, g.N * g.O))
  for (int64_t p = 0; p < g.N * g.O; ++p) {
    const int64_t n = p / g.O, o = p % g.O;
    const T* xp = x + (n * g.C + o / Og) * HW;
    const T* wo = w + o * K;
    T* yp = y + p * L;
    std::fill(yp, yp + L, bias ? bias[o] : T(0));
    for_each_tap_row(g, taps, [&](int64_t tap, int64_t yo, int64_t xo, int64_t ow0, int64_t ow1) {
      const T wv = wo[tap];
      T* __restrict yr = yp + yo;
      const T* __restrict xr = xp + xo;
      if (sw == 1) {
#pragma omp simd
        for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xr[ow];
      } else {
        for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xr[ow * sw];
      }
    });
  }
}

// Depthwise input gradient: x channel c gathers from its O / C y channels.
template <typename T>
void depthwise_backward_input(const ConvGeom& g, const T* gy, const T* w, const T* bias, T* gx) {
  const std::vector<TapRows> taps = all_taps(g);
  const int64_t Og = g.O / g.groups, K = g.k_numel(), L = g.out_numel(), HW = g.in_numel(), sw = g.stride[2];
#pragma omp parallel for schedule(static) if (planes_parallel(g, g.N * g.C))
  for (int64_t p = 0; p < g.N * g.C; ++p) {
    const int64_t n = p / g.C, c = p % g.C;
    T* xp = gx + p * HW;
    std::fill(xp, xp + HW, bias ? bias[c] : T(0));
    for (int64_t o = c * Og; o < (c + 1) * Og; ++o) {
      const T* yp = gy + (n * g.O + o) * L;
      const T* wo = w + o * K;
      for_each_tap_row(g, taps, [&](int64_t tap, int64_t yo, int64_t xo, int64_t ow0, int64_t ow1) {
        const T wv = wo[tap];
        const T* __restrict yr = yp + yo;
        T* __restrict xr = xp + xo;
        if (sw == 1) {
#pragma omp simd
          for (int64_t ow = ow0; ow < ow1; ++ow) xr[ow] += wv * yr[ow];
        } else {
          for (int64_t ow = ow0; ow < ow1; ++ow) xr[ow * sw] += wv * yr[ow];
        }
      });
    }
  }
}

// Depthwise weight gradient: gw[o, tap] sums gy * x over the batch; each y channel is one thread's.
template <typename T>
void depthwise_backward_weight(const ConvGeom& g, const T* x, const T* gy, T* gw) {
  const std::vector<TapRows> taps = all_taps(g);
  const int64_t Og = g.O / g.groups, K = g.k_numel(), L = g.out_numel(), HW = g.in_numel(), sw = g.stride[2];
#pragma omp parallel for schedule(static) if (planes_parallel(g, g.O))
  for (int64_t o = 0; o < g.O; ++o) {
    T* go = gw + o * K;
    std::fill(go, go + K, T(0));
    for (int64_t n = 0; n < g.N; ++n) {
      const T* xp = x + (n * g.C + o / Og) * HW;
      const T* yp = gy + (n * g.O + o) * L;
      for_each_tap_row(g, taps, [&](int64_t tap, int64_t yo, int64_t xo, int64_t ow0, int64_t ow1) {
        const T* yr = yp + yo;
        const T* xr = xp + xo;
        T acc = 0;
        if (sw == 1) {
#pragma omp simd reduction(+ : acc)
          for (int64_t ow = ow0; ow < ow1; ++ow) acc += yr[ow] * xr[ow];
        } else {
          for (int64_t ow = ow0; ow < ow1; ++ow) acc += yr[ow] * xr[ow * sw];
        }
        go[tap] += acc;
      });
    }
  }
}

template <typename T>
void forward_impl(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  if (is_depthwise(g)) return depthwise_forward(g, x, w, bias, y);
  if (winograd_suits(g)) {
    const int64_t ws[4] = {g.C * g.k_numel(), g.k_numel(), g.k[2], 1};
    return winograd_conv3x3(g, x, w, ws, bias, y);
  }
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, CgK = Cg * g.k_numel();
  const int64_t L = g.out_numel(), HW = g.in_numel();
  const SampleChunks ch = sample_chunks(g);
  const bool direct = ch.nb == 1 && is_pointwise(g);
  const std::vector<TapRows> taps = all_taps(g);
  const ScalarType dt = CppToScalarType<T>::value;
#pragma omp parallel for schedule(static) if (ch.parallel)
  for (int64_t c = 0; c < ch.count; ++c) {
    const int64_t n0 = c * ch.nb, nb = std::min(ch.nb, g.N - n0), cols = nb * L;
    const bool inner_par = !ch.parallel && nb > 1;  // the chunk's copies split over samples
    thread_local std::vector<T> colbuf, ybuf;
    // col's rows one cache line longer than needed: L (often 1024 or 256) a multiple of 4 KiB
    // apart would alias in L1 while the GEMM reads col in place.
    const int64_t ld = cols + 64 / static_cast<int64_t>(sizeof(T));
    T* col = direct ? nullptr : scratch(colbuf, CgK * ld);
    T* yc = nb == 1 ? nullptr : scratch(ybuf, Og * cols);
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* xg = x + (n0 * g.C + grp * Cg) * HW;
      T* yg = y + (n0 * g.O + grp * Og) * L;
      if (!direct) {
#pragma omp parallel for schedule(static) if (inner_par)
        for (int64_t s = 0; s < nb; ++s) im2col<T>(g, taps, Cg, xg + s * g.C * HW, col + s * L, ld);
      }
      gemm_cpu(dt, Og, cols, CgK, w + grp * Og * CgK, CgK, 1, direct ? xg : col, direct ? cols : ld, 1,
               nb == 1 ? yg : yc, !ch.parallel);
      if (nb > 1) scatter_chunk(yc, nb, Og, L, bias ? bias + grp * Og : nullptr, yg, g.O * L, inner_par);
    }
    if (nb == 1 && bias) add_bias(y + n0 * g.O * L, bias, g.O, L);
  }
}

// With stride and dilation 1, Bx is the forward map of the kernel transposed (O <-> C) and
// flipped, padded by k - 1 - pad (the full correlation), the x and y sides swapped. Returns
// false for other geometries.
bool input_grad_as_forward(const ConvGeom& g, ConvGeom& f) {
  for (int d = 0; d < 3; ++d)
    if (g.stride[d] != 1 || g.dil[d] != 1) return false;
  f = g;
  std::swap(f.C, f.O);
  for (int d = 0; d < 3; ++d) {
    std::swap(f.in[d], f.out[d]);
    f.pad[d] = g.k[d] - 1 - g.pad[d];
  }
  return true;
}

template <typename T>
void backward_input_impl(const ConvGeom& g, const T* gy, const T* w, const T* bias, T* gx) {
  if (is_depthwise(g)) return depthwise_backward_input(g, gy, w, bias, gx);
  ConvGeom f;
  if (input_grad_as_forward(g, f) && winograd_suits(f)) {
    // f's weight element (c, o, kh, kw) is w's (o, c, 2 - kh, 2 - kw).
    const int64_t K = g.k_numel(), ws[4] = {K, g.C * K, -g.k[2], -1};
    return winograd_conv3x3(f, gy, w + K - 1, ws, bias, gx);
  }
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, CgK = Cg * g.k_numel();
  const int64_t L = g.out_numel(), HW = g.in_numel();
  const SampleChunks ch = sample_chunks(g);
  const bool direct = ch.nb == 1 && is_pointwise(g);
  const std::vector<TapRows> taps = all_taps(g);
  const ScalarType dt = CppToScalarType<T>::value;
#pragma omp parallel for schedule(static) if (ch.parallel)
  for (int64_t c = 0; c < ch.count; ++c) {
    const int64_t n0 = c * ch.nb, nb = std::min(ch.nb, g.N - n0), cols = nb * L;
    const bool inner_par = !ch.parallel && nb > 1;
    thread_local std::vector<T> colbuf, gybuf;
    T* col = direct ? nullptr : scratch(colbuf, CgK * cols);
    T* gyc = nb == 1 ? nullptr : scratch(gybuf, Og * cols);
    T* gxn = gx + n0 * g.C * HW;
    if (!direct) std::fill(gxn, gxn + nb * g.C * HW, T(0));
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      T* gxg = gxn + grp * Cg * HW;
      const T* gyg = gy + (n0 * g.O + grp * Og) * L;
      if (nb > 1) gather_chunk(gyg, g.O * L, nb, Og, L, gyc, inner_par);
      // col = w_g^T (CgK x Og) @ gy_g (Og x nb*L)
      gemm_cpu(dt, CgK, cols, Og, w + grp * Og * CgK, 1, CgK, nb == 1 ? gyg : gyc, cols, 1, direct ? gxg : col,
               !ch.parallel);
      if (!direct) {
#pragma omp parallel for schedule(static) if (inner_par)
        for (int64_t s = 0; s < nb; ++s) col2im<T>(g, taps, Cg, col + s * L, cols, gxg + s * g.C * HW);
      }
    }
    for (int64_t s = 0; bias && s < nb; ++s) add_bias(gxn + s * g.C * HW, bias, g.C, HW);
  }
}

// Whether Bw's GEMM takes the y-side channels as its N (see below): the operand packed column
// by column (slow) is then gy^T, not col^T, which pays when it is the smaller one; up to 128
// channels, where the transposed sum of the product costs less than that saves.
bool weight_grad_og_as_n(int64_t Og, int64_t CgK) { return Og <= 128 && Og < CgK; }

template <typename T>
void backward_weight_impl(const ConvGeom& g, const T* x, const T* gy, T* gw) {
  if (is_depthwise(g)) return depthwise_backward_weight(g, x, gy, gw);
  if (winograd_suits(g)) return winograd_conv3x3_backward_weight(g, x, gy, gw);
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups, CgK = Cg * g.k_numel();
  const int64_t L = g.out_numel(), HW = g.in_numel(), wsize = g.O * CgK;
  const SampleChunks ch = sample_chunks(g);
  const bool direct = ch.nb == 1 && is_pointwise(g), og_as_n = weight_grad_og_as_n(Og, CgK);
  const std::vector<TapRows> taps = all_taps(g);
  const ScalarType dt = CppToScalarType<T>::value;
  std::fill(gw, gw + wsize, T(0));
  const int nthreads = ch.parallel ? omp_get_max_threads() : 1;
  // Each thread sums its chunks into its own copy of gw; the copies are added at the end.
  std::vector<T> partial(static_cast<size_t>((nthreads - 1) * wsize), T(0));
#pragma omp parallel num_threads(nthreads) if (ch.parallel)
  {
    const int tid = omp_get_thread_num();
    T* acc = tid == 0 ? gw : partial.data() + (tid - 1) * wsize;
    thread_local std::vector<T> colbuf, gybuf, prodbuf;
#pragma omp for schedule(static)
    for (int64_t c = 0; c < ch.count; ++c) {
      const int64_t n0 = c * ch.nb, nb = std::min(ch.nb, g.N - n0), cols = nb * L;
      const bool inner_par = !ch.parallel && nb > 1;
      T* col = direct ? nullptr : scratch(colbuf, CgK * cols);
      T* gyc = nb == 1 ? nullptr : scratch(gybuf, Og * cols);
      T* prod = !og_as_n && ch.count == 1 ? nullptr : scratch(prodbuf, CgK * Og);
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const T* xg = x + (n0 * g.C + grp * Cg) * HW;
        const T* gyg = gy + (n0 * g.O + grp * Og) * L;
        if (!direct) {
#pragma omp parallel for schedule(static) if (inner_par)
          for (int64_t s = 0; s < nb; ++s) im2col<T>(g, taps, Cg, xg + s * g.C * HW, col + s * L, cols);
        }
        if (nb > 1) gather_chunk(gyg, g.O * L, nb, Og, L, gyc, inner_par);
        const T* colg = direct ? xg : col;
        const T* gyn = nb == 1 ? gyg : gyc;
        T* a = acc + grp * Og * CgK;
        if (og_as_n) {
          // prod (CgK x Og) = col (CgK x nb*L) @ gy_g^T: the bigger column matrix is the left
          // operand, which packs fast; added back transposed, in tiles.
          gemm_cpu(dt, CgK, Og, cols, colg, cols, 1, gyn, 1, cols, prod, !ch.parallel);
          constexpr int64_t kTile = 32;
          for (int64_t i0 = 0; i0 < CgK; i0 += kTile)
            for (int64_t o0 = 0; o0 < Og; o0 += kTile)
              for (int64_t o = o0; o < std::min(Og, o0 + kTile); ++o)
                for (int64_t i = i0; i < std::min(CgK, i0 + kTile); ++i) a[o * CgK + i] += prod[i * Og + o];
        } else if (ch.count == 1) {  // gw_g (Og x CgK) = gy_g (Og x nb*L) @ col^T, the only term
          gemm_cpu(dt, Og, CgK, cols, gyn, cols, 1, colg, 1, cols, a, !ch.parallel);
        } else {
          gemm_cpu(dt, Og, CgK, cols, gyn, cols, 1, colg, 1, cols, prod, !ch.parallel);
          for (int64_t i = 0; i < Og * CgK; ++i) a[i] += prod[i];
        }
      }
    }
  }
  for (int t = 1; t < nthreads; ++t) {
    const T* p = partial.data() + (t - 1) * wsize;
    for (int64_t i = 0; i < wsize; ++i) gw[i] += p[i];
  }
}

void conv_forward_kernel(const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y) {
  if (y.numel() == 0) return;
  dispatch_float_double(x.dtype(), "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g.C == 0 || g.k_numel() == 0) {  // an empty reduction: y is the bias
      T* yp = y.data_ptr<T>();
      const int64_t L = g.out_numel();
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t o = 0; o < g.O; ++o)
          std::fill(yp + (n * g.O + o) * L, yp + (n * g.O + o + 1) * L, bias.defined() ? bias.data_ptr<T>()[o] : T(0));
      return;
    }
    forward_impl<T>(g, x.data_ptr<T>(), w.data_ptr<T>(), bias.defined() ? bias.data_ptr<T>() : nullptr,
                    y.data_ptr<T>());
  });
}

void conv_backward_input_kernel(const ConvGeom& g, const Tensor& gy, const Tensor& w, const Tensor& bias,
                                const Tensor& gx) {
  if (gx.numel() == 0) return;
  dispatch_float_double(gx.dtype(), "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
    if (g.O == 0 || g.out_numel() == 0 || g.k_numel() == 0) {
      T* p = gx.data_ptr<T>();
      std::fill(p, p + gx.numel(), T(0));
      for (int64_t n = 0; b && n < g.N; ++n) add_bias(p + n * g.C * g.in_numel(), b, g.C, g.in_numel());
      return;
    }
    backward_input_impl<T>(g, gy.data_ptr<T>(), w.data_ptr<T>(), b, gx.data_ptr<T>());
  });
}

void conv_backward_weight_kernel(const ConvGeom& g, const Tensor& x, const Tensor& gy, const Tensor& gw) {
  if (gw.numel() == 0) return;
  dispatch_float_double(gw.dtype(), "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g.N == 0 || g.out_numel() == 0) {
      std::fill(gw.data_ptr<T>(), gw.data_ptr<T>() + gw.numel(), T(0));
      return;
    }
    backward_weight_impl<T>(g, x.data_ptr<T>(), gy.data_ptr<T>(), gw.data_ptr<T>());
  });
}

}  // namespace

TL_REGISTER_CONVOLUTION_STUBS(CPU, kernel);

}  // namespace tl::native
