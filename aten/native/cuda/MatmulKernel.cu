// The CUDA mm and bmm kernels. Float, double, half and bfloat16 go to cuBLAS when it is loaded
// (Note [cuBLAS at run time] in aten/cuda/CuBLAS.h); without it, half and bfloat16 run a tiled
// kernel on tensor cores (WMMA) and the other dtypes a tiled kernel with register blocking.
// Arguments are checked as on the CPU (LinearAlgebra.h); Half/BFloat16 accumulate in float and
// round once, as the CPU kernels do.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <type_traits>
#include <vector>

#include "aten/cuda/CUDAContext.h"
#include "aten/cuda/CuBLAS.h"
#include "aten/native/LinearAlgebra.h"
#include "generated/ops/bmm_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/mm_native.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

namespace {

// A block computes a kBlockM x kBlockN tile of c, staging kBlockK-wide slices of a and b
// through shared memory; each of its kThreadsY x kThreadsX threads accumulates a kPerThreadM x
// kPerThreadN grid of the tile in registers (rows ty + i * kThreadsY, columns tx + j *
// kThreadsX, so that a warp reads consecutive shared-memory words of b and writes runs of c).
constexpr int kBlockM = 64, kBlockN = 64, kBlockK = 16;
constexpr int kThreadsX = 16, kThreadsY = 16, kThreads = kThreadsX * kThreadsY;
constexpr int kPerThreadM = kBlockM / kThreadsY, kPerThreadN = kBlockN / kThreadsX;

// c[z] (m x n, contiguous) = a[z] (m x k) @ b[z] (k x n), strides in elements.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    gemm_tiled_kernel(int64_t batches, int64_t m, int64_t n, int64_t k, const T* a, int64_t sa_z, int64_t sa_m,
                      int64_t sa_k, const T* b, int64_t sb_z, int64_t sb_k, int64_t sb_n, T* c) {
  using acc_t = opmath_t<T>;
  // +1: the column-wise stores of a slice that is contiguous along k spread over the banks.
  __shared__ acc_t as[kBlockK][kBlockM + 1];
  __shared__ acc_t bs[kBlockK][kBlockN + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kThreadsX + tx;
  const int64_t row0 = int64_t(blockIdx.y) * kBlockM, col0 = int64_t(blockIdx.x) * kBlockN;
  // Neighbouring threads load neighbouring addresses along the operand's unit-stride dim.
  const bool a_along_k = sa_k == 1, b_along_n = sb_n == 1;
  for (int64_t z = blockIdx.z; z < batches; z += gridDim.z) {
    const T* az = a + z * sa_z;
    const T* bz = b + z * sb_z;
    acc_t acc[kPerThreadM][kPerThreadN];
#pragma unroll
    for (int i = 0; i < kPerThreadM; ++i)
#pragma unroll
      for (int j = 0; j < kPerThreadN; ++j) acc[i][j] = acc_t(0);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      for (int l = tid; l < kBlockM * kBlockK; l += kThreads) {
        const int mi = a_along_k ? l / kBlockK : l % kBlockM, ki = a_along_k ? l % kBlockK : l / kBlockM;
        const int64_t r = row0 + mi, kk = k0 + ki;
        as[ki][mi] = r < m && kk < k ? static_cast<acc_t>(az[r * sa_m + kk * sa_k]) : acc_t(0);
      }
      for (int l = tid; l < kBlockK * kBlockN; l += kThreads) {
        const int ni = b_along_n ? l % kBlockN : l / kBlockK, ki = b_along_n ? l / kBlockN : l % kBlockK;
        const int64_t col = col0 + ni, kk = k0 + ki;
        bs[ki][ni] = kk < k && col < n ? static_cast<acc_t>(bz[kk * sb_k + col * sb_n]) : acc_t(0);
      }
      __syncthreads();
#pragma unroll
      for (int ki = 0; ki < kBlockK; ++ki) {
        acc_t av[kPerThreadM], bv[kPerThreadN];
#pragma unroll
        for (int i = 0; i < kPerThreadM; ++i) av[i] = as[ki][ty + i * kThreadsY];
#pragma unroll
        for (int j = 0; j < kPerThreadN; ++j) bv[j] = bs[ki][tx + j * kThreadsX];
#pragma unroll
        for (int i = 0; i < kPerThreadM; ++i)
#pragma unroll
          for (int j = 0; j < kPerThreadN; ++j) acc[i][j] += av[i] * bv[j];
      }
      __syncthreads();
    }
    T* cz = c + z * m * n;
#pragma unroll
    for (int i = 0; i < kPerThreadM; ++i) {
      const int64_t r = row0 + ty + i * kThreadsY;
#pragma unroll
      for (int j = 0; j < kPerThreadN; ++j) {
        const int64_t col = col0 + tx + j * kThreadsX;
        if (r < m && col < n) cz[r * n + col] = static_cast<T>(acc[i][j]);
      }
    }
  }
}

