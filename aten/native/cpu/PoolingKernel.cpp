// CPU pooling loops (geometry in Pooling.h). Planes are independent: OpenMP splits them when
// the work is large enough.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "aten/native/Parallel.h"
#include "aten/native/Pooling.h"

namespace tl::native {

namespace {

// Start index of adaptive cell o of `out` cells over `in` elements, and its end (exclusive).
inline int64_t cell_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
inline int64_t cell_end(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

// One dimension of the avg pooling window of output position o: [lo, hi) clipped to the input,
// and the window's length clipped only to the input plus its padding (count_include_pad's count).
struct AvgSpan {
  int64_t lo, hi, padded;
};

inline AvgSpan avg_span(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t n) {
  const int64_t lo = o * stride - pad, hi = std::min(lo + k, n + pad);
  return {std::max<int64_t>(lo, 0), std::min(hi, n), hi - lo};
}

inline int64_t avg_divisor(const AvgSpan& d, const AvgSpan& h, const AvgSpan& w, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  if (divisor_override) return *divisor_override;
  return count_include_pad ? d.padded * h.padded * w.padded : (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
}

// Calls f(flat input index) for every element of the box [lo, hi) of one volume.
template <typename F>
inline void for_box(const PoolGeom& g, const int64_t (&lo)[3], const int64_t (&hi)[3], F&& f) {
  for (int64_t d = lo[0]; d < hi[0]; ++d)
    for (int64_t h = lo[1]; h < hi[1]; ++h)
      for (int64_t w = lo[2]; w < hi[2]; ++w) f((d * g.in[1] + h) * g.in[2] + w);
}

// Calls f(flat output index, output position) for every output position of one volume.
template <typename F>
inline void for_outputs(const PoolGeom& g, F&& f) {
  int64_t o[3], i = 0;
  for (o[0] = 0; o[0] < g.out[0]; ++o[0])
    for (o[1] = 0; o[1] < g.out[1]; ++o[1])
      for (o[2] = 0; o[2] < g.out[2]; ++o[2]) f(i++, o);
}

// The adaptive cell of output position o.
inline void adaptive_cell(const PoolGeom& g, const int64_t (&o)[3], int64_t (&lo)[3], int64_t (&hi)[3]) {
  for (int i = 0; i < 3; ++i) {
    lo[i] = cell_start(o[i], g.out[i], g.in[i]);
    hi[i] = cell_end(o[i], g.out[i], g.in[i]);
  }
}

// The window loops of max and avg pooling. They take the geometry by value; kDepth = false (1-d
// and 2-d pooling, see trivial_depth) drops the depth loop at compile time.

// Max pooling of one plane: xs (in) -> os, is (out). A function of its own, so the geometry and
// the bounds are its locals: read inside an OpenMP region they are the region's shared
// variables, which the compiler reloads after every output store, and the row loops below then
// did not vectorise (max_pool2d k2 on 32x32 planes ran 4x slower).
// [inner_lo, inner_hi): the columns whose windows lie inside the input (2-d): their outputs are
// computed a row at a time, vectorised across the row with selects (branches on random data
// mispredict).
template <bool kDepth, typename T>
void max_pool_plane(const PoolGeom g, const int64_t inner_lo, const int64_t inner_hi, const T* __restrict xs,
                    T* __restrict os, int64_t* __restrict is) {
  const int64_t D = g.in[0], H = g.in[1], W = g.in[2], OD = kDepth ? g.out[0] : 1, OH = g.out[1], OW = g.out[2];
  const int64_t s2 = g.stride[2], p2 = g.pad[2], d2 = g.dil[2], k2 = g.k[2];
  // One output by a scalar walk of its window (any geometry).
  auto one_output = [&](int64_t od, int64_t oh, int64_t ow) {
    const int64_t d0 = od * g.stride[0] - g.pad[0], h0 = oh * g.stride[1] - g.pad[1], w0 = ow * s2 - p2;
    T best = -std::numeric_limits<T>::infinity();
    int64_t best_i = -1;
    for (int64_t kd = 0; kd < (kDepth ? g.k[0] : 1); ++kd) {
      const int64_t d = kDepth ? d0 + kd * g.dil[0] : 0;
      if (kDepth && (d < 0 || d >= D)) continue;
      for (int64_t kh = 0; kh < g.k[1]; ++kh) {
        const int64_t h = h0 + kh * g.dil[1];
        if (h < 0 || h >= H) continue;
        const int64_t row = (d * H + h) * W;
        for (int64_t kw = 0; kw < k2; ++kw) {
          const int64_t w = w0 + kw * d2;
          if (w < 0 || w >= W) continue;
          const T val = xs[row + w];
          // NaN wins (the last one, as in PyTorch); of equal maxima the first is kept.
          if (best_i < 0 || val > best || std::isnan(val)) {
            best = val;
            best_i = row + w;
          }
        }
      }
    }
    const int64_t o = (od * OH + oh) * OW + ow;
    os[o] = best;
    is[o] = best_i < 0 ? 0 : best_i;
  };
  for (int64_t od = 0; od < OD; ++od) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t h0 = oh * g.stride[1] - g.pad[1];
      int64_t kh0 = 0;  // the first window row inside the input
      while (kh0 < g.k[1] && (h0 + kh0 * g.dil[1] < 0 || h0 + kh0 * g.dil[1] >= H)) ++kh0;
      const bool rows = !kDepth && kh0 < g.k[1];
      for (int64_t ow = 0; ow < (rows ? inner_lo : OW); ++ow) one_output(od, oh, ow);
      if (!rows) continue;
      T* __restrict ob = os + oh * OW;
      int64_t* __restrict ib = is + oh * OW;
      // The column stride as a constant where it is 1 or 2: strided loads and index steps
      // then vectorise as shuffles and additions instead of gathers and multiplications.
      auto row = [&](auto stride) {
        const int64_t s = stride;
        const int64_t first = (h0 + kh0 * g.dil[1]) * W - p2;
        for (int64_t ow = inner_lo; ow < inner_hi; ++ow) {
          ob[ow] = xs[first + ow * s];
          ib[ow] = first + ow * s;
        }
        for (int64_t kh = kh0; kh < g.k[1]; ++kh) {
          const int64_t h = h0 + kh * g.dil[1];
          if (h < 0 || h >= H) continue;
          for (int64_t kw = kh == kh0 ? 1 : 0; kw < k2; ++kw) {
            const int64_t at = h * W - p2 + kw * d2;
            for (int64_t ow = inner_lo; ow < inner_hi; ++ow) {
              const T val = xs[at + ow * s];
              const bool take = (val > ob[ow]) | (val != val);
              ob[ow] = take ? val : ob[ow];
              ib[ow] = take ? at + ow * s : ib[ow];
            }
          }
        }
      };
      if (s2 == 1) row(std::integral_constant<int64_t, 1>{});
      else if (s2 == 2) row(std::integral_constant<int64_t, 2>{});
      else row(s2);
      for (int64_t ow = inner_hi; ow < OW; ++ow) one_output(od, oh, ow);
    }
  }
}

template <bool kDepth, typename T>
void max_pool_loop(const PoolGeom& g, const T* xp, T* op, int64_t* ip) {
  const int64_t W = g.in[2], OW = g.out[2], s2 = g.stride[2], p2 = g.pad[2], d2 = g.dil[2], k2 = g.k[2];
  const int64_t inner_lo = std::min(OW, (p2 + s2 - 1) / s2);
  const int64_t inner_hi = std::max(inner_lo, std::min(OW, (W - 1 - (k2 - 1) * d2 + p2 + s2) / s2));
  const int64_t in_plane = g.in_numel(), out_plane = g.out_numel();
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * out_plane * g.k_numel()))
  for (int64_t p = 0; p < g.planes; ++p)
    max_pool_plane<kDepth>(g, inner_lo, inner_hi, xp + p * in_plane, op + p * out_plane, ip + p * out_plane);
}

