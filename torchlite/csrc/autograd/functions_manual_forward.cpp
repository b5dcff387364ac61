#include "torchlite/csrc/autograd/functions_manual_forward.h"

#include <vector>

#include "generated/Functions.h"

namespace tl::autograd {

Tensor gather_with_keepdimed_indices(const Tensor& t, int64_t dim, const Tensor& indices, bool keepdim) {
  if (t.dim() == 0) return t;
  if (keepdim) return t.gather(dim, indices);
  return t.gather(dim, indices.unsqueeze(dim)).squeeze(dim);
}

Tensor reduction_jvp(const Tensor& dself, const Tensor& self_t, std::optional<IntArrayRef> dim, bool keepdim) {
  if (dim.has_value() && dim->empty()) dim = std::nullopt;
  return dself.mul(self_t).sum(dim, keepdim);
}

Tensor reduction_jvp(const Tensor& dself, const Tensor& self_t, int64_t dim, bool keepdim) {
  if (self_t.dim() == 0) return dself.mul(self_t);
  const std::vector<int64_t> dims{dim};
  return reduction_jvp(dself, self_t, IntArrayRef(dims), keepdim);
}

Tensor softmax_jvp(const Tensor& result, const Tensor& self_t, int64_t dim) {
  // d softmax = y * (t - sum(y * t))
  if (result.dim() == 0) return self_t.mul(0.0);
  const std::vector<int64_t> dims{dim};
  return result.mul(self_t.sub(result.mul(self_t).sum(IntArrayRef(dims), true)));
}

Tensor log_softmax_jvp(const Tensor& result, const Tensor& self_t, int64_t dim) {
  // d log_softmax = t - sum(softmax * t)
  if (result.dim() == 0) return self_t.mul(0.0);
  const std::vector<int64_t> dims{dim};
  return self_t.sub(result.exp().mul(self_t).sum(IntArrayRef(dims), true));
}

namespace {

// (x_hat, d x_hat) of x_hat = (x - mean) / sqrt(var + eps) over `axes` (biased variance):
// d x_hat = rstd * (dx - mean(dx) - x_hat * mean(x_hat * dx)).
std::pair<Tensor, Tensor> normalize_jvp(const Tensor& x, const Tensor& dx, IntArrayRef axes, double eps) {
  Tensor centered = x.sub(x.mean(axes, true));
  Tensor rstd = centered.mul(centered).mean(axes, true).add(eps).rsqrt();
  Tensor x_hat = centered.mul(rstd);
  Tensor d = dx.sub(dx.mean(axes, true)).sub(x_hat.mul(x_hat.mul(dx).mean(axes, true)));
  return {x_hat, d.mul(rstd)};
}

// y = x_hat * w + b, with w and b already shaped to broadcast against x_hat.
Tensor affine_jvp(const Tensor& x_hat, const Tensor& dx_hat, const std::optional<Tensor>& w,
                  const std::optional<Tensor>& w_t, const std::optional<Tensor>& b_t) {
  Tensor out = w.has_value() && w->defined() ? dx_hat.mul(*w) : dx_hat;
  if (w_t.has_value() && w_t->defined()) out = out.add(x_hat.mul(*w_t));
  if (b_t.has_value() && b_t->defined()) out = out.add(*b_t);
  return out;
}

// A per-channel parameter [C] viewed as [1, C, 1, ...] against an input of `dim` dims.
std::optional<Tensor> channel_view(const std::optional<Tensor>& p, int64_t dim) {
  if (!p.has_value() || !p->defined()) return std::nullopt;
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[1] = p->numel();
  return p->reshape(shape);
}

}  // namespace

Tensor layer_norm_jvp(const Tensor& input, const Tensor& input_t, IntArrayRef normalized_shape,
                      const std::optional<Tensor>& weight, const std::optional<Tensor>& weight_t,
                      const std::optional<Tensor>& bias_t, double eps) {
  std::vector<int64_t> axes;
  for (int64_t d = input.dim() - static_cast<int64_t>(normalized_shape.size()); d < input.dim(); ++d)
    axes.push_back(d);
  auto [x_hat, dx_hat] = normalize_jvp(input, input_t, axes, eps);
  return affine_jvp(x_hat, dx_hat, weight, weight_t, bias_t);
}

Tensor batch_norm_jvp(const Tensor& input, const Tensor& input_t, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t,
                      const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                      bool training, double eps) {
  const int64_t dim = input.dim();
  Tensor x_hat, dx_hat;
  if (training || !running_mean.has_value() || !running_var.has_value()) {
    std::vector<int64_t> axes{0};
    for (int64_t d = 2; d < dim; ++d) axes.push_back(d);
    std::tie(x_hat, dx_hat) = normalize_jvp(input, input_t, axes, eps);
  } else {
    // Eval mode: the running statistics are constants.
    Tensor rstd = channel_view(running_var, dim)->add(eps).rsqrt();
    x_hat = input.sub(*channel_view(running_mean, dim)).mul(rstd);
    dx_hat = input_t.mul(rstd);
  }
  return affine_jvp(x_hat, dx_hat, channel_view(weight, dim), channel_view(weight_t, dim), channel_view(bias_t, dim));
}

}  // namespace tl::autograd
