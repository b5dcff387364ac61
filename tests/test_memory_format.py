"""Memory formats: contiguous_format, channels_last(_3d), preserve_format in empty, empty_like,
contiguous, clone, to, is_contiguous and nn.Module.to, with PyTorch's strides where installed."""

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn

try:
    import torch
except ImportError:  # the comparisons with PyTorch skip; the stride checks below still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_channels_last_strides_and_values():
    x = tl.arange(120.).reshape(2, 3, 4, 5)
    y = x.contiguous(memory_format=tl.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert y.is_contiguous(memory_format=tl.channels_last) and not y.is_contiguous()
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.contiguous(memory_format=tl.channels_last) is y  # already laid out: no copy
    assert y.contiguous().stride() == (60, 20, 5, 1)
    z = tl.arange(720.).reshape(2, 3, 4, 5, 6).contiguous(memory_format=tl.channels_last_3d)
    assert z.stride() == (360, 1, 90, 18, 3) and z.is_contiguous(memory_format=tl.channels_last_3d)
    assert x.contiguous(memory_format=tl.preserve_format) is x


def test_factories_and_conversions_take_a_format():
    assert tl.empty(2, 3, 4, 5, memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    x = tl.randn(2, 3, 4, 5)
    assert tl.empty_like(x, memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    cl = x.to(memory_format=tl.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    assert tl.zeros_like(cl).stride() == (60, 1, 15, 3)  # preserve_format keeps a dense layout
    assert x.clone(memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    assert cl.to(tl.float64, memory_format=tl.contiguous_format).stride() == (60, 20, 5, 1)
    assert cl.to(memory_format=tl.channels_last) is cl
    assert tl.legacy_contiguous_format == tl.contiguous_format
    assert repr(tl.channels_last) == "torchlite.channels_last" and str(tl.strided) == "torchlite.strided"


def test_size_one_dims_do_not_decide_the_format():
    x = tl.ones(2, 1, 4, 5)
    assert x.is_contiguous() and x.is_contiguous(memory_format=tl.channels_last)
    assert not tl.ones(2, 3).is_contiguous(memory_format=tl.channels_last)


def test_channels_last_rank_errors():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        tl.ones(2, 3).contiguous(memory_format=tl.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        tl.empty(2, 3, 4, 5, memory_format=tl.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        tl.empty(2, memory_format=tl.preserve_format)


def test_module_to_channels_last_and_conv_on_it():
    tl.manual_seed(0)
    conv = nn.Conv2d(3, 4, 3)
    x = tl.randn(2, 3, 6, 6)
    expected = conv(x)
    conv.to(memory_format=tl.channels_last)
    assert conv.weight.is_contiguous(memory_format=tl.channels_last) and conv.bias.shape == (4,)
    got = conv(x.to(memory_format=tl.channels_last))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)


@needs_torch
@pytest.mark.parametrize("shape,fmt", [((2, 3, 4, 5), "channels_last"), ((2, 1, 4, 5), "channels_last"),
                                       ((1, 3, 1, 1), "channels_last"), ((2, 3, 2, 4, 5), "channels_last_3d"),
                                       ((0, 3, 4, 5), "channels_last")])
def test_strides_equal_pytorchs(shape, fmt):
    ours = tl.empty(shape, memory_format=getattr(tl, fmt))
    theirs = torch.empty(shape, memory_format=getattr(torch, fmt))
    assert ours.stride() == theirs.stride()
    a = tl.arange(float(np.prod(shape))).reshape(shape)
    t = torch.arange(float(np.prod(shape))).reshape(shape)
    assert a.contiguous(memory_format=getattr(tl, fmt)).is_contiguous(memory_format=getattr(tl, fmt))
    assert (a.is_contiguous(memory_format=getattr(tl, fmt))
            == t.is_contiguous(memory_format=getattr(torch, fmt)))


LAYOUTS = {  # each builds the same tensor in either library
    "transposed": lambda m: m.arange(6.).reshape(2, 3).t(),
    "permuted": lambda m: m.arange(24.).reshape(2, 3, 4).permute(2, 0, 1),
    "channels_last": lambda m: m.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=m.channels_last),
    "strided_slice": lambda m: m.arange(24.).reshape(4, 6)[:, ::2],
    "expanded": lambda m: m.arange(3.).reshape(3, 1).expand(3, 4),
    "transposed_slice": lambda m: m.arange(24.).reshape(4, 6).t()[::2],
}


@needs_torch
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_to_and_clone_preserve_a_dense_layout_as_pytorch(layout):
    """preserve_format (the default of to() and clone()) keeps a dense input's strides and gives
    dense strides in dim order otherwise: x.t().double() stays column-major, as in PyTorch."""
    ours, theirs = LAYOUTS[layout](tl), LAYOUTS[layout](torch)
    conversions = [(lambda x, m: x.to(m.float64)), (lambda x, m: x.half()), (lambda x, m: x.clone()),
                   (lambda x, m: x.to(m.float32, copy=True)), (lambda x, m: m.clone(x))]
    for convert in conversions:
        got, want = convert(ours, tl), convert(theirs, torch)
        assert got.stride() == want.stride()
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    assert ours.to(tl.float64, memory_format=tl.contiguous_format).is_contiguous()


# Note [Output layout]: an elementwise result is laid out like its inputs, as in PyTorch.
_LAYOUT_CASES = {
    "transposed": lambda m: m.arange(12.0).reshape(4, 3).t().exp(),
    "both transposed": lambda m: m.arange(12.0).reshape(4, 3).t() + m.arange(12.0).reshape(4, 3).t(),
    "first input decides": lambda m: m.arange(12.0).reshape(4, 3).t() * m.ones(3, 4),
    "permuted 3-d": lambda m: m.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).neg(),
    "channels_last": lambda m: m.arange(120.0).reshape(2, 3, 4, 5).to(memory_format=m.channels_last).sigmoid(),
    "channels_last + broadcast bias": lambda m: (
        m.arange(120.0).reshape(2, 3, 4, 5).to(memory_format=m.channels_last) + m.ones(3, 1, 1)),
    "expanded transposed": lambda m: m.arange(12.0).reshape(4, 3).t()[None].expand(2, 3, 4).abs(),
    "comparison": lambda m: m.arange(12.0).reshape(4, 3).t() > 5,
    "cast": lambda m: m.arange(12).reshape(4, 3).t() / 2,
}


@needs_torch
@pytest.mark.parametrize("case", sorted(_LAYOUT_CASES))
def test_elementwise_output_strides_follow_the_inputs_like_torch(case):
    ours, theirs = _LAYOUT_CASES[case](tl), _LAYOUT_CASES[case](torch)
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_elementwise_output_of_contiguous_inputs_stays_contiguous():
    a = tl.arange(12.0).reshape(4, 3)
    assert (a + a.t().t()).is_contiguous() and a.exp().is_contiguous()
    assert (a + tl.ones(3)).is_contiguous() and (a[:, :2] * 2).is_contiguous()
