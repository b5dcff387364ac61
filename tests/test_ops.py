"""Generic operator tests derived from the registry (tests/opinfo/).

For every OpInfo and each of its sample inputs: forward vs the NumPy reference on contiguous
and non-contiguous inputs, out= and in-place forms, gradcheck and gradgradcheck in float64,
and — when PyTorch is installed — forward values and gradients vs PyTorch on the same inputs.
A YAML operator without a registry entry fails test_every_yaml_op_has_an_entry.
"""

from pathlib import Path

import numpy as np
import pytest

import torchlite as tl
from codegen.native_functions import load_native_functions
from helpers import TORCH, _compare, _map_arrays, _noncontiguous, _sample, _to_numpy, _to_tl, assert_close, tolerances
from opinfo import FAMILIES, REGISTRY
from torchlite.autograd import gradcheck, gradgradcheck

ROOT = Path(__file__).resolve().parent.parent


def _yaml_base_names():
    names = set()
    for fn in load_native_functions(str(ROOT / "native_functions.yaml")):
        names.add(fn.func.name.base)
    return names


def test_every_yaml_op_has_an_entry():
    covered = set()
    for info in REGISTRY:
        covered.add(info.name)
        covered.update(info.covers)
    missing = sorted(_yaml_base_names() - covered)
    assert not missing, f"operators in native_functions.yaml with no registry entry: {missing}"


def test_registry_names_are_unique_and_real():
    names = [info.name for info in REGISTRY]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"duplicate registry entries: {duplicates}"
    yaml_names = {i.name for i in REGISTRY if i.yaml} | {c for i in REGISTRY for c in i.covers}
    unknown = sorted(yaml_names - _yaml_base_names())
    assert not unknown, f"registry entries naming no YAML operator: {unknown}"


# ---- turning samples into tensors --------------------------------------------------------------

def _cases(kind):
    """pytest params (info, sample_index, dtype, layout) for one kind of derived test."""
    params = []
    for info in REGISTRY:
        if kind == "forward":
            if info.ref is None:
                continue
            combos = [(d, lay) for d in info.dtypes for lay in ("contiguous", "noncontiguous")]
        elif kind in ("grad", "gradgrad"):
            if not info.differentiable or (kind == "gradgrad" and not info.gradgrad):
                continue
            combos = [(d, lay) for d in (tl.float64, tl.complex128) if d == tl.float64 or d in info.dtypes
                      for lay in ("contiguous", "noncontiguous")]
        elif kind == "torch":
            if not info.torch:
                continue
            combos = [(tl.float64 if tl.float64 in info.dtypes else info.dtypes[-1], "contiguous")]
            combos += [(tl.complex128, "contiguous")] if tl.complex128 in info.dtypes else []
        else:  # out / inplace
            if not getattr(info, {"out": "supports_out", "inplace": "inplace"}[kind]):
                continue
            combos = [(info.dtypes[0], "contiguous")]
        for dtype, layout in combos:
            samples = list(info.sample_inputs(dtype, np.random.default_rng(0)))
            for i, s in enumerate(samples):
                if layout == "noncontiguous" and not s.noncontiguous:
                    continue
                if (kind in ("grad", "gradgrad") and not s.grad) or (kind == "out" and not s.out):
                    continue
                params.append(pytest.param(info, i, dtype, layout, id=f"{info.name}-{i}-{str(dtype)[10:]}-{layout}"))
    return params


@pytest.mark.parametrize("info,i,dtype,layout", _cases("forward"))
def test_forward_matches_numpy(info, i, dtype, layout):
    s = _sample(info, i, dtype)
    got = info.call(tl, *_to_tl(s.args, layout), **_to_tl(s.kwargs, layout))
    expected = info.ref(*s.args, **s.kwargs)
    _compare(got, expected, info, dtype)


@pytest.mark.parametrize("info,i,dtype,layout", _cases("out"))
def test_out_form(info, i, dtype, layout):
    s = _sample(info, i, dtype)
    args, kwargs = _to_tl(s.args, layout), _to_tl(s.kwargs, layout)
    expected = getattr(tl, info.name)(*args, **kwargs)
    if isinstance(expected, tl.Tensor):
        out = tl.empty(0, dtype=expected.dtype)
        result = getattr(tl, info.name)(*args, **kwargs, out=out)
        assert result is out
    else:
        out = tuple(tl.empty(0, dtype=e.dtype) for e in expected)
        result = getattr(tl, info.name)(*args, **kwargs, out=out)
        assert all(r is o for r, o in zip(result, out))
    _compare(out, _to_numpy(expected), info, dtype)


