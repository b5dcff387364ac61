// The CUDA search behind searchsorted and bucketize (Bucketize.h): a binary search per value,
// one thread each, with the CPU's std::lower_bound / std::upper_bound order (operator<).
#include <algorithm>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/Bucketize.h"

namespace tl::native {

namespace {

constexpr int kThreads = 256;

template <typename T, typename Out>
__global__ void searchsorted_kernel(int64_t total, int64_t n, int64_t per_row, const T* seq, const T* vals, bool right,
                                    Out* out) {
  for (int64_t i = blockIdx.x * int64_t(kThreads) + threadIdx.x; i < total; i += int64_t(gridDim.x) * kThreads) {
    const T* row = seq + (per_row == 0 ? 0 : (i / per_row) * n);
    const T v = vals[i];
    int64_t lo = 0, hi = n;  // the answer lies in [lo, hi]
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      // lower_bound: skip elements < v; upper_bound: skip elements <= v (that is, !(v < e)).
      const bool skip = right ? !(v < row[mid]) : row[mid] < v;
      if (skip) lo = mid + 1;
      else hi = mid;
    }
    out[i] = static_cast<Out>(lo);
  }
}

void searchsorted_cuda(const Tensor& seq, const Tensor& vals, const Tensor& result, bool right, int64_t per_row) {
  const int64_t total = vals.numel(), n = seq.size(seq.dim() - 1);
  const int device = vals.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const unsigned grid = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((total + kThreads - 1) / kThreads, 65535)));
  dispatch_all_types(seq.dtype(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = static_cast<const T*>(seq.data_ptr());
    const T* v = static_cast<const T*>(vals.data_ptr());
    if (result.dtype() == ScalarType::Int)
      searchsorted_kernel<T, int32_t><<<grid, kThreads, 0, stream>>>(total, n, per_row, s, v, right,
                                                                     static_cast<int32_t*>(result.data_ptr()));
    else
      searchsorted_kernel<T, int64_t><<<grid, kThreads, 0, stream>>>(total, n, per_row, s, v, right,
                                                                     static_cast<int64_t*>(result.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(searchsorted_stub, CUDA, &searchsorted_cuda);

}  // namespace tl::native
