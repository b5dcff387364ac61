"""Calls to fuzz, drawn with hypothesis. A case is a dict of Python source text in the names of
repro.py: `setup` statements, the `call`, what to compare (`got`, default the call's value) and
NumPy's answer (`ref`, or None), plus `expect` ("ref": equal to ref if it returns; "raise": any
return is wrong; "any": a return is fine). Kinds:

- layout: a registry sample with its arrays transposed/sliced/offset/expanded/overlapping;
- dtype, shape, values: a sample with arrays cast, re-shaped (0-d, empty, size 1, large) or
  given nan/inf;
- args: a sample with a dim or scalar made odd (out of range, wrong type, None), an argument
  dropped or one added;
- random: the operator called with random arguments;
- overflow: factories and views given sizes whose product overflows, or negative sizes;
- overlap: out= and in-place forms writing to memory the inputs also use.
"""

import math

import numpy as np
from hypothesis import strategies as st

import torchlite as tl
from tests.fuzz import strategies as S
from tests.fuzz.repro import OPS, family, samples

KINDS = {"layout": 30, "dtype": 10, "shape": 15, "values": 10, "args": 15, "random": 8, "overflow": 4, "overlap": 12}


# ---- rendering a registry sample -----------------------------------------------------------------

def _literal(v):
    if isinstance(v, float) and not math.isfinite(v):
        return f"float('{v}')"
    if isinstance(v, tl.dtype):
        return f"tl.{str(v).split('.')[-1]}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_literal(x) for x in v) + ("," if isinstance(v, tuple) and len(v) == 1 else "")
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    if v is None or isinstance(v, (bool, int, float, str, np.generic)):
        return repr(v)
    raise ValueError(f"cannot write {type(v).__name__} as source")


def _leaves(sample):
    """(path, value) for every leaf of a sample; path[0] indexes args (int) or kwargs (str)."""
    def walk(value, path):
        if isinstance(value, (list, tuple)):
            for k, v in enumerate(value):
                yield from walk(v, (*path, k))
        else:
            yield path, value
    for k, v in enumerate(sample.args):
        yield from walk(v, (k,))
    for k, v in sample.kwargs.items():
        yield from walk(v, (k,))


def _render(sample, leaf_src):
    """(positional sources, {kwarg: source}) with each leaf replaced by leaf_src(path, value)."""
    def walk(value, path):
        if isinstance(value, (list, tuple)):
            inner = [walk(v, (*path, k)) for k, v in enumerate(value)]
            return f"[{', '.join(inner)}]" if isinstance(value, list) else f"({', '.join(inner)}{',' * (len(inner) == 1)})"
        return leaf_src(path, value)
    return ([walk(v, (k,)) for k, v in enumerate(sample.args)],
            {k: walk(v, (k,)) for k, v in sample.kwargs.items()})


def _arglist(args, kwargs):
    return ", ".join([*args, *(f"{k}={v}" for k, v in kwargs.items())])


def _call_src(name, args, kwargs):
    if OPS[name].op is None:
        return f"tl.{name}({_arglist(args, kwargs)})"
    return f"op('{name}').call(tl, {_arglist(args, kwargs)})"


def _renderable(sample):
    try:
        for _, v in _leaves(sample):
            if not isinstance(v, np.ndarray):
                _literal(v)
    except ValueError:
        return False
    return True


_SAMPLES = {}  # kind -> [(name, sample index, dtype name)]


def _sample_ids(kind):
    """Registry samples a kind can start from (all renderable ones; overlap: see _overlap_ok)."""
    if kind not in _SAMPLES:
        ids = []
        for name, info in sorted(OPS.items()):
            for dtype in info.dtypes:
                d = str(dtype).split(".")[-1]
                if d not in S.DTYPES:
                    continue
                for i, s in enumerate(samples(name, d)):
                    if (_renderable(s) and (kind != "overlap" or _overlap_ok(info, s))
                            and (kind != "values" or info.nonfinite)):
                        ids.append((name, i, d))
        _SAMPLES[kind] = ids
    return _SAMPLES[kind]


