// The CUDA engine behind the reduction stubs of ReduceOps.h (sum, mean, amax, amin), over
// gpu_reduce_inner and gpu_reduce_columns (Note [CUDA reductions]): a contiguous input whose
// reduced dims form one block before kept dims is reduced in place, column by column; otherwise
// the reduced dims are moved last and made contiguous, and each run of them becomes one element
// of the keepdim-shaped result. The same
// engine runs prod, all and any (ProdOp, AllAnyOp of ReduceFunctors.h); max.dim, min.dim,
// argmax and argmin track the index of the extreme in their own kernel below.
#include <tuple>
#include <vector>

#include "aten/native/IndexReductions.h"
#include "aten/native/ReduceOps.h"
#include "aten/native/cuda/Reduce.cuh"
#include "generated/ops/all_native.h"
#include "generated/ops/any_native.h"
#include "generated/ops/argmax_native.h"
#include "generated/ops/argmin_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/max_native.h"
#include "generated/ops/min_native.h"
#include "generated/ops/permute.h"
#include "generated/ops/prod_native.h"
#include "generated/ops/to.h"
#include "generated/ops/view.h"

namespace tl::native {

namespace {

struct CudaEngine {
  template <typename T, typename Op>
  static void run(const Tensor& input, const Tensor& result, const std::vector<bool>& mask, const Op& op) {
    // Reduced dims forming one block [first, last] of a contiguous input followed by kept dims
    // (x.sum(0)): reduce the columns in place.
    const int64_t nd = input.dim();
    int64_t first = 0, last = nd - 1;
    while (first < nd && !mask[first]) ++first;
    while (last >= 0 && !mask[last]) --last;
    bool block = first <= last && last < nd - 1 && input.is_contiguous();
    int64_t outer = 1, R = 1, inner = 1;
    for (int64_t d = 0; d < nd; ++d) {
      (d < first ? outer : d <= last ? R : inner) *= input.size(d);
      if (d >= first && d <= last && !mask[d]) block = false;
    }
    if (block && inner > 1) return gpu_reduce_columns<T>(input, result, outer, R, inner, op);
    std::vector<int64_t> perm;
    int64_t reduced = 1;
    for (int64_t d = 0; d < nd; ++d)
      if (!mask[d]) perm.push_back(d);
    for (int64_t d = 0; d < nd; ++d)
      if (mask[d]) {
        perm.push_back(d);
        reduced *= input.size(d);
      }
    gpu_reduce_inner<T>(input.permute(perm).contiguous(), result, reduced, op);
  }  template <bool IsMax>
  static void index_reduce(const char* name, const Tensor& x, int64_t dim, const Tensor& values, const Tensor& idxs);
};

// ---- index-tracking reductions ------------------------------------------------------------
// The input is contiguous and viewed as [outer, R, inner]; each output (o, j) is the extreme of
// src[o, :, j] and its index. Ties keep the first index and a NaN wins (the first NaN), as on
// the CPU. Rows of stride 1 (inner == 1) get a block each; otherwise a thread per output walks
// its column, and neighbouring threads read neighbouring addresses.

constexpr int kIndexThreads = 256;

// Whether (v, i) replaces (best, bi) as the running extreme.
template <bool IsMax, typename acc_t>
__device__ __forceinline__ bool index_better(acc_t v, int64_t i, acc_t best, int64_t bi) {
  const bool v_nan = v != v, best_nan = best != best;
  if (v_nan || best_nan) return v_nan && (!best_nan || i < bi);
  if (v == best) return i < bi;
  return IsMax ? v > best : v < best;
}

template <typename T, bool IsMax>
__global__ void __launch_bounds__(kIndexThreads)
    index_reduce_rows_kernel(const T* src, int64_t rows, int64_t R, T* vals, int64_t* idxs) {
  using acc_t = opmath_t<T>;
  __shared__ acc_t sv[kIndexThreads];
  __shared__ int64_t si[kIndexThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = src + row * R;
    acc_t best = static_cast<acc_t>(p[0]);
    int64_t bi = 0;
    for (int64_t r = threadIdx.x; r < R; r += kIndexThreads) {
      const acc_t v = static_cast<acc_t>(p[r]);
      if (index_better<IsMax>(v, r, best, bi)) {
        best = v;
        bi = r;
      }
    }
    sv[threadIdx.x] = best;
    si[threadIdx.x] = bi;
    __syncthreads();
    for (int s = kIndexThreads / 2; s > 0; s >>= 1) {
      if (static_cast<int>(threadIdx.x) < s && index_better<IsMax>(sv[threadIdx.x + s], si[threadIdx.x + s],
                                                                   sv[threadIdx.x], si[threadIdx.x])) {
        sv[threadIdx.x] = sv[threadIdx.x + s];
        si[threadIdx.x] = si[threadIdx.x + s];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (vals) vals[row] = static_cast<T>(sv[0]);
      idxs[row] = si[0];
    }
    __syncthreads();  // sv/si are reused by the next row
  }
}

template <typename T, bool IsMax>
__global__ void __launch_bounds__(kIndexThreads)
    index_reduce_columns_kernel(const T* src, int64_t outer, int64_t R, int64_t inner, T* vals, int64_t* idxs) {
  using acc_t = opmath_t<T>;
  const int64_t total = outer * inner;
  for (int64_t t = blockIdx.x * int64_t(kIndexThreads) + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * kIndexThreads) {
    const int64_t o = t / inner, j = t % inner;
    const T* p = src + o * R * inner + j;
    acc_t best = static_cast<acc_t>(p[0]);
    int64_t bi = 0;
    for (int64_t r = 1; r < R; ++r) {
      const acc_t v = static_cast<acc_t>(p[r * inner]);
      if (index_better<IsMax>(v, r, best, bi)) {
        best = v;
        bi = r;
      }
    }
    if (vals) vals[t] = static_cast<T>(best);
    idxs[t] = bi;
  }
}

// x: contiguous and nonempty; vals (optional) and idxs: contiguous, one element per (o, j).
template <bool IsMax>
void index_reduce_cuda(const char* name, const Tensor& x, int64_t dim, const Tensor& vals, const Tensor& idxs) {
  int64_t outer = 1, inner = 1;
  const int64_t R = x.dim() > 0 ? x.size(dim) : 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.size(d);
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
  const int device = x.device().index;
  cuda::CUDAGuard guard(device);
  cudaStream_t stream = cuda::current_cuda_stream(device);
  dispatch_all_types(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = static_cast<const T*>(x.data_ptr());
    T* v = vals.defined() ? static_cast<T*>(vals.data_ptr()) : nullptr;
    int64_t* i = static_cast<int64_t*>(idxs.data_ptr());
    if (inner == 1) {
      const unsigned grid = static_cast<unsigned>(std::min<int64_t>(outer, 65535));
      index_reduce_rows_kernel<T, IsMax><<<grid, kIndexThreads, 0, stream>>>(src, outer, R, v, i);
    } else {
      const unsigned grid = static_cast<unsigned>(std::min<int64_t>((outer * inner + kIndexThreads - 1) / kIndexThreads, 65535));
      index_reduce_columns_kernel<T, IsMax><<<grid, kIndexThreads, 0, stream>>>(src, outer, R, inner, v, i);
    }
    TL_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

template <bool IsMax>
void CudaEngine::index_reduce(const char* name, const Tensor& x, int64_t dim, const Tensor& values, const Tensor& idxs) {
  index_reduce_cuda<IsMax>(name, x, dim, values, idxs);
}

}  // namespace

Tensor prod_out_cuda(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  const ScalarType rt = sum_result_dtype(self, dtype, out);
  check_out_dtype(out, rt, "prod");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  Tensor result = empty_reduce_result(self, mask, rt);
  dispatch_all_types(rt, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    CudaEngine::run<T>(self.dtype() == rt ? self : self.to(rt), result, mask, ProdOp<T>{});
  });
  return finish_reduce(result, mask, keepdim, out);
}

TL_DEFINE_INDEX_REDUCTIONS(cuda, CudaEngine)

TL_REGISTER_STUB(sum_stub, CUDA, &sum_kernel<CudaEngine>);
TL_REGISTER_STUB(nansum_stub, CUDA, &nansum_kernel<CudaEngine>);
TL_REGISTER_STUB(amax_stub, CUDA, (&minmax_kernel<CudaEngine, true>));
TL_REGISTER_STUB(amin_stub, CUDA, (&minmax_kernel<CudaEngine, false>));

}  // namespace tl::native
