#pragma once
// Backward helpers of the indexing ops: each is written with differentiable ops, so
// double backward works.
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// index_select's gradient: grad added into zeros of self's size at the selected rows.
Tensor index_select_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index);
// gather's gradient: grad scatter-added into zeros of self's size.
Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index);
// index_add's source gradient: alpha * the selected rows of grad, in source's shape.
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes,
                                 const Scalar& alpha);
// masked_fill's gradient for a 0-dim value tensor: the sum of grad where the mask is set.
Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask);
// masked_select's gradient: grad put back at the mask's positions (of the broadcast shape),
// then summed to self's size.
Tensor masked_select_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& mask);
// take's gradient: grad added at the flat positions of index (negative ones wrapped).
Tensor take_backward(const Tensor& grad, IntArrayRef self_sizes, const Tensor& index);

}  // namespace tl::autograd

namespace tl::autograd {
// scatter_reduce's gradients for self and src (PyTorch's formulas: prod divides out the
// element's own factor, treating a single zero exactly; amax/amin share the gradient evenly
// among the tied maxima; include_self=False drops self's gradient where values were scattered).
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, const std::string& reduce,
                                                   bool include_self, const Tensor& result);
}  // namespace tl::autograd

// Advanced indexing (Note [Advanced index layout]). Saved `Tensor?[]` indices come back as
// tensors, undefined where the index was None.
namespace tl::autograd {
// x[indices]'s gradient: grad accumulated into zeros of self's size.
Tensor index_backward(const Tensor& grad, IntArrayRef self_sizes, const std::vector<Tensor>& indices);
// index_put's self gradient: grad, with the overwritten positions zeroed unless accumulating.
Tensor index_put_self_backward(const Tensor& grad, const std::vector<Tensor>& indices, bool accumulate);
// index_put's values gradient: grad at the indexed positions, summed to values' (broadcast) size.
Tensor index_put_values_backward(const Tensor& grad, const std::vector<Tensor>& indices, IntArrayRef values_sizes);
}  // namespace tl::autograd

namespace tl::autograd {
// embedding_dense_backward's gradient: the rows of grad (num_weights, D) that the indices pick,
// zero at padding_idx and divided by each index's count under scale_grad_by_freq.
Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq);
}  // namespace tl::autograd
