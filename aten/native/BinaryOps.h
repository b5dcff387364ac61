#pragma once
// Iterator set-up shared by the CPU and CUDA kernels of binary elementwise ops.
#include "aten/native/TensorIterator.h"

namespace tl::native {

// out = f(self, other) with broadcasting and promotion; `out` may be undefined (allocate)
// or self (in-place: no resize).
TensorIterator binary_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& other);

// alpha must be integral for integral inputs, as in PyTorch.
void check_alpha(const char* name, ScalarType dtype, const Scalar& alpha);

}  // namespace tl::native
