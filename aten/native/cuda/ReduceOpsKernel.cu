// The CUDA engine behind the reduction stubs of ReduceOps.h (sum, mean, amax, amin), over
// gpu_reduce_inner (Note [CUDA reductions]): the reduced dims are moved last and made
// contiguous, and each run of them becomes one element of the keepdim-shaped result.
#include <vector>

#include "aten/native/ReduceOps.h"
#include "aten/native/cuda/Reduce.cuh"
#include "generated/ops/contiguous.h"
#include "generated/ops/permute.h"

namespace tl::native {

namespace {

struct CudaEngine {
  template <typename T, typename Op>
  static void run(const Tensor& input, const Tensor& result, const std::vector<bool>& mask, const Op& op) {
    std::vector<int64_t> perm;
    int64_t inner = 1;
    for (int64_t d = 0; d < input.dim(); ++d)
      if (!mask[d]) perm.push_back(d);
    for (int64_t d = 0; d < input.dim(); ++d)
      if (mask[d]) {
        perm.push_back(d);
        inner *= input.size(d);
      }
    gpu_reduce_inner<T>(input.permute(perm).contiguous(), result, inner, op);
  }
};

}  // namespace

TL_REGISTER_STUB(sum_stub, CUDA, &sum_kernel<CudaEngine>);
TL_REGISTER_STUB(nansum_stub, CUDA, &nansum_kernel<CudaEngine>);
TL_REGISTER_STUB(amax_stub, CUDA, (&minmax_kernel<CudaEngine, true>));
TL_REGISTER_STUB(amin_stub, CUDA, (&minmax_kernel<CudaEngine, false>));

}  // namespace tl::native
