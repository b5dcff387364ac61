"""Parity with PyTorch for the recurrent layers, attention and transformers, with weights copied
across: outputs, and gradients with respect to the inputs and every parameter (float64, so the
tolerances are tight). Also nn.utils.rnn's packing helpers.
"""

import numpy as np
import pytest

import torchlite as tl
from torchlite.nn.utils import rnn as tl_rnn

torch = pytest.importorskip("torch")
from torch.nn.utils import rnn as torch_rnn  # noqa: E402


def _flat(out):
    """The tensors of a (nested) module output; a PackedSequence contributes its data."""
    if out is None:
        return []
    if isinstance(out, (tl_rnn.PackedSequence, torch_rnn.PackedSequence)):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _np(t):
    return t.detach().numpy()


def build(expr):
    """(torch module, torchlite module) from one constructor expression, float64, equal weights, eval mode."""
    torch.manual_seed(0)
    ref = eval(expr, {"nn": torch.nn, "F": torch.nn.functional}).double().eval()
    mine = eval(expr, {"nn": tl.nn, "F": tl.nn.functional}).double().eval()
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return ref, mine


def _leaf(lib, x):
    t = lib.tensor(x)
    if t.is_floating_point():
        t.requires_grad_(True)
    return t


def check_parity(ref, mine, args, make=None, kwargs=None, atol=1e-10):
    """Runs both modules on the NumPy `args` (floating ones require grad; `make(lib, tensors)` may turn
    them into the real arguments, e.g. PackedSequences), compares every output, then the gradients of a
    random weighting of the outputs w.r.t. the inputs and parameters."""
    kwargs = kwargs or {}
    results = []
    for lib, module in ((torch, ref), (tl, mine)):
        leaves = [_leaf(lib, a) if isinstance(a, np.ndarray) else a for a in args]
        call = make(lib, leaves) if make else leaves
        kw = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        outs = _flat(module(*call, **kw))
        results.append((leaves, outs))
    (t_leaves, t_outs), (m_leaves, m_outs) = results
    assert len(t_outs) == len(m_outs)
    rng = np.random.default_rng(1)
    t_loss, m_loss = 0, 0
    for a, b in zip(m_outs, t_outs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), atol=atol, rtol=1e-7)
        if b.requires_grad:
            w = rng.standard_normal(tuple(b.shape))
            t_loss = t_loss + (b * torch.tensor(w)).sum()
            m_loss = m_loss + (a * tl.tensor(w)).sum()
    t_loss.backward()
    m_loss.backward()
    for a, b in zip(m_leaves, t_leaves):
        if isinstance(b, torch.Tensor) and b.requires_grad:
            np.testing.assert_allclose(_np(a.grad), _np(b.grad), atol=atol, rtol=1e-7)
    t_params = dict(ref.named_parameters())
    for name, p in mine.named_parameters():
        expected = t_params[name].grad
        if expected is None:
            assert p.grad is None or not np.any(_np(p.grad)), name
        else:
            np.testing.assert_allclose(_np(p.grad), _np(expected), atol=atol, rtol=1e-7, err_msg=name)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---------------------------------------------------------------------------------------------- RNNs

RNNS = [
    "nn.RNN(4, 5)",
    "nn.RNN(4, 5, num_layers=2, nonlinearity='relu', bidirectional=True)",
    "nn.RNN(4, 5, bias=False, batch_first=True)",
    "nn.LSTM(4, 5, num_layers=2, dropout=0.3)",
    "nn.LSTM(4, 5, bidirectional=True, proj_size=3, batch_first=True)",
    "nn.LSTM(4, 5, num_layers=2, bidirectional=True, proj_size=2, bias=False)",
    "nn.GRU(4, 5, num_layers=3, bidirectional=True, dropout=0.5)",
    "nn.GRU(4, 5, batch_first=True)",
]


def _state(m, batch, seed):
    directions = 2 if m.bidirectional else 1
    hidden = m.proj_size if m.proj_size else m.hidden_size
    h = randn(m.num_layers * directions, batch, hidden, seed=seed)
    if m.mode == "LSTM":
        return h, randn(m.num_layers * directions, batch, m.hidden_size, seed=seed + 1)
    return h


