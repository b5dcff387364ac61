#pragma once
// Note [CUDA reductions]: gpu_reduce_inner(input, out, inner, ops) reduces each run of
// `inner` consecutive elements of a contiguous CUDA tensor to one element of `out`
// (rows = input.numel() / inner outputs, written densely into `out`'s memory). That covers
// a reduction over all elements (inner = numel, one output) and over the innermost dims.
// gpu_reduce_columns(input, out, outer, R, inner, ops) reduces the middle dim of a contiguous
// input viewed as [outer, R, inner] (inner > 1: the reduced dims are one block followed by kept
// dims, as in x.sum(0)) without moving it: one thread per output walks its column, and
// neighbouring threads read neighbouring addresses. Other reductions permute the reduced dims
// to the end and call .contiguous() first.
//
// `ops` is a functor struct shared with the CPU engine (ReduceFunctors.h, TL_HOST_DEVICE):
//   acc_t identity() const;                        // start value
//   acc_t reduce(acc_t acc, in_t v) const;         // fold one input in
//   acc_t combine(acc_t a, acc_t b) const;         // merge two partial results
//   out_t project(acc_t acc) const;                // final value (mean divides here)
// with `using acc_t = ...; using out_t = ...;` inside the struct (SumOp).
//
// Strategy (rows): one block (256 threads) per row, threads striding over the row and combining
// through shared memory. When there are few rows and they are long, each row is split over
// several blocks (grid.y) that write partials to a scratch buffer from the caching
// allocator, and a second kernel combines them. Runs on the current stream, asynchronously.
#include <cuda_runtime.h>

#include <algorithm>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

namespace cuda_detail {

constexpr int kReduceThreads = 256;

template <typename acc_t, typename Ops>
__device__ acc_t block_combine(acc_t v, const Ops& ops) {
  __shared__ acc_t smem[kReduceThreads];
  smem[threadIdx.x] = v;
  __syncthreads();
  for (int s = kReduceThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) smem[threadIdx.x] = ops.combine(smem[threadIdx.x], smem[threadIdx.x + s]);
    __syncthreads();
  }
  acc_t r = smem[0];
  __syncthreads();  // smem is reused by the next row
  return r;
}

// grid.x strides over rows, grid.y splits each row into `splits` chunks.
template <typename in_t, typename Ops>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_rows_kernel(const in_t* in, int64_t rows, int64_t inner, int64_t chunk, typename Ops::out_t* out,
                       typename Ops::acc_t* partial, Ops ops) {
  using acc_t = typename Ops::acc_t;
  const int64_t splits = gridDim.y;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = begin + chunk < inner ? begin + chunk : inner;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const in_t* p = in + row * inner;
    acc_t acc = ops.identity();
    for (int64_t i = begin + threadIdx.x; i < end; i += kReduceThreads) acc = ops.reduce(acc, p[i]);
    acc = block_combine(acc, ops);
    if (threadIdx.x == 0) {
      if (splits == 1) out[row] = ops.project(acc);
      else partial[row * splits + blockIdx.y] = acc;
    }
  }
}

template <typename Ops>
__global__ void __launch_bounds__(kReduceThreads)
    combine_partials_kernel(const typename Ops::acc_t* partial, int64_t rows, int64_t splits,
                            typename Ops::out_t* out, Ops ops) {
  using acc_t = typename Ops::acc_t;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    acc_t acc = ops.identity();
    for (int64_t i = threadIdx.x; i < splits; i += kReduceThreads) acc = ops.combine(acc, partial[row * splits + i]);
    acc = block_combine(acc, ops);
    if (threadIdx.x == 0) out[row] = ops.project(acc);
  }
}

// grid.x strides over the outer * inner outputs (a thread each), grid.y splits R into chunks.
// Four running accumulators per thread keep four loads in flight.
template <typename in_t, typename Ops>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_columns_kernel(const in_t* in, int64_t outer, int64_t R, int64_t inner, int64_t chunk,
                          typename Ops::out_t* out, typename Ops::acc_t* partial, Ops ops) {
  using acc_t = typename Ops::acc_t;
  const int64_t splits = gridDim.y;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = begin + chunk < R ? begin + chunk : R;
  const int64_t cols = outer * inner;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < cols;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const in_t* p = in + (c / inner) * R * inner + c % inner;
    acc_t a0 = ops.identity(), a1 = a0, a2 = a0, a3 = a0;
    int64_t r = begin;
    for (; r + 4 <= end; r += 4) {
      a0 = ops.reduce(a0, p[r * inner]);
      a1 = ops.reduce(a1, p[(r + 1) * inner]);
      a2 = ops.reduce(a2, p[(r + 2) * inner]);
      a3 = ops.reduce(a3, p[(r + 3) * inner]);
    }
    for (; r < end; ++r) a0 = ops.reduce(a0, p[r * inner]);
    const acc_t acc = ops.combine(ops.combine(a0, a1), ops.combine(a2, a3));
    if (splits == 1) out[c] = ops.project(acc);
    else partial[c * splits + blockIdx.y] = acc;
  }
}

inline int multiprocessor_count(int device) {
  int n = 0;
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
  return n;
}

}  // namespace cuda_detail

