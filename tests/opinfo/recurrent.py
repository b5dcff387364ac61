"""Registry entries for the recurrent functions of torchlite/_rnn.py (torch.lstm, torch.gru,
torch.rnn_tanh, torch.rnn_relu and their *_cell steps): Python-level (yaml=False). The cells
are compared with NumPy; the multi-layer forms with PyTorch and by gradcheck."""

import numpy as np

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
