// CUDA loops of the fused RNN cells (RNN.h): a thread per (row, hidden unit) runs the CPU's unit
// math (RNNCellMath.h); bias gradients sum the gate gradients over rows, a thread per column.
#include <algorithm>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/OptionalTensor.h"
#include "aten/native/RNN.h"
#include "aten/native/RNNCellMath.h"
#include "aten/native/cuda/GridStride.cuh"

namespace tl::native {

namespace {

using grid_stride::grid_for;
using grid_stride::kThreads;

#define TL_GRID_STRIDE_LOOP(i, n) \
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * kThreads)

template <typename T>
__global__ void lstm_cell_kernel(int64_t N, int64_t H, const T* ig, const T* hg, const T* bi, const T* bh,
                                 const T* cx, T* hy, T* cy, T* ws) {
  TL_GRID_STRIDE_LOOP(i, N * H) {
    const int64_t b = i / H, j = i % H;
    rnn::lstm_cell_unit(H, j, ig + b * 4 * H, hg + b * 4 * H, bi, bh, cx + b * H, hy + b * H, cy + b * H,
                        ws + b * 4 * H);
  }
}

template <typename T>
__global__ void lstm_cell_backward_kernel(int64_t N, int64_t H, const T* dh, const T* dc, const T* cx, const T* cy,
                                          const T* ws, T* dg, T* dcx) {
  TL_GRID_STRIDE_LOOP(i, N * H) {
    const int64_t b = i / H, j = i % H;
    rnn::lstm_cell_backward_unit(H, j, dh ? dh + b * H : nullptr, dc ? dc + b * H : nullptr, cx + b * H, cy + b * H,
                                 ws + b * 4 * H, dg + b * 4 * H, dcx + b * H);
  }
}

template <typename T>
__global__ void gru_cell_kernel(int64_t N, int64_t H, const T* ig, const T* hg, const T* bi, const T* bh,
                                const T* hx, T* hy, T* ws) {
  TL_GRID_STRIDE_LOOP(i, N * H) {
    const int64_t b = i / H, j = i % H;
    rnn::gru_cell_unit(H, j, ig + b * 3 * H, hg + b * 3 * H, bi, bh, hx + b * H, hy + b * H, ws + b * 5 * H);
  }
}

template <typename T>
__global__ void gru_cell_backward_kernel(int64_t N, int64_t H, const T* dh, const T* ws, T* dgi, T* dgh, T* dhx) {
  TL_GRID_STRIDE_LOOP(i, N * H) {
    const int64_t b = i / H, j = i % H;
    rnn::gru_cell_backward_unit(H, j, dh ? dh + b * H : nullptr, ws + b * 5 * H, dgi + b * 3 * H, dgh + b * 3 * H,
                                dhx + b * H);
  }
}

// out (W) = the rows of m (R, W) summed: a thread per column, so reads coalesce across threads.
template <typename T>
__global__ void sum_rows_kernel(int64_t R, int64_t W, const T* m, T* out) {
  TL_GRID_STRIDE_LOOP(j, W) {
    T s = T(0);
    for (int64_t r = 0; r < R; ++r) s += m[r * W + j];
    out[j] = s;
  }
}

#undef TL_GRID_STRIDE_LOOP

template <typename T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Runs f(T{}, stream) for float or double on t's device.
template <typename F>
void launch(const char* name, const Tensor& t, F&& f) {
  const int device = t.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_float_double(t.dtype(), name, [&](auto tag) {
    f(typename decltype(tag)::type{}, stream);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void lstm_cell_cuda(const Tensor& ig, const Tensor& hg, const Tensor& bi, const Tensor& bh, const Tensor& cx,
                    const Tensor& hy, const Tensor& cy, const Tensor& ws) {
  const int64_t N = cx.sizes()[0], H = cx.sizes()[1];
  launch("_thnn_fused_lstm_cell", cx, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    lstm_cell_kernel<T><<<grid_for(N * H), kThreads, 0, stream>>>(N, H, ptr_or_null<T>(ig), ptr_or_null<T>(hg),
                                                                   ptr_or_null<T>(bi), ptr_or_null<T>(bh),
                                                                   ptr_or_null<T>(cx), ptr<T>(hy), ptr<T>(cy),
                                                                   ptr<T>(ws));
  });
}

void lstm_cell_backward_cuda(const Tensor& dh, const Tensor& dc, const Tensor& cx, const Tensor& cy, const Tensor& ws,
                             const Tensor& dg, const Tensor& dcx, const Tensor& db) {
  const int64_t N = cx.sizes()[0], H = cx.sizes()[1];
  launch("_thnn_fused_lstm_cell_backward_impl", cx, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    lstm_cell_backward_kernel<T><<<grid_for(N * H), kThreads, 0, stream>>>(
        N, H, ptr_or_null<T>(dh), ptr_or_null<T>(dc), ptr_or_null<T>(cx), ptr_or_null<T>(cy), ptr_or_null<T>(ws),
        ptr<T>(dg), ptr<T>(dcx));
    if (db.defined())
      sum_rows_kernel<T><<<grid_for(4 * H), kThreads, 0, stream>>>(N, 4 * H, ptr_or_null<T>(dg), ptr<T>(db));
  });
}

void gru_cell_cuda(const Tensor& ig, const Tensor& hg, const Tensor& bi, const Tensor& bh, const Tensor& hx,
                   const Tensor& hy, const Tensor& ws) {
  const int64_t N = hx.sizes()[0], H = hx.sizes()[1];
  launch("_thnn_fused_gru_cell", hx, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    gru_cell_kernel<T><<<grid_for(N * H), kThreads, 0, stream>>>(N, H, ptr_or_null<T>(ig), ptr_or_null<T>(hg),
                                                                  ptr_or_null<T>(bi), ptr_or_null<T>(bh),
                                                                  ptr_or_null<T>(hx), ptr<T>(hy), ptr<T>(ws));
  });
}

void gru_cell_backward_cuda(const Tensor& dh, const Tensor& ws, const Tensor& dgi, const Tensor& dgh,
                            const Tensor& dhx, const Tensor& dbi, const Tensor& dbh) {
  const int64_t N = dhx.sizes()[0], H = dhx.sizes()[1];
  launch("_thnn_fused_gru_cell_backward", ws, [&](auto zero, cudaStream_t stream) {
    using T = decltype(zero);
    gru_cell_backward_kernel<T><<<grid_for(N * H), kThreads, 0, stream>>>(
        N, H, ptr_or_null<T>(dh), ptr_or_null<T>(ws), ptr<T>(dgi), ptr<T>(dgh), ptr<T>(dhx));
    if (dbi.defined()) {
      sum_rows_kernel<T><<<grid_for(3 * H), kThreads, 0, stream>>>(N, 3 * H, ptr_or_null<T>(dgi), ptr<T>(dbi));
      sum_rows_kernel<T><<<grid_for(3 * H), kThreads, 0, stream>>>(N, 3 * H, ptr_or_null<T>(dgh), ptr<T>(dbh));
    }
  });
}

}  // namespace

TL_REGISTER_STUB(lstm_cell_stub, CUDA, &lstm_cell_cuda);
TL_REGISTER_STUB(lstm_cell_backward_stub, CUDA, &lstm_cell_backward_cuda);
TL_REGISTER_STUB(gru_cell_stub, CUDA, &gru_cell_cuda);
TL_REGISTER_STUB(gru_cell_backward_stub, CUDA, &gru_cell_backward_cuda);

}  // namespace tl::native
