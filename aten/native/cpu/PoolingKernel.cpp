// CPU pooling loops (geometry in Pooling.h). Planes are independent: OpenMP splits them when
// the work is large enough.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "aten/native/Pooling.h"

namespace tl::native {

namespace {

constexpr int64_t kGrain = 1 << 15;  // elements of work below which one thread does it all

bool parallel_for(int64_t planes, int64_t work_per_plane) {
  return planes > 1 && planes * work_per_plane >= kGrain && omp_get_max_threads() > 1;
}

// Start index of adaptive cell o of `out` cells over `in` elements, and its end (exclusive).
inline int64_t cell_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
inline int64_t cell_end(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

// The window of output (oh, ow) for avg pooling: clipped bounds and the divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1, div;
};

inline AvgWindow avg_window(const PoolGeom& g, int64_t oh, int64_t ow, bool count_include_pad,
                            std::optional<int64_t> divisor_override) {
  int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  int64_t h1 = std::min(h0 + g.KH, g.H + g.ph), w1 = std::min(w0 + g.KW, g.W + g.pw);
  const int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.H);
  w1 = std::min(w1, g.W);
  int64_t div = divisor_override ? *divisor_override : count_include_pad ? padded : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, div};
}

}  // namespace

void max_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices) {
  dispatch_float_double(x.dtype(), "max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    int64_t* ip = indices.data_ptr<int64_t>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (parallel_for(g.planes, out_plane * g.KH * g.KW))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t w0 = ow * g.sw - g.pw;
          T best = -std::numeric_limits<T>::infinity();
          int64_t best_i = -1;
          for (int64_t kh = 0; kh < g.KH; ++kh) {
            const int64_t h = h0 + kh * g.dh;
            if (h < 0 || h >= g.H) continue;
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              const int64_t w = w0 + kw * g.dw;
              if (w < 0 || w >= g.W) continue;
              const T val = xs[h * g.W + w];
              // NaN wins and stays (PyTorch propagates NaN); the first maximum is kept.
              if (best_i < 0 || val > best || (std::isnan(val) && !std::isnan(best))) {
                best = val;
                best_i = h * g.W + w;
              }
            }
          }
          op[p * out_plane + oh * g.OW + ow] = best;
          ip[p * out_plane + oh * g.OW + ow] = best_i < 0 ? 0 : best_i;
        }
      }
    }
  });
}

void avg_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, bool count_include_pad,
                       std::optional<int64_t> divisor_override) {
  dispatch_float_double(x.dtype(), "avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (parallel_for(g.planes, out_plane * g.KH * g.KW))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const AvgWindow win = avg_window(g, oh, ow, count_include_pad, divisor_override);
          T s = T(0);
          for (int64_t h = win.h0; h < win.h1; ++h)
            for (int64_t w = win.w0; w < win.w1; ++w) s += xs[h * g.W + w];
          op[p * out_plane + oh * g.OW + ow] = win.div == 0 ? s / T(0) : s / static_cast<T>(win.div);
        }
      }
    }
  });
}

void avg_pool2d_backward_kernel(const PoolGeom& g, const Tensor& gy, const Tensor& gx, bool count_include_pad,
                                std::optional<int64_t> divisor_override) {
  dispatch_float_double(gx.dtype(), "avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gyp = gy.data_ptr<T>();
    T* gxp = gx.data_ptr<T>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (parallel_for(g.planes, out_plane * g.KH * g.KW))
    for (int64_t p = 0; p < g.planes; ++p) {
      T* gs = gxp + p * in_plane;
      std::fill(gs, gs + in_plane, T(0));
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const AvgWindow win = avg_window(g, oh, ow, count_include_pad, divisor_override);
          const T gv = gyp[p * out_plane + oh * g.OW + ow] / static_cast<T>(win.div);
          for (int64_t h = win.h0; h < win.h1; ++h)
            for (int64_t w = win.w0; w < win.w1; ++w) gs[h * g.W + w] += gv;
        }
      }
    }
  });
}

void adaptive_avg_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out) {
  dispatch_float_double(x.dtype(), "adaptive_avg_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (parallel_for(g.planes, in_plane + out_plane))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t h0 = cell_start(oh, g.OH, g.H), h1 = cell_end(oh, g.OH, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t w0 = cell_start(ow, g.OW, g.W), w1 = cell_end(ow, g.OW, g.W);
          T s = T(0);
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) s += xs[h * g.W + w];
          op[p * out_plane + oh * g.OW + ow] = s / static_cast<T>((h1 - h0) * (w1 - w0));
        }
      }
    }
  });
}

void adaptive_avg_pool2d_backward_kernel(const PoolGeom& g, const Tensor& gy, const Tensor& gx) {
  dispatch_float_double(gx.dtype(), "adaptive_avg_pool2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gyp = gy.data_ptr<T>();
    T* gxp = gx.data_ptr<T>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (parallel_for(g.planes, in_plane + out_plane))
    for (int64_t p = 0; p < g.planes; ++p) {
      T* gs = gxp + p * in_plane;
      std::fill(gs, gs + in_plane, T(0));
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t h0 = cell_start(oh, g.OH, g.H), h1 = cell_end(oh, g.OH, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t w0 = cell_start(ow, g.OW, g.W), w1 = cell_end(ow, g.OW, g.W);
          const T gv = gyp[p * out_plane + oh * g.OW + ow] / static_cast<T>((h1 - h0) * (w1 - w0));
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) gs[h * g.W + w] += gv;
        }
      }
    }
  });
}

void adaptive_max_pool2d_kernel(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices) {
  dispatch_float_double(x.dtype(), "adaptive_max_pool2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    int64_t* ip = indices.data_ptr<int64_t>();
    const int64_t in_plane = g.H * g.W, out_plane = g.OH * g.OW;
#pragma omp parallel for schedule(static) if (parallel_for(g.planes, in_plane + out_plane))
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* xs = xp + p * in_plane;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t h0 = cell_start(oh, g.OH, g.H), h1 = cell_end(oh, g.OH, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t w0 = cell_start(ow, g.OW, g.W), w1 = cell_end(ow, g.OW, g.W);
          int64_t best_i = h0 * g.W + w0;
          T best = xs[best_i];
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const T val = xs[h * g.W + w];
              if (val > best || (std::isnan(val) && !std::isnan(best))) {
                best = val;
                best_i = h * g.W + w;
              }
            }
          }
          op[p * out_plane + oh * g.OW + ow] = best;
          ip[p * out_plane + oh * g.OW + ow] = best_i;
        }
      }
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
#pragma omp parallel for schedule(static) if (parallel_for(planes, in_len + out_len))
    for (int64_t p = 0; p < planes; ++p) {
      T* gs = gxp + p * in_len;
      std::fill(gs, gs + in_len, T(0));
      for (int64_t i = 0; i < out_len; ++i) gs[ip[p * out_len + i]] += gyp[p * out_len + i];
    }
  });
}

}  // namespace tl::native