@pytest.mark.parametrize("expr", RNNS)
@pytest.mark.parametrize("with_state", [False, True])
def test_rnn_padded(expr, with_state):
    ref, mine = build(expr)
    x = randn(3, 6, 4) if mine.batch_first else randn(6, 3, 4)
    if not with_state:
        check_parity(ref, mine, [x])
        return
    state = _state(mine, 3, 5)
    if mine.mode == "LSTM":
        check_parity(ref, mine, [x, *state], make=lambda lib, t: [t[0], (t[1], t[2])])
    else:
        check_parity(ref, mine, [x, state])


@pytest.mark.parametrize("expr", RNNS)
def test_rnn_unbatched(expr):
    ref, mine = build(expr)
    check_parity(ref, mine, [randn(5, 4)])


@pytest.mark.parametrize("expr", RNNS)
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_rnn_packed(expr, enforce_sorted, with_state):
    ref, mine = build(expr)
    lengths = [6, 4, 4, 1] if enforce_sorted else [4, 1, 6, 4]
    x = randn(6, 4, 4)

    def make(lib, t):
        utils = torch_rnn if lib is torch else tl_rnn
        packed = utils.pack_padded_sequence(t[0], lengths, enforce_sorted=enforce_sorted)
        if not with_state:
            return [packed]
        return [packed, (t[1], t[2]) if len(t) == 3 else t[1]]

    state = _state(mine, 4, 7)
    args = [x] if not with_state else [x, *(state if isinstance(state, tuple) else (state,))]
    check_parity(ref, mine, args, make=make)


CELLS = ["nn.RNNCell(4, 5)", "nn.RNNCell(4, 5, bias=False, nonlinearity='relu')", "nn.LSTMCell(4, 5)",
         "nn.LSTMCell(4, 5, bias=False)", "nn.GRUCell(4, 5)"]


@pytest.mark.parametrize("expr", CELLS)
@pytest.mark.parametrize("batched", [True, False])
def test_cells(expr, batched):
    ref, mine = build(expr)
    shape = (3,) if batched else ()
    x, h, c = randn(*shape, 4), randn(*shape, 5, seed=1), randn(*shape, 5, seed=2)
    check_parity(ref, mine, [x])
    if "LSTM" in expr:
        check_parity(ref, mine, [x, h, c], make=lambda lib, t: [t[0], (t[1], t[2])])
    else:
        check_parity(ref, mine, [x, h])


def test_rnn_dropout_only_in_training():
    ref, mine = build("nn.GRU(4, 5, num_layers=2, dropout=0.9)")
    mine.train()
    x = tl.tensor(randn(6, 3, 4))
    assert not tl.equal(mine(x)[0], mine(x)[0])  # dropout between the layers is random in training
    mine.eval()
    assert tl.equal(mine(x)[0], mine(x)[0])


def test_packed_functional_overload():
    ref, mine = build("nn.LSTM(4, 5, num_layers=2, bidirectional=True)")
    x = randn(5, 3, 4)
    t_packed = torch_rnn.pack_padded_sequence(torch.tensor(x), [5, 3, 2])
    packed = tl_rnn.pack_padded_sequence(tl.tensor(x), [5, 3, 2])
    h0 = randn(4, 3, 5)
    t_out = torch.lstm(t_packed.data, t_packed.batch_sizes, (torch.tensor(h0), torch.tensor(h0)),
                       ref._flat_weights, True, 2, 0.0, False, True)
    out = tl.lstm(packed.data, packed.batch_sizes, (tl.tensor(h0), tl.tensor(h0)), mine._flat_weights, True, 2,
                  0.0, False, True)
    for a, b in zip(out, t_out):
        np.testing.assert_allclose(_np(a), _np(b), atol=1e-12)


def test_packed_sequence_bad_inputs():
    m = tl.nn.LSTM(4, 5)
    packed = tl_rnn.pack_sequence([tl.randn(3, 4), tl.randn(2, 4)])
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        m(packed, (tl.zeros(1, 3, 5), tl.zeros(1, 3, 5)))
    with pytest.raises(RuntimeError, match="input_size"):
        tl.nn.GRU(3, 5)(packed)


# -------------------------------------------------------------------------------------- nn.utils.rnn

def test_pack_pad_roundtrip_matches_torch():
    x = randn(2, 5, 3)
    lengths = [2, 5]
    for batch_first in (True, False):
        xs = x if batch_first else x.transpose(1, 0, 2)
        t = torch_rnn.pack_padded_sequence(torch.tensor(xs), lengths, batch_first=batch_first, enforce_sorted=False)
        m = tl_rnn.pack_padded_sequence(tl.tensor(xs), tl.tensor(lengths), batch_first=batch_first,
                                        enforce_sorted=False)
        assert isinstance(m, tuple) and m._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
        for a, b in zip(m, t):
            np.testing.assert_array_equal(_np(a), _np(b))
        assert m.batch_sizes.dtype == tl.int64
        for total_length in (None, 7):
            got = tl_rnn.pad_packed_sequence(m, batch_first, padding_value=-1.0, total_length=total_length)
            want = torch_rnn.pad_packed_sequence(t, batch_first, padding_value=-1.0, total_length=total_length)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(_np(a), _np(b))


