// CPU loops of grid_sampler_2d / grid_sampler_3d and their backward (layout in GridSampler.h,
// the per-point taps in GridSamplerTaps.h).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "aten/native/GridSampler.h"
#include "aten/native/GridSamplerTaps.h"
#include "aten/native/Parallel.h"

namespace tl::native {

namespace {

using grid::TapMaker;
using grid::Taps;
using grid::tap_count;

constexpr int64_t kGrain = 1 << 14;

// Output points are handled in blocks: the taps of a block are made once, then each channel
// runs over the block, so reads stay within one input plane and writes are contiguous.
constexpr int64_t kBlock = 64;

int64_t plane_size(const GridSamplerGeom& g) { return g.in[0] * g.in[1] * (g.nd == 3 ? g.in[2] : 1); }

template <typename T, int ND>
void sample_forward(const GridSamplerGeom& g, const T* xp, const T* gp, T* op) {
  const TapMaker<T, ND, false> maker(g);
  const int K = tap_count(g.mode, ND);
  const int64_t plane = plane_size(g), P = g.points, C = g.C;
  const int64_t blocks_per_n = (P + kBlock - 1) / kBlock, blocks = g.N * blocks_per_n;
  const bool parallel = worth_parallel(blocks, g.N * P * std::max<int64_t>(C, 1), kGrain);
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t n = b / blocks_per_n, p0 = (b % blocks_per_n) * kBlock, len = std::min(kBlock, P - p0);
    // Tap k of point i at [k][i], so that the channel loop below runs along the points.
    int64_t off[16][kBlock];
    T wt[16][kBlock], acc[kBlock];
    Taps<T, ND, false> t;
    for (int64_t i = 0; i < len; ++i) {
      maker.make(gp + (n * P + p0 + i) * ND, t);
      for (int k = 0; k < K; ++k) {
        off[k][i] = t.offset[k];
        wt[k][i] = t.weight[k];
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      const T* xc = xp + (n * C + c) * plane;
      std::fill(acc, acc + len, T(0));
      for (int k = 0; k < K; ++k) {
        const int64_t* o = off[k];
        const T* w = wt[k];
        for (int64_t i = 0; i < len; ++i) acc[i] += w[i] * (o[i] >= 0 ? xc[o[i]] : T(0));
      }
      std::copy(acc, acc + len, op + (n * C + c) * P + p0);
    }
  }
}

template <typename T, int ND>
void sample_backward(const GridSamplerGeom& g, const T* gop, const T* xp, const T* gp, T* gip, T* ggp) {
  const TapMaker<T, ND, true> maker(g);
  const int K = tap_count(g.mode, ND);
  const int64_t plane = plane_size(g), P = g.points, C = g.C;
  // Points of one batch element scatter into the same input gradient: batches run in parallel.
  const bool parallel = worth_parallel(g.N, g.N * P * std::max<int64_t>(C, 1), kGrain);
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t n = 0; n < g.N; ++n) {
    std::vector<Taps<T, ND, true>> taps(static_cast<size_t>(std::min(kBlock, P)));
    T gsum[kBlock][ND];
    for (int64_t p0 = 0; p0 < P; p0 += kBlock) {
      const int64_t len = std::min(kBlock, P - p0);
      for (int64_t i = 0; i < len; ++i) {
        maker.make(gp + (n * P + p0 + i) * ND, taps[i]);
        std::fill(gsum[i], gsum[i] + ND, T(0));
      }
      for (int64_t c = 0; c < C; ++c) {
        const T* goc = gop + (n * C + c) * P + p0;
        const T* xc = xp + (n * C + c) * plane;
        T* gic = gip ? gip + (n * C + c) * plane : nullptr;
        for (int64_t i = 0; i < len; ++i) {
          const auto& t = taps[i];
          const T go = goc[i];
          for (int k = 0; k < K; ++k) {
            const int64_t o = t.offset[k];
            if (o < 0) continue;
            if (gic) gic[o] += t.weight[k] * go;
            if (ggp) {
              const T v = xc[o] * go;
              for (int j = 0; j < ND; ++j) gsum[i][j] += v * t.dweight[k][j];
            }
          }
        }
      }
      if (ggp)
        for (int64_t i = 0; i < len; ++i) std::copy(gsum[i], gsum[i] + ND, ggp + (n * P + p0 + i) * ND);
    }
  }
}

void grid_sampler_kernel(const GridSamplerGeom& g, const Tensor& input, const Tensor& grid, const Tensor& out) {
  dispatch_float_double(input.dtype(), "grid_sampler", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g.nd == 2)
      sample_forward<T, 2>(g, input.data_ptr<T>(), grid.data_ptr<T>(), out.data_ptr<T>());
    else
      sample_forward<T, 3>(g, input.data_ptr<T>(), grid.data_ptr<T>(), out.data_ptr<T>());
  });
}

void grid_sampler_backward_kernel(const GridSamplerGeom& g, const Tensor& grad_output, const Tensor& input,
                                  const Tensor& grid, const Tensor& grad_input, const Tensor& grad_grid) {
  dispatch_float_double(input.dtype(), "grid_sampler_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* gip = grad_input.defined() ? grad_input.data_ptr<T>() : nullptr;
    T* ggp = grad_grid.defined() ? grad_grid.data_ptr<T>() : nullptr;
    const T *gop = grad_output.data_ptr<T>(), *xp = input.data_ptr<T>(), *gp = grid.data_ptr<T>();
    if (g.nd == 2)
      sample_backward<T, 2>(g, gop, xp, gp, gip, ggp);
    else
      sample_backward<T, 3>(g, gop, xp, gp, gip, ggp);
  });
}

}  // namespace

TL_REGISTER_STUB(grid_sampler_stub, CPU, &grid_sampler_kernel);
TL_REGISTER_STUB(grid_sampler_backward_stub, CPU, &grid_sampler_backward_kernel);

}  // namespace tl::native