// `input`: contiguous CUDA tensor of in_t; `out`: contiguous CUDA tensor of Ops::out_t with
// input.numel() / inner elements. inner == 0 (empty rows) writes project(identity()).
template <typename in_t, typename Ops>
void gpu_reduce_inner(const Tensor& input, const Tensor& out, int64_t inner, const Ops& ops) {
  using acc_t = typename Ops::acc_t;
  using out_t = typename Ops::out_t;
  TL_CHECK(input.is_cuda() && out.is_cuda() && input.device() == out.device(),
           "gpu_reduce_inner: expected input and out on one CUDA device, got ", input.device(), " and ", out.device());
  TL_CHECK(input.is_contiguous() && out.is_contiguous(), "gpu_reduce_inner: expected contiguous tensors");
  TL_CHECK(input.dtype() == CppToScalarType<in_t>::value && out.dtype() == CppToScalarType<out_t>::value,
           "gpu_reduce_inner: dtypes ", input.dtype(), " -> ", out.dtype(), " do not match the reduction's types");
  const int64_t rows = out.numel();
  TL_CHECK(inner >= 0 && rows * inner == input.numel(), "gpu_reduce_inner: ", input.numel(),
           " input elements do not form ", rows, " rows of ", inner);
  if (rows == 0) return;

  const int device = input.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const int sms = cuda_detail::multiprocessor_count(device);
  constexpr int64_t kMinChunk = int64_t(cuda_detail::kReduceThreads) * 16;
  int64_t splits = 1;
  if (rows < 2 * sms && inner > 2 * kMinChunk) {
    const int64_t want_blocks = 4 * int64_t(sms);
    splits = std::min<int64_t>({(want_blocks + rows - 1) / rows, (inner + kMinChunk - 1) / kMinChunk, 1024});
  }
  const int64_t chunk = splits == 1 ? inner : (inner + splits - 1) / splits;
  const unsigned grid_x = static_cast<unsigned>(std::min<int64_t>(rows, 65535));
  const in_t* in = static_cast<const in_t*>(input.data_ptr());
  out_t* o = static_cast<out_t*>(out.data_ptr());
  if (splits == 1) {
    cuda_detail::reduce_rows_kernel<in_t, Ops>
        <<<dim3(grid_x, 1), cuda_detail::kReduceThreads, 0, stream>>>(in, rows, inner, chunk, o, nullptr, ops);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  // Scratch from the caching allocator: freed at the end of this scope, reused only by
  // later work on the same stream, which runs after these kernels.
  const int64_t scratch_bytes = rows * splits * static_cast<int64_t>(sizeof(acc_t));
  Tensor scratch = empty_tensor(IntArrayRef(&scratch_bytes, 1), TensorOptions(ScalarType::Byte, input.device()));
  acc_t* partial = static_cast<acc_t*>(scratch.data_ptr());
  cuda_detail::reduce_rows_kernel<in_t, Ops><<<dim3(grid_x, static_cast<unsigned>(splits)),
                                                cuda_detail::kReduceThreads, 0, stream>>>(in, rows, inner, chunk, o,
                                                                                          partial, ops);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
  cuda_detail::combine_partials_kernel<Ops>
      <<<grid_x, cuda_detail::kReduceThreads, 0, stream>>>(partial, rows, splits, o, ops);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
}

// `input`: contiguous CUDA tensor of in_t viewed as [outer, R, inner]; `out`: contiguous CUDA
// tensor of Ops::out_t with outer * inner elements (out[o * inner + j] reduces input[o, :, j]).
template <typename in_t, typename Ops>
void gpu_reduce_columns(const Tensor& input, const Tensor& out, int64_t outer, int64_t R, int64_t inner,
                        const Ops& ops) {
  using acc_t = typename Ops::acc_t;
  using out_t = typename Ops::out_t;
  TL_CHECK(input.is_cuda() && out.is_cuda() && input.device() == out.device() && input.is_contiguous() &&
               out.is_contiguous() && input.dtype() == CppToScalarType<in_t>::value &&
               out.dtype() == CppToScalarType<out_t>::value && outer * R * inner == input.numel() &&
               outer * inner == out.numel(),
           "gpu_reduce_columns: input ", input.sizes(), " and out ", out.sizes(), " do not form [", outer, ", ", R,
           ", ", inner, "] -> [", outer, ", ", inner, "]");
  const int64_t cols = outer * inner;
  if (cols == 0) return;
  const int device = input.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const int sms = cuda_detail::multiprocessor_count(device);
  constexpr int64_t kThreads = cuda_detail::kReduceThreads, kMinChunk = 64;
  const int64_t col_blocks = (cols + kThreads - 1) / kThreads;
  int64_t splits = 1;
  if (col_blocks < 2 * sms && R > 2 * kMinChunk)
    splits = std::min<int64_t>({(4 * int64_t(sms) + col_blocks - 1) / col_blocks, (R + kMinChunk - 1) / kMinChunk, 1024});
  const int64_t chunk = splits == 1 ? R : (R + splits - 1) / splits;
  const unsigned grid_x = static_cast<unsigned>(std::min<int64_t>(col_blocks, 65535));
  const in_t* in = static_cast<const in_t*>(input.data_ptr());
  out_t* o = static_cast<out_t*>(out.data_ptr());
  if (splits == 1) {
    cuda_detail::reduce_columns_kernel<in_t, Ops>
        <<<dim3(grid_x, 1), kThreads, 0, stream>>>(in, outer, R, inner, chunk, o, nullptr, ops);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  const int64_t scratch_bytes = cols * splits * static_cast<int64_t>(sizeof(acc_t));
  Tensor scratch = empty_tensor(IntArrayRef(&scratch_bytes, 1), TensorOptions(ScalarType::Byte, input.device()));
  acc_t* partial = static_cast<acc_t*>(scratch.data_ptr());
  cuda_detail::reduce_columns_kernel<in_t, Ops><<<dim3(grid_x, static_cast<unsigned>(splits)), kThreads, 0, stream>>>(
      in, outer, R, inner, chunk, o, partial, ops);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
  cuda_detail::combine_partials_kernel<Ops>
      <<<static_cast<unsigned>(std::min<int64_t>(cols, 65535)), kThreads, 0, stream>>>(partial, cols, splits, o, ops);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace tl::native
