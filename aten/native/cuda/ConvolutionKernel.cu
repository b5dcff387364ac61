// CUDA convolution loops: im2col / col2im around the CUDA bmm (Note [Convolution as three
// bilinear maps] in Convolution.h; checks, shapes and dtypes are Convolution.cpp's, for every
// device). Samples go through in chunks of nb. A chunk's column matrix col (C*K x nb x L, with
// K = KD*KH*KW taps and L = OD*OH*OW output positions) holds in row (c, kd, kh, kw), at
// (n, l), the input element that tap meets at output position l of sample n (zero in the
// padding). A group's rows are consecutive, so with the y side laid out as (O x nb x L) each
// map is one bmm over the groups:
//   F:  y (Og x nb*L) = w (Og x CgK) @ col,  then y moves into (nb, O, L)
//   Bx: col = w^T @ gy,                       then col2im gathers each x element's taps
//   Bw: gw (Og x CgK) += gy @ col^T           (the accumulation over the batch is the GEMM's)
// col2im is a gather (a thread per x element sums its taps), so results are deterministic.
#include <algorithm>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/Convolution.h"
#include "aten/native/cuda/GridStride.cuh"
#include "generated/ops/add.h"
#include "generated/ops/bmm.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/narrow.h"
#include "generated/ops/transpose.h"
#include "generated/ops/view.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

using grid_stride::kThreads;
// Most elements one chunk's column matrix may hold (128 MiB of float): enough for GEMMs wide
// enough to fill the GPU, and bounded memory for large batches.
constexpr int64_t kColumnBudget = int64_t(1) << 25;

using grid_stride::grid_for;

// col (C*K x nb x L) of samples [n0, n0 + nb) of x (N, C, *in): a thread per (c, n, l) writes
// that position's K taps (one index decomposition for all of them).
template <typename T>
__global__ void im2col_kernel(ConvGeom g, int64_t n0, int64_t nb, const T* x, T* col) {
  const int64_t L = g.out[0] * g.out[1] * g.out[2], K = g.k[0] * g.k[1] * g.k[2];
  const int64_t in_numel = g.in[0] * g.in[1] * g.in[2], total = g.C * nb * L;
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < total; i += int64_t(gridDim.x) * kThreads) {
    const int64_t l = i % L, n = (i / L) % nb, c = i / (L * nb);
    const int64_t ow = l % g.out[2], oh = (l / g.out[2]) % g.out[1], od = l / (g.out[2] * g.out[1]);
    const T* xs = x + ((n0 + n) * g.C + c) * in_numel;
    T* dst = col + (c * K * nb + n) * L + l;  // tap 0's entry; each next tap is nb*L further
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
      const int64_t d = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
      for (int64_t kh = 0; kh < g.k[1]; ++kh) {
        const int64_t h = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
          const int64_t w = ow * g.stride[2] - g.pad[2] + kw * g.dil[2];
          const bool inside = d >= 0 && d < g.in[0] && h >= 0 && h < g.in[1] && w >= 0 && w < g.in[2];
          *dst = inside ? xs[(d * g.in[1] + h) * g.in[2] + w] : T(0);
          dst += nb * L;
        }
      }
    }
  }
}

// The output positions o < out whose input coordinate o*stride - pad + k*dil is i, for each
// tap k < taps: calls f(k, o).
template <typename F>
__device__ void for_each_tap(int64_t i, int64_t taps, int64_t stride, int64_t pad, int64_t dil, int64_t out, F&& f) {
  for (int64_t k = 0; k < taps; ++k) {
    const int64_t t = i + pad - k * dil;
    if (t < 0) break;  // t only decreases with k
    if (t % stride == 0 && t / stride < out) f(k, t / stride);
  }
}

// Samples [n0, n0 + nb) of gx (N, C, *in) = the sum of each element's entries in col
// (C*K x nb x L) + bias[c] (when given).
template <typename T>
__global__ void col2im_kernel(ConvGeom g, int64_t n0, int64_t nb, const T* col, const T* bias, T* gx) {
  const int64_t L = g.out[0] * g.out[1] * g.out[2], K = g.k[0] * g.k[1] * g.k[2];
  const int64_t in_numel = g.in[0] * g.in[1] * g.in[2], total = nb * g.C * in_numel;
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < total; i += int64_t(gridDim.x) * kThreads) {
    const int64_t w = i % g.in[2], h = (i / g.in[2]) % g.in[1], d = (i / (g.in[2] * g.in[1])) % g.in[0];
    const int64_t c = (i / in_numel) % g.C, n = i / (in_numel * g.C);
    T acc = bias != nullptr ? bias[c] : T(0);
    for_each_tap(d, g.k[0], g.stride[0], g.pad[0], g.dil[0], g.out[0], [&](int64_t kd, int64_t od) {
      for_each_tap(h, g.k[1], g.stride[1], g.pad[1], g.dil[1], g.out[1], [&](int64_t kh, int64_t oh) {
        for_each_tap(w, g.k[2], g.stride[2], g.pad[2], g.dil[2], g.out[2], [&](int64_t kw, int64_t ow) {
          const int64_t row = c * K + (kd * g.k[1] + kh) * g.k[2] + kw;
          acc += col[(row * nb + n) * L + (od * g.out[1] + oh) * g.out[2] + ow];
        });
      });
    });
    gx[n0 * g.C * in_numel + i] = acc;
  }
}

