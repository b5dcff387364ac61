"""nn layers against PyTorch: parameter names/shapes, reprs, state_dict interchange and outputs.

Each case is one constructor expression evaluated with both libraries; the PyTorch module's
state_dict is loaded (via NumPy) into the torchlite module, then both run on the same input.
Forward checks skip while the nn.functional op a layer needs has not landed.
"""

import inspect
import math

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn
from torchlite.nn import functional as F

torch = pytest.importorskip("torch")


def _missing(names):
    return [n for n in names if not callable(getattr(F, n, None)) or inspect.ismodule(getattr(F, n))]


def needs(*names):
    missing = _missing(names)
    return pytest.mark.skipif(bool(missing), reason=f"nn.functional lacks {', '.join(missing)}")


def has_F(*names):
    return not _missing(names)


def to_tl(t):
    return tl.tensor(t.detach().numpy())


def to_np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def build(expr):
    """(torch module, torchlite module) for the same constructor expression, with equal weights."""
    torch.manual_seed(0)
    ref = eval(expr, {"nn": torch.nn, "T": torch.tensor, "F": torch.nn.functional})
    mine = eval(expr, {"nn": tl.nn, "T": tl.tensor, "F": tl.nn.functional})
    result = mine.load_state_dict({k: to_tl(v) for k, v in ref.state_dict().items()})
    assert result.missing_keys == [] and result.unexpected_keys == []
    return ref, mine


def float_input(shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


def check_forward(ref, mine, *inputs, rtol=1e-5, atol=1e-5):
    out_ref = ref(*[torch.from_numpy(x.copy()) for x in inputs])
    out = mine(*[tl.tensor(x) for x in inputs])
    if isinstance(out_ref, tuple):
        for a, b in zip(out, out_ref):
            if b is None:
                assert a is None
            else:
                np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=atol)
    else:
        np.testing.assert_allclose(to_np(out), to_np(out_ref), rtol=rtol, atol=atol)
    return out, out_ref