@pytest.mark.parametrize("info,i,dtype,layout", _cases("inplace"))
def test_inplace_form(info, i, dtype, layout):
    s = _sample(info, i, dtype)
    args, kwargs = _to_tl(s.args, layout), _to_tl(s.kwargs, layout)
    expected = info.call(tl, *args, **kwargs)
    self = args[0].clone()
    if tuple(expected.shape) != tuple(self.shape) or tl.promote_types(self.dtype, expected.dtype) != self.dtype:
        with pytest.raises(RuntimeError):  # the result does not fit in self, as in PyTorch
            getattr(self, info.name + "_")(*args[1:], **kwargs)
        return
    version = self._version
    result = getattr(self, info.name + "_")(*args[1:], **kwargs)
    assert result is self and self._version > version
    _compare(self, _to_numpy(expected), info, dtype)


# ---- gradients -----------------------------------------------------------------------------------

def _differentiable_call(info, s, layout):
    """(fn, leaves): fn(*leaves) runs the op with the chosen floating arrays as the leaves."""
    floating = []

    def collect(a):
        if a.dtype.kind in "fc":
            floating.append(a)
        return a

    _map_arrays((s.args, s.kwargs), collect)
    chosen = range(len(floating)) if info.grad_args is None else info.grad_args
    make = tl.tensor if layout == "contiguous" else _noncontiguous
    leaves = {id(floating[k]): make(floating[k]).detach().requires_grad_() for k in chosen}

    def fn(*xs):
        by_id = dict(zip(leaves, xs))
        to_tensor = lambda a: by_id[id(a)] if id(a) in by_id else make(a)
        return info.call(tl, *_map_arrays(s.args, to_tensor), **_map_arrays(s.kwargs, to_tensor))

    return fn, tuple(leaves.values())


@pytest.mark.parametrize("info,i,dtype,layout", _cases("grad"))
def test_gradcheck(info, i, dtype, layout):
    fn, leaves = _differentiable_call(info, _sample(info, i, dtype), layout)
    assert gradcheck(fn, leaves, atol=info.grad_atol, rtol=info.grad_rtol)


@pytest.mark.parametrize("info,i,dtype,layout", _cases("gradgrad"))
def test_gradgradcheck(info, i, dtype, layout):
    fn, leaves = _differentiable_call(info, _sample(info, i, dtype), layout)
    assert gradgradcheck(fn, leaves, atol=info.grad_atol, rtol=info.grad_rtol)


# ---- PyTorch as the reference -------------------------------------------------------------------

def _flat_tensors(x, cls):
    if isinstance(x, cls):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for o in x for t in _flat_tensors(o, cls)]
    return []


@pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("info,i,dtype,layout", _cases("torch"))
def test_matches_torch(info, i, dtype, layout):
    s = _sample(info, i, dtype)
    ours = info.call(tl, *_to_tl(s.args, layout), **_to_tl(s.kwargs, layout))
    to_torch = lambda a: TORCH.from_numpy(np.array(a))
    theirs = info.call(TORCH, *_map_arrays(s.args, to_torch), **_map_arrays(s.kwargs, to_torch))
    _compare(ours, _to_numpy(theirs), info, dtype)
    if not info.differentiable:
        return
    fn, leaves = _differentiable_call(info, s, layout)
    t_leaves = [TORCH.from_numpy(x.detach().numpy().copy()).requires_grad_() for x in leaves]
    by_id = {}
    floating = []
    _map_arrays((s.args, s.kwargs), lambda a: floating.append(a) if a.dtype.kind in "fc" else None)
    chosen = range(len(floating)) if info.grad_args is None else info.grad_args
    for k, t in zip(chosen, t_leaves):
        by_id[id(floating[k])] = t
    to_torch_leaf = lambda a: by_id.get(id(a), to_torch(a))
    t_out = [o for o in _flat_tensors(info.call(TORCH, *_map_arrays(s.args, to_torch_leaf),
                                                **_map_arrays(s.kwargs, to_torch_leaf)), TORCH.Tensor)
             if o.requires_grad]
    l_out = [o for o in _flat_tensors(fn(*leaves), tl.Tensor) if o.requires_grad]
    assert len(t_out) == len(l_out), "a different number of differentiable outputs than PyTorch"
    if not t_out:
        return
    rng = np.random.default_rng(1)
    gos = [np.asarray(rng.standard_normal(tuple(o.shape)) + (1j * rng.standard_normal(tuple(o.shape)) if o.is_complex()
                                                             else 0)) for o in t_out]
    t_grads = TORCH.autograd.grad(t_out, t_leaves, [TORCH.from_numpy(g) for g in gos], allow_unused=True)
    l_grads = tl.autograd.grad(l_out, leaves, [tl.tensor(g) for g in gos], allow_unused=True)
    for tg, lg in zip(t_grads, l_grads):
        assert (tg is None) == (lg is None)
        if tg is not None:
            assert_close(lg, tg.resolve_conj().numpy(), rtol=1e-6, atol=1e-8)


