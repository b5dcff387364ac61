"""Argument names, defaults and forms PyTorch's Python signatures have, against PyTorch: the
keyword forms a program passes (rounding_mode=None, decimals=, stable=False, out=), einsum's
sublist form and torch.split's keyword names. Values are the registry's business (tests/opinfo)."""

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


def _both(fn):
    """fn(lib, to_tensor) on torchlite and on PyTorch, as NumPy (or a tuple of them)."""
    def run(lib):
        r = fn(lib, lambda a, **kw: lib.tensor(np.asarray(a), **kw))
        return tuple(np.asarray(t.tolist()) for t in r) if isinstance(r, tuple) else np.asarray(r.tolist())
    return run(tl), run(torch)


CALLS = {
    "div rounding_mode=None": lambda lib, t: lib.div(t([7.0, -7.0]), 2, rounding_mode=None),
    "div_ rounding_mode=None": lambda lib, t: t([7, -7]).div_(t([2, 2]), rounding_mode="trunc"),
    "round decimals": lambda lib, t: lib.round(t([1.2345, -2.675, 125.0]), decimals=2),
    "round negative decimals": lambda lib, t: t([1234.5, -251.0, 125.0]).round(decimals=-1),
    "round_ decimals": lambda lib, t: t([0.125, 2.5]).round_(decimals=1),
    "max other out": lambda lib, t: lib.max(t([1.0, 5.0]), t([3.0, 2.0]), out=lib.empty(0)),
    "min other out": lambda lib, t: lib.min(t([1, 5]), t([3, 2]), out=lib.empty(0, dtype=lib.int64)),
    "std correction default": lambda lib, t: lib.std(t([1.0, 2.0, 4.0]), dim=None),
    "var_mean correction=None": lambda lib, t: lib.var_mean(t([[1.0, 2.0, 4.0]]), 1, correction=None),
    "nan_to_num nan default": lambda lib, t: lib.nan_to_num(t([float("nan"), 1.0]), posinf=None),
    "argsort stable=False": lambda lib, t: lib.argsort(t([3, 1, 2, 1]), stable=False),
    "sort stable=None": lambda lib, t: lib.sort(t([3, 1, 2, 1]), stable=None)[1],
    "amax dim=None": lambda lib, t: lib.amax(t([[1, 5], [7, 2]]), dim=None),
    "amin dim=None keepdim": lambda lib, t: t([[1, 5], [7, 2]]).amin(None, True),
    "roll dims=None": lambda lib, t: lib.roll(t([[1, 2], [3, 4]]), 1, dims=None),
    "avg_pool1d stride=None": lambda lib, t: lib.nn.functional.avg_pool1d(t([[[1.0, 2.0, 3.0, 5.0]]]), 2, stride=None),
    "split keywords": lambda lib, t: lib.split(tensor=t([1, 2, 3, 4, 5]), split_size_or_sections=[2, 3]),
    "einsum sublists": lambda lib, t: lib.einsum(t([[1.0, 2.0], [3.0, 4.0]]), [0, 1], t([1.0, -1.0]), [1], [0]),
    "einsum sublists implicit output": lambda lib, t: lib.einsum(t([[1.0, 2.0], [3.0, 4.0]]), [Ellipsis, 0]),
}


@pytest.mark.parametrize("name", CALLS)
def test_call_matches_pytorch(name):
    ours, theirs = _both(CALLS[name])
    if isinstance(ours, tuple):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


ERRORS = {
    "div bad rounding_mode": (lambda lib: lib.div(lib.ones(2), 2, rounding_mode="round"), RuntimeError),
    "round decimals of an integer tensor": (lambda lib: lib.round(lib.tensor([15]), decimals=1), NotImplementedError),
    "einsum subscript out of range": (lambda lib: lib.einsum(lib.ones(2), [52]), ValueError),
    "einsum without operands": (lambda lib: lib.einsum("i"), ValueError),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_matches_pytorch(name):
    fn, exc = ERRORS[name]
    with pytest.raises(exc) as ours:
        fn(tl)
    with pytest.raises(exc) as theirs:
        fn(torch)
    assert str(ours.value) == str(theirs.value).splitlines()[0]


def test_cpu_takes_memory_format():
    """Tensor.cpu(memory_format=) as PyTorch: a tensor already on the CPU comes back as itself."""
    for lib in (tl, torch):
        x = lib.ones(2, 3).t()
        assert x.cpu(memory_format=lib.contiguous_format) is x and x.cpu() is x


@pytest.mark.parametrize("name,args,dtype", [("rand", (2, 3), "float64"), ("randn", ((4,),), "float32"),
                                             ("randperm", (6,), "int32"), ("randperm", (5,), "int64")])
def test_random_factory_out(name, args, dtype):
    """rand/randn/randperm(out=): out resized, its dtype kept, the same draws as without out=
    from the same seed (by generator= or the global one), as PyTorch."""
    fn = getattr(tl, name)
    out = tl.empty(0, dtype=getattr(tl, dtype))
    assert fn(*args, out=out, generator=tl.Generator().manual_seed(5)) is out
    expected = fn(*args, generator=tl.Generator().manual_seed(5), dtype=getattr(tl, dtype))
    assert out.dtype == expected.dtype and out.tolist() == expected.tolist()
    tl.manual_seed(7)
    fn(*args, out=out)
    tl.manual_seed(7)
    assert out.tolist() == fn(*args, dtype=getattr(tl, dtype)).tolist()
    tout = torch.empty(0, dtype=getattr(torch, dtype))
    getattr(torch, name)(*args, out=tout)
    assert tuple(out.shape) == tuple(tout.shape)
