// CUDA loop of fractional_max_pool2d/3d (FractionalMaxPool.h): a thread per output element
// places its window (fractional_window_start, as the CPU) and walks it.
#include <algorithm>
#include <limits>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/FractionalMaxPool.h"
#include "aten/native/cuda/GridStride.cuh"

namespace tl::native {

namespace {

using grid_stride::grid_for;
using grid_stride::kThreads;

template <typename T>
__global__ void fractional_max_pool_kernel(FractionalPoolGeom g, int64_t n, const T* x, const T* samples, T* out,
                                           int64_t* indices) {
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2], in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const int64_t plane = i / out_plane, r = i % out_plane;
    const int64_t o[3] = {r / (g.out[1] * g.out[2]), (r / g.out[2]) % g.out[1], r % g.out[2]};
    const T* u = samples + plane * g.nd;
    const T ut = g.nd == 3 ? u[0] : T(0), uh = u[1], uw = g.nd == 3 ? u[2] : u[0];
    const int64_t t0 = g.nd == 3 ? fractional_window_start(ut, g.in[0], g.out[0], g.k[0], o[0]) : 0;
    const int64_t h0 = fractional_window_start(uh, g.in[1], g.out[1], g.k[1], o[1]);
    const int64_t w0 = fractional_window_start(uw, g.in[2], g.out[2], g.k[2], o[2]);
    const T* xs = x + plane * in_plane;
    T best = -std::numeric_limits<T>::infinity();
    int64_t best_i = (t0 * g.in[1] + h0) * g.in[2] + w0;
    for (int64_t t = t0; t < t0 + g.k[0]; ++t)
      for (int64_t h = h0; h < h0 + g.k[1]; ++h)
        for (int64_t w = w0; w < w0 + g.k[2]; ++w) {
          const int64_t at = (t * g.in[1] + h) * g.in[2] + w;
          const T v = xs[at];
          if (v > best || v != v) {  // a NaN wins, the last one (as the CPU)
            best = v;
            best_i = at;
          }
        }
    out[i] = best;
    indices[i] = best_i;
  }
}

void fractional_max_pool_cuda(const FractionalPoolGeom& g, const Tensor& x, const Tensor& samples, const Tensor& out,
                              const Tensor& indices) {
  const int64_t n = out.numel();
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(x.dtype(), "fractional_max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    fractional_max_pool_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
        g, n, static_cast<const T*>(x.data_ptr()), static_cast<const T*>(samples.data_ptr()),
        static_cast<T*>(out.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(fractional_max_pool_stub, CUDA, &fractional_max_pool_cuda);

}  // namespace tl::native
