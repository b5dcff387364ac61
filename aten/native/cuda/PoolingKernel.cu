// CUDA pooling loops (geometry and the CPU's loops: Pooling.h, cpu/PoolingKernel.cpp). A
// thread per output element walks its window; the backward kernels add into the input
// gradient with atomics (windows overlap), so float sums may differ in the last bits between
// runs. Window spans, divisors and NaN handling are the CPU's.
#include <algorithm>
#include <limits>
#include <optional>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/Pooling.h"
#include "aten/native/cuda/GridStride.cuh"
#include "generated/ops/amax.h"
#include "generated/ops/amin.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

using grid_stride::grid_for;
using grid_stride::kThreads;

// Output element i as (plane, od, oh, ow).
struct OutPos {
  int64_t p, o[3];
  __device__ OutPos(const PoolGeom& g, int64_t i) {
    o[2] = i % g.out[2];
    o[1] = (i / g.out[2]) % g.out[1];
    o[0] = (i / (g.out[2] * g.out[1])) % g.out[0];
    p = i / (g.out[2] * g.out[1] * g.out[0]);
  }
};

__device__ int64_t in_plane(const PoolGeom& g) { return g.in[0] * g.in[1] * g.in[2]; }

// One dimension of the avg pooling window: [lo, hi) clipped to the input, and its length
// clipped only to the input plus padding (count_include_pad's count).
struct AvgSpan {
  int64_t lo, hi, padded;
};

__device__ AvgSpan avg_span(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t n) {
  const int64_t lo = o * stride - pad, hi = lo + k < n + pad ? lo + k : n + pad;
  return {lo > 0 ? lo : 0, hi < n ? hi : n, hi - lo};
}

struct AvgArgs {
  bool count_include_pad;
  bool has_divisor;
  int64_t divisor;
};

// The window of output position `pos`, and its divisor.
__device__ int64_t avg_window(const PoolGeom& g, const OutPos& pos, const AvgArgs& a, AvgSpan (&s)[3]) {
  for (int d = 0; d < 3; ++d) s[d] = avg_span(pos.o[d], g.stride[d], g.pad[d], g.k[d], g.in[d]);
  if (a.has_divisor) return a.divisor;
  return a.count_include_pad ? s[0].padded * s[1].padded * s[2].padded
                             : (s[0].hi - s[0].lo) * (s[1].hi - s[1].lo) * (s[2].hi - s[2].lo);
}

// The adaptive cell of output position `pos`: [floor(o*in/out), ceil((o+1)*in/out)).
__device__ void adaptive_cell(const PoolGeom& g, const OutPos& pos, int64_t (&lo)[3], int64_t (&hi)[3]) {
  for (int d = 0; d < 3; ++d) {
    lo[d] = (pos.o[d] * g.in[d]) / g.out[d];
    hi[d] = ((pos.o[d] + 1) * g.in[d] + g.out[d] - 1) / g.out[d];
  }
}

template <typename T>
__device__ bool takes_max(T val, T best) {
  return val > best || (val != val && best == best);  // NaN wins and stays
}

template <typename T>
__global__ void max_pool_kernel(PoolGeom g, int64_t n, const T* x, T* out, int64_t* indices) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const OutPos pos(g, i);
    const T* xs = x + pos.p * in_plane(g);
    T best = T(0);
    int64_t best_i = -1;
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
      const int64_t d = pos.o[0] * g.stride[0] - g.pad[0] + kd * g.dil[0];
      if (d < 0 || d >= g.in[0]) continue;
      for (int64_t kh = 0; kh < g.k[1]; ++kh) {
        const int64_t h = pos.o[1] * g.stride[1] - g.pad[1] + kh * g.dil[1];
        if (h < 0 || h >= g.in[1]) continue;
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const int64_t w = pos.o[2] * g.stride[2] - g.pad[2] + kw * g.dil[2];
          if (w < 0 || w >= g.in[2]) continue;
          const int64_t at = (d * g.in[1] + h) * g.in[2] + w;
          const T val = xs[at];
          if (best_i < 0 || takes_max(val, best)) {
            best = val;
            best_i = at;
          }
        }
      }
    }
    // A window entirely in the padding: -inf and index 0, as on the CPU.
    out[i] = best_i < 0 ? -std::numeric_limits<T>::infinity() : best;
    indices[i] = best_i < 0 ? 0 : best_i;
  }
}

