"""torch.lstm / gru / rnn_tanh / rnn_relu and their *_cell steps (torchlite/_rnn.py): the error
paths, and that the nn modules and the functions agree (values are in the registry,
tests/opinfo/recurrent.py)."""

import pytest

import torchlite as tl


def _cell_args(n=3, inp=4, hid=5, gates=4):
    return tl.randn(n, inp), tl.randn(n, hid), tl.randn(gates * hid, inp), tl.randn(gates * hid, hid)


@pytest.mark.parametrize("bad,message", [
    ("input", "input has inconsistent input_size: got 3 expected 4"),
    ("batch", "Input batch size 3 doesn't match hidden0 batch size 2"),
    ("hidden", "hidden1 has inconsistent hidden_size: got 6, expected 5"),
])
def test_cell_shape_errors(bad, message):
    x, h, w_ih, w_hh = _cell_args()
    c = h.clone()
    if bad == "input":
        x = tl.randn(3, 3)
    elif bad == "batch":
        h = tl.randn(2, 5)
    else:
        c = tl.randn(3, 6)
    with pytest.raises(RuntimeError, match=message):
        tl.lstm_cell(x, (h, c), w_ih, w_hh)


def test_lstm_needs_two_hidden_states():
    x, h, w_ih, w_hh = _cell_args()
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states"):
        tl.lstm_cell(x, (h,), w_ih, w_hh)
    m = tl.nn.LSTM(4, 5)
    with pytest.raises(RuntimeError, match="lstm expects two hidden states"):
        tl.lstm(tl.randn(2, 3, 4), (tl.zeros(1, 3, 5),), m._flat_weights, True, 1, 0.0, False, False, False)


def test_wrong_number_of_parameters():
    m = tl.nn.GRU(4, 5)
    with pytest.raises(RuntimeError, match="expected 4 parameter tensors"):
        tl.gru(tl.randn(2, 3, 4), tl.zeros(1, 3, 5), m._flat_weights[:3], True, 1, 0.0, False, False, False)


@pytest.mark.parametrize("cls,fn", [(tl.nn.LSTM, tl.lstm), (tl.nn.GRU, tl.gru), (tl.nn.RNN, tl.rnn_tanh)])
def test_modules_and_functions_agree(cls, fn):
    tl.manual_seed(0)
    m = cls(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    x = tl.randn(3, 6, 4)
    out, state = m(x)
    h0 = tl.zeros(4, 3, 5)
    got = fn(x, [h0, h0] if cls is tl.nn.LSTM else h0, m._flat_weights, True, 2, 0.0, False, True, True)
    assert tl.equal(got[0], out)
    assert tl.equal(got[1], state[0] if cls is tl.nn.LSTM else state)
