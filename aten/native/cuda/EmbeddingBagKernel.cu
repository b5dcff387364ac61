// CUDA loop of _embedding_bag (EmbeddingBag.h): a thread per bag records offset2bag and the bag
// size, then a thread per (bag, column) walks the bag's indices as the CPU loop does (sum, mean,
// or max keeping the first row to reach the maximum).
#include <algorithm>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/EmbeddingBag.h"
#include "aten/native/cuda/GridStride.cuh"

namespace tl::native {

namespace {

using grid_stride::kThreads;
constexpr int64_t kMean = 1, kMax = 2;

using grid_stride::grid_for;

__device__ void bag_span(const int64_t* off, int64_t b, int64_t B, int64_t n, int64_t& start, int64_t& end) {
  start = off[b];
  end = b + 1 < B ? off[b + 1] : n;
}

__global__ void bag_sizes_kernel(int64_t B, int64_t n, const int64_t* idx, const int64_t* off, int64_t padding_idx,
                                 int64_t* offset2bag, int64_t* bag_size) {
  for (int64_t b = blockIdx.x * int64_t(kThreads) + threadIdx.x; b < B; b += int64_t(gridDim.x) * kThreads) {
    int64_t start, end, count = 0;
    bag_span(off, b, B, n, start, end);
    for (int64_t i = start; i < end; ++i) {
      offset2bag[i] = b;
      count += idx[i] != padding_idx;
    }
    bag_size[b] = count;
  }
}

template <typename T>
__global__ void bag_reduce_kernel(int64_t B, int64_t D, int64_t n, const T* w, const int64_t* idx, const int64_t* off,
                                  const T* psw, int64_t mode, int64_t padding_idx, const int64_t* bag_size, T* out,
                                  int64_t* max_indices) {
  for (int64_t k = blockIdx.x * int64_t(kThreads) + threadIdx.x; k < B * D; k += int64_t(gridDim.x) * kThreads) {
    const int64_t b = k / D, d = k % D;
    int64_t start, end;
    bag_span(off, b, B, n, start, end);
    T acc = T(0);  // an empty bag gives 0 (and max index 0)
    int64_t arg = 0;
    bool first = true;
    for (int64_t i = start; i < end; ++i) {
      const int64_t r = idx[i];
      if (r == padding_idx) continue;
      const T v = w[r * D + d];
      if (mode != kMax) {
        acc += (psw ? psw[i] : T(1)) * v;
      } else if (first || v > acc) {
        acc = v;
        arg = r;
      }
      first = false;
    }
    if (mode == kMean && bag_size[b] > 0) acc /= static_cast<T>(bag_size[b]);
    out[k] = acc;
    if (mode == kMax) max_indices[k] = arg;
  }
}

void embedding_bag_cuda(const Tensor& w, const Tensor& idx, const Tensor& off, const Tensor& psw, int64_t mode,
                        int64_t padding_idx, const Tensor& out, const Tensor& offset2bag, const Tensor& bag_size,
                        const Tensor& max_indices) {
  const int64_t B = out.sizes()[0], D = out.sizes()[1], n = idx.numel();
  const int device = w.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const auto* ip = static_cast<const int64_t*>(idx.data_ptr());
  const auto* op = static_cast<const int64_t*>(off.data_ptr());
  auto* bsp = static_cast<int64_t*>(bag_size.data_ptr());
  bag_sizes_kernel<<<grid_for(B), kThreads, 0, stream>>>(B, n, ip, op, padding_idx,
                                                         static_cast<int64_t*>(offset2bag.data_ptr()), bsp);
  TL_CUDA_KERNEL_LAUNCH_CHECK();
  if (D == 0) return;
  dispatch_float_double(w.dtype(), "embedding_bag", [&](auto tag) {
    using T = typename decltype(tag)::type;
    bag_reduce_kernel<T><<<grid_for(B * D), kThreads, 0, stream>>>(
        B, D, n, static_cast<const T*>(w.data_ptr()), ip, op,
        psw.defined() ? static_cast<const T*>(psw.data_ptr()) : nullptr, mode, padding_idx, bsp,
        static_cast<T*>(out.data_ptr()), max_indices.defined() ? static_cast<int64_t*>(max_indices.data_ptr()) : nullptr);
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

TL_REGISTER_STUB(embedding_bag_stub, CUDA, &embedding_bag_cuda);

}  // namespace tl::native
