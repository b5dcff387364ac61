"""The recurrent math shared by torch.lstm / torch.gru / torch.rnn_tanh / torch.rnn_relu, their
single-step *_cell functions, and the nn.RNN / nn.LSTM / nn.GRU modules.

On float32 / float64 CPU and CUDA tensors the recurrence runs in the fused kernels of
aten/native/RNN.cpp (Note [Fused RNN kernels]): one GEMM projects the whole input sequence, then
_fused_rnn_layer runs every step of a layer and direction in C++ (one autograd node for all of
them), and single steps use _thnn_fused_lstm_cell / _thnn_fused_gru_cell. Other dtypes take the
same math from differentiable tensor ops. The weights of one layer and direction come in PyTorch's order:
w_ih, w_hh, then b_ih, b_hh when there are biases, then w_hr for an LSTM with projections (the
order of nn.LSTM's `_flat_weights`).
"""

from torchlite import _C

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


_MODE_NUMBER = {"RNN_RELU": 0, "RNN_TANH": 1, "LSTM": 2, "GRU": 3}  # _fused_rnn_layer's `mode`


def _fused(t):
    """Whether the fused kernels take tensors like t (float32 / float64, on the CPU or CUDA)."""
    return t.device.type in ("cpu", "cuda") and t.dtype in (_C.float32, _C.float64)


