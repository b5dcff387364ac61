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
//   elements, except inputs of stride 0 such as a Python number's 0-dim tensor, which are read
//   once) each thread moves kVecWidth consecutive elements of each operand with one vector
//   load or store (16 bytes for float, the widest one instruction moves); anything else, an
//   unaligned slice included, takes the strided kernel.
// - Work goes on the current stream of the iterator's device (Note [Current stream]) and
//   is asynchronous; launch errors are reported at once as RuntimeError.
// Functors are called by value: keep their state small (scalars), as on the CPU.
#include <cuda_runtime.h>

#include <cuda/std/tuple>

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/FunctionTraits.h"
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
      // One division: the remainder from the quotient (at -Ofc nvcc divides twice for `%`).
      const index_t q = linear / sizes[d];
      const index_t i = linear - q * sizes[d];
      linear = q;
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

// Input I is read at idx, or at 0 when bit I of `broadcast` says it has stride 0.
template <typename F, size_t... I>
__device__ __forceinline__ void apply_contiguous(const F& f, const Array<char*, sizeof...(I) + 1>& data, uint32_t idx,
                                                 uint32_t broadcast, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  reinterpret_cast<R*>(data[0])[idx] = f(reinterpret_cast<const typename traits::template arg<I>*>(
      data[I + 1])[(broadcast >> I) & 1 ? 0 : idx]...);
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

// kVecWidth elements of one operand from `first`: one vector load, or one element repeated when
// the operand has stride 0 (the test is the same for every thread of the launch).
template <typename T>
__device__ __forceinline__ VecOf<T> load_vec(const char* data, uint32_t first, bool broadcast) {
  if (broadcast) {
    VecOf<T> v;
    const T x = *reinterpret_cast<const T*>(data);
#pragma unroll
    for (int k = 0; k < kVecWidth; ++k) v.v[k] = x;
    return v;
  }
  return reinterpret_cast<const VecOf<T>*>(data)[first / kVecWidth];
}

template <typename F, size_t... I>
__device__ __forceinline__ void apply_vectorized(const F& f, const Array<char*, sizeof...(I) + 1>& data, uint32_t first,
                                                 uint32_t broadcast, std::index_sequence<I...>) {
  using traits = function_traits<F>;
  using R = typename traits::result_type;
  const auto loaded =
      ::cuda::std::make_tuple(load_vec<typename traits::template arg<I>>(data[I + 1], first, (broadcast >> I) & 1)...);
  VecOf<R> out;
#pragma unroll
  for (int k = 0; k < kVecWidth; ++k) out.v[k] = f(::cuda::std::get<I>(loaded).v[k]...);
  reinterpret_cast<VecOf<R>*>(data[0])[first / kVecWidth] = out;
}

// Each thread takes kVecWidth consecutive elements; the ragged end (n not a multiple of the
// block's work) falls back to one element at a time. Bit I of `broadcast`: input I has stride 0.
template <int NARGS, typename F>
__global__ void __launch_bounds__(kThreads)
    vectorized_elementwise_kernel(uint32_t n, Array<char*, NARGS> data, uint32_t broadcast, F f) {
  const uint32_t first = blockIdx.x * static_cast<uint32_t>(kBlockWork) + threadIdx.x * kVecWidth;
  if (first + kVecWidth <= n) {
    apply_vectorized(f, data, first, broadcast, std::make_index_sequence<NARGS - 1>{});
    return;
  }
  for (uint32_t idx = first; idx < n; ++idx)
    apply_contiguous(f, data, idx, broadcast, std::make_index_sequence<NARGS - 1>{});
}

// One piece of the iteration that fits 32-bit indexing (Note [32-bit index splits]), ready to
// launch: the vectorized kernel's arguments when it is one dim, dense and aligned to kVecWidth
// elements in every operand but inputs of stride 0 (bit i of `broadcast` for input i), else the
// strided one's (sizes, and signed byte strides [dim][operand]).
struct LaunchPiece {
  static constexpr int kMaxArgs = 8;  // operands: the output and up to 7 inputs
  uint32_t n = 0;
  unsigned blocks = 0;
  bool vectorized = false;
  uint32_t broadcast = 0;
  int ndim = 0;
  char* data[kMaxArgs];
  uint32_t sizes[kMaxDims];
  int32_t strides[kMaxDims][kMaxArgs];
};

// Launches one piece with functor *f on `stream`: the only host code that depends on the functor.
using LaunchFn = void (*)(const LaunchPiece& piece, cudaStream_t stream, const void* f);

// The functor-independent host side of gpu_kernel, compiled once (Loops.cu) instead of once per
// functor and dtype, which made the host compiler the largest part of a stub shard's build:
// checks the iterator against the functor's operand types (`types`: the result's, then each
// argument's), cuts it into pieces and calls `launch` for each on the device's current stream.
void run_gpu_kernel(TensorIterator& iter, int nargs, const ScalarType* types, LaunchFn launch, const void* f);

template <int NARGS, typename F>
void launch_piece(const LaunchPiece& piece, cudaStream_t stream, const void* fp) {
  const F& f = *static_cast<const F*>(fp);
  Array<char*, NARGS> data;
  for (int a = 0; a < NARGS; ++a) data[a] = piece.data[a];
  if (piece.vectorized) {
    vectorized_elementwise_kernel<NARGS><<<piece.blocks, kThreads, 0, stream>>>(piece.n, data, piece.broadcast, f);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  OffsetCalculator<NARGS, uint32_t> calc;
  calc.ndim = piece.ndim;
  for (int d = 0; d < piece.ndim; ++d) {
    calc.sizes[d] = piece.sizes[d];
    for (int a = 0; a < NARGS; ++a) calc.strides[d][a] = piece.strides[d][a];
  }
  strided_elementwise_kernel<NARGS, uint32_t><<<piece.blocks, kThreads, 0, stream>>>(piece.n, calc, data, f);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename F, size_t... I>
std::array<ScalarType, sizeof...(I) + 1> operand_scalar_types(std::index_sequence<I...>) {
  using traits = function_traits<F>;
  return {CppToScalarType<typename traits::result_type>::value,
          CppToScalarType<typename traits::template arg<I>>::value...};
}

}  // namespace cuda_detail

template <typename F>
void gpu_kernel(TensorIterator& iter, const F& f) {
  constexpr int N = static_cast<int>(function_traits<F>::arity);
  static_assert(N + 1 <= cuda_detail::LaunchPiece::kMaxArgs, "gpu_kernel: too many functor arguments");
  const auto types = cuda_detail::operand_scalar_types<F>(std::make_index_sequence<N>{});
  cuda_detail::run_gpu_kernel(iter, N + 1, types.data(), &cuda_detail::launch_piece<N + 1, F>, &f);
}

}  // namespace tl::native