// kBackward = false: out = the window means of x; true: x (zeroed here) += each output's
// gradient share over its window (the adjoint).
template <bool kDepth, bool kBackward, typename T>
void avg_pool_loop(const PoolGeom g, const T* src, T* dst, bool count_include_pad,
                   std::optional<int64_t> divisor_override) {
  const int64_t D = g.in[0], H = g.in[1], W = g.in[2], OD = kDepth ? g.out[0] : 1, OH = g.out[1], OW = g.out[2];
  const int64_t in_plane = g.in_numel(), out_plane = g.out_numel();
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * out_plane * g.k_numel()))
  for (int64_t p = 0; p < g.planes; ++p) {
    const T* sp = src + p * (kBackward ? out_plane : in_plane);
    T* dp = dst + p * (kBackward ? in_plane : out_plane);
    if (kBackward) std::fill(dp, dp + in_plane, T(0));
    for (int64_t od = 0; od < OD; ++od) {
      const AvgSpan sd = kDepth ? avg_span(od, g.stride[0], g.pad[0], g.k[0], D) : AvgSpan{0, 1, 1};
      for (int64_t oh = 0; oh < OH; ++oh) {
        const AvgSpan sh = avg_span(oh, g.stride[1], g.pad[1], g.k[1], H);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const AvgSpan sw = avg_span(ow, g.stride[2], g.pad[2], g.k[2], W);
          const int64_t div = avg_divisor(sd, sh, sw, count_include_pad, divisor_override);
          const int64_t o = (od * OH + oh) * OW + ow;
          if (kBackward) {
            const T gv = sp[o] / static_cast<T>(div);
            for (int64_t d = sd.lo; d < sd.hi; ++d)
              for (int64_t h = sh.lo; h < sh.hi; ++h) {
                T* row = dp + (d * H + h) * W;
                for (int64_t w = sw.lo; w < sw.hi; ++w) row[w] += gv;
              }
          } else {
            T s = T(0);
            for (int64_t d = sd.lo; d < sd.hi; ++d)
              for (int64_t h = sh.lo; h < sh.hi; ++h) {
                const T* row = sp + (d * H + h) * W;
                for (int64_t w = sw.lo; w < sw.hi; ++w) s += row[w];
              }
            dp[o] = div == 0 ? s / T(0) : s / static_cast<T>(div);
          }
        }
      }
    }
  }
}

