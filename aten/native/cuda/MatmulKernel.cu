// The CUDA mm and bmm kernels: a shared-memory tiled GEMM over strided operands (a plain
// correct kernel; cuBLAS is the issue's later step). Arguments are checked as on the CPU
// (LinearAlgebra.h); Half/BFloat16 multiply in float, as the CPU kernels do.
#include <algorithm>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/native/LinearAlgebra.h"
#include "generated/ops/bmm_native.h"
#include "generated/ops/copy.h"
#include "generated/ops/mm_native.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

namespace {

constexpr int kTile = 16;

// c[z] (m x n, contiguous) = a[z] (m x k) @ b[z] (k x n), strides in elements; one block per
// kTile x kTile tile of c, walking k in tiles staged through shared memory.
template <typename T>
__global__ void __launch_bounds__(kTile* kTile)
    gemm_tiled_kernel(int64_t batches, int64_t m, int64_t n, int64_t k, const T* a, int64_t sa_z, int64_t sa_m,
                      int64_t sa_k, const T* b, int64_t sb_z, int64_t sb_k, int64_t sb_n, T* c) {
  using acc_t = opmath_t<T>;
  __shared__ acc_t as[kTile][kTile + 1];
  __shared__ acc_t bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = int64_t(blockIdx.y) * kTile + ty, col = int64_t(blockIdx.x) * kTile + tx;
  for (int64_t z = blockIdx.z; z < batches; z += gridDim.z) {
    const T* az = a + z * sa_z;
    const T* bz = b + z * sb_z;
    acc_t acc = acc_t(0);
    for (int64_t t0 = 0; t0 < k; t0 += kTile) {
      as[ty][tx] = row < m && t0 + tx < k ? static_cast<acc_t>(az[row * sa_m + (t0 + tx) * sa_k]) : acc_t(0);
      bs[ty][tx] = t0 + ty < k && col < n ? static_cast<acc_t>(bz[(t0 + ty) * sb_k + col * sb_n]) : acc_t(0);
      __syncthreads();
#pragma unroll
      for (int i = 0; i < kTile; ++i) acc += as[ty][i] * bs[i][tx];
      __syncthreads();
    }
    if (row < m && col < n) c[z * m * n + row * n + col] = static_cast<T>(acc);
  }
}

// res (batches x m x n, contiguous) = a @ b over the last two dims; a and b are 3-d.
void bmm_into(const Tensor& a, const Tensor& b, const Tensor& res) {
  const int64_t bs = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  if (bs == 0 || m == 0 || n == 0) return;
  const int device = a.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile),
                  static_cast<unsigned>(std::min<int64_t>(bs, 65535)));
  TL_CHECK((m + kTile - 1) / kTile <= 65535, "mm: ", m, " rows are more than the CUDA kernel supports");
  dispatch_numeric_types(a.dtype(), "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gemm_tiled_kernel<T><<<grid, block, 0, stream>>>(bs, m, n, k, static_cast<const T*>(a.data_ptr()), a.stride(0),
                                                     a.stride(1), a.stride(2), static_cast<const T*>(b.data_ptr()),
                                                     b.stride(0), b.stride(1), b.stride(2),
                                                     static_cast<T*>(res.data_ptr()));
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

Tensor finish_out(const Tensor& res, const Tensor& out) {
  if (!out.defined()) return res;
  if (!out.sizes().equals(res.sizes())) out.impl()->set_sizes_contiguous(res.sizes());
  out.copy_(res);
  return out;
}

}  // namespace

Tensor mm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_mm_args(self, mat2, out);
  if (low_precision(self.dtype())) {
    Tensor r = mm_out_cuda(self.to(ScalarType::Float),
                           mat2.to(ScalarType::Float), Tensor());
    return finish_out(r.to(self.dtype()), out);
  }
  const std::vector<int64_t> shape{self.size(0), mat2.size(1)};
  Tensor res = empty_tensor(shape, self.options());
  bmm_into(self.unsqueeze(0), mat2.unsqueeze(0), res);
  return finish_out(res, out);
}

Tensor bmm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_bmm_args(self, mat2, out);
  if (low_precision(self.dtype())) {
    Tensor r = bmm_out_cuda(self.to(ScalarType::Float),
                            mat2.to(ScalarType::Float), Tensor());
    return finish_out(r.to(self.dtype()), out);
  }
  const std::vector<int64_t> shape{self.size(0), self.size(1), mat2.size(2)};
  Tensor res = empty_tensor(shape, self.options());
  bmm_into(self, mat2, res);
  return finish_out(res, out);
}

}  // namespace tl::native