# ---- CUDA against the CPU ------------------------------------------------------------------------

def _on_cuda(a, layout):
    """`a` (NumPy) as a CUDA tensor in the given layout, built on the device (no host copy of strides)."""
    t = tl.tensor(a, device="cuda")
    if layout == "contiguous" or a.ndim == 0:
        return t
    if a.ndim == 1:
        return tl.tensor(np.repeat(a, 2), device="cuda")[::2]
    return tl.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), device="cuda").transpose(-1, -2)


def _map_results(x, fn):
    """fn applied to every tensor in a nest of results."""
    if isinstance(x, (list, tuple)):
        return [_map_results(o, fn) for o in x]
    return fn(x) if isinstance(x, tl.Tensor) else x


def _cuda_mismatch(got, expected, info, dtype):
    """None when the CUDA result `got` matches the CPU result `expected`, else what differs."""
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(expected):
            return f"{type(got).__name__} vs {type(expected).__name__}"
        return next((m for g, e in zip(got, expected) if (m := _cuda_mismatch(g, e, info, dtype))), None)
    if not isinstance(expected, tl.Tensor):
        return None if got == expected else f"{got!r} != {expected!r}"
    if not isinstance(got, tl.Tensor):
        return f"result is {got!r}, not a tensor"
    if got.dtype != expected.dtype or tuple(got.shape) != tuple(expected.shape):
        return f"{got.dtype}{tuple(got.shape)} vs CPU {expected.dtype}{tuple(expected.shape)}"
    rtol, atol = tolerances(info, expected.dtype)
    try:
        assert_close(got.cpu(), _to_numpy(expected), rtol=rtol, atol=atol)
    except AssertionError as e:
        return str(e).strip().splitlines()[-1][:300]
    return None


@pytest.mark.cuda
@pytest.mark.skipif(not tl.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_cuda_matches_cpu(family):
    """Every registry sample run on CUDA tensors gives the CPU's result (values, dtype, shape), or
    raises the clear no-kernel / dtype error. Random ops (two CPU runs differ) compare only dtype
    and shape. Samples without tensor inputs have nothing to move and are left to the CPU tests."""
    failures, ran, no_kernel = [], 0, set()
    for info in FAMILIES[family]:
        for dtype in info.dtypes:
            for s in info.sample_inputs(dtype, np.random.default_rng(0)):
                arrays = []
                _map_arrays((s.args, s.kwargs), arrays.append)
                if not arrays:
                    continue
                for layout in ("contiguous", "noncontiguous") if s.noncontiguous else ("contiguous",):
                    try:
                        expected = info.call(tl, *_to_tl(s.args, layout), **_to_tl(s.kwargs, layout))
                    except Exception:  # an error sample: tests/test_errors.py checks those on the CPU
                        continue
                    random = _cuda_mismatch(info.call(tl, *_to_tl(s.args, layout), **_to_tl(s.kwargs, layout)),
                                            expected, info, dtype) is not None
                    move = lambda a, layout=layout: _on_cuda(a, layout)
                    try:
                        got = info.call(tl, *_map_arrays(s.args, move), **_map_arrays(s.kwargs, move))
                    except NotImplementedError as e:  # no CUDA kernel, or none for this dtype
                        no_kernel.add(f"{info.name}: {str(e)[:80]}")
                        continue
                    except Exception as e:
                        failures.append(f"{info.name} {dtype} {layout}: raised {type(e).__name__}: {str(e)[:200]}")
                        continue
                    ran += 1
                    if {t.device.type for t in _flat_tensors(got, tl.Tensor)} - {"cuda"}:
                        failures.append(f"{info.name} {dtype} {layout}: a result is not on the CUDA device")
                        continue
                    if random or not info.values:
                        meta = lambda t: (t.dtype, tuple(t.shape))
                        got, expected = _map_results(got, meta), _map_results(expected, meta)
                    if (m := _cuda_mismatch(got, expected, info, dtype)) is not None:
                        failures.append(f"{info.name} {dtype} {layout}: {m}")
    print(f"{family}: {ran} samples ran on CUDA; {len(no_kernel)} ops/dtypes without a CUDA kernel")
    assert not failures, f"{len(failures)} CUDA results differ from the CPU:\n" + "\n".join(failures[:60])