@st.composite
def _from_sample(draw, kind, families):
    """A case built from one registry sample, its arrays and scalars mutated per `kind`."""
    name, i, dtype = draw(st.sampled_from(_in(families, _sample_ids(kind))))
    sample = samples(name, dtype)[i]
    setup, layouts, scalars = [], {}, {}
    arrays = [(p, v) for p, v in _leaves(sample) if isinstance(v, np.ndarray)]
    for k, (path, _) in enumerate(arrays):
        setup.append(f"a{k} = arg('{name}', {i}, '{dtype}', {', '.join(map(repr, path))})")
    expect = "ref"
    if kind == "layout" and sample.noncontiguous:  # (some samples, like view's, need contiguous inputs)
        for k, (path, v) in enumerate(arrays):
            value, layouts[path] = draw(S.layouts(v.ndim))
            if value:
                setup.append(f"a{k} = {value}(a{k})")
    elif kind == "dtype" and arrays:
        target = draw(S.dtypes)
        for k, (_, v) in enumerate(arrays):
            if v.dtype == arrays[0][1].dtype or draw(st.booleans()):
                setup.append(f"a{k} = cast(a{k}, '{target}')")
    elif kind == "shape" and arrays:
        shape, base = draw(S.shapes), arrays[draw(st.integers(0, len(arrays) - 1))][1].shape
        for k, (_, v) in enumerate(arrays):
            if v.shape == base:
                setup.append(f"a{k} = rand({shape!r}, '{v.dtype.name}', {draw(S.seeds)})")
    elif kind == "values":
        for k, (_, v) in enumerate(arrays):
            if v.dtype.kind == "f" and v.size and draw(st.booleans()):
                setup.append(f"a{k} = nonfinite(a{k}, {draw(S.seeds)})")
    elif kind == "args":
        scalars, change = draw(_odd_args(sample))
    index = {p: k for k, (p, _) in enumerate(arrays)}

    def tl_leaf(path, value):
        if path in scalars:
            return scalars[path]
        if path in index:
            return f"{layouts.get(path, 'contiguous')}(a{index[path]})"
        return _literal(value)

    def np_leaf(path, value):
        if path in scalars:
            return scalars[path]
        return f"a{index[path]}" if path in index else _literal(value)

    args, kwargs = _render(sample, tl_leaf)
    ref_args, ref_kwargs = _render(sample, np_leaf)
    ref = f"op('{name}').ref({_arglist(ref_args, ref_kwargs)})" if OPS[name].ref else None
    if kind == "args" and change is not None:
        args, kwargs = change(args, kwargs)
        ref = None if change is not _drop else f"op('{name}').ref({_arglist(*_drop(ref_args, ref_kwargs))})"
    return dict(op=name, family=family(name), kind=kind, dtype=dtype, setup=setup,
                call=_call_src(name, args, kwargs), ref=ref, expect=expect)


def _drop(args, kwargs):
    return args[:-1], kwargs


@st.composite
def _odd_args(draw, sample):
    """({path: odd source} for one leaf, or a change to the argument list: _drop, or a function
    adding an argument; the NumPy reference sees the same odd leaf, or the same drop)."""
    leaves = [(p, v) for p, v in _leaves(sample) if not isinstance(v, np.ndarray)]
    change = draw(st.sampled_from(("leaf", "leaf", "array", "drop", "extra", "kwarg")))
    if change == "leaf" and leaves:
        path, v = draw(st.sampled_from(leaves))
        ndim = max((a.ndim for _, a in _leaves(sample) if isinstance(a, np.ndarray)), default=0)
        odd = draw(S.odd_dims(ndim).map(repr) if isinstance(v, int) and draw(st.booleans()) else S.odd_scalars)
        return {path: odd}, None
    arrays = [p for p, v in _leaves(sample) if isinstance(v, np.ndarray)]
    if change == "array" and arrays:
        return {draw(st.sampled_from(arrays)): draw(S.odd_scalars)}, None
    if change == "drop" and sample.args:
        return {}, _drop
    odd = draw(S.random_values)
    if change == "kwarg":
        key = draw(st.sampled_from(("dim", "out", "dtype", "keepdim", "bogus")))
        return {}, lambda args, kwargs: (args, {**kwargs, key: odd})
    return {}, lambda args, kwargs: ([*args, odd], kwargs)


# ---- random arguments ----------------------------------------------------------------------------

def _forms(name):
    """The ways to call an operator directly: tl.<name>, Tensor.<name>, Tensor.<name>_, F.<name>."""
    forms = [f"tl.{name}" for _ in [0] if hasattr(tl, name)]
    forms += [f"tl.nn.functional.{name}" for _ in [0] if hasattr(tl.nn.functional, name)]
    forms += [f".{m}" for m in (name, name + "_") if hasattr(tl.Tensor, m)]
    return forms


