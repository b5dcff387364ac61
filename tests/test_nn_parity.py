"""Parity with PyTorch for the recurrent layers, attention and transformers, with weights copied
across: outputs, and gradients with respect to the inputs and every parameter (float64, so the
tolerances are tight). Also nn.utils.rnn's packing helpers.
"""

import warnings

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
    with warnings.catch_warnings():  # PyTorch's TransformerEncoder warns about its nested-tensor fast path
        warnings.simplefilter("ignore")
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
            if b.grad is None:  # an input the outputs do not use
                assert a.grad is None
            else:
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
    ref, mine = build("nn.GRU(4, 5)")
    kw = {"has_biases": True, "num_layers": 1, "dropout": 0.0, "train": False, "bidirectional": False}
    t_out = torch.gru(data=t_packed.data, batch_sizes=t_packed.batch_sizes, hx=torch.zeros(1, 3, 5).double(),
                      params=ref._flat_weights, **kw)
    out = tl.gru(data=packed.data, batch_sizes=packed.batch_sizes, hx=tl.zeros(1, 3, 5).double(),
                 params=mine._flat_weights, **kw)
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


# -------------------------------------------------------------------------------- MultiheadAttention

MHAS = [
    "nn.MultiheadAttention(8, 2)",
    "nn.MultiheadAttention(8, 4, batch_first=True)",
    "nn.MultiheadAttention(8, 2, kdim=6, vdim=4)",
    "nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True)",
    "nn.MultiheadAttention(8, 2, add_zero_attn=True, kdim=6, vdim=4, batch_first=True)",
    "nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, dropout=0.5)",
]


def _attn_masks(kind, lq, lk, batch, heads):
    rng = np.random.default_rng(3)
    if kind == "bool2d":
        m = rng.random((lq, lk)) < 0.3
        m[:, 0] = False  # every query keeps one key: no all -inf rows
        return m
    if kind == "float2d":
        return rng.standard_normal((lq, lk))
    if kind == "bool3d":
        m = rng.random((batch * heads, lq, lk)) < 0.3
        m[..., 0] = False
        return m
    if kind == "causal":
        return np.triu(np.ones((lq, lk), dtype=bool), 1)
    return None


@pytest.mark.parametrize("expr", MHAS)
@pytest.mark.parametrize("mask", [None, "bool2d", "float2d", "bool3d", "causal"])
@pytest.mark.parametrize("kpm", [False, True])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_multihead_attention(expr, mask, kpm, need_weights, average):
    ref, mine = build(expr)
    batch, lq, lk = 3, 5, 5 if mask == "causal" else 4
    bf = mine.batch_first
    q = randn(*((batch, lq) if bf else (lq, batch)), 8, seed=1)
    k = randn(*((batch, lk) if bf else (lk, batch)), mine.kdim, seed=2)
    v = randn(*((batch, lk) if bf else (lk, batch)), mine.vdim, seed=3)
    kw = {"need_weights": need_weights, "average_attn_weights": average}
    attn_mask = _attn_masks(mask, lq, lk, batch, mine.num_heads)
    if attn_mask is not None:
        kw["attn_mask"] = attn_mask
    if mask == "causal":
        kw["is_causal"] = True
    if kpm:
        pad = np.zeros((batch, lk), dtype=bool)
        pad[0, -2:] = pad[2, -1] = True
        kw["key_padding_mask"] = pad
    check_parity(ref, mine, [q, k, v], kwargs=kw)


@pytest.mark.parametrize("expr", ["nn.MultiheadAttention(8, 2)", "nn.MultiheadAttention(8, 4, batch_first=True)",
                                  "nn.MultiheadAttention(8, 2, bias=False, batch_first=True)",
                                  "nn.MultiheadAttention(8, 2, add_zero_attn=True, batch_first=True)"])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("mask", [None, "bool2d"])