// The tensor-core kernel for Half and BFloat16: the same 64 x 64 block tiles, each of its four
// warps computing a 32 x 32 quarter as 2 x 2 WMMA 16 x 16 x 16 products with float
// accumulators, staged through shared memory (row-major a and b slices, float c tile) so that
// any strides and the partial tiles at the edges (zero-filled) work. Rows of the shared arrays
// are padded by a multiple of 8 elements (WMMA's leading-dimension unit), which keeps every
// fragment's address 32-byte aligned.
constexpr int kWmma = 16, kWarpsM = 2, kWarpsN = 2, kWmmaThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpTileM = kBlockM / kWarpsM, kWarpTileN = kBlockN / kWarpsN;
constexpr int kFragsM = kWarpTileM / kWmma, kFragsN = kWarpTileN / kWmma;
constexpr int kLdA = kBlockK + 8, kLdB = kBlockN + 8, kLdC = kBlockN + 8;
static_assert(kBlockK == kWmma, "one WMMA step per k slice");

template <typename T>
using wmma_t = std::conditional_t<std::is_same_v<T, Half>, __half, __nv_bfloat16>;

template <typename T>
__device__ wmma_t<T> to_wmma(T v) {
  if constexpr (std::is_same_v<T, Half>) return __ushort_as_half(v.x);
  else return __ushort_as_bfloat16(v.x);
}

template <typename T>
__global__ void __launch_bounds__(kWmmaThreads)
    gemm_wmma_kernel(int64_t batches, int64_t m, int64_t n, int64_t k, const T* a, int64_t sa_z, int64_t sa_m,
                     int64_t sa_k, const T* b, int64_t sb_z, int64_t sb_k, int64_t sb_n, T* c) {
  namespace wmma = nvcuda::wmma;
  using E = wmma_t<T>;
  __shared__ __align__(32) E as[kBlockM][kLdA];
  __shared__ __align__(32) E bs[kBlockK][kLdB];
  __shared__ __align__(32) float cs[kBlockM][kLdC];
  const int tid = threadIdx.x, warp = tid / 32;
  const int wm = warp / kWarpsN * kWarpTileM, wn = warp % kWarpsN * kWarpTileN;
  const int64_t row0 = int64_t(blockIdx.y) * kBlockM, col0 = int64_t(blockIdx.x) * kBlockN;
  const bool a_along_k = sa_k == 1, b_along_n = sb_n == 1;
  const E zero = to_wmma(T(0.f));
  for (int64_t z = blockIdx.z; z < batches; z += gridDim.z) {
    const T* az = a + z * sa_z;
    const T* bz = b + z * sb_z;
    wmma::fragment<wmma::accumulator, kWmma, kWmma, kWmma, float> acc[kFragsM][kFragsN];
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.f);
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      for (int l = tid; l < kBlockM * kBlockK; l += kWmmaThreads) {
        const int mi = a_along_k ? l / kBlockK : l % kBlockM, ki = a_along_k ? l % kBlockK : l / kBlockM;
        const int64_t r = row0 + mi, kk = k0 + ki;
        as[mi][ki] = r < m && kk < k ? to_wmma(az[r * sa_m + kk * sa_k]) : zero;
      }
      for (int l = tid; l < kBlockK * kBlockN; l += kWmmaThreads) {
        const int ni = b_along_n ? l % kBlockN : l / kBlockK, ki = b_along_n ? l / kBlockN : l % kBlockK;
        const int64_t col = col0 + ni, kk = k0 + ki;
        bs[ki][ni] = kk < k && col < n ? to_wmma(bz[kk * sb_k + col * sb_n]) : zero;
      }
      __syncthreads();
      wmma::fragment<wmma::matrix_a, kWmma, kWmma, kWmma, E, wmma::row_major> fa[kFragsM];
      wmma::fragment<wmma::matrix_b, kWmma, kWmma, kWmma, E, wmma::row_major> fb[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) wmma::load_matrix_sync(fa[i], &as[wm + i * kWmma][0], kLdA);
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) wmma::load_matrix_sync(fb[j], &bs[0][wn + j * kWmma], kLdB);
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
        wmma::store_matrix_sync(&cs[wm + i * kWmma][wn + j * kWmma], acc[i][j], kLdC, wmma::mem_row_major);
    __syncthreads();
    T* cz = c + z * m * n;
    for (int l = tid; l < kBlockM * kBlockN; l += kWmmaThreads) {
      const int mi = l / kBlockN, ni = l % kBlockN;
      const int64_t r = row0 + mi, col = col0 + ni;
      if (r < m && col < n) cz[r * n + col] = static_cast<T>(cs[mi][ni]);
    }
    __syncthreads();  // cs is rewritten by the next batch
  }
}