_CALLABLE = sorted(n for n in OPS if _forms(n))


@st.composite
def _random_call(draw, families):
    name = draw(st.sampled_from(_in(families, _CALLABLE)))
    form = draw(st.sampled_from(_forms(name)))
    args = draw(st.lists(S.random_values, max_size=4))
    if form.startswith("."):
        call = f"{draw(S.random_tensors())}{form}({', '.join(args)})"
    else:
        call = f"{form}({', '.join(args)})"
    return dict(op=name, family=family(name), kind="random", dtype=None, setup=[], call=call, ref=None,
                expect="ref")


# ---- overflowing sizes ---------------------------------------------------------------------------

# (registry name for the family, call template; S = the size tuple, N = its length)
OVERFLOW = (
    ("zeros", "tl.zeros(S)"), ("ones", "tl.ones(S, dtype=tl.float64)"), ("empty", "tl.empty(S)"),
    ("full", "tl.full(S, 1.5)"), ("rand", "tl.rand(S)"), ("randn", "tl.randn(S)"),
    ("randint", "tl.randint(0, 5, S)"), ("empty_strided", "tl.empty_strided(S, (1,) * N)"),
    ("new_zeros", "tl.zeros(2).new_zeros(S)"), ("new_empty", "tl.zeros(2).new_empty(S)"),
    ("new_full", "tl.zeros(2).new_full(S, 2.0)"), ("reshape", "tl.zeros(6).reshape(S)"),
    ("view", "tl.zeros(6).view(S)"), ("as_strided", "tl.zeros(6).as_strided(S, (1,) * N)"),
    ("expand", "tl.zeros((1,) * N).expand(S).contiguous()"), ("unflatten", "tl.zeros(6).unflatten(0, S)"),
    ("arange", "tl.arange(0, math.prod(S))"), ("linspace", "tl.linspace(0, 1, math.prod(S))"),
    ("eye", "tl.eye(*S[:2])"),
)


@st.composite
def _overflow_call(draw, families):
    name, template = draw(st.sampled_from(_in(families, OVERFLOW)))
    shape = draw(S.overflow_shapes)
    call = template.replace("math.prod(S)", str(math.prod(shape))).replace("S[:2]", repr(shape[:2]))
    call = call.replace("(1,) * N", repr((1,) * len(shape))).replace("S", repr(shape))
    impossible = min(shape) < 0 or math.prod(shape) * 8 >= 2**63 or (name == "eye" and min(shape[:2]) >= 2**31)
    return dict(op=name, family=family(name), kind="overflow", dtype=None, setup=[], call=call, ref=None,
                expect="raise" if impossible else "any")


# ---- out= and in-place on overlapping memory -----------------------------------------------------

def _overlap_ok(info, sample):
    """A sample whose first argument is an array and whose reference returns one array."""
    if not (info.supports_out or info.inplace) or info.ref is None or not sample.out:
        return False
    if not sample.args or not isinstance(sample.args[0], np.ndarray) or sample.args[0].dtype.kind != "f":
        return False
    try:
        with np.errstate(all="ignore"):
            result = info.ref(*sample.args, **sample.kwargs)
        fits_self = info.inplace and result.shape == sample.args[0].shape
        return isinstance(result, np.ndarray) and (info.supports_out or fits_self) and _renderable(sample)
    except Exception:
        return False


def _strides(shape):
    return tuple(math.prod(shape[k + 1:]) for k in range(len(shape)))


def _view(kind, shape, start):
    """(torchlite source viewing buffer `b`, (shape, strides, start), elements spanned)."""
    n, nd = math.prod(shape), len(shape)
    if nd == 0:
        return f"b[{start}]", ((), (), start), 1
    if kind == "transposed" and nd >= 2:
        rev = shape[::-1]
        src = f"b[{start}:{start + n}].view({rev!r}).permute{tuple(reversed(range(nd)))!r}"
        return src, (shape, _strides(rev)[::-1], start), n
    if kind == "expanded" and shape[0] > 1:
        k = math.prod(shape[1:])
        return (f"b[{start}:{start + k}].view({shape[1:]!r}).expand({shape!r})",
                (shape, (0, *_strides(shape[1:])), start), k)
    if kind == "windows":
        return f"b.as_strided({shape!r}, {(1,) * nd!r}, {start})", (shape, (1,) * nd, start), sum(shape) - nd + 1
    return f"b[{start}:{start + n}].view({shape!r})", (shape, _strides(shape), start), n


