#include "torchlite/csrc/autograd/functions_manual_nn.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "aten/core/Reduction.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_max_pool_scatter.h"
#include "generated/ops/add.h"
#include "generated/ops/binary_cross_entropy.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/convolution.h"
#include "generated/ops/convolution_backward_input.h"
#include "generated/ops/convolution_backward_weight.h"
#include "generated/ops/div.h"
#include "generated/ops/exp.h"
#include "generated/ops/flatten.h"
#include "generated/ops/log.h"
#include "generated/ops/log1p.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/native_batch_norm_backward.h"
#include "generated/ops/native_layer_norm_backward.h"
#include "generated/ops/neg.h"
#include "generated/ops/nll_loss_forward.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rsqrt.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/view.h"
#include "torchlite/csrc/autograd/grad_mode.h"

namespace tl::autograd {

namespace {

Tensor sum_keep(const Tensor& t, int64_t dim) { return t.sum(IntArrayRef(dim), true); }

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

std::vector<int64_t> range(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

}  // namespace

Tensor softmax_backward_data_output_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output,
                                             int64_t dim) {
  return grad.mul(grad_output.sub(sum_keep(grad_output.mul(output), dim)))
      .sub(grad_output.mul(sum_keep(grad.mul(output), dim)));
}

Tensor log_softmax_backward_data_grad_backward(const Tensor& grad, const Tensor& output, int64_t dim) {
  return grad.sub(sum_keep(grad.mul(output.exp()), dim));
}

Tensor log_softmax_backward_data_output_backward(const Tensor& grad, const Tensor& grad_output,
                                                 const Tensor& output, int64_t dim) {
  return grad.mul(output.exp()).mul(sum_keep(grad_output, dim)).neg();
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& weight,
                                                       const Tensor& bias, const Tensor& mean, const Tensor& rstd,
                                                       double eps, std::array<bool, 3> mask) {
  if (!GradMode::is_enabled())
    return tl::native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, opt(weight), opt(bias), mask);
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  const std::vector<int64_t> norm_dims = range(axis, input.dim()), lead_dims = range(0, axis);
  Tensor xc = input.sub(input.mean(IntArrayRef(norm_dims), true));
  Tensor r = xc.mul(xc).mean(IntArrayRef(norm_dims), true).add(eps).rsqrt();
  Tensor xhat = xc.mul(r);
  Tensor g = weight.defined() ? grad.mul(weight) : grad;
  auto sum_lead = [&](const Tensor& t) { return axis > 0 ? t.sum(IntArrayRef(lead_dims)) : t; };
  Tensor gx, gw, gb;
  if (mask[0])
    gx = r.mul(g.sub(g.mean(IntArrayRef(norm_dims), true))
                   .sub(xhat.mul(g.mul(xhat).mean(IntArrayRef(norm_dims), true))));
  if (mask[1] && weight.defined()) gw = sum_lead(grad.mul(xhat));
  if (mask[2] && bias.defined()) gb = sum_lead(grad);
  return {gx, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& save_mean, const Tensor& save_invstd,
                                                       bool training, double eps, std::array<bool, 3> mask) {
  if (!GradMode::is_enabled())
    return tl::native_batch_norm_backward(grad, input, opt(weight), std::nullopt, std::nullopt, save_mean, save_invstd,
                                          training, eps, mask);
  std::vector<int64_t> dims = range(0, input.dim()), shape(input.dim(), 1);
  dims.erase(dims.begin() + 1);
  shape[1] = input.sizes()[1];
  const IntArrayRef d(dims);
  Tensor xc, r;
  if (training) {  // the batch statistics depend on the input
    xc = input.sub(input.mean(d, true));
    r = xc.mul(xc).mean(d, true).add(eps).rsqrt();
  } else {
    xc = input.sub(save_mean.reshape(shape));
    r = save_invstd.reshape(shape);
  }
  Tensor xhat = xc.mul(r);
  Tensor gx, gw, gb;
  if (mask[0]) {
    Tensor scale = weight.defined() ? r.mul(weight.reshape(shape)) : r;
    gx = training ? scale.mul(grad.sub(grad.mean(d, true)).sub(xhat.mul(grad.mul(xhat).mean(d, true))))
                  : scale.mul(grad);
  }
  if (mask[1] && weight.defined()) gw = grad.mul(xhat).sum(d);
  if (mask[2]) gb = grad.sum(d);
  return {gx, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> fused_norm_backward_not_differentiable(const char* op) {
  TL_ERROR(op, " is not differentiable: differentiate native_layer_norm / native_batch_norm with create_graph=True");
}

Tensor nll_loss_double_backward(const Tensor& grad, const Tensor& target, const Tensor& weight, int64_t reduction,
                                int64_t ignore_index) {
  return std::get<0>(tl::nll_loss_forward(grad, target, opt(weight), reduction, ignore_index));
}

namespace {
// grad times the per-element derivative `d` of a loss reduced by `reduction`, weighted.
Tensor reduced_loss_backward(const Tensor& grad, Tensor d, const std::optional<Tensor>& weight, int64_t reduction) {
  if (weight && weight->defined()) d = d.mul(*weight);
  return d.mul(reduction == Reduction::Mean ? grad.div(static_cast<double>(std::max<int64_t>(d.numel(), 1))) : grad);
}
}  // namespace

Tensor binary_cross_entropy_self_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction) {
  const Tensor d = self.sub(target).div(tl::clamp_min(self.neg().add(1).mul(self), Scalar(1e-12)));
  return reduced_loss_backward(grad, d, weight, reduction);
}

Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self,
                                            const std::optional<Tensor>& weight, int64_t reduction) {
  const Tensor d = tl::clamp_min(self.neg().log1p(), Scalar(-100)).sub(tl::clamp_min(self.log(), Scalar(-100)));
  return reduced_loss_backward(grad, d, weight, reduction);
}

Tensor binary_cross_entropy_weight_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            int64_t reduction) {
  const Tensor loss = tl::binary_cross_entropy(self, target, std::nullopt, Reduction::None);
  return reduced_loss_backward(grad, loss, std::nullopt, reduction);
}