def test_pack_padded_sequence_gradient():
    x = tl.tensor(randn(4, 3, 2), requires_grad=True)
    data = tl_rnn.pack_padded_sequence(x, [4, 2, 1]).data
    data.sum().backward()
    steps = np.arange(4)[:, None] < np.array([4, 2, 1])[None, :]
    np.testing.assert_array_equal(_np(x.grad), np.broadcast_to(steps[:, :, None], (4, 3, 2)).astype(float))
    packed = tl_rnn.pack_sequence([tl.randn(3, 2), tl.randn(1, 2)])
    packed = tl_rnn.PackedSequence(packed.data.requires_grad_(), packed.batch_sizes)
    padded, _ = tl_rnn.pad_packed_sequence(packed)
    padded.sum().backward()
    np.testing.assert_array_equal(_np(packed.data.grad), np.ones((4, 2)))


def test_pack_sequence_and_unpack():
    seqs = [randn(3, 2, seed=1), randn(5, 2, seed=2), randn(1, 2, seed=3)]
    m = tl_rnn.pack_sequence([tl.tensor(s) for s in seqs], enforce_sorted=False)
    t = torch_rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    for a, b in zip(m, t):
        np.testing.assert_array_equal(_np(a), _np(b))
    for a, b in zip(tl_rnn.unpack_sequence(m), seqs):
        np.testing.assert_array_equal(_np(a), b)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        tl_rnn.pack_sequence([tl.tensor(s) for s in seqs])


def test_invert_permutation():
    p = tl.tensor([2, 0, 3, 1])
    np.testing.assert_array_equal(_np(tl_rnn.invert_permutation(p)),
                                  _np(torch_rnn.invert_permutation(torch.tensor([2, 0, 3, 1]))))
    assert tl_rnn.invert_permutation(None) is None


def test_packed_sequence_conversions():
    packed = tl_rnn.pack_sequence([tl.randn(3, 2), tl.randn(2, 2)], enforce_sorted=False)
    assert packed.to(tl.float32) is packed and packed.cpu() is packed
    d = packed.double()
    assert d.data.dtype == tl.float64 and d.batch_sizes is packed.batch_sizes
    assert tl.equal(d.sorted_indices, packed.sorted_indices) and not packed.is_cuda
    pair = tl_rnn.PackedSequence((packed.data, packed.batch_sizes))
    assert pair.sorted_indices is None and pair.batch_sizes is packed.batch_sizes


@pytest.mark.parametrize("call,exc,match", [
    (lambda: tl_rnn.pack_padded_sequence(tl.zeros(3, 2, 4), [2, 3]), RuntimeError, "sorted in decreasing order"),
    (lambda: tl_rnn.pack_padded_sequence(tl.zeros(3, 2, 4), [2, 0]), RuntimeError, "greater than 0"),
    (lambda: tl_rnn.pack_padded_sequence(tl.zeros(3, 2, 4), [2, 2, 1]), RuntimeError, "equal to batch_size"),
    (lambda: tl_rnn.pack_padded_sequence(tl.zeros(0, 2, 4), [1, 1]), RuntimeError, "Cannot pack empty tensors"),
    (lambda: tl_rnn.pack_padded_sequence(tl.zeros(3, 2, 4), tl.tensor([[2, 1]])), RuntimeError, "1D CPU int64"),
    (lambda: tl_rnn.pack_padded_sequence(tl.zeros(3, 2, 4), [4, 1]), RuntimeError, "exceeds the padded length"),
    (lambda: tl_rnn.pad_packed_sequence(tl_rnn.pack_sequence([tl.zeros(3)]), total_length=2), ValueError,
     "total_length"),
    (lambda: tl_rnn.pad_sequence(5), RuntimeError, "Expected iterable"),
    (lambda: tl_rnn.pad_sequence([]), RuntimeError, "empty list"),
    (lambda: tl_rnn.PackedSequence(tl.zeros(3)), AssertionError, "length 2"),
])
def test_packing_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
