#pragma once
// Backward helpers of the nn ops (h-nnops): softmax, normalization, losses. Built from
// differentiable operators unless a comment says otherwise.
#include <array>
#include <tuple>

#include "aten/ATen.h"

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

}  // namespace tl::autograd