# (constructor, input shape, functional ops the forward needs)
LAYERS = [
    ("nn.Identity(3, unused=True)", (2, 3), []),
    ("nn.Linear(5, 3)", (4, 5), ["linear"]),
    ("nn.Linear(5, 3, bias=False)", (2, 4, 5), ["linear"]),
    ("nn.Bilinear(3, 4, 2)", None, ["bilinear"]),
    ("nn.Conv1d(4, 6, 3, stride=2, padding=1)", (2, 4, 9), ["conv1d"]),
    ("nn.Conv1d(4, 4, 3, padding='same', groups=4, bias=False)", (2, 4, 7), ["conv1d"]),
    ("nn.Conv2d(3, 8, 3, padding=1)", (2, 3, 7, 7), ["conv2d"]),
    ("nn.Conv2d(4, 8, (3, 2), stride=(2, 1), dilation=2, groups=2, bias=False)", (1, 4, 9, 8), ["conv2d"]),
    ("nn.Conv2d(3, 4, 3, padding='same', padding_mode='reflect')", (1, 3, 6, 6), ["conv2d", "pad"]),
    ("nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode='circular')", (1, 2, 5, 6), ["conv2d", "pad"]),
    ("nn.ConvTranspose1d(3, 2, 4, stride=2)", (2, 3, 5), ["conv_transpose1d"]),
    ("nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)", (2, 4, 5, 5), ["conv_transpose2d"]),
    ("nn.ConvTranspose2d(4, 6, 3, groups=2, bias=False, dilation=2)", (1, 4, 4, 4), ["conv_transpose2d"]),
    ("nn.Conv3d(3, 4, 3, padding=1)", (2, 3, 5, 4, 5), ["conv3d"]),
    ("nn.Conv3d(4, 4, (2, 3, 2), stride=(1, 2, 1), dilation=(2, 1, 1), groups=2, bias=False)", (1, 4, 5, 7, 4),
     ["conv3d"]),
    ("nn.Conv3d(2, 3, 3, padding='same')", (2, 4, 5, 4), ["conv3d"]),
    ("nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1, output_padding=1)", (1, 3, 3, 2, 3), ["conv_transpose3d"]),
    ("nn.ConvTranspose3d(4, 6, 2, groups=2, bias=False, dilation=2)", (4, 2, 3, 2), ["conv_transpose3d"]),
    ("nn.MaxPool3d(2)", (2, 3, 4, 6, 4), ["max_pool3d"]),
    ("nn.MaxPool3d(3, stride=2, padding=1, ceil_mode=True)", (1, 2, 5, 5, 5), ["max_pool3d"]),
    ("nn.AvgPool3d(2)", (2, 3, 4, 4, 4), ["avg_pool3d"]),
    ("nn.AvgPool3d(3, 2, 1, count_include_pad=False, divisor_override=None)", (1, 2, 5, 5, 5), ["avg_pool3d"]),
    ("nn.AdaptiveAvgPool3d((2, 3, 2))", (2, 3, 5, 7, 4), ["adaptive_avg_pool3d"]),
    ("nn.AdaptiveMaxPool3d(2)", (2, 3, 5, 5, 5), ["adaptive_max_pool3d"]),
    ("nn.LPPool3d(2, 2)", (1, 2, 4, 4, 4), ["lp_pool3d"]),
    ("nn.ConstantPad3d((1, 0, 2, 1, 0, 1), 2.5)", (1, 2, 3, 3, 3), ["pad"]),
    ("nn.ZeroPad3d(1)", (2, 2, 3, 3), ["pad"]),
    ("nn.CircularPad3d((1, 0, 2, 1, 0, 1))", (1, 2, 3, 3, 3), ["pad"]),
    ("nn.ReflectionPad3d((1, 0, 2, 1, 0, 1))", (1, 2, 3, 3, 3), ["pad"]),
    ("nn.ReplicationPad3d(2)", (2, 2, 3, 3), ["pad"]),
    ("nn.Conv3d(2, 3, 3, padding=(1, 0, 1), padding_mode='reflect')", (1, 2, 4, 3, 4), ["conv3d", "pad"]),
    ("nn.Conv3d(2, 3, 3, padding='same', padding_mode='replicate')", (1, 2, 4, 3, 4), ["conv3d", "pad"]),
    ("nn.Conv3d(2, 3, 3, padding=1, padding_mode='circular')", (1, 2, 4, 3, 4), ["conv3d", "pad"]),
    ("nn.MaxPool2d(2)", (2, 3, 8, 8), ["max_pool2d"]),
    ("nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)", (1, 2, 7, 7), ["max_pool2d"]),
    ("nn.AvgPool2d(2)", (2, 3, 8, 8), ["avg_pool2d"]),
    ("nn.AvgPool2d(3, 2, 1, count_include_pad=False)", (1, 2, 7, 7), ["avg_pool2d"]),
    ("nn.AdaptiveAvgPool2d((2, 3))", (2, 3, 7, 9), ["adaptive_avg_pool2d"]),
    ("nn.AdaptiveAvgPool2d(1)", (2, 3, 5, 5), ["adaptive_avg_pool2d"]),
    ("nn.BatchNorm1d(5)", (8, 5), ["batch_norm"]),
    ("nn.BatchNorm1d(4, affine=False)", (6, 4, 3), ["batch_norm"]),
    ("nn.BatchNorm2d(3, momentum=None)", (4, 3, 5, 5), ["batch_norm"]),
    ("nn.BatchNorm2d(3, eps=1e-3, track_running_stats=False)", (4, 3, 2, 2), ["batch_norm"]),
    ("nn.LayerNorm(6)", (3, 4, 6), ["layer_norm"]),
    ("nn.LayerNorm((4, 6), elementwise_affine=False)", (3, 4, 6), ["layer_norm"]),
    ("nn.LayerNorm(6, bias=False)", (2, 6), ["layer_norm"]),
    ("nn.GroupNorm(2, 6)", (3, 6, 4), ["group_norm"]),
    ("nn.GroupNorm(3, 6, affine=False)", (2, 6, 2, 2), ["group_norm"]),
    ("nn.GroupNorm(3, 6, bias=False)", (2, 6, 2, 2), ["group_norm"]),
    ("nn.BatchNorm2d(3, bias=False)", (2, 3, 2, 2), ["batch_norm"]),
    ("nn.Dropout(0.3)", (4, 5), ["dropout"]),
    ("nn.Flatten()", (2, 3, 4), []),
    ("nn.Flatten(0, 1)", (2, 3, 4), []),
    ("nn.Unflatten(1, (2, 3))", (4, 6), []),
    ("nn.ReLU()", (3, 4), ["relu"]),
    ("nn.ReLU(inplace=True)", (3, 4), ["relu"]),
    ("nn.GELU()", (3, 4), ["gelu"]),
    ("nn.GELU(approximate='tanh')", (3, 4), ["gelu"]),
    ("nn.SiLU()", (3, 4), ["silu"]),
    ("nn.Tanh()", (3, 4), []),
    ("nn.Sigmoid()", (3, 4), []),
    ("nn.Softmax(dim=1)", (3, 4), ["softmax"]),
    ("nn.LogSoftmax(dim=-1)", (3, 4), ["log_softmax"]),
    ("nn.LeakyReLU(0.2)", (3, 4), ["leaky_relu"]),
    ("nn.LeakyReLU(inplace=True)", (3, 4), ["leaky_relu"]),
    ("nn.ELU(alpha=0.5)", (3, 4), ["elu"]),
    ("nn.Softplus(beta=2.0, threshold=5.0)", (3, 4), ["softplus"]),
    ("nn.Hardtanh(-0.5, 1.5)", (3, 4), ["hardtanh"]),
    ("nn.ReLU6()", (3, 4), ["hardtanh"]),
    ("nn.PReLU()", (2, 3, 4), ["prelu"]),
    ("nn.PReLU(3, 0.1)", (2, 3, 4), ["prelu"]),
    ("nn.SELU()", (3, 4), ["selu"]),
    ("nn.CELU(0.5)", (3, 4), ["celu"]),
    ("nn.GLU()", (3, 4), ["glu"]),
    ("nn.LogSigmoid()", (3, 4), ["logsigmoid"]),
    ("nn.Softsign()", (3, 4), ["softsign"]),
    ("nn.Tanhshrink()", (3, 4), ["tanhshrink"]),
    ("nn.Threshold(0.1, 20.0)", (3, 4), ["threshold"]),
    ("nn.Softmin(1)", (3, 4), ["softmin"]),
    ("nn.Softmax2d()", (2, 3, 4, 4), ["softmax"]),
    ("nn.Hardshrink()", (3, 4), ["hardshrink"]),
    ("nn.Softshrink(0.3)", (3, 4), ["softshrink"]),
    ("nn.Mish()", (3, 4), ["mish"]),
    ("nn.Hardswish()", (3, 4), ["hardswish"]),
    ("nn.Hardsigmoid()", (3, 4), ["hardsigmoid"]),
    ("nn.ZeroPad2d(2)", (1, 2, 3, 3), ["pad"]),
    ("nn.ZeroPad1d((1, 2))", (1, 2, 3), ["pad"]),
    ("nn.ConstantPad2d(1, 3.5)", (1, 2, 3, 3), ["pad"]),
    ("nn.ReflectionPad2d((1, 1, 2, 0))", (1, 2, 4, 4), ["pad"]),
    ("nn.ReplicationPad1d(1)", (1, 2, 4), ["pad"]),
    ("nn.CircularPad2d(1)", (1, 2, 3, 3), ["pad"]),
    ("nn.Upsample(scale_factor=2)", (1, 2, 3, 3), ["interpolate"]),
    ("nn.Upsample(size=(4, 5), mode='bilinear', align_corners=False)", (1, 2, 3, 3), ["interpolate"]),
    ("nn.PixelShuffle(2)", (1, 8, 3, 3), ["pixel_shuffle"]),
    ("nn.PixelUnshuffle(2)", (1, 2, 4, 4), ["pixel_unshuffle"]),
    ("nn.ChannelShuffle(2)", (1, 4, 3, 3), ["channel_shuffle"]),
    ("nn.FractionalMaxPool2d(2, output_size=3, _random_samples=T([[[0.3, 0.7], [0.5, 0.1]]]))", (1, 2, 6, 6),
     ["fractional_max_pool2d"]),
    ("nn.FractionalMaxPool2d((2, 3), output_ratio=0.5, return_indices=True, _random_samples=T([[[0.9, 0.2]]]))",
     (1, 1, 8, 9), ["fractional_max_pool2d"]),
    ("nn.FractionalMaxPool3d((2, 3, 2), output_ratio=(0.5, 0.4, 0.6), return_indices=True, "
     "_random_samples=T([[[0.9, 0.2, 0.4], [0.1, 0.6, 0.3]]]))", (1, 2, 6, 8, 7), ["fractional_max_pool3d"]),
    ("nn.MaxPool1d(3)", (2, 3, 9), ["max_pool1d"]),
    ("nn.AvgPool1d(3)", (2, 3, 9), ["avg_pool1d"]),
    ("nn.AdaptiveAvgPool1d(3)", (2, 3, 8), ["adaptive_avg_pool1d"]),
    ("nn.AdaptiveMaxPool2d(2)", (2, 3, 5, 5), ["adaptive_max_pool2d"]),
    ("nn.Dropout2d(0.2)", (2, 3, 4, 4), ["dropout2d"]),
    ("nn.BatchNorm3d(3)", (2, 3, 2, 2, 2), ["batch_norm"]),
    ("nn.RMSNorm(3)", (2, 3), ["rms_norm"]),
    ("nn.RMSNorm((2, 3), eps=1e-3)", (4, 2, 3), ["rms_norm"]),
    ("nn.Embedding(10, 4, padding_idx=0)", "int", ["embedding"]),
    ("nn.Embedding(10, 4, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)", "int", ["embedding"]),
    ("nn.MultiheadAttention(8, 2)", None, []),
    ("nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True, kdim=6, vdim=4, batch_first=True)", None, []),
    ("nn.TransformerEncoderLayer(8, 2, 16)", None, ["relu"]),
    ("nn.TransformerEncoderLayer(8, 2, 16, activation='gelu', norm_first=True, batch_first=True)", None, ["gelu"]),
    ("nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())", None, []),
    ("nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))", None, ["relu"]),
    ("nn.TransformerDecoderLayer(8, 2, 16, norm_first=True)", None, ["relu"]),
    ("nn.Transformer(8, 2, 2, 1, 16, batch_first=True)", None, ["relu"]),
    ("nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), "
     "nn.Dropout(), nn.Linear(36, 10))", (2, 1, 8, 8),
     ["conv2d", "batch_norm", "relu", "max_pool2d", "dropout", "linear"]),
    ("nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.GELU(), nn.Linear(5, 2))", (7, 6),
     ["linear", "batch_norm", "gelu"]),
    ("nn.CrossEntropyLoss()", None, []),
    ("nn.NLLLoss(weight=T([1.0, 2.0, 3.0]), ignore_index=1)", None, []),
    ("nn.BCEWithLogitsLoss(pos_weight=T([2.0]))", None, []),
]


