// CUDA kernel of where (three inputs): the twin of cpu/TernaryOpsKernel.cpp.
#include "aten/native/cuda/ElementwiseKernel.cuh"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor where_out_cuda(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  TensorIterator iter = where_iter(out, condition, self, other);
  gpu_elementwise_kernel<WhereFunctor>(iter, "where_cuda");
  return iter.output();
}

}  // namespace tl::native
