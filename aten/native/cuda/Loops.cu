// The host side of gpu_kernel that does not depend on the functor (Note [CUDA elementwise loops]).
#include <vector>

#include "aten/native/IndexSplit.h"
#include "aten/native/cuda/Loops.cuh"

namespace tl::native::cuda_detail {

void run_gpu_kernel(TensorIterator& iter, int nargs, const ScalarType* types, LaunchFn launch, const void* f) {
  const int N = nargs - 1;
  TL_CHECK(iter.noutputs() == 1 && iter.ninputs() == N, "gpu_kernel: functor arity ", N,
           " does not match the iterator's ", iter.ninputs(), " inputs");
  TL_CHECK(iter.device().is_cuda(), "gpu_kernel: expected CUDA tensors, got ", iter.device());
  TL_CHECK(types[0] == iter.dtype(0), "gpu_kernel: functor result type ", types[0],
           " does not match the output dtype ", iter.dtype(0));
  for (int i = 0; i < N; ++i) {
    TL_CHECK(types[i + 1] == iter.dtype(i + 1), "gpu_kernel: functor argument ", i, " has type ", types[i + 1],
             " but the input dtype is ", iter.dtype(i + 1));
  }
  if (iter.numel() == 0) return;
  TL_CHECK(iter.ndim() <= kMaxDims, "gpu_kernel: ", iter.ndim(), " dims after coalescing; at most ", kMaxDims,
           " are supported");

  const int device = iter.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  IndexPiece whole{iter.shape(), {}, std::vector<int64_t>(nargs, 0)};
  for (int a = 0; a < nargs; ++a) whole.strides.push_back(iter.strides(a));
  std::vector<IndexPiece> pieces;
  split_for_32bit_indexing(whole, pieces);
  for (const IndexPiece& p : pieces) {
    int64_t numel = 1;
    for (int64_t s : p.shape) numel *= s;
    if (numel == 0) continue;
    LaunchPiece piece;
    piece.n = static_cast<uint32_t>(numel);
    piece.blocks = static_cast<unsigned>((numel + kBlockWork - 1) / kBlockWork);
    piece.ndim = static_cast<int>(p.shape.size());
    piece.vectorized = piece.ndim == 1;
    for (int a = 0; a < nargs; ++a) {
      piece.data[a] = static_cast<char*>(iter.data_ptr(a)) + p.offsets[a];
      const int64_t elem = static_cast<int64_t>(iter.operand(a).element_size());
      if (!piece.vectorized) continue;
      if (a > 0 && p.strides[a][0] == 0) {
        piece.broadcast |= 1u << (a - 1);
        continue;
      }
      piece.vectorized = p.strides[a][0] == elem && reinterpret_cast<uintptr_t>(piece.data[a]) % (elem * kVecWidth) == 0;
    }
    for (int d = 0; d < piece.ndim; ++d) {
      piece.sizes[d] = static_cast<uint32_t>(p.shape[d]);
      for (int a = 0; a < nargs; ++a) piece.strides[d][a] = static_cast<int32_t>(p.strides[a][d]);
    }
    launch(piece, stream, f);
  }
}

}  // namespace tl::native::cuda_detail