def _construct_needs(expr):
    # a string activation is resolved to F.relu / F.gelu at construction, like PyTorch
    if "TransformerEncoderLayer" in expr or "TransformerDecoderLayer" in expr or "Transformer(" in expr:
        return ["relu", "gelu"]
    return []


@pytest.mark.parametrize("expr,shape,fns", LAYERS, ids=[c[0][:60] for c in LAYERS])
def test_layer_matches_torch_structure(expr, shape, fns):
    if not has_F(*_construct_needs(expr)):
        pytest.skip("nn.functional activation not available")
    ref, mine = build(expr)
    sd_ref, sd = ref.state_dict(), mine.state_dict()
    assert list(sd) == list(sd_ref)
    for k in sd:
        assert tuple(sd[k].shape) == tuple(sd_ref[k].shape), k
        assert str(sd[k].dtype).split(".")[-1] == str(sd_ref[k].dtype).split(".")[-1], k
        np.testing.assert_array_equal(sd[k].numpy(), sd_ref[k].numpy())
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert [n for n, _ in mine.named_buffers()] == [n for n, _ in ref.named_buffers()]
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in ref.named_modules()]
    assert repr(mine) == repr(ref)
    # and back: torchlite's state_dict loads into PyTorch
    ref.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in sd.items()})