def test_multihead_attention_self_attention(expr, need_weights, mask):
    # query is key is value: the packed projection (and, batch-first, the row order without copies).
    ref, mine = build(expr)
    x = randn(*((3, 5) if mine.batch_first else (5, 3)), 8)
    kw = {"need_weights": need_weights}
    if mask is not None:
        kw["attn_mask"] = _attn_masks(mask, 5, 5, 3, mine.num_heads)
    check_parity(ref, mine, [x], make=lambda lib, t: [t[0], t[0], t[0]], kwargs=kw)


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_output_layout_matches_torch(need_weights):
    # A sequence-first call with the transpose of a batch-first tensor (the rows taken in batch
    # order inside) still returns PyTorch's layout: a contiguous (L, N, E) that view() accepts.
    ref, mine = build("nn.MultiheadAttention(8, 2)")
    y = randn(3, 5, 8)
    outs = [m(x, x, x, need_weights=need_weights)[0] for m, x in
            ((ref, torch.tensor(y).transpose(0, 1)), (mine, tl.tensor(y).transpose(0, 1)))]
    assert outs[1].is_contiguous() == outs[0].is_contiguous()
    np.testing.assert_allclose(_np(outs[1].view(15, 8)), _np(outs[0].reshape(15, 8)), atol=1e-10)


def test_multihead_attention_self_attention_unbatched_and_float_padding():
    ref, mine = build("nn.MultiheadAttention(8, 2)")
    x = randn(5, 8)
    check_parity(ref, mine, [x, x, x], make=lambda lib, t: [t[0], t[0], t[0]])
    kpm = np.array([0.0, 0.0, -1.5, 0.0, -np.inf])
    check_parity(ref, mine, [x, x, x], kwargs={"key_padding_mask": kpm, "attn_mask": randn(5, 5)})
    check_parity(ref, mine, [x, x, x], kwargs={"attn_mask": randn(2, 5, 5)})


def test_multi_head_attention_forward_static_kv():
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(8, 2).double()
    q = randn(4, 3, 8)
    static = randn(6, 5, 4, seed=2)
    outs = []
    for lib, F in ((torch, torch.nn.functional), (tl, tl.nn.functional)):
        p = {k: lib.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
        x, s = lib.tensor(q), lib.tensor(static)
        outs.append(F.multi_head_attention_forward(x, x, x, 8, 2, p["in_proj_weight"], p["in_proj_bias"], None,
                                                   None, False, 0.0, p["out_proj.weight"], p["out_proj.bias"],
                                                   static_k=s, static_v=s))
    for a, b in zip(outs[1], outs[0]):
        np.testing.assert_allclose(_np(a), _np(b), atol=1e-12)


def test_multihead_attention_merge_masks():
    ref, mine = build("nn.MultiheadAttention(8, 2, batch_first=True)")
    q = randn(3, 4, 8)
    attn, kpm = randn(4, 4), randn(3, 4, seed=1)
    got = mine.merge_masks(tl.tensor(attn), tl.tensor(kpm), tl.tensor(q))
    want = ref.merge_masks(torch.tensor(attn), torch.tensor(kpm), torch.tensor(q))
    assert got[1] == want[1]
    np.testing.assert_allclose(_np(got[0]), _np(want[0]))
    assert mine.merge_masks(None, None, tl.tensor(q)) == (None, None)


@pytest.mark.parametrize("call,exc,match", [
    (lambda m: m(tl.zeros(4, 3, 6), tl.zeros(4, 3, 8), tl.zeros(4, 3, 8)), AssertionError, "embedding dimension"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(4, 8), tl.zeros(4, 8)), AssertionError, "expected `key` and `value`"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(4, 3, 8)), AssertionError, "does not match value"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(5, 3, 8), attn_mask=tl.zeros(4, 4)), RuntimeError,
     "The shape of the 2D attn_mask"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(5, 3, 8), attn_mask=tl.zeros(4, 4, 5)), RuntimeError,
     "The shape of the 3D attn_mask"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(5, 3, 8), attn_mask=tl.zeros(4, 5, dtype=tl.int64)),
     AssertionError, "only bool and floating types of attn_mask"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(5, 3, 8), key_padding_mask=tl.zeros(3, 4)),
     AssertionError, "key_padded_mask.shape\\[1\\]"),
    (lambda m: m(tl.zeros(4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(5, 3, 8), is_causal=True), RuntimeError,
     "Need attn_mask"),
    (lambda m: m(tl.zeros(3, 4, 3, 8), tl.zeros(5, 3, 8), tl.zeros(5, 3, 8)), AssertionError, "query should be"),
])
def test_multihead_attention_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call(tl.nn.MultiheadAttention(8, 2))


