#pragma once
// Hand-written helpers the formulas in derivatives.yaml call (PyTorch's FunctionsManual).
// Every helper is built from differentiable operators, so a backward formula that uses it can
// itself be differentiated (create_graph=True), unless its comment says otherwise.
#include <optional>
#include <string>
#include <vector>

#include "aten/ATen.h"

namespace tl::autograd {

// Whether `shape` broadcasts to `desired`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);
// Sums a broadcast gradient back to `shape` (the backward of broadcasting / expand).
Tensor sum_to(const Tensor& grad, IntArrayRef shape);
// grad * s, skipping the multiply when s == 1.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// A tensor of zeros with t's sizes, dtype and device.
Tensor zeros_like_grad(const Tensor& t);
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
// Elementwise backward helpers (derivatives.yaml: div, pow, maximum/minimum, clamp).
Tensor div_mode_self_backward(const Tensor& grad, const Tensor& other, const std::optional<std::string>& rounding_mode,
                              IntArrayRef self_sizes);
Tensor div_mode_other_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                               const std::optional<std::string>& rounding_mode, IntArrayRef other_sizes);
Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor max_min_backward(const Tensor& grad, const Tensor& a, const Tensor& b, bool is_max);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
// Reduction and shape backward helpers.
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
// prod over one dim / over everything; correct where the input has zeros (see the .cpp).
Tensor prod_backward(const Tensor& grad, const Tensor& self, int64_t dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self);
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim);
// Raised by formulas that are not implemented.
[[noreturn]] Tensor not_implemented(const char* what);

}  // namespace tl::autograd

// ---- convolution (h-conv) ----
namespace tl::autograd {

// Note [Convolution as three bilinear maps] (aten/native/Convolution.h). The forward
// convolution of x and w cut to the spatial size of `out_sizes` (the input of a transposed
// convolution whose output_padding reaches past its stride is shorter than the forward
// convolution of that output).
Tensor conv_forward_like(const Tensor& x, const Tensor& w, IntArrayRef out_sizes, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef dilation, int64_t groups);
Tensor conv_input_backward(const Tensor& grad, const Tensor& weight, IntArrayRef input_sizes, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups);
Tensor conv_weight_backward(const Tensor& grad, const Tensor& input, IntArrayRef weight_sizes, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups);
// The bias gradient: grad summed over every dimension but the channels (1).
Tensor conv_bias_backward(const Tensor& grad);

}  // namespace tl::autograd

// ---- pooling (h-conv) ----
namespace tl::autograd {

// The last n entries of sizes (adaptive pooling's output size from its gradient's shape).
std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n);

}  // namespace tl::autograd
#include "torchlite/csrc/autograd/functions_manual_mathact.h"
#include "torchlite/csrc/autograd/functions_manual_nnops.h"
#include "torchlite/csrc/autograd/functions_manual_conv.h"
#include "torchlite/csrc/autograd/functions_manual_index.h"
#include "torchlite/csrc/autograd/functions_manual_reduce.h"
