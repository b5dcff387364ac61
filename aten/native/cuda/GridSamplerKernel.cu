// CUDA loops of grid_sampler_2d / grid_sampler_3d and their backward (layout in GridSampler.h):
// a thread per output point makes the point's taps (GridSamplerTaps.h, as the CPU does) and runs
// them over every channel. The backward adds into the input gradient with atomics (points share
// taps), so float sums may differ in the last bits between runs; the grid gradient is the
// thread's own.
#include <algorithm>
#include <type_traits>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/GridSampler.h"
#include "aten/native/GridSamplerTaps.h"
#include "aten/native/cuda/GridStride.cuh"

namespace tl::native {

namespace {

using grid_stride::grid_for;
using grid_stride::kThreads;

int64_t plane_size(const GridSamplerGeom& g) { return g.in[0] * g.in[1] * (g.nd == 3 ? g.in[2] : 1); }

// Thread i: point p of batch element n (i = n * points + p).
template <typename T, int ND>
__global__ void grid_sampler_kernel(GridSamplerGeom g, int64_t plane, const T* x, const T* grid, T* out) {
  const grid::TapMaker<T, ND, false> maker(g);
  const int K = grid::tap_count(g.mode, ND);
  const int64_t total = g.N * g.points;
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < total; i += int64_t(gridDim.x) * kThreads) {
    const int64_t n = i / g.points, p = i % g.points;
    grid::Taps<T, ND, false> t;
    maker.make(grid + i * ND, t);
    for (int64_t c = 0; c < g.C; ++c) {
      const T* xc = x + (n * g.C + c) * plane;
      T acc = T(0);
      for (int k = 0; k < K; ++k) acc += t.weight[k] * (t.offset[k] >= 0 ? xc[t.offset[k]] : T(0));
      out[(n * g.C + c) * g.points + p] = acc;
    }
  }
}

template <typename T, int ND>
__global__ void grid_sampler_backward_kernel(GridSamplerGeom g, int64_t plane, const T* go, const T* x,
                                             const T* grid, T* gx, T* ggrid) {
  const grid::TapMaker<T, ND, true> maker(g);
  const int K = grid::tap_count(g.mode, ND);
  const int64_t total = g.N * g.points;
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < total; i += int64_t(gridDim.x) * kThreads) {
    const int64_t n = i / g.points, p = i % g.points;
    grid::Taps<T, ND, true> t;
    maker.make(grid + i * ND, t);
    T gsum[ND] = {};
    for (int64_t c = 0; c < g.C; ++c) {
      const T goc = go[(n * g.C + c) * g.points + p];
      const T* xc = x + (n * g.C + c) * plane;
      T* gxc = gx ? gx + (n * g.C + c) * plane : nullptr;
      for (int k = 0; k < K; ++k) {
        const int64_t o = t.offset[k];
        if (o < 0) continue;
        if (gxc) atomicAdd(gxc + o, t.weight[k] * goc);
        if (ggrid) {
          const T v = xc[o] * goc;
          for (int j = 0; j < ND; ++j) gsum[j] += v * t.dweight[k][j];
        }
      }
    }
    if (ggrid)
      for (int j = 0; j < ND; ++j) ggrid[i * ND + j] = gsum[j];
  }
}

// Runs f(T{}, nd tag, stream) for float or double, 2 or 3 spatial dimensions, on t's device.
template <typename F>
void launch(const char* name, const GridSamplerGeom& g, const Tensor& t, F&& f) {
  const int device = t.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(t.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g.nd == 2)
      f(T{}, std::integral_constant<int, 2>{}, stream);
    else
      f(T{}, std::integral_constant<int, 3>{}, stream);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void grid_sampler_cuda(const GridSamplerGeom& g, const Tensor& input, const Tensor& grid, const Tensor& out) {
  launch("grid_sampler", g, input, [&](auto zero, auto nd, cudaStream_t stream) {
    using T = decltype(zero);
    grid_sampler_kernel<T, decltype(nd)::value><<<grid_for(g.N * g.points), kThreads, 0, stream>>>(
        g, plane_size(g), static_cast<const T*>(input.data_ptr()), static_cast<const T*>(grid.data_ptr()),
        static_cast<T*>(out.data_ptr()));
  });
}

void grid_sampler_backward_cuda(const GridSamplerGeom& g, const Tensor& grad_output, const Tensor& input,
                                const Tensor& grid, const Tensor& grad_input, const Tensor& grad_grid) {
  launch("grid_sampler_backward", g, input, [&](auto zero, auto nd, cudaStream_t stream) {
    using T = decltype(zero);
    grid_sampler_backward_kernel<T, decltype(nd)::value><<<grid_for(g.N * g.points), kThreads, 0, stream>>>(
        g, plane_size(g), static_cast<const T*>(grad_output.data_ptr()), static_cast<const T*>(input.data_ptr()),
        static_cast<const T*>(grid.data_ptr()), grad_input.defined() ? static_cast<T*>(grad_input.data_ptr()) : nullptr,
        grad_grid.defined() ? static_cast<T*>(grad_grid.data_ptr()) : nullptr);
  });
}

}  // namespace

TL_REGISTER_STUB(grid_sampler_stub, CUDA, &grid_sampler_cuda);
TL_REGISTER_STUB(grid_sampler_backward_stub, CUDA, &grid_sampler_backward_cuda);

}  // namespace tl::native
