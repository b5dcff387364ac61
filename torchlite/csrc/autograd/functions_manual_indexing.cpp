#include "torchlite/csrc/autograd/functions_manual_indexing.h"

#include <optional>
#include <vector>

#include "aten/native/IndexingUtils.h"
#include "aten/native/TensorIterator.h"
#include "generated/ops/add.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/expand.h"
#include "generated/ops/gather.h"
#include "generated/ops/index.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_put.h"
#include "generated/ops/index_select.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/lt.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/mul.h"
#include "generated/ops/new_zeros.h"
#include "generated/ops/nonzero.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/reshape.h"
#include "generated/ops/scatter.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/scatter_reduce.h"
#include "generated/ops/select.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/view.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"
#include "generated/ops/zeros_like.h"
#include "torchlite/csrc/autograd/functions_manual.h"

namespace tl::autograd {

namespace {
std::vector<std::optional<Tensor>> as_optional(const std::vector<Tensor>& ts) {
  std::vector<std::optional<Tensor>> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
  return out;
}
}  // namespace

Tensor index_backward(const Tensor& grad, IntArrayRef self_sizes, const std::vector<Tensor>& indices) {
  return grad.new_zeros(self_sizes).index_put(as_optional(indices), grad, true);
}

Tensor index_put_self_backward(const Tensor& grad, const std::vector<Tensor>& indices, bool accumulate) {
  if (accumulate) return grad;
  return grad.index_put(as_optional(indices), grad.new_zeros({}), false);
}

Tensor index_put_values_backward(const Tensor& grad, const std::vector<Tensor>& indices, IntArrayRef values_sizes) {
  return sum_to(tl::index(grad, as_optional(indices)), values_sizes);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index) {
  return grad.new_zeros(self_sizes).index_add(dim, index, grad);
}

Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index) {
  return grad.new_zeros(self_sizes).scatter_add(dim, index, grad);
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes,
                                 const Scalar& alpha) {
  Tensor g = grad.index_select(dim, index);
  if (!(alpha.is_integral() && alpha.to_long() == 1)) g = g.mul(alpha);
  return g.reshape(source_sizes);
}

Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask) {
  return tl::where(mask, grad, Scalar(0)).sum();
}

Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask) {
  const std::vector<int64_t> shape = tl::broadcast_shapes(self_sizes, mask.sizes());
  Tensor positions = tl::nonzero(mask.expand(shape).reshape({-1})).select(1, 0);
  Tensor full = grad.new_zeros({native::numel_of(shape)}).index_add(0, positions, grad).view(shape);
  return sum_to(full, self_sizes);
}

Tensor take_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& index) {
  const int64_t n = native::numel_of(self_sizes);
  Tensor flat = index.reshape({-1});
  flat = tl::where(flat.lt(Scalar(0)), flat.add(Scalar(n)), flat);
  return grad.new_zeros({n}).index_add(0, flat, grad.reshape({-1})).view(self_sizes);
}

Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq) {
  Tensor flat = indices.reshape({-1});
  Tensor g = grad.index_select(0, flat);
  if (scale_grad_by_freq) {
    Tensor counts = tl::zeros({grad.sizes()[0]}, grad.dtype()).index_add(0, flat, tl::ones_like(flat, grad.dtype()));
    g = g.div(counts.index_select(0, flat).unsqueeze(1));
  }
  if (padding_idx >= 0) g = g.masked_fill(flat.eq(Scalar(padding_idx)).unsqueeze(1), Scalar(0));
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(grad.sizes()[1]);
  return g.view(shape);
}

std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, const std::string& reduce,
                                                   bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = grad.gather(dim, index);
  } else if (reduce == "prod") {
    Tensor masked_self = self.masked_fill(self.eq(Scalar(0)), Scalar(1));
    Tensor masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self);
    grad_self = grad.mul(masked_self_result).div(masked_self);
    Tensor src_zero = src.eq(Scalar(0));
    Tensor src_num_zeros =
        tl::zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype())).gather(dim, index);
    Tensor src_single_zero = tl::logical_and(src_zero, src_num_zeros.eq(Scalar(1)));
    // Where src holds the only zero of its target, grad * result / src would be 0 / 0.
    Tensor masked_src_result = self.scatter_reduce(dim, index, src.masked_fill(src_single_zero, Scalar(1)), reduce,
                                                   include_self);
    grad_src = tl::where(src_single_zero, grad.mul(masked_src_result).gather(dim, index),
                         grad.mul(result).gather(dim, index).div(src.masked_fill(src_zero, Scalar(1))));
  } else if (reduce == "mean") {
    Tensor n = include_self ? tl::ones_like(grad) : tl::zeros_like(grad);
    n = n.scatter_add(dim, index, tl::ones_like(src));
    n = n.masked_fill(n.eq(Scalar(0)), Scalar(1));
    grad_self = grad.div(n);
    grad_src = grad.gather(dim, index).div(n.gather(dim, index));
  } else {  // amax, amin
    Tensor value = result.gather(dim, index);
    Tensor self_is_result = self.eq(result).to(self.dtype());
    // Without include_self, self takes no part in the targets' reduction, even where it ties.
    if (!include_self) self_is_result = self_is_result.scatter(dim, index, Scalar(0));
    Tensor src_is_result = src.eq(value).to(self.dtype());
    Tensor n = self_is_result.scatter_add(dim, index, src_is_result);
    Tensor grad_distributed = grad.div(n);
    grad_self = self_is_result.mul(grad_distributed);
    grad_src = src_is_result.mul(grad_distributed.gather(dim, index));
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, Scalar(0));
  return {grad_self, grad_src};
}

}  // namespace tl::autograd
