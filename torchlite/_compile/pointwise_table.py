"""Which operators `torchlite.compile` may fuse, and the functor each one runs.

The YAML is the one source of truth: an operator is fusible when its entries are tagged
`pointwise` and the entries that declare stubs (Note [Stubs]) all name one functor, or when its
stubs are chosen by the value of its one `str` argument, as gelu's `approximate` chooses between
`gelu` (the default, "none") and `gelu_tanh`: the stub named as the operator runs for the
default, and the stub whose name is the operator's with `_<value>` inserted runs for that value.
The table is derived at first use with the codegen's own parser (torchlite._codegen), from the
native_functions.yaml of data_root(), and cached as JSON by the YAML's hash, since parsing the
YAML takes a second or more.
"""

import dataclasses
import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass

from torchlite._compile.data_files import VECTOR_MATH_TABLE

__all__ = ["PointwiseOp", "pointwise_ops", "vector_math_functors", "data_root", "cache_dir"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def data_root():
    """The folder holding native_functions.yaml and the aten/ headers the fused loops include:
    torchlite/_data in an installed wheel (CMakeLists.txt installs them there), else the
    repository root (an editable install or the source tree)."""
    shipped = os.path.join(_PACKAGE, "_data")
    return shipped if os.path.isdir(shipped) else os.path.dirname(_PACKAGE)


def cache_dir():
    """TORCHLITE_CACHE_DIR, else ~/.cache/torchlite/compile."""
    path = os.environ.get("TORCHLITE_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "torchlite",
                                                                 "compile")
    os.makedirs(path, exist_ok=True)
    return path


_TABLE_FORMAT = 2  # in the cached table's name: a cache written by an older format is not read


@dataclass(frozen=True)
class PointwiseOp:
    name: str
    functor: str
    schema_args: tuple  # (name, type, default) of the operator's non-out arguments, in order
    functor_args: tuple  # the names among schema_args that become the functor's fields
    structured: bool  # a generated kernel (iterator + stub only) rather than a hand-written one
    header: str  # the functor's header, relative to data_root()
    # (argument, ((value, functor, header), ...)) where a str argument's value chooses the stub
    # (functor and header above are the default value's)
    selected_by: tuple = ()

    def for_value(self, value):
        """The op with the functor that `value` of its selecting argument runs, or None."""
        for v, functor, header in self.selected_by[1]:
            if v == value:
                return dataclasses.replace(self, functor=functor, header=header, selected_by=())
        return None


def _stub_value(stub_name, base):
    """The value that selects the stub named `stub_name` for operator `base` (gelu_tanh -> tanh,
    gelu_tanh_backward -> tanh for gelu_backward), or None when its name is not so formed."""
    parts = stub_name.split("_")
    for i, part in enumerate(parts):
        if "_".join(parts[:i] + parts[i + 1:]) == base:
            return part
    return None


def _selected(f, headers):
    """(argument, [[value, functor, header], ...]) for an entry whose stubs a str argument's value
    chooses, the default value's stub first; None when its stubs are not chosen so."""
    base = f.func.name.base
    strs = [a for a in f.func.non_out_arguments if str(a.type) == "str" and a.default]
    if len(strs) != 1 or any(s.args or s.functor not in headers for s in f.stubs):
        return None
    default = strs[0].default.strip('"')
    choices = []
    for s in f.stubs:
        value = default if s.name == base else _stub_value(s.name, base)
        if value is None:
            return None
        choices.append([value, s.functor, headers[s.functor]])
    choices.sort(key=lambda c: c[0] != default)
    return (strs[0].name, choices) if choices[0][0] == default else None


def _entry(f, stub, headers, selected_by=None):
    return {
        "functor": stub.functor,
        "schema_args": [[a.name, str(a.type), a.default] for a in f.func.non_out_arguments],
        "functor_args": [a.name for a in stub.args],
        "structured": f.structured is not None,
        "header": headers[stub.functor],
        "selected_by": selected_by,
    }


def _derive(yaml_path):
    from torchlite._codegen.native_functions import load_native_functions
    from torchlite._codegen.stubs import functor_definitions

    headers = {functor: path for functor, path, _ in functor_definitions(data_root())}

    fns = load_native_functions(yaml_path)
    pointwise = {f.func.name.base for f in fns if "pointwise" in f.tags}
    candidates = {}
    for f in fns:
        base = f.func.name.base
        if f.stubs and base in pointwise and not f.func.name.inplace:
            candidates.setdefault(base, []).append(f)
    table = {}
    for base, entries in candidates.items():
        if len(entries) == 1 and len(entries[0].stubs) > 1:
            selected = _selected(entries[0], headers)
            if selected is not None:
                f = entries[0]
                table[base] = _entry(f, next(s for s in f.stubs if s.name == base), headers, selected)
            continue
        single = [f for f in entries if len(f.stubs) == 1]
        arity = {len(f.func.non_out_arguments) for f in single}
        # other loops chosen by argument values (pow's exponent) are left eager; an overload told
        # apart by an extra argument (div's rounding_mode) is not bound
        if len(single) != 1 or any(len(f.func.non_out_arguments) in arity for f in entries if f not in single) \
                or single[0].stubs[0].functor not in headers:
            continue
        table[base] = _entry(single[0], single[0].stubs[0], headers)
    return table


@functools.cache
def pointwise_ops():
    """{operator name: PointwiseOp}; empty when the YAML cannot be read or parsed (no PyYAML), so
    that compile then runs everything eagerly."""
    yaml_path = os.path.join(data_root(), "native_functions.yaml")
    try:
        with open(yaml_path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:16]
    except OSError:
        return {}
    cached = os.path.join(cache_dir(), f"pointwise_ops-{_TABLE_FORMAT}-{digest}.json")
    try:
        with open(cached) as fh:
            table = json.load(fh)
    except (OSError, ValueError):
        try:
            table = _derive(yaml_path)
        except ImportError:
            return {}
        tmp = f"{cached}.{os.getpid()}.tmp"
        with open(tmp, "w") as fh:
            json.dump(table, fh)
        os.replace(tmp, cached)
    return {name: PointwiseOp(name, e["functor"], tuple(tuple(a) for a in e["schema_args"]),
                              tuple(e["functor_args"]), e["structured"], e["header"],
                              _selection(e["selected_by"])) for name, e in table.items()}


_VECTOR_MATH_ROW = re.compile(r"^TL_VECMATH_(?:UNARY|BINARY)\((\w+), \w+, (true|false)\)$", re.M)


@functools.cache
def vector_math_functors():
    """{functor: fusible} for the functors whose contiguous float32/float64 eager loops call the
    vector math layer (TL_VECMATH_UNARY/BINARY in cpu/VecMathLoops.h, the one list). fusible is
    the list's own column: False where the functor calls scalar libm, which a fused loop cannot
    vectorise (several times slower than eager); such functors stay out of fused loops."""
    try:
        with open(os.path.join(data_root(), VECTOR_MATH_TABLE), encoding="utf-8") as fh:
            return {functor: flag == "true" for functor, flag in _VECTOR_MATH_ROW.findall(fh.read())}
    except OSError:
        return {}


def _selection(selected_by):
    if not selected_by:
        return ()
    arg, choices = selected_by
    return arg, tuple(tuple(c) for c in choices)
