#pragma once
// The recurrent family's device seams: the fused cells check their arguments once (RNN.cpp) and
// run their gate math through the stubs below (CPU: RNN.cpp; CUDA: cuda/RNNKernel.cu; both over
// RNNCellMath.h). _fused_rnn_layer keeps its CPU kernel; CUDA runs it as a host loop of device
// ops (RNNComposite.cpp) over the layer checks declared here.
#include <cstdint>
#include <optional>

#include "aten/core/Tensor.h"
#include "aten/native/DispatchStub.h"

namespace tl::native {

namespace rnn {

enum Mode : int64_t { kRelu = 0, kTanh = 1, kLstm = 2, kGru = 3 };

inline int64_t gates_of(int64_t mode) { return mode == kLstm ? 4 : mode == kGru ? 3 : 1; }

// Step s of the processing order is time index t.
inline int64_t time_of(int64_t s, int64_t L, bool reverse) { return reverse ? L - 1 - s : s; }

// The sizes of one _fused_rnn_layer call, checked.
struct LayerShape {
  int64_t L, N, H, Ho, G;  // steps, batch, hidden, output width (proj_size or H), gates
  int64_t ws_width;        // workspace columns per step
};

// ig_sizes: the input gates' sizes (L, N, G * H); cx, b_hh, w_hr may be undefined.
LayerShape check_layer(const char* op, IntArrayRef ig_sizes, const Tensor& hx, const Tensor& cx, const Tensor& w_hh,
                       const Tensor& b_hh, const Tensor& w_hr, int64_t mode);

// The checks of _fused_rnn_layer_backward beyond check_layer's (output, workspace, gradients).
LayerShape check_layer_backward(const char* op, const Tensor& go, const Tensor& ghy, const Tensor& gcy,
                                const Tensor& hx, const Tensor& cx, const Tensor& w_hh, const Tensor& b_hh,
                                const Tensor& w_hr, const Tensor& output, const Tensor& workspace, int64_t mode);

void check_same_dtype(const Tensor& ref, const Tensor& t, const char* op, const char* name);

inline Tensor contiguous_or_undefined(const std::optional<Tensor>& t) {
  return t.has_value() && t->defined() ? t->contiguous() : Tensor();
}

}  // namespace rnn

// Cell loops (Note [Stubs]): every tensor contiguous, float or double; undefined biases and
// gradients read as zero; outputs are fresh. N rows of H units.
// LSTM: hy, cy (N, H) and ws (N, 4H) from ig, hg (N, 4H), biases (4H) and cx (N, H).
extern DispatchStub<void(const Tensor& ig, const Tensor& hg, const Tensor& bi, const Tensor& bh, const Tensor& cx,
                         const Tensor& hy, const Tensor& cy, const Tensor& ws)>
    lstm_cell_stub;
// LSTM backward: dg (N, 4H), dcx (N, H) and, when defined, db (4H) = dg summed over rows.
extern DispatchStub<void(const Tensor& dh, const Tensor& dc, const Tensor& cx, const Tensor& cy, const Tensor& ws,
                         const Tensor& dg, const Tensor& dcx, const Tensor& db)>
    lstm_cell_backward_stub;
// GRU: hy (N, H) and ws (N, 5H) from ig, hg (N, 3H), biases (3H) and hx (N, H).
extern DispatchStub<void(const Tensor& ig, const Tensor& hg, const Tensor& bi, const Tensor& bh, const Tensor& hx,
                         const Tensor& hy, const Tensor& ws)>
    gru_cell_stub;
// GRU backward: dgi, dgh (N, 3H), dhx (N, H) and, when defined, their row sums dbi, dbh (3H).
extern DispatchStub<void(const Tensor& dh, const Tensor& ws, const Tensor& dgi, const Tensor& dgh, const Tensor& dhx,
                         const Tensor& dbi, const Tensor& dbh)>
    gru_cell_backward_stub;

}  // namespace tl::native