ELEMENTWISE = [c for c in LAYERS if isinstance(c[1], tuple)]


@pytest.mark.parametrize("expr,shape,fns", ELEMENTWISE, ids=[c[0][:60] for c in ELEMENTWISE])
def test_layer_forward_matches_torch(expr, shape, fns):
    if not has_F(*fns):
        pytest.skip(f"nn.functional lacks one of {fns}")
    ref, mine = build(expr)
    ref.eval()
    mine.eval()
    check_forward(ref, mine, float_input(shape))
    if "BatchNorm" in expr and "Dropout" not in expr:  # training mode: batch statistics, running stats
        ref.train()
        mine.train()
        for seed in range(3):
            check_forward(ref, mine, float_input(shape, seed=seed) * 3 + 1)
        for (k, a), (_, b) in zip(mine.state_dict().items(), ref.state_dict().items()):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


@needs("linear", "conv2d", "batch_norm", "relu", "max_pool2d", "dropout")
def test_backward_matches_torch():
    expr = ("nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), "
            "nn.Linear(36, 10))")
    ref, mine = build(expr)
    x = float_input((2, 1, 8, 8))
    ref(torch.from_numpy(x)).pow(2).sum().backward()
    mine(tl.tensor(x)).pow(2).sum().backward()
    for (n, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)


@needs("embedding")
def test_embedding_forward_and_from_pretrained():
    ref, mine = build("nn.Embedding(10, 4, padding_idx=0)")
    idx = np.array([[0, 3, 9], [1, 0, 2]], dtype=np.int64)
    out = mine(tl.tensor(idx))
    np.testing.assert_allclose(out.detach().numpy(), ref(torch.from_numpy(idx)).detach().numpy())
    w = tl.tensor(float_input((5, 3)))
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and e.weight._shares_storage(w)
    np.testing.assert_allclose(e(tl.tensor([4, 0])).numpy(), w.numpy()[[4, 0]])
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad


def test_embedding_constructor():
    e = nn.Embedding(6, 2, padding_idx=-2)
    assert e.padding_idx == 4
    assert repr(e) == "Embedding(6, 2, padding_idx=4)"
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(6, 2, padding_idx=6)
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(tl.ones(3))
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        nn.Embedding(3, 2, _weight=tl.ones(2, 3))


# ------------------------------------------------------------------------- attention
def _mha_inputs(batch_first, kdim=8, vdim=8, L=5, S=6, N=3, E=8):
    rng = np.random.default_rng(1)
    shape = (lambda n, length, d: (n, length, d)) if batch_first else (lambda n, length, d: (length, n, d))
    q = rng.standard_normal(shape(N, L, E)).astype(np.float32)
    k = rng.standard_normal(shape(N, S, kdim)).astype(np.float32)
    v = rng.standard_normal(shape(N, S, vdim)).astype(np.float32)
    return q, k, v