def step(mode, gi, h, c, w_hh, b_ih, b_hh, w_hr=None):
    """One time step of `mode` ("LSTM", "GRU", "RNN_TANH", "RNN_RELU"); gi is the input projection
    x W_ih^T without its bias. Returns (h, c); c is None except for an LSTM."""
    gh = h.matmul(w_hh.t())
    if mode in ("LSTM", "GRU") and _fused(gi):
        if mode == "GRU":
            return _C._thnn_fused_gru_cell(gi, gh, h, b_ih, b_hh)[0], None
        h, c, _ = _C._thnn_fused_lstm_cell(gi, gh, c, b_ih, b_hh)
        return (h if w_hr is None else h.matmul(w_hr.t())), c
    gi = gi if b_ih is None else gi + b_ih
    gh = gh if b_hh is None else gh + b_hh
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, -1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if w_hr is None else h.matmul(w_hr.t())), c
    if mode == "GRU":
        i_r, i_z, i_n = gi.chunk(3, -1)
        h_r, h_z, h_n = gh.chunk(3, -1)
        r = (i_r + h_r).sigmoid()
        z = (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


def _padded_direction(mode, gi_all, h, c, w_hh, b_ih, b_hh, w_hr, reverse):
    """One direction over a padded (L, N, *) input projection (without b_ih); returns (output, h_n, c_n)."""
    if _fused(gi_all):
        if b_ih is not None:
            # The GRU's n gate needs b_hh apart; the other gates add both biases to the same sum.
            if mode == "GRU":
                gi_all = gi_all + b_ih
            else:
                b_hh = b_ih + b_hh
        out, h, c, _ = _C._fused_rnn_layer(gi_all, h, c, w_hh, b_hh, w_hr, _MODE_NUMBER[mode], reverse)
        return out, h, c
    seq_len = gi_all.shape[0]
    steps = [None] * seq_len
    for t in (range(seq_len - 1, -1, -1) if reverse else range(seq_len)):
        h, c = step(mode, gi_all[t], h, c, w_hh, b_ih, b_hh, w_hr)
        steps[t] = h
    output = _C.stack(steps) if seq_len else gi_all.new_zeros((0, gi_all.shape[1], h.shape[-1]))
    return output, h, c


def _packed_direction(mode, gi_all, sizes, h0, c0, w_hh, b_ih, b_hh, w_hr, reverse):
    """One direction over a packed input projection (sum(sizes), *), without b_ih: step t runs the first sizes[t]
    sequences (sizes never grow), so a finished sequence keeps its last state. Returns (output, h_n, c_n)."""
    chunks = gi_all.split(sizes)
    outs = [None] * len(sizes)
    if reverse:
        # Backwards in time the batch only grows: a sequence joins with its initial state.
        h, c = h0[:sizes[-1]], (c0[:sizes[-1]] if c0 is not None else None)
        for t in range(len(sizes) - 1, -1, -1):
            have = h.shape[0]
            if sizes[t] > have:
                h = _C.cat([h, h0[have:sizes[t]]])
                c = _C.cat([c, c0[have:sizes[t]]]) if c is not None else None
            h, c = step(mode, chunks[t], h, c, w_hh, b_ih, b_hh, w_hr)
            outs[t] = h
        return _C.cat(outs), h, c
    h, c = h0, c0
    done_h, done_c = [], []
    for t, size in enumerate(sizes):
        if size < h.shape[0]:
            done_h.append(h[size:])
            h = h[:size]
            if c is not None:
                done_c.append(c[size:])
                c = c[:size]
        h, c = step(mode, chunks[t], h, c, w_hh, b_ih, b_hh, w_hr)
        outs[t] = h
    h_n = _C.cat([h] + done_h[::-1])
    c_n = _C.cat([c] + done_c[::-1]) if c is not None else None
    return _C.cat(outs), h_n, c_n


def run_layers(mode, input, h0, c0, weights, num_layers, dropout, train, bidirectional, batch_sizes=None):
    """input (L, N, H_in), or packed data (sum(batch_sizes), H_in) when batch_sizes is given; h0 (and c0
    for an LSTM) (layers * directions, N, H); weights: one list per layer and direction as in the module
    docstring, biases None when absent. Returns (output, h_n, c_n)."""
    directions = 2 if bidirectional else 1
    sizes = None if batch_sizes is None else [int(b) for b in batch_sizes.tolist()]
    layer_input = input
    h_out, c_out = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[k]
            gi_all = layer_input.matmul(w_ih.t())  # every time step's input projection: one GEMM
            c0_k = c0[k] if c0 is not None else None
            if sizes is None:
                out, h, c = _padded_direction(mode, gi_all, h0[k], c0_k, w_hh, b_ih, b_hh, w_hr, direction == 1)
            else:
                out, h, c = _packed_direction(mode, gi_all, sizes, h0[k], c0_k, w_hh, b_ih, b_hh, w_hr,
                                              direction == 1)
            outputs.append(out)
            h_out.append(h)
            c_out.append(c)
        layer_input = outputs[0] if directions == 1 else _C.cat(outputs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            layer_input = _C.dropout(layer_input, dropout, True)
    return layer_input, _C.stack(h_out), (_C.stack(c_out) if c0 is not None else None)


def _group_weights(params, has_biases, num_layers, bidirectional, projections):
    """The flat `params` list split into one (w_ih, w_hh, b_ih, b_hh, w_hr) tuple per layer and direction."""
    per = 2 + 2 * bool(has_biases) + bool(projections)
    groups = num_layers * (2 if bidirectional else 1)
    params = list(params)
    if len(params) != per * groups:
        raise RuntimeError(f"expected {per * groups} parameter tensors ({per} per layer and direction), "
                           f"got {len(params)}")
    weights = []
    for g in range(groups):
        p = params[g * per:(g + 1) * per]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        weights.append((p[0], p[1], b_ih, b_hh, p[-1] if projections else None))
    return weights


def _full(mode, input, batch_sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional,
          batch_first):
    if batch_first and batch_sizes is None:
        input = input.transpose(0, 1)
    projections = cx is not None and hx.shape[-1] != cx.shape[-1]
    weights = _group_weights(params, has_biases, num_layers, bidirectional, projections)
    output, h_n, c_n = run_layers(mode, input, hx, cx, weights, num_layers, dropout, train, bidirectional,
                                  batch_sizes)
    return (output.transpose(0, 1) if batch_first and batch_sizes is None else output), h_n, c_n


def _two_overloads(mode, packed_when):
    """torch.lstm/gru/rnn_* take a padded batch, (input, hx, params, has_biases, num_layers, dropout,
    train, bidirectional, batch_first), or a packed one, (data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional); packed_when(args, kwargs) tells them apart."""
    lstm_mode = mode == "LSTM"

    def split_state(hx):
        if not lstm_mode:
            return hx, None
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        return hx[0], hx[1]

    def padded(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        return _full(mode, input, None, *split_state(hx), params, has_biases, num_layers, dropout, train,
                     bidirectional, batch_first)

    def packed(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
        return _full(mode, data, batch_sizes, *split_state(hx), params, has_biases, num_layers, dropout, train,
                     bidirectional, False)

    def fn(*args, **kwargs):
        output, h_n, c_n = (packed if packed_when(args, kwargs) else padded)(*args, **kwargs)
        return (output, h_n, c_n) if lstm_mode else (output, h_n)

    name = mode.lower()
    fn.__name__ = fn.__qualname__ = name
    result = "(Tensor, Tensor, Tensor)" if lstm_mode else "(Tensor, Tensor)"
    fn.__doc__ = (f"{name}(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) "
                  f"-> {result}\n{name}(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, "
                  f"bidirectional) -> {result}\n\n"
                  f"A multi-layer {mode.replace('_', ' ').lower()} network over a padded batch, or over a "
                  "PackedSequence's data and batch_sizes; params is the flat weight list (the module's "
                  "`_flat_weights`)" + (", hx is (h_0, c_0), and the LSTM has projections when h_0's last size "
                                        "differs from c_0's." if lstm_mode else "."))
    return fn


def _packed_if(position):
    """The packed overload is called with batch_sizes, which moves a Tensor to args[position]."""
    return lambda args, kwargs: "batch_sizes" in kwargs or (len(args) > position
                                                             and isinstance(args[position], _C.Tensor))


lstm = _two_overloads("LSTM", _packed_if(1))  # padded: args[1] is the (h_0, c_0) pair
gru = _two_overloads("GRU", _packed_if(2))  # padded: args[2] is the params list
rnn_tanh = _two_overloads("RNN_TANH", _packed_if(2))
rnn_relu = _two_overloads("RNN_RELU", _packed_if(2))


def _check_cell(input, hx, w_ih, gates):
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    hidden = w_ih.shape[0] // gates
    for i, h in enumerate(hx):
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size {h.shape[0]}")
        if h.shape[1] != hidden:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected {hidden}")


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> (h_1, c_1): one LSTM step on a
    batch (N, H_in) with hx = (h_0, c_0)."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell(input, hx, w_ih, 4)
    return step("LSTM", input.matmul(w_ih.t()), hx[0], hx[1], w_hh, b_ih, b_hh)


def _single_state_cell(mode, gates):
    def fn(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        _check_cell(input, (hx,), w_ih, gates)
        return step(mode, input.matmul(w_ih.t()), hx, None, w_hh, b_ih, b_hh)[0]

    fn.__name__ = f"{mode.lower()}_cell"
    fn.__doc__ = (f"{fn.__name__}(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor: one "
                  f"{mode.replace('_', ' ').lower()} step on a batch (N, H_in).")
    return fn


gru_cell = _single_state_cell("GRU", 3)
rnn_tanh_cell = _single_state_cell("RNN_TANH", 1)
rnn_relu_cell = _single_state_cell("RNN_RELU", 1)
