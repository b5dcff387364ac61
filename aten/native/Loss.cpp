// Loss functions. nll_loss has native kernels (it gathers one class per row); the others are
// composites of differentiable operators, so their gradients (of every order) come from their
// parts. `reduction` is PyTorch's at::Reduction: 0 none, 1 mean, 2 sum.
#include <omp.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/core/Reduction.h"
#include "aten/core/Tensor.h"
#include "generated/ops/abs.h"
#include "generated/ops/add.h"
#include "generated/ops/any.h"
#include "generated/ops/binary_cross_entropy.h"
#include "generated/ops/binary_cross_entropy_native.h"
#include "generated/ops/binary_cross_entropy_with_logits.h"
#include "generated/ops/binary_cross_entropy_with_logits_native.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/cross_entropy_loss.h"
#include "generated/ops/cross_entropy_loss_native.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/exp.h"
#include "generated/ops/full_like.h"
#include "generated/ops/gather.h"
#include "generated/ops/gt.h"
#include "generated/ops/huber_loss.h"
#include "generated/ops/huber_loss_native.h"
#include "generated/ops/kl_div.h"
#include "generated/ops/kl_div_native.h"
#include "generated/ops/l1_loss.h"
#include "generated/ops/l1_loss_native.h"
#include "generated/ops/log.h"
#include "generated/ops/log1p.h"
#include "generated/ops/log_softmax.h"
#include "generated/ops/logical_or.h"
#include "generated/ops/lt.h"
#include "generated/ops/mean.h"
#include "generated/ops/movedim.h"
#include "generated/ops/mse_loss.h"
#include "generated/ops/mse_loss_native.h"
#include "generated/ops/mul.h"
#include "generated/ops/ne.h"
#include "generated/ops/neg.h"
#include "generated/ops/nll_loss.h"
#include "generated/ops/nll_loss_backward_native.h"
#include "generated/ops/nll_loss_forward.h"
#include "generated/ops/nll_loss_forward_native.h"
#include "generated/ops/nll_loss_native.h"
#include "generated/ops/nll_loss_nd.h"
#include "generated/ops/nll_loss_nd_native.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/reshape.h"
#include "generated/ops/scatter.h"
#include "generated/ops/smooth_l1_loss.h"
#include "generated/ops/smooth_l1_loss_native.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/to.h"
#include "generated/ops/where.h"
#include "generated/ops/zero.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

std::string sizes_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

bool has(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

void check_reduction(int64_t reduction) {
  TL_CHECK(reduction >= Reduction::None && reduction <= Reduction::Sum, reduction, " is not a valid value for reduction");
}

Tensor apply_reduction(const Tensor& loss, int64_t reduction) {
  check_reduction(reduction);
  if (reduction == Reduction::Mean) return loss.mean();
  if (reduction == Reduction::Sum) return loss.sum();
  return loss;
}

// nll_loss on (N, C) or (C,) input: N rows, C classes; target (N,) or () of class indices.
struct NllGeom {
  int64_t N, C;
};

NllGeom check_nll(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction) {
  check_reduction(reduction);
  TL_CHECK(self.dim() > 0 && self.dim() <= 2, "input tensor should be 1D or 2D");
  TL_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  TL_CHECK(!target.is_floating_point() && target.dtype() != ScalarType::Bool,
           "expected scalar type Long but found ", dtype_name(target.dtype()));
  const bool no_batch = self.dim() == 1 && target.dim() == 0;
  TL_CHECK(no_batch || self.sizes()[0] == target.sizes()[0], "size mismatch (got input: ", sizes_str(self.sizes()),
           ", target: ", sizes_str(target.sizes()), ")");
  const int64_t C = self.sizes()[self.dim() - 1];
  TL_CHECK(!has(weight) || (weight->dim() <= 1 && weight->numel() == C), "weight tensor should be defined either for ",
           "all ", C, " classes or no classes but got weight tensor of shape: ", sizes_str(weight->sizes()));
  return {self.dim() == 1 ? 1 : self.sizes()[0], C};
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward_cpu(const Tensor& self, const Tensor& target,
                                                const std::optional<Tensor>& weight, int64_t reduction,
                                                int64_t ignore_index) {
  const NllGeom g = check_nll(self, target, weight, reduction);
  if (low_precision(self.dtype())) {
    auto [out, tw] = nll_loss_forward_cpu(self.to(ScalarType::Float), target,
                                          has(weight) ? std::optional<Tensor>(weight->to(ScalarType::Float))
                                                      : std::nullopt,
                                          reduction, ignore_index);
    return {out.to(self.dtype()), tw.to(self.dtype())};
  }
  Tensor x = self.contiguous(), t = target.to(ScalarType::Long).contiguous();
  Tensor w = has(weight) ? weight->to(self.dtype()).contiguous() : Tensor();
  Tensor out = reduction == Reduction::None ? empty_tensor(target.sizes(), self.options()) : empty_tensor({}, self.options());
  Tensor total_weight = empty_tensor({}, self.options());
  dispatch_float_double(self.dtype(), "nll_loss_forward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    const int64_t* tp = t.data_ptr<int64_t>();
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    T* op = out.data_ptr<T>();
    T sum = 0, tw = 0;
    for (int64_t i = 0; i < g.N; ++i) {
      const int64_t c = tp[i];
      T v = 0;
      if (c != ignore_index) {
        TL_CHECK_INDEX(c >= 0 && c < g.C, "Target ", c, " is out of bounds.");
        const T wc = wp ? wp[c] : T(1);
        v = -wc * xp[i * g.C + c];
        tw += wc;
      }
      if (reduction == Reduction::None) op[i] = v;
      else sum += v;
    }
    // mean over no (or zero-weight) targets is 0/0 = NaN, as in PyTorch.
    if (reduction != Reduction::None) op[0] = reduction == Reduction::Mean ? sum / tw : sum;
    total_weight.data_ptr<T>()[0] = tw;
  });
  return {out, total_weight};
}

namespace {

// check_nll, and grad_output's size for the reduction (both backward kernels).
NllGeom check_nll_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction) {
  const NllGeom g = check_nll(self, target, weight, reduction);
  TL_CHECK(reduction == Reduction::None ? grad_output.numel() == g.N : grad_output.numel() == 1,
           "nll_loss_backward: expected grad_output of ", reduction == Reduction::None ? g.N : 1, " elements, got ",
           grad_output.numel());
  return g;
}

}  // namespace