template <typename T>
__global__ void avg_pool_kernel(PoolGeom g, int64_t n, const T* x, T* out, AvgArgs a) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const OutPos pos(g, i);
    AvgSpan s[3];
    const int64_t div = avg_window(g, pos, a, s);
    const T* xs = x + pos.p * in_plane(g);
    T sum = T(0);
    for (int64_t d = s[0].lo; d < s[0].hi; ++d)
      for (int64_t h = s[1].lo; h < s[1].hi; ++h)
        for (int64_t w = s[2].lo; w < s[2].hi; ++w) sum += xs[(d * g.in[1] + h) * g.in[2] + w];
    out[i] = sum / static_cast<T>(div);
  }
}

template <typename T>
__global__ void avg_pool_backward_kernel(PoolGeom g, int64_t n, const T* gy, T* gx, AvgArgs a) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const OutPos pos(g, i);
    AvgSpan s[3];
    const T gv = gy[i] / static_cast<T>(avg_window(g, pos, a, s));
    T* gs = gx + pos.p * in_plane(g);
    for (int64_t d = s[0].lo; d < s[0].hi; ++d)
      for (int64_t h = s[1].lo; h < s[1].hi; ++h)
        for (int64_t w = s[2].lo; w < s[2].hi; ++w) atomicAdd(gs + (d * g.in[1] + h) * g.in[2] + w, gv);
  }
}

template <typename T>
__global__ void adaptive_avg_pool_kernel(PoolGeom g, int64_t n, const T* x, T* out) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const OutPos pos(g, i);
    int64_t lo[3], hi[3];
    adaptive_cell(g, pos, lo, hi);
    const T* xs = x + pos.p * in_plane(g);
    T sum = T(0);
    for (int64_t d = lo[0]; d < hi[0]; ++d)
      for (int64_t h = lo[1]; h < hi[1]; ++h)
        for (int64_t w = lo[2]; w < hi[2]; ++w) sum += xs[(d * g.in[1] + h) * g.in[2] + w];
    out[i] = sum / static_cast<T>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
  }
}

template <typename T>
__global__ void adaptive_avg_pool_backward_kernel(PoolGeom g, int64_t n, const T* gy, T* gx) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const OutPos pos(g, i);
    int64_t lo[3], hi[3];
    adaptive_cell(g, pos, lo, hi);
    const T gv = gy[i] / static_cast<T>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
    T* gs = gx + pos.p * in_plane(g);
    for (int64_t d = lo[0]; d < hi[0]; ++d)
      for (int64_t h = lo[1]; h < hi[1]; ++h)
        for (int64_t w = lo[2]; w < hi[2]; ++w) atomicAdd(gs + (d * g.in[1] + h) * g.in[2] + w, gv);
  }
}

template <typename T>
__global__ void adaptive_max_pool_kernel(PoolGeom g, int64_t n, const T* x, T* out, int64_t* indices) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const OutPos pos(g, i);
    int64_t lo[3], hi[3];
    adaptive_cell(g, pos, lo, hi);
    const T* xs = x + pos.p * in_plane(g);
    int64_t best_i = (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
    T best = xs[best_i];
    for (int64_t d = lo[0]; d < hi[0]; ++d)
      for (int64_t h = lo[1]; h < hi[1]; ++h)
        for (int64_t w = lo[2]; w < hi[2]; ++w) {
          const int64_t at = (d * g.in[1] + h) * g.in[2] + w;
          if (takes_max(xs[at], best)) {
            best = xs[at];
            best_i = at;
          }
        }
    out[i] = best;
    indices[i] = best_i;
  }
}

template <typename T>
__global__ void pool_scatter_kernel(int64_t n, int64_t in_len, int64_t out_len, const T* gy, const int64_t* idx,
                                    T* gx) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    atomicAdd(gx + (i / out_len) * in_len + idx[i], gy[i]);
}

