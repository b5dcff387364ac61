#pragma once
// Iterator set-up and checks of the pointwise math ops with three tensor operands (lerp.Tensor,
// addcmul, addcdiv), device-independent (Note [Stubs]).
#include "aten/native/TensorIterator.h"

namespace tl::native {

// out = f(self, a, b), broadcast and promoted to the common dtype; `out` as in binary_op_iter.
TensorIterator ternary_op_iter(const char* name, const Tensor& out, const Tensor& self, const Tensor& a,
                               const Tensor& b);
// lerp requires end (and a tensor weight) to have self's dtype, as PyTorch does.
void check_lerp_dtypes(const Tensor& self, const Tensor& end, const Tensor& weight);
// addcdiv rejects integer division, as PyTorch does.
void check_addcdiv_dtypes(const Tensor& tensor1, const Tensor& tensor2);

}  // namespace tl::native