Tensor nll_loss_backward_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                             const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                             const Tensor& total_weight) {
  const NllGeom g = check_nll_backward(grad_output, self, target, weight, reduction);
  if (low_precision(grad_output.dtype()) || low_precision(self.dtype())) {
    return nll_loss_backward_cpu(grad_output.to(ScalarType::Float), self.to(ScalarType::Float), target,
                                 has(weight) ? std::optional<Tensor>(weight->to(ScalarType::Float)) : std::nullopt,
                                 reduction, ignore_index, total_weight.to(ScalarType::Float))
        .to(self.dtype());
  }
  const ScalarType dt = self.dtype();
  Tensor go = grad_output.to(dt).contiguous(), t = target.to(ScalarType::Long).contiguous();
  Tensor w = has(weight) ? weight->to(dt).contiguous() : Tensor();
  Tensor gi = empty_tensor(self.sizes(), self.options()).zero_();
  dispatch_float_double(dt, "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = go.data_ptr<T>();
    const int64_t* tp = t.data_ptr<int64_t>();
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    T* ip = gi.data_ptr<T>();
    const T scale = reduction == Reduction::Mean ? T(1) / total_weight.to(dt).item().to_double() : T(1);
    for (int64_t i = 0; i < g.N; ++i) {
      const int64_t c = tp[i];
      if (c == ignore_index) continue;
      TL_CHECK_INDEX(c >= 0 && c < g.C, "Target ", c, " is out of bounds.");
      ip[i * g.C + c] = -(wp ? wp[c] : T(1)) * (reduction == Reduction::None ? gp[i] : gp[0] * scale);
    }
  });
  return gi;
}

// ---- the CUDA path of nll_loss: gather / scatter and reductions, the kernels' checks and values -----

namespace {

// The target as N int64 classes, every class that is not ignore_index checked on a host copy;
// `valid` marks the rows that count and `safe` replaces ignored classes by 0 (a valid column).
struct NllTarget {
  Tensor valid, safe;
};

NllTarget nll_target(const Tensor& target, const NllGeom& g, int64_t ignore_index) {
  const std::vector<int64_t> rows{g.N};
  Tensor t = target.to(ScalarType::Long).reshape(rows);
  const Tensor host = t.to(Device(DeviceType::CPU)).contiguous();
  const int64_t* tp = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < g.N; ++i)
    TL_CHECK_INDEX(tp[i] == ignore_index || (tp[i] >= 0 && tp[i] < g.C), "Target ", tp[i], " is out of bounds.");
  Tensor valid = t.ne(ignore_index);
  return {valid, tl::where(valid, t, Scalar(int64_t(0)))};
}