@needs("linear", "softmax")
@pytest.mark.parametrize("expr,batch_first,kdim,vdim", [
    ("nn.MultiheadAttention(8, 2)", False, 8, 8),
    ("nn.MultiheadAttention(8, 4, batch_first=True)", True, 8, 8),
    ("nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=4)", False, 6, 4),
])
def test_multihead_attention_matches_torch(expr, batch_first, kdim, vdim):
    ref, mine = build(expr)
    ref.eval()
    mine.eval()
    q, k, v = _mha_inputs(batch_first, kdim, vdim)
    check_forward(ref, mine, q, k, v)
    N, L, S = 3, 5, 6
    kpm = np.zeros((N, S), dtype=bool)
    kpm[0, -2:] = True
    mask = np.triu(np.ones((L, S), dtype=bool), 1)
    for kwargs in ({"key_padding_mask": kpm}, {"attn_mask": mask}, {"attn_mask": mask.astype(np.float32) * -3.0},
                   {"key_padding_mask": kpm, "attn_mask": mask, "average_attn_weights": False},
                   {"need_weights": False}):
        rk = {n: torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
        mk = {n: tl.tensor(a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
        a = mine(tl.tensor(q), tl.tensor(k), tl.tensor(v), **mk)
        b = ref(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), **rk)
        np.testing.assert_allclose(a[0].detach().numpy(), b[0].detach().numpy(), rtol=1e-5, atol=1e-5)
        if b[1] is None:
            assert a[1] is None
        else:
            np.testing.assert_allclose(a[1].detach().numpy(), b[1].detach().numpy(), rtol=1e-5, atol=1e-6)


@needs("linear", "softmax")
def test_multihead_attention_unbatched_self_attention():
    ref, mine = build("nn.MultiheadAttention(8, 2)")
    x = float_input((5, 8))
    check_forward(ref, mine, x, x, x)


def test_multihead_attention_errors():
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0, got embed_dim=0"):
        nn.MultiheadAttention(0, 2)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)


@needs("linear", "softmax", "layer_norm", "relu", "gelu", "dropout")
@pytest.mark.parametrize("expr,batch_first", [
    ("nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)", False),
    ("nn.TransformerEncoderLayer(8, 2, 16, activation='gelu', norm_first=True, batch_first=True)", True),
    ("nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, norm=nn.LayerNorm(8))", False),
])
def test_transformer_encoder_matches_torch(expr, batch_first):
    ref, mine = build(expr)
    ref.eval()
    mine.eval()
    x = float_input((3, 5, 8) if batch_first else (5, 3, 8))
    check_forward(ref, mine, x, rtol=1e-4, atol=1e-5)
    mask = np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1)
    a = mine(tl.tensor(x), tl.tensor(mask))
    b = ref(torch.from_numpy(x), torch.from_numpy(mask))
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)
    # in training mode with dropout 0 PyTorch takes the same (non-fused) path, padding mask included
    if "dropout=0.0" in expr:
        ref.train()
        mine.train()
        kpm = np.zeros((3, 5), dtype=bool)
        kpm[1, -2:] = True
        a = mine(tl.tensor(x), src_key_padding_mask=tl.tensor(kpm))
        b = ref(torch.from_numpy(x), src_key_padding_mask=torch.from_numpy(kpm))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)


@needs("relu", "gelu")
def test_transformer_encoder_deep_copies_layer():
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU())
    enc = nn.TransformerEncoder(layer, 3)
    assert len(enc.layers) == 3 and enc.num_layers == 3
    ws = [enc.layers[i].linear1.weight for i in range(3)] + [layer.linear1.weight]
    assert len({id(w) for w in ws}) == 4
    assert not ws[0]._shares_storage(ws[1])
    np.testing.assert_array_equal(ws[0].detach().numpy(), ws[3].detach().numpy())
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


# ------------------------------------------------------------------------- losses
LOSSES = [
    ("nn.MSELoss()", "regression", ["mse_loss"]),
    ("nn.MSELoss(reduction='sum')", "regression", ["mse_loss"]),
    ("nn.L1Loss(reduction='none')", "regression", ["l1_loss"]),
    ("nn.SmoothL1Loss(beta=0.5)", "regression", ["smooth_l1_loss"]),
    ("nn.HuberLoss(delta=0.5)", "regression", ["huber_loss"]),
    ("nn.CrossEntropyLoss()", "classes", ["cross_entropy"]),
    ("nn.CrossEntropyLoss(label_smoothing=0.1, reduction='sum')", "classes", ["cross_entropy"]),
    ("nn.CrossEntropyLoss(weight=T([1.0, 2.0, 0.5]), ignore_index=2)", "classes", ["cross_entropy"]),
    ("nn.NLLLoss()", "logprobs", ["nll_loss"]),
    ("nn.NLLLoss(weight=T([1.0, 2.0, 3.0]), reduction='none')", "logprobs", ["nll_loss"]),
    ("nn.BCELoss()", "probs", ["binary_cross_entropy"]),
    ("nn.BCELoss(weight=T([1.0, 2.0, 3.0]))", "probs", ["binary_cross_entropy"]),
    ("nn.BCEWithLogitsLoss()", "logits", ["binary_cross_entropy_with_logits"]),
    ("nn.BCEWithLogitsLoss(pos_weight=T([2.0, 1.0, 0.5]))", "logits", ["binary_cross_entropy_with_logits"]),
    ("nn.KLDivLoss(reduction='batchmean')", "kl", ["kl_div"]),
    ("nn.KLDivLoss(reduction='sum', log_target=True)", "kl_log", ["kl_div"]),
    ("nn.MSELoss(size_average=False)", "regression", ["mse_loss"]),
]


