#include "torchlite/csrc/autograd/functions_manual_rnn.h"

#include <optional>
#include <utility>
#include <vector>

#include "generated/ops/_fused_rnn_layer_backward.h"
#include "generated/ops/_thnn_fused_gru_cell_backward.h"
#include "generated/ops/_thnn_fused_lstm_cell_backward.h"
#include "generated/ops/add.h"
#include "generated/ops/cat.h"
#include "generated/ops/chunk.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/relu.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rsub.h"
#include "generated/ops/select.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/stack.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/tanh.h"
#include "generated/ops/threshold_backward.h"
#include "generated/ops/zeros_like.h"
#include "torchlite/csrc/autograd/grad_mode.h"

namespace tl::autograd {

namespace {

enum Mode : int64_t { kRelu = 0, kTanh = 1, kLstm = 2, kGru = 3 };  // _fused_rnn_layer's `mode`

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

Tensor add_defined(const Tensor& a, const Tensor& b) { return !a.defined() ? b : !b.defined() ? a : a.add(b); }

// y' for y = sigmoid(x) and for y = tanh(x), in terms of y.
Tensor dsigmoid(const Tensor& y) { return y.mul(tl::rsub(y, 1)); }
Tensor dtanh(const Tensor& y) { return tl::rsub(y.mul(y), 1); }

Tensor sum_rows(const Tensor& t) { return t.reshape({-1, t.sizes()[t.dim() - 1]}).sum(IntArrayRef(0)); }

// One LSTM step from its gate pre-activations (N, 4H) and cx.
struct LstmStep {
  Tensor i, f, g, o, c, tc;  // gates, c, tanh(c); h = o tanh(c)
};
LstmStep lstm_step(const Tensor& pre, const Tensor& cx) {
  std::vector<Tensor> q = pre.chunk(4, -1);
  LstmStep s{q[0].sigmoid(), q[1].sigmoid(), q[2].tanh(), q[3].sigmoid(), Tensor(), Tensor()};
  s.c = s.f.mul(cx).add(s.i.mul(s.g));
  s.tc = s.c.tanh();
  return s;
}
// (gradient of the pre-activations, gradient of cx) from those of h and c (either may be undefined).
std::pair<Tensor, Tensor> lstm_step_backward(const LstmStep& s, const Tensor& cx, const Tensor& dh, const Tensor& dc) {
  Tensor dct = add_defined(dh.defined() ? dh.mul(s.o).mul(dtanh(s.tc)) : Tensor(), dc);
  if (!dct.defined()) dct = tl::zeros_like(s.c);
  Tensor d_o = dh.defined() ? dh.mul(s.tc).mul(dsigmoid(s.o)) : tl::zeros_like(s.o);
  Tensor dpre = tl::cat({dct.mul(s.g).mul(dsigmoid(s.i)), dct.mul(cx).mul(dsigmoid(s.f)),
                         dct.mul(s.i).mul(dtanh(s.g)), d_o},
                        -1);
  return {dpre, dct.mul(s.f)};
}

// One GRU step from the input and hidden gate pre-activations (biases included).
struct GruStep {
  Tensor r, z, n, hn;  // h = n + z (hx - n)
};
GruStep gru_step(const Tensor& gi, const Tensor& gh) {
  std::vector<Tensor> a = gi.chunk(3, -1), b = gh.chunk(3, -1);
  GruStep s{a[0].add(b[0]).sigmoid(), a[1].add(b[1]).sigmoid(), Tensor(), b[2]};
  s.n = a[2].add(s.r.mul(s.hn)).tanh();
  return s;
}
// (input-gate gradient, hidden-gate gradient, the direct part of the hx gradient) from dh.
std::tuple<Tensor, Tensor, Tensor> gru_step_backward(const GruStep& s, const Tensor& hx, const Tensor& dh) {
  Tensor dan = dh.mul(tl::rsub(s.z, 1)).mul(dtanh(s.n));
  Tensor dar = dan.mul(s.hn).mul(dsigmoid(s.r));
  Tensor daz = dh.mul(hx.sub(s.n)).mul(dsigmoid(s.z));
  return {tl::cat({dar, daz, dan}, -1), tl::cat({dar, daz, dan.mul(s.r)}, -1), dh.mul(s.z)};
}

Tensor with_bias(const Tensor& t, const Tensor& bias) { return bias.defined() ? t.add(bias) : t; }

}  // namespace

Grads5 thnn_lstm_cell_backward(const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
                               const Tensor& hidden_gates, const Tensor& cx, const Tensor& input_bias,
                               const Tensor& hidden_bias, const Tensor& cy, const Tensor& workspace) {
  const bool has_bias = input_bias.defined();
  if (!GradMode::is_enabled())
    return tl::_thnn_fused_lstm_cell_backward(opt(grad_hy), opt(grad_cy), cx, cy, workspace, has_bias);
  if (!grad_hy.defined() && !grad_cy.defined()) return {};
  Tensor pre = with_bias(with_bias(input_gates.add(hidden_gates), input_bias), hidden_bias);
  auto [dpre, dcx] = lstm_step_backward(lstm_step(pre, cx), cx, grad_hy, grad_cy);
  Tensor db = has_bias ? sum_rows(dpre) : Tensor();
  return {dpre, dpre, dcx, db, db};
}

Grads5 thnn_gru_cell_backward(const Tensor& grad_hy, const Tensor& input_gates, const Tensor& hidden_gates,
                              const Tensor& hx, const Tensor& input_bias, const Tensor& hidden_bias,
                              const Tensor& workspace) {
  const bool has_bias = input_bias.defined();
  if (!GradMode::is_enabled()) return tl::_thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias);
  GruStep s = gru_step(with_bias(input_gates, input_bias), with_bias(hidden_gates, hidden_bias));
  auto [dgi, dgh, dhx] = gru_step_backward(s, hx, grad_hy);
  return {dgi, dgh, dhx, has_bias ? sum_rows(dgi) : Tensor(), has_bias ? sum_rows(dgh) : Tensor()};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> rnn_layer_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
    const Tensor& hx, const Tensor& cx, const Tensor& weight_hh, const Tensor& bias_hh, const Tensor& weight_hr,
    const Tensor& output, const Tensor& workspace, int64_t mode, bool reverse) {
  if (!GradMode::is_enabled())
    return tl::_fused_rnn_layer_backward(opt(grad_output), opt(grad_hy), opt(grad_cy), hx, opt(cx), weight_hh,
                                         opt(bias_hh), opt(weight_hr), output, workspace, mode, reverse);
  const int64_t L = input_gates.sizes()[0];
  if (L == 0)
    return {tl::zeros_like(input_gates), grad_hy.defined() ? grad_hy : tl::zeros_like(hx),
            cx.defined() ? (grad_cy.defined() ? grad_cy : tl::zeros_like(cx)) : Tensor(), tl::zeros_like(weight_hh),
            bias_hh.defined() ? tl::zeros_like(bias_hh) : Tensor(),
            weight_hr.defined() ? tl::zeros_like(weight_hr) : Tensor()};
  auto time_of = [&](int64_t step) { return reverse ? L - 1 - step : step; };
  // The forward again, from differentiable operators, keeping what the backward reads.
  std::vector<Tensor> h_prev(L), c_prev(L), h_out(L), h_pre(L);
  std::vector<LstmStep> lstm(L);
  std::vector<GruStep> gru(L);
  Tensor h = hx, c = cx, w_t = weight_hh.t();
  for (int64_t step = 0; step < L; ++step) {
    const int64_t t = time_of(step);
    h_prev[t] = h;
    Tensor gi = input_gates.select(0, t), gh = with_bias(h.matmul(w_t), bias_hh);
    if (mode == kLstm) {
      c_prev[t] = c;
      lstm[t] = lstm_step(gi.add(gh), c);
      c = lstm[t].c;
      h_pre[t] = lstm[t].o.mul(lstm[t].tc);
      h = weight_hr.defined() ? h_pre[t].matmul(weight_hr.t()) : h_pre[t];
    } else if (mode == kGru) {
      gru[t] = gru_step(gi, gh);
      h = gru[t].n.add(gru[t].z.mul(h.sub(gru[t].n)));
    } else {
      Tensor pre = gi.add(gh);
      h = mode == kRelu ? pre.relu() : pre.tanh();
    }
    h_out[t] = h;
  }
  // The backward through time.
  std::vector<Tensor> d_gi(L), d_gh(L), d_proj(L);
  Tensor dh = grad_hy.defined() ? grad_hy : tl::zeros_like(hx), dc = grad_cy;
  for (int64_t step = L - 1; step >= 0; --step) {
    const int64_t t = time_of(step);
    if (grad_output.defined()) dh = dh.add(grad_output.select(0, t));
    if (mode == kLstm) {
      d_proj[t] = dh;
      auto [dpre, dcx] = lstm_step_backward(lstm[t], c_prev[t], weight_hr.defined() ? dh.matmul(weight_hr) : dh, dc);
      d_gi[t] = d_gh[t] = dpre;
      dc = dcx;
      dh = dpre.matmul(weight_hh);
    } else if (mode == kGru) {
      auto [dgi, dgh, direct] = gru_step_backward(gru[t], h_prev[t], dh);
      d_gi[t] = dgi;
      d_gh[t] = dgh;
      dh = direct.add(dgh.matmul(weight_hh));
    } else {
      d_gi[t] = d_gh[t] = mode == kRelu ? tl::threshold_backward(dh, h_out[t], 0) : dh.mul(dtanh(h_out[t]));
      dh = d_gh[t].matmul(weight_hh);
    }
  }
  // Weight gradients over all steps at once.
  auto rows = [](const std::vector<Tensor>& ts) {
    Tensor s = tl::stack(ts);
    return s.reshape({-1, s.sizes()[2]});
  };
  Tensor dgh_rows = rows(d_gh);
  Tensor d_whh = dgh_rows.t().matmul(rows(h_prev));
  Tensor d_whr = weight_hr.defined() ? rows(d_proj).t().matmul(rows(h_pre)) : Tensor();
  return {tl::stack(d_gi), dh, mode == kLstm ? dc : Tensor(), d_whh,
          bias_hh.defined() ? dgh_rows.sum(IntArrayRef(0)) : Tensor(), d_whr};
}

}  // namespace tl::autograd
