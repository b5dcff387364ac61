#pragma once
// Argument checks of matrix products, shared by every device's mm/bmm kernels.
#include "aten/core/Tensor.h"

namespace tl::native {

// RuntimeError naming both shapes/dtypes, as PyTorch's.
void check_mm_args(const Tensor& self, const Tensor& mat2, const Tensor& out);
void check_bmm_args(const Tensor& self, const Tensor& mat2, const Tensor& out);

// mm (or bmm when `batched`) of complex matrices as four real products over the parts' strided
// views: (A + iB)(C + iD) = (AC - BD) + i(AD + BC).
Tensor complex_matmul(const Tensor& a, const Tensor& b, bool batched);

}  // namespace tl::native
