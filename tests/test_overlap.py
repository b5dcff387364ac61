"""Writes into memory that overlaps an input, derived from the registry (Note [Overlapping writes]).

For every out= and in-place form the registry knows (its first sample), the written tensor is:
- expanded (internal overlap): must raise, as in PyTorch (fill_/zero_ excepted);
- shifted by one element against an input of the same buffer (partial overlap),
- transposed against an input of the same memory,
- the input itself (full overlap):
  these must raise, or give what the out-of-place op gives on separate copies.
Which layouts apply to an op depends on its sample's shapes and dtypes; the cases are chosen at
collection, so pytest reports only what ran.
"""

import numpy as np
import pytest

import torchlite as tl
from opinfo import REGISTRY
from helpers import _compare, _sample, _to_numpy, _to_tl

FILL_OPS = {"fill", "zero"}  # write one value everywhere: internal overlap is allowed


def _sample_tensors(info):
    dtype = info.dtypes[0]
    s = _sample(info, 0, dtype)
    return dtype, list(_to_tl(s.args, "contiguous")), _to_tl(s.kwargs, "contiguous")


def _copies(args):
    return [a.clone() if isinstance(a, tl.Tensor) else a for a in args]


def _tensor_positions(args):
    return [k for k, a in enumerate(args) if isinstance(a, tl.Tensor)]


def _aliased(layout, a, shape):
    """(input, written): `input` with a's values and shape, `written` of `shape`, sharing memory
    as `layout` says; None when the layout does not apply to these shapes."""
    n_in, n_out = a.numel(), int(np.prod(shape))
    if layout == "same":
        if tuple(a.shape) != tuple(shape):
            return None
        inp = a.clone()
        return inp, inp
    if layout == "shifted":
        if n_in == 0 or n_out < 2:
            return None
        buf = tl.zeros(max(n_in, n_out) + 1, dtype=a.dtype)
        inp = buf[1:1 + n_in].view(a.shape)
        inp.copy_(a)
        return inp, buf[:n_out].view(shape)
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 2 or tuple(a.shape) != tuple(shape):
        return None
    inp = a.clone()
    return inp, inp.t()


def _raises_or_matches(run, reference, info, dtype, written):
    """`run()` raises RuntimeError about overlap, or leaves `written` equal to `reference()`."""
    expected = _to_numpy(reference())
    try:
        run()
    except RuntimeError as e:
        assert "single memory location" in str(e), str(e)
        return
    _compare(written, expected, info, dtype)


# ---- cases, chosen at collection -----------------------------------------------------------------

def _out_cases():
    expanded, aliased = [], []
    for info in REGISTRY:
        if not info.supports_out:
            continue
        _, args, kwargs = _sample_tensors(info)
        result = getattr(tl, info.name)(*args, **kwargs)
        if not isinstance(result, tl.Tensor):
            continue
        if result.numel() >= 2:
            expanded.append(pytest.param(info, id=info.name))
        for layout in ("same", "shifted", "transposed"):
            for k in _tensor_positions(args):
                if args[k].dtype == result.dtype and _aliased(layout, args[k], tuple(result.shape)) is not None:
                    aliased.append(pytest.param(info, layout, k, id=f"{info.name}-{layout}-arg{k}"))
                    break
    return expanded, aliased


def _fits_in_place(info, args, kwargs):
    result = info.call(tl, *args, **kwargs)
    return (isinstance(result, tl.Tensor) and result.shape == args[0].shape
            and tl.promote_types(args[0].dtype, result.dtype) == args[0].dtype)


def _inplace_cases():
    expanded, transposed, aliased = [], [], []
    for info in REGISTRY:
        if not info.inplace:
            continue
        _, args, kwargs = _sample_tensors(info)
        if not _fits_in_place(info, args, kwargs):
            continue
        self = args[0]
        if self.numel() >= 2:
            expanded.append(pytest.param(info, id=info.name))
        if self.dim() >= 2:
            transposed.append(pytest.param(info, id=info.name))
        for layout in ("same", "shifted", "transposed"):
            for k in _tensor_positions(args)[1:]:
                if args[k].dtype == self.dtype and _aliased(layout, args[k], tuple(self.shape)) is not None:
                    aliased.append(pytest.param(info, layout, k, id=f"{info.name}-{layout}-arg{k}"))
                    break
    return expanded, transposed, aliased


OUT_EXPANDED, OUT_ALIASED = _out_cases()
INPLACE_EXPANDED, INPLACE_TRANSPOSED, INPLACE_ALIASED = _inplace_cases()


# ---- out= ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("info", OUT_EXPANDED)
def test_out_expanded_raises(info):
    _, args, kwargs = _sample_tensors(info)
    result = getattr(tl, info.name)(*args, **kwargs)
    out = tl.zeros(1, dtype=result.dtype).expand(result.shape)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        getattr(tl, info.name)(*args, **kwargs, out=out)


@pytest.mark.parametrize("info,layout,k", OUT_ALIASED)
def test_out_overlaps_an_input(info, layout, k):
    dtype, args, kwargs = _sample_tensors(info)
    shape = tuple(getattr(tl, info.name)(*args, **kwargs).shape)
    args[k], out = _aliased(layout, args[k], shape)
    _raises_or_matches(lambda: getattr(tl, info.name)(*args, **kwargs, out=out),
                       lambda: info.call(tl, *_copies(args), **kwargs), info, dtype, out)


# ---- in-place ------------------------------------------------------------------------------------

def _inplace(info, self, args, kwargs):
    return getattr(self, info.name + "_")(*args, **kwargs)


@pytest.mark.parametrize("info", INPLACE_EXPANDED)
def test_inplace_expanded_self(info):
    _, args, kwargs = _sample_tensors(info)
    expanded = tl.zeros(1, dtype=args[0].dtype).expand(args[0].shape)
    if info.name in FILL_OPS:
        _inplace(info, expanded, args[1:], kwargs)
        return
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        _inplace(info, expanded, args[1:], kwargs)


@pytest.mark.parametrize("info", INPLACE_TRANSPOSED)
def test_inplace_transposed_self(info):
    dtype, args, kwargs = _sample_tensors(info)
    expected = _to_numpy(info.call(tl, *_copies(args), **kwargs))
    self = args[0].transpose(-1, -2).contiguous().transpose(-1, -2)  # same values, transposed memory
    _inplace(info, self, args[1:], kwargs)
    _compare(self, expected, info, dtype)


@pytest.mark.parametrize("info,layout,k", INPLACE_ALIASED)
def test_inplace_input_overlaps_self(info, layout, k):
    dtype, args, kwargs = _sample_tensors(info)
    self = args[0]
    args[k], written = _aliased(layout, args[k], tuple(self.shape))
    args[0] = written  # self now holds the input's values: the reference reads the same memory
    _raises_or_matches(lambda: _inplace(info, written, args[1:], kwargs),
                       lambda: info.call(tl, *_copies(args), **kwargs), info, dtype, written)
