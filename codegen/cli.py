"""Command line: `python -m codegen generate --out DIR` and `python -m codegen check`."""

from __future__ import annotations

import argparse
import os
import re
import sys

from codegen.derivatives import load_derivatives
from codegen.gen import generate
from codegen.native_functions import NativeFunction, load_native_functions
from codegen.yaml_loader import CodegenError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL_DIRS = ("aten/native",)


def _defined_identifiers(root: str) -> set[str]:
    """Names that appear followed by '(' in the hand-written kernel sources."""
    found: set[str] = set()
    pattern = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
    for d in KERNEL_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in files:
                if name.endswith((".cpp", ".cu", ".h", ".cuh")):
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        found.update(pattern.findall(f.read()))
    return found


def check_kernels_exist(fns: list[NativeFunction], root: str) -> None:
    defined = _defined_identifiers(root)
    for f in fns:
        for key, kernel in f.dispatch:
            if kernel not in defined:
                raise CodegenError(f.loc, f"dispatch {key}: kernel '{kernel}' is not defined under {', '.join(KERNEL_DIRS)}/")


def load_all(root: str, native: str, derivatives: str | None) -> list[NativeFunction]:
    fns = load_native_functions(native, os.path.relpath(native, root) if native.startswith(root) else native)
    if derivatives and os.path.exists(derivatives):
        load_derivatives(derivatives, fns, os.path.relpath(derivatives, root) if derivatives.startswith(root) else derivatives)
    return fns


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    p.add_argument("--native-functions", default=os.path.join(ROOT, "native_functions.yaml"))
    p.add_argument("--derivatives", default=os.path.join(ROOT, "derivatives.yaml"))
    p.add_argument("--root", default=ROOT, help="source tree searched for kernel definitions")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write all generated sources to a folder")
    g.add_argument("--out", required=True, help="output folder (files go to OUT/generated/)")
    sub.add_parser("check", help="validate the YAML files without writing anything")
    args = p.parse_args(argv)
    try:
        fns = load_all(args.root, args.native_functions, args.derivatives)
        if args.command == "check":
            check_kernels_exist(fns, args.root)
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:  # every op must also render
                generate(fns, tmp, args.derivatives)
            print(f"ok: {len(fns)} operators")
            return 0
        paths = generate(fns, args.out, args.derivatives)
        print(f"generated {len(paths)} files in {os.path.join(args.out, 'generated')}")
        return 0
    except CodegenError as e:
        print(f"{e}", file=sys.stderr)
        return 1