// Whether the depth axis is a no-op (1-d and 2-d pooling run with a depth of 1).
bool trivial_depth(const PoolGeom& g) { return g.in[0] == 1 && g.out[0] == 1 && g.k[0] == 1 && g.pad[0] == 0; }

void max_pool_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices) {
  dispatch_float_double(x.dtype(), "max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    int64_t* ip = indices.data_ptr<int64_t>();
    trivial_depth(g) ? max_pool_loop<false, T>(g, xp, op, ip) : max_pool_loop<true, T>(g, xp, op, ip);
  });
}

void avg_pool_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  dispatch_float_double(x.dtype(), "avg_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    trivial_depth(g) ? avg_pool_loop<false, false, T>(g, xp, op, count_include_pad, divisor_override)
                     : avg_pool_loop<true, false, T>(g, xp, op, count_include_pad, divisor_override);
  });
}

void avg_pool_backward_kernel(const PoolGeom& g, const Tensor& gy, const Tensor& gx, bool count_include_pad,
                              std::optional<int64_t> divisor_override) {
  dispatch_float_double(gx.dtype(), "avg_pool_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gyp = gy.data_ptr<T>();
    T* gxp = gx.data_ptr<T>();
    trivial_depth(g) ? avg_pool_loop<false, true, T>(g, gyp, gxp, count_include_pad, divisor_override)
                     : avg_pool_loop<true, true, T>(g, gyp, gxp, count_include_pad, divisor_override);
  });
}

