// CPU kernels of reductions: the CPU engine behind the stubs of ReduceOps.h (sum, mean, amax,
// amin), the CPU-only value reductions (prod, all, any) over the same engine (Note [Reduction
// engine]), and a row-wise engine for index-tracking reductions (max.dim, min.dim, argmax,
// argmin).
#include <omp.h>

#include <memory>

#include "aten/native/IndexReductions.h"
#include "aten/native/ReduceOps.h"
#include "aten/native/cpu/ReduceEngine.h"
#include "generated/ops/all_native.h"
#include "generated/ops/any_native.h"
#include "generated/ops/argmax_native.h"
#include "generated/ops/argmin_native.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/max_native.h"
#include "generated/ops/min_native.h"
#include "generated/ops/prod_native.h"
#include "generated/ops/to.h"
#include "generated/ops/view.h"

namespace tl::native {

using namespace cpu_reduce;

namespace {

// The CPU engine behind the reduction stubs (ReduceOps.h) and the index reductions
// (IndexReductions.h).
struct CpuEngine {
  template <typename T, typename Op>
  static void run(const Tensor& input, const Tensor& result, const std::vector<bool>& mask, const Op& op) {
    run_reduce<T, typename Op::out_t>(input, result, mask, op);
  }
  template <bool IsMax>
  static void index_reduce(const char* name, const Tensor& x, int64_t dim, const Tensor& values, const Tensor& idxs);
};

// The keepdim-shaped product of self over mask, in dtype rt.
Tensor prod_values(const Tensor& self, const std::vector<bool>& mask, ScalarType rt) {
  Tensor result = empty_reduce_result(self, mask, rt);
  dispatch_all_types_and_complex(rt, "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    CpuEngine::run<T>(self.dtype() == rt ? self : self.to(rt), result, mask, ProdOp<T>{});
  });
  return result;
}

// Index-tracking reduction over one dim of a contiguous tensor viewed as [outer, R, inner].
// Ties keep the first index; NaN wins (first NaN), as in PyTorch.
template <typename T, bool IsMax>
void index_reduce_rows(const Tensor& x, int64_t dim, T* vals, int64_t* idxs) {
  using acc_t = opmath_t<T>;
  const T* src = static_cast<const T*>(x.data_ptr());
  int64_t outer = 1, inner = 1, R = x.dim() > 0 ? x.sizes()[dim] : 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.sizes()[d];
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.sizes()[d];
  const bool parallel = outer * R * inner >= kGrain && omp_get_max_threads() > 1;
  if (inner == 1) {
    // Two vectorised passes per row: the (NaN-propagating) extreme value, then the first
    // index holding it.
    MinMaxOp<T, IsMax> op;
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t o = 0; o < outer; ++o) {
      const T* row = src + o * R;
      acc_t best = reduce_run(op, row, R, op.identity());
      // First index holding `best`. Full blocks of 64 are tested with a fixed-length,
      // branch-free loop (vectorised) and only the first block that matches is scanned.
      int64_t bi = 0;
      if (best != best) {
        while (bi < R && !(static_cast<acc_t>(row[bi]) != static_cast<acc_t>(row[bi]))) ++bi;
      } else {
        int64_t b0 = 0;
        for (; b0 + 64 <= R; b0 += 64) {
          int hit = 0;
          for (int j = 0; j < 64; ++j) hit |= static_cast<int>(static_cast<acc_t>(row[b0 + j]) == best);
          if (hit) break;
        }
        bi = b0;
        while (bi < R && static_cast<acc_t>(row[bi]) != best) ++bi;
      }
      if (bi >= R) bi = 0;  // unreachable; keeps the index valid
      if (vals) vals[o] = static_cast<T>(best);
      idxs[o] = bi;
    }
    return;
  }
  int64_t blk = std::min<int64_t>(inner, 1024);
  const int nth = parallel ? omp_get_max_threads() : 1;
  if (outer * ((inner + blk - 1) / blk) < nth) blk = std::max<int64_t>(64, (inner + nth - 1) / nth);
  const int64_t nblk = (inner + blk - 1) / blk;
#pragma omp parallel if (parallel)
  {
    std::unique_ptr<acc_t[]> bestbuf(new acc_t[static_cast<size_t>(blk)]);
    std::unique_ptr<int64_t[]> bibuf(new int64_t[static_cast<size_t>(blk)]);
#pragma omp for schedule(static)
    for (int64_t t = 0; t < outer * nblk; ++t) {
      const int64_t o = t / nblk, j0 = (t % nblk) * blk, len = std::min(blk, inner - j0);
      const T* base = src + o * R * inner + j0;
      acc_t* __restrict best = bestbuf.get();
      int64_t* __restrict bi = bibuf.get();
      for (int64_t j = 0; j < len; ++j) { best[j] = static_cast<acc_t>(base[j]); bi[j] = 0; }
      for (int64_t r = 1; r < R; ++r) {
        const T* __restrict row = base + r * inner;
        for (int64_t j = 0; j < len; ++j) {
          acc_t v = static_cast<acc_t>(row[j]);
          acc_t bj = best[j];
          bool b = (IsMax ? (v > bj) : (v < bj)) | ((v != v) & (bj == bj));
          best[j] = b ? v : bj;
          bi[j] = b ? r : bi[j];
        }
      }
      for (int64_t j = 0; j < len; ++j) {
        if (vals) vals[o * inner + j0 + j] = static_cast<T>(best[j]);
        idxs[o * inner + j0 + j] = bi[j];
      }
    }
  }
}

template <bool IsMax>
void CpuEngine::index_reduce(const char* name, const Tensor& x, int64_t dim, const Tensor& values, const Tensor& idxs) {
  dispatch_all_types(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_reduce_rows<T, IsMax>(x, dim, values.defined() ? values.data_ptr<T>() : nullptr, idxs.data_ptr<int64_t>());
  });
}

}  // namespace

Tensor prod_out_cpu(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  ScalarType rt = sum_result_dtype(self, dtype, out);
  check_out_dtype(out, rt, "prod");
  std::vector<bool> mask = make_dim_mask(dim, self.dim());
  return finish_reduce(prod_values(self, mask, rt), mask, keepdim, out);
}

TL_DEFINE_INDEX_REDUCTIONS(cpu, CpuEngine)

TL_REGISTER_STUB(sum_stub, CPU, &sum_kernel<CpuEngine>);
TL_REGISTER_STUB(nansum_stub, CPU, &nansum_kernel<CpuEngine>);
TL_REGISTER_STUB(amax_stub, CPU, (&minmax_kernel<CpuEngine, true>));
TL_REGISTER_STUB(amin_stub, CPU, (&minmax_kernel<CpuEngine, false>));

}  // namespace tl::native
