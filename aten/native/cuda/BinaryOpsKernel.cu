// CUDA kernels of binary elementwise ops: the CPU file's twin, with gpu_kernel for
// cpu_kernel and the same functors (aten/native/ElementwiseFunctors.h).
#include "aten/native/BinaryOps.h"
#include "aten/native/ElementwiseFunctors.h"
#include "aten/native/cuda/Loops.cuh"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor add_out_cuda(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  TensorIterator iter = binary_op_iter("add", out, self, other);
  check_alpha("add", iter.common_dtype(), alpha);
  dispatch_all_types(iter.common_dtype(), "add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel(iter, AddFunctor<T>{alpha.to<opmath_t<T>>()});
  });
  return iter.output();
}

}  // namespace tl::native
