"""Which operators `torchlite.compile` may fuse, and the functor each one runs.

The YAML is the one source of truth: an operator is fusible when its entries are tagged
`pointwise` and the entries that declare stubs (Note [Stubs]) all name one functor. The table
is derived at first use with the codegen's own parser, from the native_functions.yaml beside
the package (an editable install), and cached as JSON by the YAML's hash, since parsing the
YAML takes a second or more.
"""

import functools
import hashlib
import json
import os
from dataclasses import dataclass

__all__ = ["PointwiseOp", "pointwise_ops", "repo_root", "cache_dir"]


def repo_root():
    """The folder holding native_functions.yaml, codegen/ and aten/ (the repository root)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cache_dir():
    """TORCHLITE_CACHE_DIR, else ~/.cache/torchlite/compile."""
    path = os.environ.get("TORCHLITE_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "torchlite",
                                                                 "compile")
    os.makedirs(path, exist_ok=True)
    return path


@dataclass(frozen=True)
class PointwiseOp:
    name: str
    functor: str
    schema_args: tuple  # (name, type, default) of the operator's non-out arguments, in order
    functor_args: tuple  # the names among schema_args that become the functor's fields
    structured: bool  # a generated kernel (iterator + stub only) rather than a hand-written one
    header: str  # the functor's header, relative to the repository root


def _derive(yaml_path):
    from codegen.cli import functor_definitions
    from codegen.native_functions import load_native_functions

    headers = {functor: path for functor, path, _ in functor_definitions(repo_root())}

    fns = load_native_functions(yaml_path)
    pointwise = {f.func.name.base for f in fns if "pointwise" in f.tags}
    candidates = {}
    for f in fns:
        base = f.func.name.base
        if f.stubs and base in pointwise and not f.func.name.inplace:
            candidates.setdefault(base, []).append(f)
    table = {}
    for base, entries in candidates.items():
        single = [f for f in entries if len(f.stubs) == 1]
        arity = {len(f.func.non_out_arguments) for f in single}
        # several loops chosen by argument values (gelu's approximate, pow's exponent) are left
        # eager; an overload told apart by an extra argument (div's rounding_mode) is not bound
        if len(single) != 1 or any(len(f.func.non_out_arguments) in arity for f in entries if f not in single) \
                or single[0].stubs[0].functor not in headers:
            continue
        f = single[0]
        stub = f.stubs[0]
        table[base] = {
            "functor": stub.functor,
            "schema_args": [[a.name, str(a.type), a.default] for a in f.func.non_out_arguments],
            "functor_args": [a.name for a in stub.args],
            "structured": f.structured is not None,
            "header": headers[stub.functor],
        }
    return table


@functools.cache
def pointwise_ops():
    """{operator name: PointwiseOp}; empty when the YAML or the codegen is not at hand (a wheel
    install), so that compile then runs everything eagerly."""
    yaml_path = os.path.join(repo_root(), "native_functions.yaml")
    try:
        with open(yaml_path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:16]
    except OSError:
        return {}
    cached = os.path.join(cache_dir(), f"pointwise_ops-{digest}.json")
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
                              tuple(e["functor_args"]), e["structured"], e["header"]) for name, e in table.items()}