void gemm_tiled(const Tensor& a, const Tensor& b, const Tensor& res, int device) {
  const int64_t bs = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  TL_CHECK((m + kBlockM - 1) / kBlockM <= 65535, "mm: ", m, " rows are more than the CUDA kernel supports");
  const dim3 grid(static_cast<unsigned>((n + kBlockN - 1) / kBlockN), static_cast<unsigned>((m + kBlockM - 1) / kBlockM),
                  static_cast<unsigned>(std::min<int64_t>(bs, 65535)));
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_numeric_types(a.dtype(), "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* ap = static_cast<const T*>(a.data_ptr());
    const auto* bp = static_cast<const T*>(b.data_ptr());
    auto* cp = static_cast<T*>(res.data_ptr());
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      gemm_wmma_kernel<T><<<grid, kWmmaThreads, 0, stream>>>(bs, m, n, k, ap, a.stride(0), a.stride(1), a.stride(2),
                                                             bp, b.stride(0), b.stride(1), b.stride(2), cp);
    } else {
      gemm_tiled_kernel<T><<<grid, dim3(kThreadsX, kThreadsY), 0, stream>>>(
          bs, m, n, k, ap, a.stride(0), a.stride(1), a.stride(2), bp, b.stride(0), b.stride(1), b.stride(2), cp);
    }
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

// cuBLAS is column-major: the row-major c = a @ b is computed as the column-major c^T = b^T a^T.
// The column-major view of a row-major x[z] (r x c) is x^T, stored as is when x's rows are
// contiguous (ld: the row stride) or read transposed when its columns are (ld: the column
// stride); a dim of size 1 has any stride. Neither: no operand without a copy.
std::optional<cuda::blas::GemmOperand> cublas_operand(const Tensor& x) {
  const int64_t r = x.size(1), c = x.size(2), sr = x.stride(1), sc = x.stride(2);
  if (sc == 1 || c == 1) {
    const int64_t ld = r == 1 ? std::max<int64_t>(c, 1) : sr;
    if (ld >= std::max<int64_t>(c, 1) && ld <= INT_MAX) return cuda::blas::GemmOperand{x.data_ptr(), false, ld, x.stride(0)};
  }
  if (sr == 1 || r == 1) {
    const int64_t ld = c == 1 ? std::max<int64_t>(r, 1) : sc;
    if (ld >= std::max<int64_t>(r, 1) && ld <= INT_MAX) return cuda::blas::GemmOperand{x.data_ptr(), true, ld, x.stride(0)};
  }
  return std::nullopt;
}

// res (batches x m x n, contiguous) = a @ b over the last two dims; a and b are 3-d.
void bmm_into(const Tensor& a, const Tensor& b, const Tensor& res) {
  const int64_t bs = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  if (bs == 0 || m == 0 || n == 0) return;
  const int device = a.device().index;
  cuda::CUDAGuard guard(device);
  // k == 0 (a zero result) and sizes past an int stay on the tiled kernel.
  const bool fits_int = std::max({bs, m, n, k}) <= INT_MAX;
  if (k == 0 || !fits_int || !cuda::blas::enabled(a.dtype())) return gemm_tiled(a, b, res, device);
  Tensor ac = a, bc = b;  // copies, where an operand's strides are not a cuBLAS layout
  std::optional<cuda::blas::GemmOperand> oa = cublas_operand(a), ob = cublas_operand(b);
  if (!oa) oa = cublas_operand(ac = a.contiguous());
  if (!ob) ob = cublas_operand(bc = b.contiguous());
  cuda::blas::gemm_strided_batched(a.dtype(), n, m, k, *ob, *oa, res.data_ptr(), n, m * n, bs, device);
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
  const std::vector<int64_t> shape{self.size(0), mat2.size(1)};
  Tensor res = empty_tensor(shape, self.options());
  bmm_into(self.unsqueeze(0), mat2.unsqueeze(0), res);
  return finish_out(res, out);
}

Tensor bmm_out_cuda(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  check_bmm_args(self, mat2, out);
  const std::vector<int64_t> shape{self.size(0), self.size(1), mat2.size(2)};
  Tensor res = empty_tensor(shape, self.options());
  bmm_into(self, mat2, res);
  return finish_out(res, out);
}

}  // namespace tl::native