int64_t chunk_size(const ConvGeom& g) {
  const int64_t per_sample = std::max<int64_t>(1, g.C * g.k_numel() * g.out_numel());
  return std::clamp<int64_t>(kColumnBudget / per_sample, 1, std::max<int64_t>(g.N, 1));
}

cudaStream_t stream_of(const Tensor& t) { return cuda::current_cuda_stream(t.device().index); }

// t.view(shape) from a vector: ArrayRef's initializer-list constructor trips -Winit-list-lifetime, an
// error in the CUDA build.
Tensor viewed(const Tensor& t, const std::vector<int64_t>& shape) { return t.view(shape); }

// The column matrix of samples [n0, n0 + nb) of x, as (G, CgK, nb*L).
template <typename T>
Tensor im2col(const ConvGeom& g, const Tensor& x, int64_t n0, int64_t nb) {
  const std::vector<int64_t> shape{g.groups, g.C / g.groups * g.k_numel(), nb * g.out_numel()};
  Tensor col = empty_tensor(shape, x.options());
  const int64_t total = g.C * nb * g.out_numel();
  im2col_kernel<T><<<grid_for(total), kThreads, 0, stream_of(x)>>>(g, n0, nb, static_cast<const T*>(x.data_ptr()),
                                                                    static_cast<T*>(col.data_ptr()));
  TL_CUDA_KERNEL_LAUNCH_CHECK();
  return col;
}

// Samples [n0, n0 + nb) of gy (N, O, *out) as (G, Og, nb*L).
Tensor y_side_rows(const ConvGeom& g, const Tensor& gy, int64_t n0, int64_t nb) {
  const Tensor rows = viewed(gy.narrow(0, n0, nb), {nb, g.O, g.out_numel()}).transpose(0, 1).contiguous();
  return viewed(rows, {g.groups, g.O / g.groups, nb * g.out_numel()});
}

// w (O, Cg, *k) as (G, Og, CgK).
Tensor weight_rows(const ConvGeom& g, const Tensor& w) {
  return viewed(w, {g.groups, g.O / g.groups, g.C / g.groups * g.k_numel()});
}

void conv_forward_cuda(const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y) {
  if (y.numel() == 0) return;
  cuda::CUDAGuard guard(y.device().index);
  dispatch_float_double(x.dtype(), "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t L = g.out_numel();
    if (g.C == 0 || g.k_numel() == 0) {  // an empty reduction: y is the bias
      y.zero_();
    } else {
      const Tensor wr = weight_rows(g, w);
      const int64_t chunk = chunk_size(g);
      for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
        const int64_t nb = std::min(chunk, g.N - n0);
        const Tensor prod = tl::bmm(wr, im2col<T>(g, x, n0, nb));  // (G, Og, nb*L)
        viewed(y.narrow(0, n0, nb), {nb, g.O, L}).copy_(viewed(prod, {g.O, nb, L}).transpose(0, 1));
      }
    }
    if (bias.defined()) viewed(y, {g.N, g.O, L}).add_(viewed(bias, {g.O, 1}));
  });
}

void conv_backward_input_cuda(const ConvGeom& g, const Tensor& gy, const Tensor& w, const Tensor& bias,
                              const Tensor& gx) {
  if (gx.numel() == 0) return;
  cuda::CUDAGuard guard(gx.device().index);
  dispatch_float_double(gx.dtype(), "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g.O == 0 || g.out_numel() == 0 || g.k_numel() == 0) {  // an empty reduction: gx is the bias
      gx.zero_();
      if (bias.defined()) viewed(gx, {g.N, g.C, g.in_numel()}).add_(viewed(bias, {g.C, 1}));
      return;
    }
    const Tensor wt = weight_rows(g, w).transpose(1, 2);  // (G, CgK, Og)
    const int64_t chunk = chunk_size(g);
    for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.N - n0);
      const Tensor col = tl::bmm(wt, y_side_rows(g, gy, n0, nb));  // (G, CgK, nb*L)
      const int64_t total = nb * g.C * g.in_numel();
      col2im_kernel<T><<<grid_for(total), kThreads, 0, stream_of(gx)>>>(
          g, n0, nb, static_cast<const T*>(col.data_ptr()),
          bias.defined() ? static_cast<const T*>(bias.data_ptr()) : nullptr, static_cast<T*>(gx.data_ptr()));
      TL_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
}

void conv_backward_weight_cuda(const ConvGeom& g, const Tensor& x, const Tensor& gy, const Tensor& gw) {
  if (gw.numel() == 0) return;
  cuda::CUDAGuard guard(gw.device().index);
  dispatch_float_double(gw.dtype(), "convolution", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (g.N == 0 || g.out_numel() == 0) {  // an empty sum
      gw.zero_();
      return;
    }
    const Tensor gwr = weight_rows(g, gw);
    const int64_t chunk = chunk_size(g);
    for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
      const int64_t nb = std::min(chunk, g.N - n0);
      const Tensor prod = tl::bmm(y_side_rows(g, gy, n0, nb), im2col<T>(g, x, n0, nb).transpose(1, 2));
      if (n0 == 0) {
        gwr.copy_(prod);
      } else {
        gwr.add_(prod);
      }
    }
  });
}

}  // namespace

TL_REGISTER_CONVOLUTION_STUBS(CUDA, cuda);

}  // namespace tl::native
