// CPU kernel of where (three inputs).
#include "aten/native/cpu/ElementwiseKernel.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  TensorIterator iter = where_iter(out, condition, self, other);
  elementwise_kernel<WhereFunctor>(iter, "where_cpu");
  return iter.output();
}

}  // namespace tl::native
