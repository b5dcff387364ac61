// The CUDA path of the _foreach_* helpers the optimizers use: one op per tensor of the list (the
// CPU's one-pass loops are in cpu/FusedOptimizerKernels.cpp; the checks and dtypes are theirs).
#include <cmath>
#include <vector>

#include "aten/core/Tensor.h"
#include "generated/ops/_foreach_add_native.h"
#include "generated/ops/_foreach_mul_native.h"
#include "generated/ops/_foreach_norm_native.h"
#include "generated/ops/_foreach_zero_native.h"
#include "generated/ops/add.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/mul.h"
#include "generated/ops/to.h"
#include "generated/ops/zero.h"

namespace tl::native {

void _foreach_add_scalar_composite_(TensorList self, const Scalar& scalar) {
  for (const Tensor& t : self) {
    TL_CHECK(t.defined(), "_foreach_add_: undefined tensor in the list");
    ops::add__Scalar::redispatch(t, scalar, Scalar(int64_t(1)));
  }
}

void _foreach_mul_scalar_composite_(TensorList self, const Scalar& scalar) {
  for (const Tensor& t : self) {
    TL_CHECK(t.defined(), "_foreach_mul_: undefined tensor in the list");
    ops::mul__Scalar::redispatch(t, scalar);
  }
}

void _foreach_zero_composite_(TensorList self) {
  for (const Tensor& t : self) {
    TL_CHECK(t.defined(), "_foreach_zero_: undefined tensor in the list");
    ops::zero_::redispatch(t);
  }
}

// Each norm accumulates in float64, as the CPU kernel does, and is returned in `dtype` (default:
// the tensor's).
std::vector<Tensor> _foreach_norm_composite(TensorList self, const Scalar& ord, std::optional<ScalarType> dtype) {
  const double p = ord.to_double();
  TL_CHECK(p > 0.0 || std::isinf(p), "_foreach_norm: only ord > 0 or inf/-inf is supported, got ", ord);
  std::vector<Tensor> out;
  out.reserve(self.size());
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& t = self[i];
    TL_CHECK(t.defined(), "_foreach_norm: self[", i, "] is an undefined tensor");
    TL_CHECK_TYPE(is_floating_point(t.dtype()), "_foreach_norm: expected floating point tensors, but self[", i,
                  "] has dtype ", t.dtype());
    const ScalarType out_type = dtype.value_or(t.dtype());
    TL_CHECK_TYPE(is_floating_point(out_type), "_foreach_norm: dtype must be floating point, got ", out_type);
    out.push_back(tl::linalg_vector_norm(t.to(ScalarType::Double), ord).to(out_type));
  }
  return out;
}

}  // namespace tl::native