def _loss_inputs(kind):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    if kind == "regression":
        return x, rng.standard_normal((4, 3)).astype(np.float32)
    if kind == "classes":
        return x, np.array([0, 2, 1, 2], dtype=np.int64)
    if kind == "logprobs":
        return x - np.log(np.exp(x).sum(1, keepdims=True)), np.array([0, 2, 1, 2], dtype=np.int64)
    if kind == "probs":
        return 1 / (1 + np.exp(-x)), rng.uniform(0, 1, (4, 3)).astype(np.float32)
    if kind == "logits":
        return x, (rng.uniform(0, 1, (4, 3)) > 0.5).astype(np.float32)
    p = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    logp = np.log(np.exp(-x) / np.exp(-x).sum(1, keepdims=True)).astype(np.float32)
    return logp, (np.log(p) if kind == "kl_log" else p).astype(np.float32)


@pytest.mark.parametrize("expr,kind,fns", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_matches_torch(expr, kind, fns):
    ref, mine = build(expr)
    assert repr(mine) == repr(ref)
    assert mine.reduction == ref.reduction
    if not has_F(*fns):
        pytest.skip(f"nn.functional lacks {fns}")
    check_forward(ref, mine, *_loss_inputs(kind))


# ------------------------------------------------------------------------- constructor errors
def test_constructor_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv1d(4, 4, 3, groups=0)
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv2d(1, 1, 3, padding="full")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(tl.ones(2, 3, 4))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(3)(tl.ones(2, 3, 4, 4))
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, 6)


@needs("conv_transpose2d")
def test_conv_transpose_output_size():
    ref, mine = build("nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)")
    x = float_input((1, 2, 4, 4))
    a = mine(tl.tensor(x), output_size=[8, 8])
    b = ref(torch.from_numpy(x), output_size=[8, 8])
    assert tuple(a.shape) == tuple(b.shape) == (1, 3, 8, 8)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="requested an output size of"):
        mine(tl.tensor(x), output_size=[12, 12])


def test_batchnorm_state_dict_compat_and_training_flag():
    bn = nn.BatchNorm1d(3)
    sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    nn.BatchNorm1d(3).load_state_dict(sd)  # old checkpoints without num_batches_tracked still load
    assert bn.state_dict()._metadata[""]["version"] == 2
    assert type(bn.num_batches_tracked) is tl.Tensor and bn.num_batches_tracked.dtype == tl.int64


@needs("batch_norm")
def test_batchnorm_momentum_none_cumulative_average():
    bn = nn.BatchNorm1d(2, momentum=None)
    xs = [float_input((16, 2), seed=s) + s for s in range(3)]
    for x in xs:
        bn(tl.tensor(x))
    assert int(bn.num_batches_tracked) == 3
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([x.mean(0) for x in xs], axis=0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), np.mean([x.var(0, ddof=1) for x in xs], axis=0), rtol=1e-5)
    bn.eval()
    before = bn.running_mean.numpy().copy()
    bn(tl.tensor(xs[0]))
    np.testing.assert_array_equal(bn.running_mean.numpy(), before)


@needs("dropout")
def test_dropout_train_and_eval():
    d = nn.Dropout(0.5)
    x = tl.ones(1000)
    y = d(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 350 < (y == 0).sum() < 650
    d.eval()
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())


# ------------------------------------------------------------------------- nn.utils
def _params_with_grads(lib, seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for shape in [(3, 4), (5,), (2, 2, 2)]:
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape).astype(np.float32)))
        p.grad = lib.tensor(rng.standard_normal(shape).astype(np.float32) * 3)
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    mine, ref = _params_with_grads(tl), _params_with_grads(torch)
    total = nn.utils.clip_grad_norm_(mine, max_norm, norm_type)
    total_ref = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type)
    np.testing.assert_allclose(float(total), float(total_ref), rtol=1e-5)
    for a, b in zip(mine, ref):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_edge_cases():
    assert float(nn.utils.clip_grad_norm_([nn.Parameter(tl.ones(2))], 1.0)) == 0.0  # no grads
    p = nn.Parameter(tl.ones(2))
    p.grad = tl.tensor([3.0, 4.0])
    assert float(nn.utils.clip_grad_norm_(p, 1.0)) == pytest.approx(5.0)  # a single tensor
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)
    p.grad = tl.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_clip_grad_value():
    mine, ref = _params_with_grads(tl), _params_with_grads(torch)
    nn.utils.clip_grad_value_(mine, 1.5)
    torch.nn.utils.clip_grad_value_(ref, 1.5)
    for a, b in zip(mine, ref):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy())