Tensor binary_cross_entropy_jvp(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                const Tensor& self_t, const Tensor& target_t, const std::optional<Tensor>& weight_t,
                                int64_t reduction) {
  Tensor t = binary_cross_entropy_self_backward(self_t, self, target, weight, Reduction::None)
                 .add(binary_cross_entropy_target_backward(target_t, self, weight, Reduction::None));
  if (weight_t && weight_t->defined()) t = t.add(binary_cross_entropy_weight_backward(*weight_t, self, target, Reduction::None));
  if (reduction == Reduction::Mean) return t.mean();
  return reduction == Reduction::Sum ? t.sum() : t;
}

// ---- convolution ----

Tensor conv_forward_like(const Tensor& x, const Tensor& w, IntArrayRef out_sizes, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const std::vector<int64_t> no_output_padding(stride.size(), 0);
  Tensor y = tl::convolution(x, w, std::nullopt, stride, padding, dilation, false, no_output_padding, groups);
  for (int64_t d = 2; d < y.dim(); ++d) {
    TL_CHECK(y.sizes()[d] >= out_sizes[d], "convolution backward: the gradient has ", y.sizes()[d],
             " positions along dimension ", d, ", expected ", out_sizes[d]);
    if (y.sizes()[d] > out_sizes[d]) y = y.narrow(d, 0, out_sizes[d]);
  }
  return y;
}

Tensor conv_input_backward(const Tensor& grad, const Tensor& weight, IntArrayRef input_sizes, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups) {
  if (transposed) return conv_forward_like(grad, weight, input_sizes, stride, padding, dilation, groups);
  return tl::convolution_backward_input(grad, weight, input_sizes, stride, padding, dilation, groups);
}

Tensor conv_weight_backward(const Tensor& grad, const Tensor& input, IntArrayRef weight_sizes, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool transposed, int64_t groups) {
  // A transposed convolution is Bx(input, weight), whose weight gradient is Bw(grad, input).
  if (transposed) return tl::convolution_backward_weight(input, grad, weight_sizes, stride, padding, dilation, groups);
  return tl::convolution_backward_weight(grad, input, weight_sizes, stride, padding, dilation, groups);
}

Tensor conv_bias_backward(const Tensor& grad) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < grad.dim(); ++d) dims.push_back(d);
  return grad.sum(IntArrayRef(dims), false);
}

// ---- pooling ----

std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n) {
  return std::vector<int64_t>(sizes.end() - n, sizes.end());
}

Tensor max_pool3d_scatter(const Tensor& grad, const Tensor& indices, IntArrayRef self_sizes) {
  std::vector<int64_t> merged(self_sizes.begin(), self_sizes.end() - 2);
  merged.back() *= self_sizes[self_sizes.size() - 2];
  merged.push_back(self_sizes.back());
  return tl::_max_pool_scatter(grad.flatten(-3, -2), indices.flatten(-3, -2), merged).view(self_sizes);
}

// ---- padding ----

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> negated(pad.size());
  for (size_t i = 0; i < pad.size(); ++i) negated[i] = -pad[i];
  return tl::constant_pad_nd(grad, negated, 0);
}

// ---- dropout ----

double dropout_scale(double p, std::optional<bool> train) {
  if (train.has_value() && !*train) return 1.0;
  return p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
}

}  // namespace tl::autograd