@st.composite
def _overlap_call(draw, families):
    name, i, dtype = draw(st.sampled_from(_in(families, _sample_ids("overlap"))))
    info, sample = OPS[name], samples(name, dtype)[i]
    first = sample.args[0]
    with np.errstate(all="ignore"):
        result = info.ref(*sample.args, **sample.kwargs)
    modes = ["out"] * info.supports_out + ["inplace"] * (info.inplace and result.shape == first.shape)
    mode = draw(st.sampled_from(modes))
    view_kinds = st.sampled_from(("plain", "transposed", "expanded", "windows"))
    starts = st.sampled_from((0, 0, 1, 2))
    views, view_of = [], {}  # view_of: arg position -> view number
    for k, a in enumerate(sample.args):
        aliased = k == 0 and mode == "inplace" or draw(st.booleans())
        if isinstance(a, np.ndarray) and a.dtype == first.dtype and aliased:
            view_of[k] = len(views)
            views.append(_view(draw(view_kinds), a.shape, draw(starts)))
    if mode == "inplace":
        dest = view_of[0]
    elif view_of and result.shape == first.shape and 0 in view_of and draw(st.booleans()):
        dest = view_of[0]  # out= is the input itself
    else:
        dest = len(views)
        views.append(_view(draw(view_kinds), result.shape, draw(starts)))
    size = max(start + span for _, (_, _, start), span in views)
    setup = [f"B = rand(({size},), '{dtype}', {draw(S.seeds)})", "b = tl.tensor(B)"]
    setup += [f"v{k} = {src}" for k, (src, _, _) in enumerate(views)]
    arrays = [p for p, v in _leaves(sample) if isinstance(v, np.ndarray) and not (len(p) == 1 and p[0] in view_of)]
    setup += [f"a{k} = arg('{name}', {i}, '{dtype}', {', '.join(map(repr, p))})" for k, p in enumerate(arrays)]
    index = {p: k for k, p in enumerate(arrays)}

    def leaf(tensor):
        def src(path, value):
            if len(path) == 1 and path[0] in view_of:
                return f"v{view_of[path[0]]}" if tensor else f"v[{view_of[path[0]]}]"
            if path in index:
                return f"tl.tensor(a{index[path]})" if tensor else f"a{index[path]}"
            return _literal(value)
        return src

    args, kwargs = _render(sample, leaf(True))
    ref_args, ref_kwargs = _render(sample, leaf(False))
    if mode == "inplace":
        call = f"v{dest}.{name}_({_arglist(args[1:], kwargs)})"
    else:
        call = f"tl.{name}({_arglist(args, {**kwargs, 'out': f'v{dest}'})})"
    make = f"lambda v: (({', '.join(ref_args)}{',' * (len(ref_args) == 1)}), {{{', '.join(f'{k!r}: {v}' for k, v in ref_kwargs.items())}}})"
    ref = f"mirror('{name}', B, {[v for _, v, _ in views]!r}, {make}, {dest})"
    return dict(op=name, family=family(name), kind="overlap", dtype=dtype, setup=setup, call=call, got="b",
                ref=ref, expect="ref")


# ---- all kinds -----------------------------------------------------------------------------------

def _in(families, items):
    """The items (tuples starting with a registry name, or names) of the chosen families."""
    if families is None:
        return items
    return [x for x in items if family(x if isinstance(x, str) else x[0]) in families]


_KIND_STRATEGY = {"random": _random_call, "overflow": _overflow_call, "overlap": _overlap_call}
_KIND_ITEMS = {"random": lambda: _CALLABLE, "overflow": lambda: OVERFLOW}


def cases(kinds=None, families=None):
    """A strategy for one case, of the given kinds (default: all) and families (default: all)."""
    chosen = []
    for kind, weight in KINDS.items():
        items = _KIND_ITEMS.get(kind, lambda k=kind: _sample_ids(k))()
        if (kinds is None or kind in kinds) and _in(families, items):
            strategy = _KIND_STRATEGY.get(kind, lambda f, k=kind: _from_sample(k, f))(families)
            chosen += [strategy] * weight
    return st.sampled_from(chosen).flatmap(lambda strategy: strategy)
