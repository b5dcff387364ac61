"""Command line of the operator generator.

    python -m codegen check                  validate the YAML files (exit 1 with file:line: message)
    python -m codegen check --cuda           also fail on, and list, operators with no CUDA path
    python -m codegen generate --out DIR     write the generated sources to DIR/generated/
    python -m codegen explain OP             show how one operator (add.Tensor, relu) goes from the YAML
                                             to its C++ API, kernels, Python binding and autograd Node
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Iterator

from .derivatives import load_derivatives
from .explain import UnknownOperator, explain
from .gen import generate
from .native_functions import HOST_FALLBACK, NativeFunction, load_native_functions
from .stubs import functor_definitions
from .yaml_loader import CodegenError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL_DIRS = ("aten/native",)
# A function definition (or declaration): a type-ish token, then the (optionally qualified) name and '('.
# Calls are preceded by '=', '(', ',', 'return' ... and do not count.
_DEFINITION = re.compile(r"([\w>&*])\s+(?:\w+::)*([A-Za-z_]\w*)\s*\(")
_NOT_A_TYPE = {"return", "else", "new", "delete", "throw", "case", "co_return", "co_await", "sizeof", "do"}


# A macro that defines one device's entry points (TL_DEFINE_INDEX_REDUCTIONS(device, Engine)):
# its first parameter is pasted into the names it defines (max_out_##device).
_DEVICE_MACRO = re.compile(r"^#define (\w+)\((\w+)\s*,.*?(?<!\\)$", re.M | re.S)


def _kernel_sources(root: str) -> Iterator[tuple[str, str]]:
    for d in KERNEL_DIRS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, d)):
            dirnames.sort()
            for name in sorted(files):
                if name.endswith((".cpp", ".cu", ".h", ".cuh")):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        yield os.path.relpath(path, root), f.read()


def kernel_definitions(root: str) -> Iterator[tuple[str, str, int]]:
    """(name, path relative to root, line) of every function that looks defined or declared in the
    hand-written kernel sources, those a device macro defines included (at the macro's use)."""
    sources = list(_kernel_sources(root))
    pasted = {}  # macro -> the names it defines, as (prefix, suffix) around its device parameter
    for _, text in sources:
        for m in _DEVICE_MACRO.finditer(text):
            param = re.escape(m.group(2))
            names = re.findall(rf"(\w*)##{param}(?:##(\w+))?\s*\(", m.group(0))
            if names:
                pasted[m.group(1)] = names
    for rel, text in sources:
        line, pos = 1, 0  # matches come in order: count newlines incrementally
        for m in _DEFINITION.finditer(text):
            before = text[: m.start(1) + 1].rsplit(None, 1)[-1] if m.group(1).isalnum() else ""
            word = re.findall(r"\w+$", before)
            if not (word and word[0] in _NOT_A_TYPE):
                line += text.count("\n", pos, m.start(2))
                pos = m.start(2)
                yield m.group(2), rel, line
        for macro, names in pasted.items():
            for m in re.finditer(rf"^{macro}\((\w+)\s*,", text, re.M):
                use = text.count("\n", 0, m.start()) + 1
                for prefix, suffix in names:
                    yield prefix + m.group(1) + suffix, rel, use


def check_kernels_exist(fns: list[NativeFunction], root: str) -> None:
    defined = {name for name, _, _ in kernel_definitions(root)}
    for f in fns:
        if f.structured or f.out_of:  # the generator writes its kernel (Note [Stubs], [Generated out= kernels])
            continue
        for key, kernel in f.dispatch:
            if kernel not in defined and kernel != HOST_FALLBACK:  # a template over the CPU kernel
                raise CodegenError(
                    f.loc_of(f"dispatch.{key}"),
                    f"dispatch {key}: kernel '{kernel}' is not defined under {', '.join(KERNEL_DIRS)}/",
                )


def ops_without_cuda(fns: list[NativeFunction]) -> list[NativeFunction]:
    """The operators that raise "no CUDA implementation" on a CUDA tensor: a backend kernel for
    another device but none for CUDA, and no composite definition (directly, or through the out=
    operator a structured delegate runs)."""
    by_name = {str(f.func.name): f for f in fns}

    def has_cuda_path(f: NativeFunction) -> bool:
        if f.structured_delegate is not None:
            return has_cuda_path(by_name[str(f.structured_delegate)])
        keys = {key for key, _ in f.dispatch}
        return not keys or "CUDA" in keys or any(key.startswith("Composite") for key in keys)

    return [f for f in fns if not has_cuda_path(f)]


def _display(path: str, root: str) -> str:
    """Paths inside the source tree are shown relative to it: native_functions.yaml:12: ..."""
    path, root = os.path.abspath(path), os.path.abspath(root)
    return os.path.relpath(path, root) if os.path.commonpath([path, root]) == root else path


def load_all(root: str, native: str, derivatives: str) -> list[NativeFunction]:
    fns = load_native_functions(native, _display(native, root))
    load_derivatives(derivatives, fns, _display(derivatives, root))
    return fns


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m codegen",
        description="torchlite's operator generator: native_functions.yaml + derivatives.yaml -> C++ and Python glue.",
    )
    p.add_argument("--native-functions", default=os.path.join(ROOT, "native_functions.yaml"), metavar="YAML")
    p.add_argument("--derivatives", default=os.path.join(ROOT, "derivatives.yaml"), metavar="YAML")
    p.add_argument("--root", default=ROOT, help="source tree searched for kernel definitions (default: %(default)s)")
    sub = p.add_subparsers(dest="command", required=True, metavar="{generate,check,explain}")
    g = sub.add_parser("generate", help="write all generated sources to a folder (only files whose content changed)")
    g.add_argument("--out", required=True, help="output folder (files go to OUT/generated/)")
    c = sub.add_parser(
        "check", help="validate the YAML files and that every dispatched kernel exists, without writing anything"
    )
    c.add_argument("--cuda", action="store_true", help="also fail on operators with no CUDA kernel or composite")
    e = sub.add_parser(
        "explain", help="show how one operator goes from the YAML to its C++ API, kernels, Python binding and autograd"
    )
    e.add_argument("op", metavar="OP", help="an overload (add.Tensor) or a base name (relu: its default overload)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        fns = load_all(args.root, args.native_functions, args.derivatives)
        if args.command == "check":
            with tempfile.TemporaryDirectory() as tmp:  # every op must also render
                generate(fns, tmp, args.derivatives)
            check_kernels_exist(fns, args.root)
            no_cuda = ops_without_cuda(fns)
            if args.cuda:
                for f in no_cuda:
                    kernels = ", ".join(f"{key}: {kernel}" for key, kernel in f.dispatch)
                    print(f"{f.loc}: {f.func.name} has no CUDA kernel or composite definition ({kernels})",
                          file=sys.stderr)
                if no_cuda:
                    return 1
            missing = f"; {len(no_cuda)} have no CUDA path yet (check --cuda lists them)" if no_cuda else ""
            print(f"ok: {len(fns)} operators{missing}")
            return 0
        if args.command == "explain":
            definitions = [*kernel_definitions(args.root), *functor_definitions(args.root)]
            print(explain(fns, args.op, args.derivatives, definitions), end="")
            return 0
        paths = generate(fns, args.out, args.derivatives)
        print(f"generated {len(paths)} files in {os.path.join(args.out, 'generated')}")
        return 0
    except (CodegenError, UnknownOperator) as e:
        print(f"{e}", file=sys.stderr)
        return 1