// Each row's class weight, 0 for ignored rows.
Tensor nll_row_weights(const NllTarget& t, const std::optional<Tensor>& weight, ScalarType dt) {
  const std::vector<int64_t> flat{-1};
  Tensor w = has(weight) ? weight->to(dt).reshape(flat).gather(0, t.safe)
                         : tl::ones_like(t.safe, dt);
  return tl::where(t.valid, w, Scalar(0.0));
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward_composite(const Tensor& self, const Tensor& target,
                                                      const std::optional<Tensor>& weight, int64_t reduction,
                                                      int64_t ignore_index) {
  const NllGeom g = check_nll(self, target, weight, reduction);
  const ScalarType dt = low_precision(self.dtype()) ? ScalarType::Float : self.dtype();
  const NllTarget t = nll_target(target, g, ignore_index);
  const std::vector<int64_t> rows_cols{g.N, g.C}, column{g.N, 1}, rows{g.N};
  Tensor w = nll_row_weights(t, weight, dt);
  Tensor picked = self.to(dt).reshape(rows_cols).gather(1, t.safe.reshape(column)).reshape(rows);
  // Ignored rows are 0 (not -0 * x, which is NaN for an infinite x).
  Tensor v = tl::where(t.valid, picked.mul(w).neg(), Scalar(0.0));
  Tensor total_weight = w.sum();
  Tensor out = reduction == Reduction::None ? v.reshape(target.sizes()) : (reduction == Reduction::Mean ? v.sum().div(total_weight) : v.sum());
  return {out.to(self.dtype()), total_weight.to(self.dtype())};
}

Tensor nll_loss_backward_composite(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                   const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                   const Tensor& total_weight) {
  const NllGeom g = check_nll_backward(grad_output, self, target, weight, reduction);
  const ScalarType dt =
      low_precision(grad_output.dtype()) || low_precision(self.dtype()) ? ScalarType::Float : self.dtype();
  const NllTarget t = nll_target(target, g, ignore_index);
  const std::vector<int64_t> rows_cols{g.N, g.C}, column{g.N, 1}, rows{g.N};
  Tensor go = grad_output.to(dt).reshape(reduction == Reduction::None ? IntArrayRef(rows) : IntArrayRef());
  if (reduction == Reduction::Mean) go = go.div(total_weight.to(dt));
  Tensor v = tl::where(t.valid, nll_row_weights(t, weight, dt).mul(go).neg(), Scalar(0.0));
  Tensor gi = tl::zeros(rows_cols, dt, std::nullopt, self.device()).scatter(1, t.safe.reshape(column), v.reshape(column));
  return gi.reshape(self.sizes()).to(self.dtype());
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  return std::get<0>(tl::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

// (N, C, d1, ..., dk) input: the class dimension moved last and every position made a row.
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                   int64_t ignore_index) {
  TL_CHECK(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  TL_CHECK_VALUE(self.dim() == 1 || target.dim() >= 1, "Expected input batch_size (", self.sizes()[0],
           ") to match target batch_size (", target.dim() == 0 ? 1 : target.sizes()[0], ").");
  TL_CHECK_VALUE(self.dim() == 1 || self.sizes()[0] == target.sizes()[0], "Expected input batch_size (", self.sizes()[0],
           ") to match target batch_size (", target.sizes()[0], ").");
  if (self.dim() <= 2) return tl::nll_loss(self, target, weight, reduction, ignore_index);
  std::vector<int64_t> expected{self.sizes()[0]};
  for (int64_t i = 2; i < self.dim(); ++i) expected.push_back(self.sizes()[i]);
  TL_CHECK(target.sizes().equals(expected), "Expected target size ", sizes_str(expected), ", got ",
           sizes_str(target.sizes()));
  const int64_t C = self.sizes()[1];
  Tensor rows = self.movedim(1, -1).reshape({-1, C});
  Tensor out = tl::nll_loss(rows, target.reshape({-1}), weight, reduction, ignore_index);
  return reduction == Reduction::None ? out.reshape(target.sizes()) : out;
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  check_reduction(reduction);
  TL_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
           "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  TL_CHECK(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  TL_CHECK_VALUE(self.dim() == 1 || target.dim() == 0 || self.sizes()[0] == target.sizes()[0],
                 "Expected input batch_size (", self.sizes()[0], ") to match target batch_size (", target.sizes()[0],
                 ").");
  const int64_t class_dim = self.dim() == 1 ? 0 : 1, C = self.sizes()[class_dim];
  Tensor logp = tl::log_softmax(self, class_dim, std::nullopt);
  std::vector<int64_t> wshape(self.dim(), 1);
  wshape[class_dim] = C;
  if (target.is_floating_point()) {  // class probabilities
    TL_CHECK(self.sizes().equals(target.sizes()), "Expected input and target to have the same size when target ",
             "contains class probabilities, but got input of size ", sizes_str(self.sizes()), " and target of size ",
             sizes_str(target.sizes()));
    TL_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
    TL_CHECK(!has(weight) || weight->numel() == C, "weight tensor should be defined either for all ", C,
             " classes or no classes but got weight tensor of shape: ", sizes_str(weight->sizes()));
    Tensor t = label_smoothing > 0 ? target.mul(1.0 - label_smoothing).add(label_smoothing / C) : target;
    Tensor prod = logp.mul(t);
    if (has(weight)) prod = prod.mul(weight->reshape(wshape));
    Tensor loss = prod.sum(IntArrayRef(class_dim)).neg();
    if (reduction == Reduction::Mean) return self.numel() == 0 ? loss.sum().div(0.0) : loss.sum().div(double(self.numel() / C));
    return reduction == Reduction::Sum ? loss.sum() : loss;
  }
  Tensor nll = tl::nll_loss_nd(logp, target, weight, reduction, ignore_index);
  if (label_smoothing <= 0) return nll;
  // Label smoothing adds the mean over the classes of -log p (weighted), like PyTorch.
  Tensor smooth = has(weight) ? logp.mul(weight->reshape(wshape)).sum(IntArrayRef(class_dim)).neg()
                              : logp.sum(IntArrayRef(class_dim)).neg();
  smooth = tl::where(target.eq(Scalar(ignore_index)), Scalar(0.0), smooth);
  if (reduction == Reduction::Mean) {
    // normalised by the total weight of the counted targets, as nll_loss's mean is
    Tensor total = tl::nll_loss_nd(tl::full_like(logp, Scalar(-1.0)), target, weight, Reduction::Sum, ignore_index);
    smooth = smooth.sum().div(total);
  } else if (reduction == Reduction::Sum) {
    smooth = smooth.sum();
  }
  return nll.mul(1.0 - label_smoothing).add(smooth.mul(label_smoothing / C));
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  if (is_complex(self.dtype())) dtype_not_implemented("mse_cpu", self.dtype());
  Tensor d = self.sub(target);
  return apply_reduction(d.mul(d), reduction);
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return apply_reduction(self.sub(target).abs(), reduction);
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  TL_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) return tl::l1_loss(self, target, reduction);
  Tensor z = self.sub(target).abs();
  return apply_reduction(tl::where(z.lt(Scalar(beta)), z.mul(z).mul(0.5 / beta), z.sub(0.5 * beta)), reduction);
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  TL_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  Tensor z = self.sub(target).abs();
  return apply_reduction(tl::where(z.lt(Scalar(delta)), z.mul(z).mul(0.5), z.sub(0.5 * delta).mul(delta)),
                         reduction);
}

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  TL_CHECK(self.sizes().equals(target.sizes()), "binary_cross_entropy: input of size ", sizes_str(self.sizes()),
           " and target of size ", sizes_str(target.sizes()), " must be the same size");
  TL_CHECK(self.numel() == 0 || !tl::logical_or(self.lt(Scalar(0)), self.gt(Scalar(1))).any().item().to<bool>(),
           "all elements of input should be between 0 and 1");
  // log is clamped at -100 so that 0 and 1 give a finite loss, as in PyTorch.
  Tensor loss = target.mul(tl::clamp_min(self.log(), Scalar(-100)))
                    .add(target.neg().add(1).mul(tl::clamp_min(self.neg().log1p(), Scalar(-100))))
                    .neg();
  if (has(weight)) loss = loss.mul(*weight);
  return apply_reduction(loss, reduction);
}

// Stable for large |x|: (1 - t) x + lw (max(-x, 0) + log1p(exp(-|x|))), lw = 1 + (pos_weight - 1) t.
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  Tensor log_sig_neg = tl::clamp_min(self.neg(), Scalar(0)).add(self.abs().neg().exp().log1p());
  if (has(pos_weight)) log_sig_neg = log_sig_neg.mul(pos_weight->sub(Scalar(1)).mul(target).add(Scalar(1)));
  Tensor loss = target.neg().add(1).mul(self).add(log_sig_neg);
  if (has(weight)) loss = loss.mul(*weight);
  return apply_reduction(loss, reduction);
}

Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  Tensor loss;
  if (log_target) {
    loss = target.exp().mul(target.sub(self));
  } else {  // xlogy(t, t) - t x: 0 where t == 0
    loss = target.mul(tl::where(target.eq(Scalar(0)), Scalar(1.0), target).log()).sub(target.mul(self));
  }
  return apply_reduction(loss, reduction);
}

}  // namespace tl::native