# ------------------------------------------------------------------------------------- Transformers

ENCODERS = [
    "nn.TransformerEncoderLayer(8, 2, 16)",
    "nn.TransformerEncoderLayer(8, 2, 16, activation='gelu', norm_first=True, batch_first=True)",
    "nn.TransformerEncoderLayer(8, 2, 16, activation=F.silu, bias=False)",
    "nn.TransformerEncoderLayer(8, 4, 16, activation=nn.GELU(approximate='tanh'), layer_norm_eps=1e-3)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), 2)",
]


def _seq_masks(kind, length, batch):
    kw = {}
    if kind in ("causal", "causal_hint"):
        kw["mask"] = np.triu(np.full((length, length), -np.inf), 1)
    elif kind == "bool":
        m = np.random.default_rng(4).random((length, length)) < 0.3
        np.fill_diagonal(m, False)
        kw["mask"] = m
    if kind == "padding":
        pad = np.zeros((batch, length), dtype=bool)
        pad[1, -2:] = True
        kw["padding"] = pad
    return kw


@pytest.mark.parametrize("expr", ENCODERS)
@pytest.mark.parametrize("masks", [None, "causal", "causal_hint", "bool", "padding"])
def test_transformer_encoder(expr, masks):
    ref, mine = build(expr)
    bf = "batch_first=True" in expr
    x = randn(*((3, 5) if bf else (5, 3)), 8)
    m = _seq_masks(masks, 5, 3)
    layer = expr.startswith("nn.TransformerEncoderLayer")
    kw = {}
    if "mask" in m:
        kw["src_mask" if layer else "mask"] = m["mask"]
    if "padding" in m:
        kw["src_key_padding_mask"] = m["padding"]
    if masks == "causal_hint":
        kw["is_causal"] = True
    check_parity(ref, mine, [x], kwargs=kw)


DECODERS = [
    "nn.TransformerDecoderLayer(8, 2, 16)",
    "nn.TransformerDecoderLayer(8, 2, 16, activation='gelu', norm_first=True, batch_first=True)",
    "nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, activation=F.tanh), 2, norm=nn.LayerNorm(8))",
]


@pytest.mark.parametrize("expr", DECODERS)
@pytest.mark.parametrize("masks", [None, "causal", "causal_hint", "padding"])
def test_transformer_decoder(expr, masks):
    ref, mine = build(expr)
    bf = "batch_first=True" in expr
    tgt = randn(*((3, 5) if bf else (5, 3)), 8)
    memory = randn(*((3, 4) if bf else (4, 3)), 8, seed=1)
    m = _seq_masks(masks, 5, 3)
    kw = {}
    if "mask" in m:
        kw["tgt_mask"] = m["mask"]
    if masks == "causal_hint":
        kw["tgt_is_causal"] = True
    if "padding" in m:
        kw["tgt_key_padding_mask"] = m["padding"]
        mem_pad = np.zeros((3, 4), dtype=bool)
        mem_pad[2, -1] = True
        kw["memory_key_padding_mask"] = mem_pad
        kw["memory_mask"] = np.random.default_rng(5).standard_normal((5, 4))
    check_parity(ref, mine, [tgt, memory], kwargs=kw)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer(batch_first, norm_first):
    ref, mine = build(f"nn.Transformer(8, 2, 2, 2, 16, batch_first={batch_first}, norm_first={norm_first})")
    src = randn(*((3, 6) if batch_first else (6, 3)), 8)
    tgt = randn(*((3, 5) if batch_first else (5, 3)), 8, seed=1)
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    pad = np.zeros((3, 6), dtype=bool)
    pad[0, -1] = True
    check_parity(ref, mine, [src, tgt], kwargs={"tgt_mask": causal, "src_key_padding_mask": pad,
                                                "memory_key_padding_mask": pad, "tgt_is_causal": True})
    check_parity(ref, mine, [src[0] if batch_first else src[:, 0], tgt[0] if batch_first else tgt[:, 0]])