def test_parameters_vector_round_trip():
    params = _params_with_grads(tl)
    vec = nn.utils.parameters_to_vector(params)
    ref = torch.nn.utils.parameters_to_vector(_params_with_grads(torch))
    np.testing.assert_allclose(vec.detach().numpy(), ref.detach().numpy())
    new = tl.arange(float(vec.numel()))
    nn.utils.vector_to_parameters(new, params)
    np.testing.assert_array_equal(params[1].detach().numpy(), np.arange(12.0, 17.0))
    assert all(isinstance(p, nn.Parameter) for p in params)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], params)


# ------------------------------------------------------------------------- recurrent layers
RNNS = [
    ("nn.RNN(3, 4)", False),
    ("nn.RNN(3, 4, num_layers=2, nonlinearity='relu', bias=False, batch_first=True)", True),
    ("nn.LSTM(3, 5)", False),
    ("nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True)", True),
    ("nn.LSTM(3, 5, proj_size=2, bidirectional=True)", False),
    ("nn.GRU(3, 4, num_layers=2, bidirectional=True)", False),
    ("nn.GRU(3, 4, bias=False, batch_first=True)", True),
]


@pytest.mark.parametrize("expr,batch_first", RNNS, ids=[c[0] for c in RNNS])
def test_recurrent_matches_torch(expr, batch_first):
    ref, mine = build(expr)
    assert repr(mine) == repr(ref)
    assert list(mine.state_dict()) == list(ref.state_dict())
    x = float_input((2, 6, 3) if batch_first else (6, 2, 3))
    out, state = mine(tl.tensor(x))
    out_ref, state_ref = ref(torch.from_numpy(x))
    np.testing.assert_allclose(out.detach().numpy(), out_ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    states = state if isinstance(state, tuple) else (state,)
    states_ref = state_ref if isinstance(state_ref, tuple) else (state_ref,)
    for a, b in zip(states, states_ref):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5)
    # given initial state, and gradients
    out2, _ = mine(tl.tensor(x), tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach())
    out2_ref, _ = ref(torch.from_numpy(x), tuple(s.detach() for s in state_ref) if isinstance(state_ref, tuple)
                      else state_ref.detach())
    np.testing.assert_allclose(out2.detach().numpy(), out2_ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    out2.sum().backward()
    out2_ref.sum().backward()
    for (n, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)


def test_recurrent_unbatched_and_cells():
    ref, mine = build("nn.LSTM(3, 4)")
    x = float_input((5, 3))
    out, (h, c) = mine(tl.tensor(x))
    out_ref, (h_ref, c_ref) = ref(torch.from_numpy(x))
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == (1, 4)
    np.testing.assert_allclose(out.detach().numpy(), out_ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.detach().numpy(), c_ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    for expr in ("nn.RNNCell(3, 4, nonlinearity='relu')", "nn.LSTMCell(3, 4)", "nn.GRUCell(3, 4, bias=False)"):
        ref, mine = build(expr)
        assert repr(mine) == repr(ref)
        x = float_input((2, 3))
        check_forward(ref, mine, x)
        check_forward(ref, mine, x[0])


def test_recurrent_errors():
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=2.0)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"):
        nn.GRU(3, 4)(tl.ones(5, 1, 2))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 4\), got \[2, 1, 4\]"):
        nn.GRU(3, 4)(tl.ones(5, 1, 3), tl.zeros(2, 1, 4))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, side):
    arrays = [float_input((n, 2), seed=n) for n in (3, 1, 4)]
    out = nn.utils.rnn.pad_sequence([tl.tensor(a) for a in arrays], batch_first, -1.0, side)
    ref = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(a) for a in arrays], batch_first, -1.0, side)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    if side == "right":
        back = nn.utils.rnn.unpad_sequence(out, tl.tensor([3, 1, 4]), batch_first)
        for a, b in zip(back, arrays):
            np.testing.assert_array_equal(a.numpy(), b)


# ------------------------------------------------------------------------- module logic, reference functional
# The layers' own logic (argument plumbing, running statistics, attention reshapes, masks,
# residual/norm order) checked independently of torchlite's functional kernels: each
# nn.functional name a layer calls is replaced, for the test only, by PyTorch's function
# applied to NumPy copies (forward only, no autograd).
_REFERENCE_F_NAMES = sorted({n for case in LAYERS + LOSSES for n in case[-1]} | {"relu", "gelu", "softmax", "pad"})


