// softmax and log_softmax (forward and backward) composed of reductions and pointwise ops: the
// CUDA path (the CPU keeps its one-pass kernels in SoftMax.cpp, whose results these match:
// Half/BFloat16 run in float, the row maximum is subtracted before exp, and a row of -inf
// gives NaN).
#include "aten/core/Tensor.h"
#include "generated/ops/_log_softmax_backward_data_native.h"
#include "generated/ops/_log_softmax_native.h"
#include "generated/ops/_softmax_backward_data_native.h"
#include "generated/ops/_softmax_native.h"
#include "generated/ops/amax.h"
#include "generated/ops/clone.h"
#include "generated/ops/div.h"
#include "generated/ops/exp.h"
#include "generated/ops/log.h"
#include "generated/ops/mul.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"

namespace tl::native {

namespace {

template <bool Log>
Tensor softmax_composite_impl(const Tensor& self, int64_t dim, bool half_to_float, const char* op) {
  if (!self.is_floating_point()) dtype_not_implemented(op, self.dtype());
  TL_CHECK(!half_to_float || self.dtype() == ScalarType::Half, op, ": conversion is supported for Half type only");
  dim = wrap_dim(dim, self.dim());
  const bool widen = low_precision(self.dtype());
  Tensor x = widen ? self.to(ScalarType::Float) : self;
  Tensor out;
  if (x.numel() == 0) {
    out = x.clone();
  } else {
    const int64_t dims[] = {dim};
    Tensor m = x.amax(IntArrayRef(dims, x.dim() > 0 ? 1 : 0), true);
    Tensor shifted = x.sub(m);
    Tensor sum = shifted.exp().sum(IntArrayRef(dims, x.dim() > 0 ? 1 : 0), true);
    out = Log ? shifted.sub(sum.log()) : shifted.exp().div(sum);
  }
  return widen && !half_to_float ? out.to(self.dtype()) : out;
}

// softmax: gi = y * (go - sum(go * y));  log_softmax: gi = go - exp(y) * sum(go).
template <bool Log>
Tensor softmax_backward_composite_impl(const Tensor& grad_output, const Tensor& output, int64_t dim, const char* op) {
  TL_CHECK(grad_output.sizes().equals(output.sizes()), op, ": grad_output and output must have the same size");
  if (!output.is_floating_point()) dtype_not_implemented(op, output.dtype());
  dim = wrap_dim(dim, output.dim());
  const ScalarType dt =
      low_precision(grad_output.dtype()) || low_precision(output.dtype()) ? ScalarType::Float : output.dtype();
  Tensor go = grad_output.to(dt), y = output.to(dt);
  const int64_t dims[] = {dim};
  const IntArrayRef d(dims, y.dim() > 0 ? 1 : 0);
  Tensor gi = Log ? go.sub(y.exp().mul(go.sum(d, true))) : y.mul(go.sub(go.mul(y).sum(d, true)));
  return gi.dtype() == grad_output.dtype() ? gi : gi.to(grad_output.dtype());
}

}  // namespace

Tensor softmax_composite(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_composite_impl<false>(self, dim, half_to_float, "softmax");
}

Tensor log_softmax_composite(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_composite_impl<true>(self, dim, half_to_float, "log_softmax");
}

Tensor softmax_backward_composite(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType /*input_dtype*/) {
  return softmax_backward_composite_impl<false>(grad_output, output, dim, "softmax_backward");
}

Tensor log_softmax_backward_composite(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                      ScalarType /*input_dtype*/) {
  return softmax_backward_composite_impl<true>(grad_output, output, dim, "log_softmax_backward");
}

}  // namespace tl::native
