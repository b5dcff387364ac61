// A sum over the innermost dims, to test the reduction launcher (Note [CUDA reductions])
// before any reduction operator has a CUDA kernel; also the pattern such a kernel follows.
#include <type_traits>
#include <vector>

#include "aten/cuda/CUDATestHooks.h"
#include "aten/native/cuda/Reduce.cuh"

namespace tl::cuda {

Tensor reduce_sum_inner_for_test(const Tensor& self, int64_t ndims) {
  TL_CHECK(self.is_cuda(), "reduce_sum_inner_for_test: expected a CUDA tensor, got ", self.device());
  TL_CHECK_INDEX(ndims >= 0 && ndims <= self.dim(), "reduce_sum_inner_for_test: ndims ", ndims,
                 " out of range for a tensor of ", self.dim(), " dims");
  std::vector<int64_t> out_shape;
  int64_t inner = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < self.dim() - ndims) out_shape.push_back(self.size(d));
    else inner *= self.size(d);
  }
  const ScalarType out_dtype = is_floating_point(self.dtype()) ? self.dtype() : ScalarType::Long;
  Tensor out = empty_tensor(out_shape, TensorOptions(out_dtype, self.device()));
  Tensor in = self.contiguous();
  dispatch_all_types(self.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      native::gpu_reduce_inner<T>(in, out, inner, native::SumOps<T, opmath_t<T>, T>{});
    } else {
      native::gpu_reduce_inner<T>(in, out, inner, native::SumOps<T, int64_t, int64_t>{});
    }
  });
  return out;
}

}  // namespace tl::cuda