void adaptive_avg_pool_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out) {
  dispatch_float_double(x.dtype(), "adaptive_avg_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const int64_t in_plane = g.in_numel(), out_plane = g.out_numel();
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * (in_plane + out_plane)))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      for_outputs(g, [&](int64_t i, const int64_t (&o)[3]) {
        int64_t lo[3], hi[3];
        adaptive_cell(g, o, lo, hi);
        T s = T(0);
        for_box(g, lo, hi, [&](int64_t at) { s += xs[at]; });
        op[p * out_plane + i] = s / static_cast<T>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
      });
    }
  });
}

void adaptive_avg_pool_backward_kernel(const PoolGeom& g, const Tensor& gy, const Tensor& gx) {
  dispatch_float_double(gx.dtype(), "adaptive_avg_pool_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gyp = gy.data_ptr<T>();
    T* gxp = gx.data_ptr<T>();
    const int64_t in_plane = g.in_numel(), out_plane = g.out_numel();
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * (in_plane + out_plane)))
    for (int64_t p = 0; p < g.planes; ++p) {
      T* gs = gxp + p * in_plane;
      std::fill(gs, gs + in_plane, T(0));
      for_outputs(g, [&](int64_t i, const int64_t (&o)[3]) {
        int64_t lo[3], hi[3];
        adaptive_cell(g, o, lo, hi);
        const T gv = gyp[p * out_plane + i] / static_cast<T>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
        for_box(g, lo, hi, [&](int64_t at) { gs[at] += gv; });
      });
    }
  });
}

void adaptive_max_pool_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices) {
  dispatch_float_double(x.dtype(), "adaptive_max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    int64_t* ip = indices.data_ptr<int64_t>();
    const int64_t in_plane = g.in_numel(), out_plane = g.out_numel();
#pragma omp parallel for schedule(static) if (worth_parallel(g.planes, g.planes * (in_plane + out_plane)))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      for_outputs(g, [&](int64_t i, const int64_t (&o)[3]) {
        int64_t lo[3], hi[3];
        adaptive_cell(g, o, lo, hi);
        int64_t best_i = (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
        T best = xs[best_i];
        for_box(g, lo, hi, [&](int64_t at) {
          const T val = xs[at];
          if (val > best || (std::isnan(val) && !std::isnan(best))) {
            best = val;
            best_i = at;
          }
        });
        op[p * out_plane + i] = best;
        ip[p * out_plane + i] = best_i;
      });
    }
  });
}

void pool_scatter_kernel(int64_t planes, int64_t in_len, int64_t out_len, const Tensor& gy, const Tensor& indices,
                         const Tensor& gx) {
  dispatch_float_double(gx.dtype(), "_max_pool_scatter", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gyp = gy.data_ptr<T>();
    const int64_t* ip = indices.data_ptr<int64_t>();
    T* gxp = gx.data_ptr<T>();
    // Bounds first: an exception may not leave an OpenMP region.
    for (int64_t i = 0; i < planes * out_len; ++i)
      TL_CHECK_INDEX(ip[i] >= 0 && ip[i] < in_len, "_max_pool_scatter: index ", ip[i],
                     " is out of bounds for a plane of ", in_len, " elements");
#pragma omp parallel for schedule(static) if (worth_parallel(planes, planes * (in_len + out_len)))
    for (int64_t p = 0; p < planes; ++p) {
      T* gs = gxp + p * in_len;
      std::fill(gs, gs + in_len, T(0));
      for (int64_t i = 0; i < out_len; ++i) gs[ip[p * out_len + i]] += gyp[p * out_len + i];
    }
  });
}

}  // namespace

TL_REGISTER_POOLING_STUBS(CPU, kernel);

}  // namespace tl::native