// Runs f(T{}, stream) for float or double on x's device.
template <typename F>
void launch(const char* name, const Tensor& x, F&& f) {
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(x.dtype(), name, [&](auto tag) {
    f(typename decltype(tag)::type{}, stream);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

AvgArgs avg_args(bool count_include_pad, std::optional<int64_t> divisor_override) {
  return {count_include_pad, divisor_override.has_value(), divisor_override.value_or(1)};
}

void max_pool_cuda(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices) {
  const int64_t n = out.numel();
  launch("max_pool", x, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    max_pool_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, static_cast<const T*>(x.data_ptr()),
                                                             static_cast<T*>(out.data_ptr()),
                                                             static_cast<int64_t*>(indices.data_ptr()));
  });
}

void avg_pool_cuda(const PoolGeom& g, const Tensor& x, const Tensor& out, bool count_include_pad,
                   std::optional<int64_t> divisor_override) {
  const int64_t n = out.numel();
  launch("avg_pool", x, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    avg_pool_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, static_cast<const T*>(x.data_ptr()),
                                                             static_cast<T*>(out.data_ptr()),
                                                             avg_args(count_include_pad, divisor_override));
  });
}

void avg_pool_backward_cuda(const PoolGeom& g, const Tensor& gy, const Tensor& gx, bool count_include_pad,
                            std::optional<int64_t> divisor_override) {
  gx.zero_();
  const int64_t n = gy.numel();
  launch("avg_pool_backward", gx, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    avg_pool_backward_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, static_cast<const T*>(gy.data_ptr()),
                                                                      static_cast<T*>(gx.data_ptr()),
                                                                      avg_args(count_include_pad, divisor_override));
  });
}

void adaptive_avg_pool_cuda(const PoolGeom& g, const Tensor& x, const Tensor& out) {
  const int64_t n = out.numel();
  launch("adaptive_avg_pool", x, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    adaptive_avg_pool_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, static_cast<const T*>(x.data_ptr()),
                                                                      static_cast<T*>(out.data_ptr()));
  });
}

void adaptive_avg_pool_backward_cuda(const PoolGeom& g, const Tensor& gy, const Tensor& gx) {
  gx.zero_();
  const int64_t n = gy.numel();
  launch("adaptive_avg_pool_backward", gx, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    adaptive_avg_pool_backward_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        g, n, static_cast<const T*>(gy.data_ptr()), static_cast<T*>(gx.data_ptr()));
  });
}

void adaptive_max_pool_cuda(const PoolGeom& g, const Tensor& x, const Tensor& out, const Tensor& indices) {
  const int64_t n = out.numel();
  launch("adaptive_max_pool", x, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    adaptive_max_pool_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(g, n, static_cast<const T*>(x.data_ptr()),
                                                                      static_cast<T*>(out.data_ptr()),
                                                                      static_cast<int64_t*>(indices.data_ptr()));
  });
}

void pool_scatter_cuda(int64_t planes, int64_t in_len, int64_t out_len, const Tensor& gy, const Tensor& indices,
                       const Tensor& gx) {
  const int64_t n = planes * out_len;
  if (n > 0) {  // bounds first, as on the CPU (two reductions, read back)
    const int64_t lo = indices.amin().item().to_long(), hi = indices.amax().item().to_long();
    const int64_t bad = lo < 0 ? lo : hi;
    TL_CHECK_INDEX(lo >= 0 && hi < in_len, "_max_pool_scatter: index ", bad, " is out of bounds for a plane of ",
                   in_len, " elements");
  }
  gx.zero_();
  launch("_max_pool_scatter", gx, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    pool_scatter_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(n, in_len, out_len,
                                                                 static_cast<const T*>(gy.data_ptr()),
                                                                 static_cast<const int64_t*>(indices.data_ptr()),
                                                                 static_cast<T*>(gx.data_ptr()));
  });
}

}  // namespace

TL_REGISTER_POOLING_STUBS(CUDA, cuda);

}  // namespace tl::native
