// _fused_rnn_layer and its backward as a host loop over the time steps of device ops: per step a
// matrix product (h W_hh^T, with b_hh folded in) and the fused cell (RNN.cpp's stubs), as in the
// CPU kernel (RNN.cpp), whose workspace layout and results these match. The CUDA path: the CPU
// keeps its kernel, which runs the whole recurrence in one parallel region.
#include <tuple>

#include "aten/core/Tensor.h"
#include "aten/native/RNN.h"
#include "generated/ops/_fused_rnn_layer_backward_native.h"
#include "generated/ops/_fused_rnn_layer_native.h"
#include "generated/ops/_thnn_fused_gru_cell.h"
#include "generated/ops/_thnn_fused_gru_cell_backward.h"
#include "generated/ops/_thnn_fused_lstm_cell.h"
#include "generated/ops/_thnn_fused_lstm_cell_backward_impl.h"
#include "generated/ops/add.h"
#include "generated/ops/addmm.h"
#include "generated/ops/clone.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/gt.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/relu.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rsub.h"
#include "generated/ops/select.h"
#include "generated/ops/sum.h"
#include "generated/ops/t.h"
#include "generated/ops/tanh.h"
#include "generated/ops/to.h"
#include "generated/ops/zero.h"

namespace tl::native {

namespace {

using rnn::kGru;
using rnn::kLstm;
using rnn::kRelu;
using rnn::LayerShape;
using rnn::time_of;

void check_float_double(const char* op, ScalarType dtype) {
  if (dtype != ScalarType::Float && dtype != ScalarType::Double) dtype_not_implemented(op, dtype);
}

// The (L * N, W) rows of an (L, N, W) tensor.
Tensor flat_rows(const Tensor& t) {
  const int64_t sizes[] = {t.sizes()[0] * t.sizes()[1], t.sizes()[2]};
  return t.reshape(IntArrayRef(sizes, 2));
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> fused_rnn_layer_composite(const Tensor& input_gates, const Tensor& hx,
                                                                     const std::optional<Tensor>& cx,
                                                                     const Tensor& weight_hh,
                                                                     const std::optional<Tensor>& bias_hh,
                                                                     const std::optional<Tensor>& weight_hr,
                                                                     int64_t mode, bool reverse) {
  const char* op = "_fused_rnn_layer";
  Tensor c0 = rnn::contiguous_or_undefined(cx), b_hh = rnn::contiguous_or_undefined(bias_hh);
  Tensor w_hr = rnn::contiguous_or_undefined(weight_hr);
  const LayerShape s = rnn::check_layer(op, input_gates.sizes(), hx, c0, weight_hh, b_hh, w_hr, mode);
  rnn::check_same_dtype(hx, input_gates, op, "input_gates");
  check_float_double(op, hx.dtype());
  const int64_t L = s.L, N = s.N, H = s.H;
  const auto& o = hx.options();
  Tensor out = empty_tensor({L, N, s.Ho}, o), ws = empty_tensor({L, N, s.ws_width}, o);
  const Tensor w_hh_t = weight_hh.t(), w_hr_t = w_hr.defined() ? w_hr.t() : Tensor();
  Tensor h = hx.contiguous().clone(), c = c0.defined() ? c0.clone() : Tensor();
  for (int64_t step = 0; step < L; ++step) {
    const int64_t t = time_of(step, L, reverse);
    const Tensor ig_t = input_gates.select(0, t), ws_t = ws.select(0, t);
    const Tensor hg = b_hh.defined() ? addmm(b_hh, h, w_hh_t) : h.mm(w_hh_t);
    if (mode == kLstm) {
      auto [h_cell, c_t, gates] = _thnn_fused_lstm_cell(ig_t, hg, c);
      ws_t.narrow(1, 0, 4 * H).copy_(gates);
      ws_t.narrow(1, 4 * H, H).copy_(c_t);
      h = w_hr_t.defined() ? h_cell.mm(w_hr_t) : h_cell;
      c = c_t;
    } else if (mode == kGru) {
      auto [h_t, cell_ws] = _thnn_fused_gru_cell(ig_t, hg, h);
      ws_t.copy_(cell_ws);
      h = h_t;
    } else {
      const Tensor a = ig_t.add(hg);
      h = mode == kRelu ? a.relu() : a.tanh();
    }
    out.select(0, t).copy_(h);
  }
  return {out, h, c, ws};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> fused_rnn_layer_backward_composite(
    const std::optional<Tensor>& grad_output, const std::optional<Tensor>& grad_hy,
    const std::optional<Tensor>& grad_cy, const Tensor& hx, const std::optional<Tensor>& cx, const Tensor& weight_hh,
    const std::optional<Tensor>& bias_hh, const std::optional<Tensor>& weight_hr, const Tensor& output,
    const Tensor& workspace, int64_t mode, bool reverse) {
  const char* op = "_fused_rnn_layer_backward";
  Tensor c0 = rnn::contiguous_or_undefined(cx), b_hh = rnn::contiguous_or_undefined(bias_hh);
  Tensor w_hr = rnn::contiguous_or_undefined(weight_hr);
  Tensor go = rnn::contiguous_or_undefined(grad_output), ghy = rnn::contiguous_or_undefined(grad_hy);
  Tensor gcy = rnn::contiguous_or_undefined(grad_cy);
  const LayerShape s =
      rnn::check_layer_backward(op, go, ghy, gcy, hx, c0, weight_hh, b_hh, w_hr, output, workspace, mode);
  check_float_double(op, hx.dtype());
  const int64_t L = s.L, N = s.N, H = s.H, Ho = s.Ho, GH = s.G * H;
  const auto& o = hx.options();
  Tensor d_ig = empty_tensor({L, N, GH}, o);
  Tensor d_hg = mode == kGru ? empty_tensor({L, N, GH}, o) : d_ig;  // the GRU's n gate differs
  // h_{t-1} of every step, for the W_hh gradient (for the GRU the workspace holds it).
  Tensor h_prev_all = mode == kGru ? Tensor() : empty_tensor({L, N, Ho}, o);
  // With projections: the gradient reaching h W_hr^T and the unprojected h, per step.
  Tensor dh_all = w_hr.defined() ? empty_tensor({L, N, Ho}, o) : Tensor();
  Tensor hpre_all = w_hr.defined() ? empty_tensor({L, N, H}, o) : Tensor();
  // dh and dc: the gradients reaching the current step's h and c.
  Tensor dh = ghy.defined() ? ghy.clone() : empty_tensor({N, Ho}, o).zero_();
  Tensor dc = mode == kLstm ? (gcy.defined() ? gcy.clone() : empty_tensor({N, H}, o).zero_()) : Tensor();
  for (int64_t step = L - 1; step >= 0; --step) {
    const int64_t t = time_of(step, L, reverse), t_prev = step == 0 ? 0 : time_of(step - 1, L, reverse);
    const Tensor h_prev = step == 0 ? hx : output.select(0, t_prev);
    if (h_prev_all.defined()) h_prev_all.select(0, t).copy_(h_prev);
    if (go.defined()) dh = dh.add(go.select(0, t));
    const Tensor ws_t = workspace.select(0, t), dig_t = d_ig.select(0, t);
    if (mode == kLstm) {
      const Tensor c_prev = step == 0 ? c0 : workspace.select(0, t_prev).narrow(1, 4 * H, H);
      const Tensor c_t = ws_t.narrow(1, 4 * H, H);
      Tensor dh_cell = dh;
      if (w_hr.defined()) {
        dh_all.select(0, t).copy_(dh);
        dh_cell = dh.mm(w_hr);
        hpre_all.select(0, t).copy_(ws_t.narrow(1, 3 * H, H).mul(c_t.tanh()));  // o tanh(c_t), recomputed
      }
      auto [dg, dcx, db] = _thnn_fused_lstm_cell_backward_impl(dh_cell, dc, c_prev, c_t, ws_t.narrow(1, 0, 4 * H),
                                                               false);
      dig_t.copy_(dg);
      dc = dcx;
    } else if (mode == kGru) {
      auto [dgi, dgh, dhx, dbi, dbh] = _thnn_fused_gru_cell_backward(dh, ws_t, false);
      dig_t.copy_(dgi);
      d_hg.select(0, t).copy_(dgh);
      dh = dhx;  // z dh; the recurrent part is added below
    } else {
      const Tensor h_t = output.select(0, t);
      dig_t.copy_(mode == kRelu ? dh.mul(h_t.gt(0).to(h_t.dtype())) : dh.mul(rsub(h_t.mul(h_t), 1)));
    }
    const Tensor rec = d_hg.select(0, t).mm(weight_hh);  // dh_{t-1} through W_hh
    dh = mode == kGru ? dh.add(rec) : rec;
  }
  // Weight gradients: one product over all L * N rows.
  const Tensor hprev_rows = mode == kGru ? flat_rows(workspace).narrow(1, 3 * H, H) : flat_rows(h_prev_all);
  Tensor d_whh = flat_rows(d_hg).t().mm(hprev_rows);
  const int64_t rows_dim[] = {0};
  Tensor d_bhh = b_hh.defined() ? flat_rows(d_hg).sum(IntArrayRef(rows_dim, 1), false, std::nullopt) : Tensor();
  Tensor d_whr = w_hr.defined() ? flat_rows(dh_all).t().mm(flat_rows(hpre_all)) : Tensor();
  return {d_ig, dh, dc, d_whh, d_bhh, d_whr};
}

}  // namespace tl::native
