"""Registry entries for the recurrent functions of torchlite/_rnn.py (torch.lstm, torch.gru,
torch.rnn_tanh, torch.rnn_relu and their *_cell steps): Python-level (yaml=False). The cells
are compared with NumPy; the multi-layer forms with PyTorch and by gradcheck. Also the fused
kernels under them (aten/native/RNN.cpp), against NumPy and by gradcheck (PyTorch runs its
_thnn_fused_* pair only on CUDA)."""

import numpy as np

import torchlite as tl

from opinfo.core import OpInfo, SampleInput, rand

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _cell_ref(mode):
    def ref(x, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        h = hx[0] if mode == "lstm" else hx
        gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
        gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
        if mode == "lstm":
            i, f, g, o = np.split(gi + gh, 4, -1)
            c = _sigmoid(f) * hx[1] + _sigmoid(i) * np.tanh(g)
            return _sigmoid(o) * np.tanh(c), c
        if mode == "gru":
            (i_r, i_z, i_n), (h_r, h_z, h_n) = np.split(gi, 3, -1), np.split(gh, 3, -1)
            r, z = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
            return (1 - z) * np.tanh(i_n + r * h_n) + z * h
        return np.tanh(gi + gh) if mode == "rnn_tanh" else np.maximum(gi + gh, 0)
    return ref


def _cell_samples(mode):
    def samples(dtype, rng):
        g, n, inp, hid = GATES[mode], 3, 4, 2
        x, h, c = rand((n, inp), dtype, rng), rand((n, hid), dtype, rng), rand((n, hid), dtype, rng)
        hx = (h, c) if mode == "lstm" else h
        w_ih, w_hh = rand((g * hid, inp), dtype, rng, -1, 1), rand((g * hid, hid), dtype, rng, -1, 1)
        b_ih, b_hh = rand((g * hid,), dtype, rng), rand((g * hid,), dtype, rng)
        yield SampleInput((x, hx, w_ih, w_hh, b_ih, b_hh))
        yield SampleInput((x, hx, w_ih, w_hh))
    return samples


def _full_samples(mode):
    """(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) cases:
    one bidirectional layer with biases; two layers without biases, batch first; for the LSTM also
    projections (h_0 narrower than c_0)."""
    def params(dtype, rng, layers, dirs, inp, hid, bias, proj=0):
        out, g = [], GATES[mode]
        for layer in range(layers):
            width = inp if layer == 0 else (proj or hid) * dirs
            for _ in range(dirs):
                out += [rand((g * hid, width), dtype, rng, -1, 1), rand((g * hid, proj or hid), dtype, rng, -1, 1)]
                out += [rand((g * hid,), dtype, rng, -1, 1), rand((g * hid,), dtype, rng, -1, 1)] if bias else []
                out += [rand((proj, hid), dtype, rng, -1, 1)] if proj else []
        return out

    def state(dtype, rng, shape, c_shape=None):
        h = rand(shape, dtype, rng, -1, 1)
        return [h, rand(c_shape or shape, dtype, rng, -1, 1)] if mode == "lstm" else h

    def samples(dtype, rng):
        yield SampleInput((rand((4, 2, 3), dtype, rng), state(dtype, rng, (2, 2, 2)),
                           params(dtype, rng, 1, 2, 3, 2, True), True, 1, 0.0, False, True, False))
        yield SampleInput((rand((2, 3, 3), dtype, rng), state(dtype, rng, (2, 2, 2)),
                           params(dtype, rng, 2, 1, 3, 2, False), False, 2, 0.0, False, False, True))
        if mode == "lstm":
            yield SampleInput((rand((3, 2, 3), dtype, rng), state(dtype, rng, (1, 2, 2), (1, 2, 3)),
                               params(dtype, rng, 1, 1, 3, 3, True, proj=2), True, 1, 0.0, False, False, False))
    return samples


OPS = [OpInfo(f"{mode}_cell", _cell_samples(mode), ref=_cell_ref(mode), yaml=False, grad_atol=1e-4)
       for mode in GATES]
OPS += [OpInfo(mode, _full_samples(mode), yaml=False, gradgrad=False, grad_atol=1e-4) for mode in GATES]


# ---- the fused kernels --------------------------------------------------------------------
MODE_NUMBER = {"rnn_relu": 0, "rnn_tanh": 1, "lstm": 2, "gru": 3}


def _np_lstm_gates(a, c):
    i, f, g, o = np.split(a, 4, -1)
    i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
    c = f * c + i * g
    return o * np.tanh(c), c


def _np_gru_gates(gi, gh, h):
    (i_r, i_z, i_n), (h_r, h_z, h_n) = np.split(gi, 3, -1), np.split(gh, 3, -1)
    r, z = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
    return (1 - z) * np.tanh(i_n + r * h_n) + z * h


def _np_lstm_cell(ig, hg, cx, bi=None, bh=None):
    return _np_lstm_gates(ig + hg + (0 if bi is None else bi + bh), cx)


def _np_gru_cell(ig, hg, hx, bi=None, bh=None):
    return _np_gru_gates(ig + (0 if bi is None else bi), hg + (0 if bh is None else bh), hx)


def _fused_cell_samples(gates):
    def samples(dtype, rng):
        n, hid = 3, 4
        ig, hg = rand((n, gates * hid), dtype, rng), rand((n, gates * hid), dtype, rng)
        state = rand((n, hid), dtype, rng)
        yield SampleInput((ig, hg, state, rand((gates * hid,), dtype, rng), rand((gates * hid,), dtype, rng)))
        yield SampleInput((ig, hg, state))
    return samples


def _np_rnn_layer(ig, hx, cx, w_hh, b_hh, w_hr, mode, reverse):
    """NumPy reference of _fused_rnn_layer: (output, h_n[, c_n])."""
    h, c, out = hx, cx, [None] * ig.shape[0]
    for t in (range(ig.shape[0] - 1, -1, -1) if reverse else range(ig.shape[0])):
        gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
        if mode == MODE_NUMBER["lstm"]:
            h, c = _np_lstm_gates(ig[t] + gh, c)
            h = h if w_hr is None else h @ w_hr.T
        elif mode == MODE_NUMBER["gru"]:
            h = _np_gru_gates(ig[t], gh, h)
        else:
            h = np.tanh(ig[t] + gh) if mode == MODE_NUMBER["rnn_tanh"] else np.maximum(ig[t] + gh, 0)
        out[t] = h
    return (np.stack(out), h) + ((c,) if mode == MODE_NUMBER["lstm"] else ())


def _rnn_layer_samples(dtype, rng):
    """(input_gates, hx, cx, weight_hh, bias_hh, weight_hr, mode, reverse) for every mode, with and
    without bias, both directions; for the LSTM also projections (hx narrower than cx)."""
    seq, n, hid = 3, 2, 3
    for mode, g in GATES.items():
        lstm = mode == "lstm"
        for bias, reverse, proj in [(True, False, 0), (False, True, 0)] + ([(True, True, 2)] if lstm else []):
            width = proj or hid
            ig = rand((seq, n, g * hid), dtype, rng)
            hx, cx = rand((n, width), dtype, rng, -1, 1), rand((n, hid), dtype, rng, -1, 1) if lstm else None
            w_hh = rand((g * hid, width), dtype, rng, -1, 1)
            b_hh = rand((g * hid,), dtype, rng) if bias else None
            w_hr = rand((proj, hid), dtype, rng, -1, 1) if proj else None
            yield SampleInput((ig, hx, cx, w_hh, b_hh, w_hr, MODE_NUMBER[mode], reverse))


def _rnn_layer_op(lib, *args):
    """The differentiable outputs of _fused_rnn_layer (output, h_n, and c_n for an LSTM)."""
    res = tl._C._fused_rnn_layer(*args)
    return res[:3] if args[6] == MODE_NUMBER["lstm"] else res[:2]


OPS += [
    OpInfo("_thnn_fused_lstm_cell", _fused_cell_samples(4), ref=_np_lstm_cell,
           op=lambda lib, *a: tl._C._thnn_fused_lstm_cell(*a)[:2], torch=False,
           covers=("_thnn_fused_lstm_cell_backward_impl", "_thnn_fused_lstm_cell_backward")),
    OpInfo("_thnn_fused_gru_cell", _fused_cell_samples(3), ref=_np_gru_cell,
           op=lambda lib, *a: tl._C._thnn_fused_gru_cell(*a)[0], torch=False,
           covers=("_thnn_fused_gru_cell_backward",)),
    OpInfo("_fused_rnn_layer", _rnn_layer_samples, ref=_np_rnn_layer, op=_rnn_layer_op, torch=False,
           covers=("_fused_rnn_layer_backward",)),
]
