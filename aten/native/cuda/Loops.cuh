#pragma once
// Note [CUDA elementwise loops]: gpu_kernel(iter, f) runs the same scalar functor as
// cpu_kernel (aten/native/ElementwiseFunctors.h, TL_HOST_DEVICE) over a built
// TensorIterator on a CUDA device: one output, N inputs, operand types read off the functor
// (they must equal the iterator's operand dtypes, which is checked).
// - The iterator's (reordered, coalesced) shape and byte strides, at most kMaxDims dims, are
//   passed by value in an OffsetCalculator; each thread turns its linear index into one
//   byte offset per operand (dim 0 moves fastest).
// - Index math is 32-bit (unsigned element indices, signed byte offsets, since a stride may be
//   negative): an iteration too large for it is launched in pieces that fit
//   (Note [32-bit index splits]).
// - When a piece is contiguous (one dim, every operand dense and aligned to kVecWidth
//   elements) each thread moves kVecWidth consecutive elements of each operand with one vector
//   load or store (16 bytes for float, the widest one instruction moves); anything else, an
//   unaligned slice included, takes the strided kernel.
// - Work goes on the current stream of the iterator's device (Note [Current stream]) and
//   is asynchronous; launch errors are reported at once as RuntimeError.
// Functors are called by value: keep their state small (scalars), as on the CPU.
#include <cuda_runtime.h>

#include <cuda/std/tuple>

#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/FunctionTraits.h"
#include "aten/native/IndexSplit.h"
#include "aten/native/TensorIterator.h"

namespace tl::native {

namespace cuda_detail {

constexpr int kMaxDims = 16;
constexpr int kThreads = 256;
constexpr int kItemsPerThread = 4;
constexpr int64_t kBlockWork = int64_t(kThreads) * kItemsPerThread;

template <typename T, int N>
struct Array {
  T v[N];
  TL_HOST_DEVICE T& operator[](int i) { return v[i]; }
  TL_HOST_DEVICE const T& operator[](int i) const { return v[i]; }
};

template <int NARGS, typename index_t>
struct OffsetCalculator {
  using offset_t = std::make_signed_t<index_t>;
  int ndim = 0;
  index_t sizes[kMaxDims];
  offset_t strides[kMaxDims][NARGS];  // bytes

  __device__ Array<offset_t, NARGS> get(index_t linear) const {
    Array<offset_t, NARGS> off;
#pragma unroll
    for (int a = 0; a < NARGS; ++a) off[a] = 0;
    // Not unrolled: fully unrolled over kMaxDims, this loop made each strided kernel four times
    // the SASS (13.4 MB vs 3.2 MB for one stub shard) and quadrupled nvcc's device time, for a
    // loop that runs ndim times and is dominated by the division. The sizes and strides are
    // read from the kernel parameters as they are indexed (no copy to local memory: ptxas
    // reports 0-byte stack frames).
#pragma unroll 1
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim) break;
      const index_t i = linear % sizes[d];
      linear /= sizes[d];
#pragma unroll
      for (int a = 0; a < NARGS; ++a) off[a] += static_cast<offset_t>(i) * strides[d][a];
    }
    return off;
  }
};

template <typename F, typename Off, size_t... I>
__device__ __forceinline__ void apply_strided(const F& f, const Array<char*, sizeof...(I) + 1>& data, const Off& off,
                                              std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  *reinterpret_cast<R*>(data[0] + off[0]) =
      f(*reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1] + off[I + 1])...);
}

template <typename F, typename index_t, size_t... I>
__device__ __forceinline__ void apply_contiguous(const F& f, const Array<char*, sizeof...(I) + 1>& data, index_t idx,
                                                 std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  reinterpret_cast<R*>(data[0])[idx] = f(reinterpret_cast<const typename traits::template arg<I>*>(data[I + 1])[idx]...);
}

template <int NARGS, typename index_t, typename F>
__global__ void __launch_bounds__(kThreads)
    strided_elementwise_kernel(index_t n, OffsetCalculator<NARGS, index_t> calc, Array<char*, NARGS> data, F f) {
  index_t idx = static_cast<index_t>(blockIdx.x) * static_cast<index_t>(kBlockWork) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k, idx += kThreads) {
    if (idx < n) apply_strided(f, data, calc.get(idx), std::make_index_sequence<NARGS - 1>{});
  }
}

constexpr int kVecWidth = kItemsPerThread;

template <typename T>
struct alignas(sizeof(T) * kVecWidth) VecOf {
  T v[kVecWidth];
};

template <typename F, size_t... I>
__device__ __forceinline__ void apply_vectorized(const F& f, const Array<char*, sizeof...(I) + 1>& data, uint32_t first,
                                                 std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  const auto loaded = ::cuda::std::make_tuple(
      reinterpret_cast<const VecOf<typename traits::template arg<I>>*>(data[I + 1])[first / kVecWidth]...);
  VecOf<R> out;
#pragma unroll
  for (int k = 0; k < kVecWidth; ++k) out.v[k] = f(::cuda::std::get<I>(loaded).v[k]...);
  reinterpret_cast<VecOf<R>*>(data[0])[first / kVecWidth] = out;
}