def _reference_functional(name):
    fn = getattr(torch.nn.functional, name)

    def to_torch(x):
        if isinstance(x, tl.Tensor):
            return torch.from_numpy(x.detach().numpy().copy())
        return type(x)(to_torch(v) for v in x) if isinstance(x, (list, tuple)) else x

    def back(x):
        if isinstance(x, torch.Tensor):
            return tl.tensor(x.numpy())
        return tuple(back(v) for v in x) if isinstance(x, tuple) else x

    def call(*args, **kwargs):
        targs = [to_torch(a) for a in args]
        out = fn(*targs, **{k: to_torch(v) for k, v in kwargs.items()})
        for a, t in zip(args, targs):  # in-place updates (running statistics) flow back
            if isinstance(a, tl.Tensor) and not a.requires_grad:
                a.copy_(tl.tensor(t.numpy()))
        return back(out)

    return call


@pytest.fixture
def reference_functional(monkeypatch):
    for name in _REFERENCE_F_NAMES:
        monkeypatch.setattr(F, name, _reference_functional(name), raising=False)


LOGIC = [c for c in LAYERS if isinstance(c[1], tuple) and c[2]]


@pytest.mark.parametrize("expr,shape,fns", LOGIC, ids=[c[0][:60] for c in LOGIC])
def test_layer_logic_with_reference_functional(reference_functional, expr, shape, fns):
    ref, mine = build(expr)
    ref.eval()
    mine.eval()
    check_forward(ref, mine, float_input(shape))
    if "BatchNorm" in expr and "Dropout" not in expr:
        ref.train()
        mine.train()
        for seed in range(2):
            check_forward(ref, mine, float_input(shape, seed=seed) * 3 + 1)
        for (k, a), (_, b) in zip(mine.state_dict().items(), ref.state_dict().items()):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("expr,kind,fns", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_logic_with_reference_functional(reference_functional, expr, kind, fns):
    ref, mine = build(expr)
    check_forward(ref, mine, *_loss_inputs(kind))


def test_attention_logic_with_reference_functional(reference_functional):
    for expr, batch_first, kdim, vdim in [
        ("nn.MultiheadAttention(8, 2)", False, 8, 8),
        ("nn.MultiheadAttention(8, 4, batch_first=True)", True, 8, 8),
        ("nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=4)", False, 6, 4),
    ]:
        ref, mine = build(expr)
        q, k, v = _mha_inputs(batch_first, kdim, vdim)
        kpm = np.zeros((3, 6), dtype=bool)
        kpm[0, -2:] = True
        mask = np.triu(np.ones((5, 6), dtype=bool), 1)
        check_forward(ref, mine, q, k, v)
        a = mine(tl.tensor(q), tl.tensor(k), tl.tensor(v), key_padding_mask=tl.tensor(kpm), attn_mask=tl.tensor(mask),
                 average_attn_weights=False)
        b = ref(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), key_padding_mask=torch.from_numpy(kpm),
                attn_mask=torch.from_numpy(mask), average_attn_weights=False)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("expr,batch_first", [
    ("nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)", False),
    ("nn.TransformerEncoderLayer(8, 2, 16, activation='gelu', norm_first=True, batch_first=True)", True),
    ("nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, norm=nn.LayerNorm(8))", False),
])
def test_transformer_logic_with_reference_functional(reference_functional, expr, batch_first):
    ref, mine = build(expr)
    ref.eval()
    mine.eval()
    x = float_input((3, 5, 8) if batch_first else (5, 3, 8))
    check_forward(ref, mine, x, rtol=1e-4, atol=1e-5)
    mask = np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1)
    np.testing.assert_allclose(mine(tl.tensor(x), tl.tensor(mask)).numpy(),
                               ref(torch.from_numpy(x), torch.from_numpy(mask)).detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("expr,batch_first", [
    ("nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)", False),
    ("nn.TransformerDecoderLayer(8, 2, 16, activation='gelu', norm_first=True, batch_first=True)", True),
    ("nn.Transformer(8, 2, 2, 2, 16, dropout=0.0)", False),
    ("nn.Transformer(8, 2, 1, 2, 16, batch_first=True, norm_first=True)", True),
])
def test_decoder_logic_with_reference_functional(reference_functional, expr, batch_first):
    ref, mine = build(expr)
    ref.eval()
    mine.eval()
    src = float_input((3, 6, 8) if batch_first else (6, 3, 8), seed=1)
    tgt = float_input((3, 5, 8) if batch_first else (5, 3, 8), seed=2)
    causal = tl.nn.Transformer.generate_square_subsequent_mask(5)
    np.testing.assert_array_equal(causal.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())
    kpm = np.zeros((3, 6), dtype=bool)
    kpm[2, -1] = True
    first, second = (src, tgt) if "Transformer(" in expr else (tgt, src)  # Transformer(src, tgt); layer(tgt, memory)
    a = mine(tl.tensor(first), tl.tensor(second), tgt_mask=causal, memory_key_padding_mask=tl.tensor(kpm))
    b = ref(torch.from_numpy(first), torch.from_numpy(second), tgt_mask=torch.from_numpy(causal.numpy()),
            memory_key_padding_mask=torch.from_numpy(kpm))
    np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)
