// The CUDA entry points of the linear algebra operators that need more than the host fallback
// (Note [Host fallback], aten/native/HostFallback.h) gives every other one.
#include <optional>
#include <string>

#include "aten/native/HostFallback.h"
#include "generated/ops/_linalg_svd_native.h"

namespace tl::native {

// driver= names a cuSOLVER method, which only CUDA inputs accept (PyTorch's rule). The host's
// LAPACK divide-and-conquer computes the same factorization whichever is named.
std::tuple<Tensor, Tensor, Tensor> _linalg_svd_cuda(const Tensor& A, bool full_matrices, bool compute_uv,
                                                    const std::optional<std::string>& driver) {
  TL_CHECK(!driver || *driver == "gesvd" || *driver == "gesvdj" || *driver == "gesvda",
           "torch.linalg.svd: unknown svd driver ", *driver,
           " in svd_cusolver computation. Available options are: None, gesvd, gesvdj, and gesvda.");
  return HostFallback<&_linalg_svd_cpu>::run(A, full_matrices, compute_uv, std::nullopt);
}

}  // namespace tl::native