// Each thread takes kVecWidth consecutive elements; the ragged end (n not a multiple of the
// block's work) falls back to one element at a time.
template <int NARGS, typename F>
__global__ void __launch_bounds__(kThreads) vectorized_elementwise_kernel(uint32_t n, Array<char*, NARGS> data, F f) {
  const uint32_t first = blockIdx.x * static_cast<uint32_t>(kBlockWork) + threadIdx.x * kVecWidth;
  if (first + kVecWidth <= n) {
    apply_vectorized(f, data, first, std::make_index_sequence<NARGS - 1>{});
    return;
  }
  for (uint32_t idx = first; idx < n; ++idx) apply_contiguous(f, data, idx, std::make_index_sequence<NARGS - 1>{});
}

// Launches one piece of the iteration that fits 32-bit indexing (Note [32-bit index splits]):
// the vectorized kernel when it is one dim, dense and aligned in every operand, else the
// strided one.
template <int NARGS, typename F>
void launch_32bit(const IndexPiece& piece, const Array<char*, NARGS>& base, const Array<int64_t, NARGS>& elem_sizes,
                  const F& f, cudaStream_t stream) {
  int64_t numel = 1;
  for (int64_t s : piece.shape) numel *= s;
  if (numel == 0) return;
  Array<char*, NARGS> data;
  for (int a = 0; a < NARGS; ++a) data[a] = base[a] + piece.offsets[a];
  const uint32_t n = static_cast<uint32_t>(numel);
  const unsigned blocks = static_cast<unsigned>((numel + kBlockWork - 1) / kBlockWork);
  const int ndim = static_cast<int>(piece.shape.size());
  bool contiguous = ndim == 1;
  for (int a = 0; a < NARGS && contiguous; ++a) contiguous = piece.strides[a][0] == elem_sizes[a];
  for (int a = 0; a < NARGS && contiguous; ++a)
    contiguous = reinterpret_cast<uintptr_t>(data[a]) % (elem_sizes[a] * kVecWidth) == 0;
  if (contiguous) {
    vectorized_elementwise_kernel<NARGS><<<blocks, kThreads, 0, stream>>>(n, data, f);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  OffsetCalculator<NARGS, uint32_t> calc;
  calc.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    calc.sizes[d] = static_cast<uint32_t>(piece.shape[d]);
    for (int a = 0; a < NARGS; ++a) calc.strides[d][a] = static_cast<int32_t>(piece.strides[a][d]);
  }
  strided_elementwise_kernel<NARGS, uint32_t><<<blocks, kThreads, 0, stream>>>(n, calc, data, f);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename F, size_t... I>
std::array<ScalarType, sizeof...(I) + 1> arg_scalar_types(std::index_sequence<I...>) {
  using traits = function_traits<F>;
  return {CppToScalarType<typename traits::template arg<I>>::value..., ScalarType::Bool};  // + padding for N == 0
}

}  // namespace cuda_detail

template <typename F>
void gpu_kernel(TensorIterator& iter, const F& f) {
  using traits = function_traits<F>;
  constexpr int N = static_cast<int>(traits::arity);
  constexpr int NARGS = N + 1;
  TL_CHECK(iter.noutputs() == 1 && iter.ninputs() == N, "gpu_kernel: functor arity ", N,
           " does not match the iterator's ", iter.ninputs(), " inputs");
  TL_CHECK(iter.device().is_cuda(), "gpu_kernel: expected CUDA tensors, got ", iter.device());
  TL_CHECK(CppToScalarType<typename traits::result_type>::value == iter.dtype(0), "gpu_kernel: functor result type ",
           CppToScalarType<typename traits::result_type>::value, " does not match the output dtype ", iter.dtype(0));
  const auto arg_types = cuda_detail::arg_scalar_types<F>(std::make_index_sequence<N>{});
  for (int i = 0; i < N; ++i) {
    TL_CHECK(arg_types[i] == iter.dtype(i + 1), "gpu_kernel: functor argument ", i, " has type ", arg_types[i],
             " but the input dtype is ", iter.dtype(i + 1));
  }
  if (iter.numel() == 0) return;
  TL_CHECK(iter.ndim() <= cuda_detail::kMaxDims, "gpu_kernel: ", iter.ndim(),
           " dims after coalescing; at most ", cuda_detail::kMaxDims, " are supported");

  const int device = iter.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  cuda_detail::Array<char*, NARGS> data;
  cuda_detail::Array<int64_t, NARGS> elem_sizes;
  IndexPiece whole{iter.shape(), {}, std::vector<int64_t>(NARGS, 0)};
  for (int a = 0; a < NARGS; ++a) {
    data[a] = static_cast<char*>(iter.data_ptr(a));
    elem_sizes[a] = static_cast<int64_t>(iter.operand(a).element_size());
    whole.strides.push_back(iter.strides(a));
  }
  std::vector<IndexPiece> pieces;
  split_for_32bit_indexing(whole, pieces);
  for (const IndexPiece& piece : pieces) cuda_detail::launch_32bit<NARGS>(piece, data, elem_sizes, f, stream);
}

}  // namespace tl::native