# -------------------------------------------------------------------------------------- interpolate

INTERPOLATIONS = [
    ((2, 3, 7, 9), "bicubic", {"size": (11, 5)}),
    ((2, 3, 7, 9), "bicubic", {"scale_factor": 1.7, "align_corners": True}),
    ((2, 3, 7, 9), "bicubic", {"scale_factor": 0.6}),
    ((2, 3, 7, 9), "bicubic", {"size": (4, 5), "antialias": True}),
    ((2, 3, 7, 9), "bicubic", {"size": (14, 3), "antialias": True, "align_corners": True}),
    ((2, 3, 7, 9), "bilinear", {"size": (4, 3), "antialias": True}),
    ((2, 3, 7, 9), "bilinear", {"size": (14, 13), "antialias": True}),
    ((2, 3, 7, 9), "bilinear", {"scale_factor": (0.45, 0.3), "antialias": True}),
    ((2, 3, 7, 9), "bilinear", {"size": (3, 4), "antialias": True, "align_corners": True}),
    ((2, 3, 7, 9), "lanczos", {"size": (3, 4), "antialias": True}),
    ((2, 3, 7, 9), "lanczos", {"size": (13, 17), "antialias": True}),
    ((2, 3, 5, 6, 7), "trilinear", {"size": (7, 3, 9)}),
    ((2, 3, 5, 6, 7), "trilinear", {"scale_factor": (1.5, 0.5, 2.0), "align_corners": True}),
    ((2, 3, 5, 6, 7), "trilinear", {"scale_factor": 0.7, "recompute_scale_factor": True}),
    ((2, 3, 7), "linear", {"size": 5}),
    ((2, 3, 7), "linear", {"size": 17, "align_corners": True}),
    ((2, 3, 7, 9), "area", {"size": (4, 5)}),
    ((2, 3, 7, 9), "area", {"scale_factor": 0.6}),
    ((2, 3, 5, 6, 7), "area", {"size": (3, 4, 5)}),
    ((2, 3, 7), "area", {"size": 4}),
    ((2, 3, 5, 6, 7), "nearest", {"size": (3, 8, 14)}),
    ((2, 3, 5, 6, 7), "nearest", {"scale_factor": (0.7, 1.3, 1.6)}),
    ((2, 3, 5, 6, 7), "nearest-exact", {"size": (3, 8, 5)}),
    ((2, 3, 7, 9), "nearest-exact", {"scale_factor": 1.3}),
]


@pytest.mark.parametrize("shape,mode,kw", INTERPOLATIONS)
@pytest.mark.parametrize("dtype,atol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_interpolate(shape, mode, kw, dtype, atol):
    x = randn(*shape).astype(dtype)
    outs = []
    for lib in (torch, tl):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, mode=mode, **kw)
        (y * lib.tensor(randn(*y.shape, seed=1).astype(dtype))).sum().backward()
        outs.append((y, t.grad))
    (y_ref, g_ref), (y, g) = outs
    assert y.dtype == tl.float64 if dtype == np.float64 else tl.float32
    np.testing.assert_allclose(_np(y), _np(y_ref), atol=atol)
    np.testing.assert_allclose(_np(g), _np(g_ref), atol=atol)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3, 4, 5), size=2, mode="trilinear", antialias=True),
     ValueError, "Anti-alias option is restricted"),
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3, 4), size=2, mode="lanczos"), ValueError,
     "Lanczos mode requires antialias=True"),
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3, 4), size=2, mode="lanczos", antialias=True,
                                          align_corners=True), ValueError, "does not support align_corners=True"),
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3, 4), size=2, mode="trilinear"), NotImplementedError,
     "Got 4D input, but trilinear mode needs 5D input"),
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3), size=2, mode="bicubic"), NotImplementedError,
     "Input Error: Only 3D, 4D and 5D"),
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3, 4), size=(0, 3), mode="bicubic"), RuntimeError,
     r"output \(H: 0, W: 3\)"),
    (lambda: tl.nn.functional.interpolate(tl.zeros(1, 2, 3, 4, dtype=tl.int64), size=2, mode="bicubic"),
     NotImplementedError, "not implemented for 'Long'"),
])
def test_interpolate_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
