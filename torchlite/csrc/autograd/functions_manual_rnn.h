#pragma once
// Backward helpers of the fused recurrent kernels (Note [Fused RNN kernels], native_functions.yaml).
// Note [Differentiable RNN backward]: outside grad mode the gradients come from the fused backward
// kernels; under create_graph they are recomputed from differentiable operators (the gates
// recomputed from the saved inputs), so that they can be differentiated again, as PyTorch's
// _thnn_differentiable_*_backward do. Undefined tensors stand for absent biases, projections,
// cell states and gradients.
#include <tuple>

#include "aten/core/Tensor.h"

namespace tl::autograd {

using Grads5 = std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor>;

// _thnn_fused_lstm_cell's gradients for (input_gates, hidden_gates, cx, input_bias, hidden_bias).
Grads5 thnn_lstm_cell_backward(const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
                               const Tensor& hidden_gates, const Tensor& cx, const Tensor& input_bias,
                               const Tensor& hidden_bias, const Tensor& cy, const Tensor& workspace);
// _thnn_fused_gru_cell's gradients for (input_gates, hidden_gates, hx, input_bias, hidden_bias).
Grads5 thnn_gru_cell_backward(const Tensor& grad_hy, const Tensor& input_gates, const Tensor& hidden_gates,
                              const Tensor& hx, const Tensor& input_bias, const Tensor& hidden_bias,
                              const Tensor& workspace);
// _fused_rnn_layer's gradients for (input_gates, hx, cx, weight_hh, bias_hh, weight_hr).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> rnn_layer_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
    const Tensor& hx, const Tensor& cx, const Tensor& weight_hh, const Tensor& bias_hh, const Tensor& weight_hr,
    const Tensor& output, const Tensor& workspace, int64_t mode, bool reverse);

}  // namespace tl::autograd
