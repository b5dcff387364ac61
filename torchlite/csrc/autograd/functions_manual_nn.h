#pragma once
// Backward helpers of the nn ops and losses: convolution, pooling, padding, softmax,
// normalization, nll_loss and dropout. Built from differentiable operators unless a comment says
// otherwise.
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/core/Tensor.h"

namespace tl::autograd {

// Double backward of softmax: _softmax_backward_data(go, y) = y * (go - sum(go * y)), differentiated
// in y.
Tensor softmax_backward_data_output_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output,
                                             int64_t dim);
// Double backward of log_softmax: _log_softmax_backward_data(go, y) = go - exp(y) * sum(go), differentiated
// in go and in y.
Tensor log_softmax_backward_data_grad_backward(const Tensor& grad, const Tensor& output, int64_t dim);
Tensor log_softmax_backward_data_output_backward(const Tensor& grad, const Tensor& grad_output,
                                                 const Tensor& output, int64_t dim);

}  // namespace tl::autograd

namespace tl::autograd {

// Note [Fused normalisation backward]: the gradients of native_layer_norm / native_batch_norm. Without
// grad mode they come from the fused kernels; under create_graph they are recomputed from
// differentiable operators (the statistics recomputed from `input`), so that they can be
// differentiated again. Undefined tensors stand for absent weight / bias.
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& weight,
                                                       const Tensor& bias, const Tensor& mean, const Tensor& rstd,
                                                       double eps, std::array<bool, 3> mask);
// save_mean / save_invstd: native_batch_norm's statistics (batch ones in training, running ones in eval).
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& save_mean, const Tensor& save_invstd,
                                                       bool training, double eps, std::array<bool, 3> mask);
// The fused backward kernels are reached only outside grad mode (see the Note above).
[[noreturn]] std::tuple<Tensor, Tensor, Tensor> fused_norm_backward_not_differentiable(const char* op);

// nll_loss_backward is linear in grad_output with nll_loss_forward as its adjoint.
Tensor nll_loss_double_backward(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t reduction,
                                int64_t ignore_index);

// binary_cross_entropy's gradients, scaled as `reduction` asks and weighted. In self:
// (x - t) / max(x (1 - x), 1e-12), PyTorch's bound, so that an input at exactly 0 or 1 (a
// saturated sigmoid) gets a finite gradient instead of the 0 * inf = NaN that differentiating
// the forward's clamped logs gives. In target: the forward's clamped log(1 - x) - log(x), the
// derivative of the loss as computed (+-100 at x = 0 or 1, where PyTorch's -logit(x) gives +-inf).
Tensor binary_cross_entropy_self_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self,
                                            const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_weight_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            int64_t reduction);
// Forward mode: the tangent of the (reduced) loss.
Tensor binary_cross_entropy_jvp(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                const Tensor& self_t, const Tensor& target_t, const std::optional<Tensor>& weight_t,
                                int64_t reduction);

// ---- convolution ----

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

// ---- pooling ----

// The last n entries of sizes (adaptive pooling's output size from its gradient's shape).
std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n);

// 3-d max pooling's gradient: _max_pool_scatter over (D*H, W) views, whose flat per-plane
// indices are the volumes' flat indices.
Tensor max_pool3d_scatter(const Tensor& grad, const Tensor& indices, IntArrayRef self_sizes);

// ---- padding ----

// constant_pad_nd's gradient: the same padding negated (a crop; negative pads become zeros).
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);

// ---- dropout ----

// native_dropout's output scale: 1 / (1 - p) in training (0 for p == 1), 1 otherwise.
double dropout_scale(double p, std::optional<bool> train);

}  // namespace tl::autograd
