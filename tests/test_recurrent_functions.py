"""torch.lstm / gru / rnn_tanh / rnn_relu and their *_cell steps (torchlite/_rnn.py): the error
paths, and that the nn modules and the functions agree (values are in the registry,
tests/opinfo/recurrent.py)."""

import numpy as np
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


# ---- the fused kernels (aten/native/RNN.cpp) ----------------------------------------------

@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.parametrize("expr", ["LSTM(24, 40, num_layers=2, bidirectional=True)", "LSTM(24, 40, proj_size=16)",
                                  "GRU(24, 40, bidirectional=True)", "RNN(24, 40, nonlinearity='relu')",
                                  "LSTM(24, 300)"])
@pytest.mark.parametrize("threads", [1, 2])
def test_float32_matches_pytorch(expr, threads):
    """float32 (the vectorised gate math) on sizes big enough to split the batch over threads (Note
    [RNN batch split]; 33 rows split unevenly; hidden 300's W_hh is too large, so its steps split
    instead), and on one thread: outputs and gradients against PyTorch's."""
    torch = pytest.importorskip("torch")
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        _check_float32_against_pytorch(torch, expr)
    finally:
        tl.set_num_threads(before)


def _check_float32_against_pytorch(torch, expr):
    torch.manual_seed(0)
    ref = eval("torch.nn." + expr)
    mine = eval("tl.nn." + expr)
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((7, 33, 24)).astype(np.float32)
    tx, mx = torch.tensor(x, requires_grad=True), tl.tensor(x, requires_grad=True)
    t_out, m_out = ref(tx)[0], mine(mx)[0]
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=2e-6)
    w = np.random.default_rng(1).standard_normal(tuple(t_out.shape)).astype(np.float32)
    (t_out * torch.tensor(w)).sum().backward()
    (m_out * tl.tensor(w)).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (name, p), q in zip(ref.named_parameters(), mine.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)



@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_large_batch_matches_pytorch(dtype, threads):
    """A batch of 200 rows: each step's GEMM (on weights packed once per layer, aten/native/RNN.cpp)
    spans several row tiles of C; hidden 20 leaves partial column panels; both dtypes."""
    torch = pytest.importorskip("torch")
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        for expr in ["LSTM(5, 20, proj_size=7)", "GRU(5, 20)"]:
            torch.manual_seed(0)
            ref = eval("torch.nn." + expr).to(getattr(torch, dtype))
            mine = eval("tl.nn." + expr).to(getattr(tl, dtype))
            mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
            x = np.random.default_rng(0).standard_normal((3, 200, 5)).astype(dtype)
            tx, mx = torch.tensor(x, requires_grad=True), tl.tensor(x, requires_grad=True)
            t_out, m_out = ref(tx)[0], mine(mx)[0]
            rtol = 1e-4 if dtype == "float32" else 1e-10
            np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=rtol)
            t_out.square().sum().backward()
            m_out.square().sum().backward()
            np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=rtol)
            for (name, p), q in zip(ref.named_parameters(), mine.parameters()):
                np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=rtol, atol=10 * rtol, err_msg=name)
    finally:
        tl.set_num_threads(before)

def _layer_args(mode=2, seq=3, n=2, hid=4, gates=4):
    cx = tl.randn(n, hid) if mode == 2 else None
    return [tl.randn(seq, n, gates * hid), tl.randn(n, hid), cx, tl.randn(gates * hid, hid), tl.randn(gates * hid),
            None, mode, False]


@pytest.mark.parametrize("change,message", [
    ({6: 4}, "mode must be 0 .RNN_RELU., 1 .RNN_TANH., 2 .LSTM. or 3 .GRU., got 4"),
    ({2: None}, "cx is required for an LSTM and only for it"),
    ({0: tl.randn(3, 2, 15)}, r"inconsistent sizes: input_gates \[3, 2, 15\]"),
    ({4: tl.randn(5)}, r"expected bias_hh of size \[16\]"),
    ({1: tl.randn(2, 4, dtype=tl.float64)}, "expected every tensor to have dtype"),
    ({5: tl.randn(3, 4)}, r"expected weight_hr \(LSTM only\) of size \[4, 4\]"),
])
def test_fused_rnn_layer_errors(change, message):
    args = _layer_args()
    for i, v in change.items():
        args[i] = v
    with pytest.raises(RuntimeError, match=message):
        tl._C._fused_rnn_layer(*args)


def test_fused_cell_errors():
    g, h, c = tl.randn(3, 16), tl.randn(3, 16), tl.randn(3, 4)
    with pytest.raises(RuntimeError, match=r"expected input_gates and hidden_gates of size \[3, 16\]"):
        tl._C._thnn_fused_lstm_cell(g, tl.randn(3, 12), c)
    with pytest.raises(RuntimeError, match="expected both biases or neither"):
        tl._C._thnn_fused_lstm_cell(g, h, c, tl.randn(16))
    with pytest.raises(RuntimeError, match=r"expected input_gates and hidden_gates of size \[3, 12\]"):
        tl._C._thnn_fused_gru_cell(g, h, c)
    with pytest.raises(RuntimeError, match="\"_thnn_fused_gru_cell\" not implemented for 'Half'"):
        tl._C._thnn_fused_gru_cell(g.half()[:, :12], h.half()[:, :12], c.half())


def test_half_precision_takes_the_composite_path():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    ref = torch.nn.GRU(3, 4)
    mine = tl.nn.GRU(3, 4)
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 2, 3)).astype(np.float32)
    got = mine.bfloat16()(tl.tensor(x).bfloat16())[0].detach().float().numpy()
    np.testing.assert_allclose(got, ref(torch.tensor(x))[0].detach().numpy(), atol=3e-2)
