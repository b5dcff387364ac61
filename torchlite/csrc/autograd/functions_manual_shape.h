#pragma once
// Backward helpers of the shape and view ops. Built from differentiable operators unless a
// comment says otherwise.
#include <optional>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// Backward of unsqueeze(self, dim): drops the inserted size-1 dim again.
Tensor unsqueeze_backward(const Tensor& grad, int64_t dim);
// Backward of slice: resolves the optional bounds and calls slice_backward.
Tensor slice_backward_wrapper(const Tensor& grad, IntArrayRef input_sizes, int64_t dim,
                              std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
// Backward of as_strided for non-overlapping input and output geometries. Not itself
// differentiable: raises under create_graph.
Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_storage_offset, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace tl::autograd
