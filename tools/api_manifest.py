"""Write tools/api_manifest.json: PyTorch's public names per namespace, with their signatures.

The coverage report (`python -m torchlite.utils.api_coverage`) and tests/test_api_coverage.py
read the checked-in JSON, so neither needs PyTorch. Rerunning this script against an installed
PyTorch is how the manifest is updated:

    pip install torch==2.13.0
    python tools/api_manifest.py              # rewrite tools/api_manifest.json
    python tools/api_manifest.py --check      # exit 1 if the checked-in file is out of date

Each entry records what kind of name it is and, for callables, its parameters in the format
torchlite/utils/_api_signatures.py reads and compares. `sigs` is a list because many operators
document several overloads; it is null where no signature could be read (then the report can
only check that the name exists). `sig_from` says where the signature came from:
- "inspect": inspect.signature, exact (Python-level functions);
- "pyi": PyTorch's generated stubs of its C operators (torch/_C/_VariableFunctions.pyi,
  _nn.pyi, and TensorBase in __init__.pyi), written from the same schemas as its argument
  parser, so they name the parameters the parser accepts;
- "doc": the docstring's `name(...) -> ...` lines, for the few C callables with no stub: what
  the docs promise, which can be looser than the real parser.
"""

import argparse
import ast
import functools
import importlib
import importlib.util
import inspect
import json
import re
import sys
import types
from pathlib import Path

MANIFEST = Path(__file__).with_name("api_manifest.json")


def _load_signatures_module():
    # By its path, not `import torchlite...`: regenerating the manifest needs PyTorch, not a built torchlite.
    path = Path(__file__).resolve().parents[1] / "torchlite" / "utils" / "_api_signatures.py"
    spec = importlib.util.spec_from_file_location("_api_signatures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_signatures = _load_signatures_module()

# The namespaces the report covers, in report order. "torch.Tensor" holds the Tensor methods
# and properties.
NAMESPACES = [
    "torch",
    "torch.Tensor",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.nn.utils.rnn",
    "torch.nn.utils.parametrize",
    "torch.nn.utils.parametrizations",
    "torch.nn.utils.prune",
    "torch.nn.utils.stateless",
    "torch.nn.parallel",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.optim.swa_utils",
    "torch.utils.data",
    "torch.autograd",
    "torch.autograd.graph",
    "torch.autograd.functional",
    "torch.autograd.forward_ad",
    "torch.func",
    "torch.utils.checkpoint",
    "torch.utils.dlpack",
    "torch.multiprocessing",
    "torch.profiler",
    "torch.library",
    "torch.overrides",
    "torch.fx",
    "torch.distributed",
    "torch.distributions",
    "torch.testing",
    "torch.random",
    "torch.cuda",
]

# Documented on the torch page, but torch.__all__ leaves them out.
TORCH_EXTRAS = ["set_default_dtype", "set_grad_enabled", "from_dlpack", "HalfTensor", "BFloat16Tensor"]

# Every name left out of the manifest, as (rule, pattern, reason). A pattern is a regular
# expression searched in the qualified name ("torch.Tensor.to_sparse"); the first rule that
# matches wins, and the manifest lists each excluded name under its rule.
_VENDORS = "mps|xpu|mtia|maia|ipu|hpu|xla|vulkan|mkldnn|mkl|onednn|cudnn|miopen|hip|fbgemm|nnpack|privateuseone|ort"
EXCLUSIONS = [
    (
        "quantized",
        r"quantiz|(^|[._])(q|qint\w*|quint\w*)(_|$)|qscheme|int_repr|fake_quant|Q(U)?Int\w*Storage|"
        r"per_(tensor|channel)_",
        "Quantized tensors (qint8/quint8 dtypes, q_* accessors, fake quantization) are a separate "
        "dtype family torchlite does not plan to carry.",
    ),
    (
        "sparse-layouts",
        # nn.init.sparse_ fills a dense tensor: not a layout
        r"(?i)^(?!torch\.nn\.init\.).*sparse|(^|[._])(coo|csr|csc|bsr|bsc|jagged)($|_)|\.(to_dense|coalesce|is_coalesced|indices|values|"
        r"crow_indices|col_indices|ccol_indices|row_indices|dense_dim|smm|sspaddmm|hspmm)$",
        "Sparse (COO/CSR/CSC/BSR/BSC) and jagged layouts: torchlite tensors are strided only.",
    ),
    (
        "vendor-backends",
        rf"(^|[._])({_VENDORS})($|[._])",
        "Vendor back-ends and their libraries (MPS, XPU, MTIA, IPU, HPU, XLA, Vulkan, MKL-DNN, "
        "cuDNN/MIOpen-specific entry points, FBGEMM, NNPACK): torchlite has CPU and CUDA only.",
    ),
    (
        "compiler-internals",
        r"^torch\.(Sym\w+|sym_\w+|typename|compiled_with_cxx11_abi|\w+Storage|(Des|S)erializationStorageContext|"
        # TorchScript's IR, type system, runtime and benchmarking classes, re-exported from torch._C
        r"AliasDb|Argument|ArgumentSpec|CompleteArgumentSpec|\w+Type|Type|Block|Graph|Node|Value|Use|Code|"
        r"CompilationUnit|ConcreteModuleType\w*|DeepCopyMemoTable|ErrorReport|ExecutionPlan|FileCheck|"
        r"FunctionSchema|Gradient|GraphExecutorState|IODescriptor|JITException|LiteScriptModule|LockingLogger|"
        r"NoopLogger|Script\w+|StaticModule|TracingState|CallStack|Capsule|Future|BufferDict|ModuleDict|"
        r"ParameterDict|PyTorchFile(Reader|Writer)|AggregationType|AVG|SUM|BenchmarkConfig|"
        r"BenchmarkExecutionStats|ThroughputBenchmark|DispatchKey|DispatchKeySet|ExcludeDispatchKeyGuard|"
        r"DisableTorchFunction\w*|Tag|OperatorInfo|fork|wait|parse_ir|parse_schema|parse_type_comment|"
        r"merge_type_from_type_comment|import_ir_module\w*|unify_type_list|"
        # ATen building blocks that torch.* exposes for torch.compile's functionalization and its own
        # modules: the *_copy twins of views, native_* kernels, SyncBatchNorm's statistics kernels
        r"\w+_copy|native_\w+|batch_norm_(backward_\w+|elemt|gather_stats\w*|stats|update_stats))$|"
        r"has_torch_function|handle_torch_function",
        "Machinery for torch.compile/TorchScript (symbolic ints, the JIT's IR and type classes, "
        "__torch_function__ helpers, the *_copy and native_* ATen entry points functionalization "
        "uses) and the storage classes behind serialization: not what user programs call.",
    ),
    (
        "deprecated",
        r"^torch\.nn\.functional\.(upsample|upsample_bilinear|upsample_nearest)$|"
        r"^torch\.cuda\.(max_memory_cached|memory_cached|reset_max_memory_cached)$|"
        r"^torch\.chain_matmul$|"
        r"^torch\.utils\.data\.(\w*DataPipe|DataChunk|functional_datapipe|argument_validation|"
        r"guaranteed_datapipes_determinism|non_deterministic|runtime_validation\w*)$",
        "Deprecated in PyTorch's docs in favour of names the manifest does list (interpolate, "
        "memory_reserved, linalg.multi_dot), and the DataPipe classes and decorators of "
        "torch.utils.data, which PyTorch deprecated with torchdata's DataPipes.",
    ),
]


def excluded_by(qualname):
    for rule, pattern, _reason in EXCLUSIONS:
        if re.search(pattern, qualname):
            return rule
    return None


def _is_operator_builtin(obj):
    return isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType))


def public_names(ns_name, ns):
    """The public names of a module: __all__ where it has one, else what dir() shows that the
    module itself defines (its own functions and classes, and the C operators it re-exports),
    leaving out submodules, typing helpers and documentation strings."""
    if ns_name == "torch.Tensor":
        return sorted(n for n in dir(ns) if not n.startswith("_"))
    if hasattr(ns, "__all__"):
        names = set(ns.__all__)
        if ns_name == "torch":
            import torch

            kinds = (torch.dtype, torch.layout, torch.memory_format)
            names |= {n for n in dir(ns) if isinstance(getattr(ns, n), kinds)}
            names |= set(torch.functional.__all__) | set(TORCH_EXTRAS)
    else:
        names = set()
        for n in dir(ns):
            obj = getattr(ns, n)
            module = getattr(obj, "__module__", None) or ""
            if callable(obj) and (
                module.startswith(ns_name) or module.startswith("torch._C") or _is_operator_builtin(obj)
            ):
                names.add(n)
    return sorted(n for n in names if not n.startswith("_") and not isinstance(getattr(ns, n), types.ModuleType))


def _stub_params(fn, drop_self):
    """One stub `def` as the manifest's parameter list. A default of `...` (the stubs' "has a
    default") is kept as written: the comparison accepts any default for it."""
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = []
    for i, (a, d) in enumerate(zip(positional, defaults)):
        if drop_self and i == 0 and a.arg == "self":
            continue
        out.append(a.arg if d is None else f"{a.arg}={ast.unparse(d)}")
        if args.posonlyargs and a is args.posonlyargs[-1]:
            out.append("/")
    if args.vararg:
        out.append("*" + args.vararg.arg)
    elif args.kwonlyargs:
        out.append("*")
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(a.arg if d is None else f"{a.arg}={ast.unparse(d)}")
    if args.kwarg:
        out.append("**" + args.kwarg.arg)
    return out


def _hidden(fn):
    """Whether a torch.* stub overload is one of PyTorch's deprecated signatures (such as
    `add(self, alpha, other)`), which its argument parser hides: the parser names a Tensor
    `self` `input` everywhere else."""
    return any(a.arg == "self" and a.annotation is not None and ast.unparse(a.annotation) == "Tensor"
               for a in fn.args.args)


# Stubs PyTorch writes by hand rather than from the schema, which disagree with its parser
# (checked by calling PyTorch 2.13); their docstrings are read instead. The Tensor stubs of
# add/sub/mul/floor_divide/true_divide offer out= that the methods refuse; random_/uniform_ call
# `from` `from_`; requires_grad_ calls `requires_grad` `mode`.
# linspace/logspace add an overload with `steps=None` that the parser does not have.
_WRONG_STUBS = {
    "torch": {"linspace", "logspace"},
    "torch.Tensor": {"add", "sub", "mul", "floor_divide", "true_divide", "random_", "uniform_", "requires_grad_"},
}


@functools.cache
def _stubs(stub_file, class_name=None):
    """{name: [overload parameter lists]} of the module-level functions of a torch/_C stub file,
    or of one class's methods there."""
    import torch

    tree = ast.parse((Path(torch.__file__).parent / "_C" / stub_file).read_text())
    body = tree.body
    if class_name:
        body = next(n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    found = {}
    for fn in body:
        if not isinstance(fn, ast.FunctionDef) or (not class_name and _hidden(fn)):
            continue
        params = _stub_params(fn, drop_self=class_name is not None)
        overloads = found.setdefault(fn.name, [])
        if params not in overloads:
            overloads.append(params)
    return found


def _stub_signatures(name, obj, ns_name):
    """The stub overloads of a C operator, or None where it has no stub: torch.* and
    nn.functional operators bound from torch._C, and Tensor methods TensorBase defines."""
    import torch

    if ns_name == "torch.Tensor":
        if getattr(torch._C.TensorBase, name, None) is obj and name not in _WRONG_STUBS[ns_name]:
            return _stubs("__init__.pyi", "TensorBase").get(name)
        return None
    for module, stub_file in ((torch._C._VariableFunctions, "_VariableFunctions.pyi"), (torch._C._nn, "_nn.pyi")):
        if getattr(module, name, None) is obj and name not in _WRONG_STUBS.get(ns_name, ()):
            return _stubs(stub_file).get(name)
    return None


def describe(name, obj, ns_name):
    """The manifest entry of one name."""
    import torch

    if isinstance(obj, torch.dtype):
        return {"kind": "dtype"}
    if ns_name == "torch.Tensor" and not callable(obj):
        return {"kind": "property"}
    if not callable(obj):
        return {"kind": "object"}
    kind = "class" if inspect.isclass(obj) else "function"
    # Classes of torch.distributions all take (*params, validate_args=None): names are enough.
    if kind == "class" and ns_name == "torch.distributions":
        return {"kind": kind}
    sigs = _stub_signatures(name, obj, ns_name)
    if sigs:
        return {"kind": kind, "sig_from": "pyi", "sigs": sigs}
    sig_from, sigs = _signatures.signatures(obj, name, drop_self=ns_name == "torch.Tensor")
    return {"kind": kind, "sig_from": sig_from, "sigs": sigs}


def build():
    import torch

    namespaces, excluded = {}, {}
    for ns_name in NAMESPACES:
        ns = torch.Tensor if ns_name == "torch.Tensor" else importlib.import_module(ns_name)
        entries = {}
        for name in public_names(ns_name, ns):
            rule = excluded_by(f"{ns_name}.{name}")
            if rule:
                excluded.setdefault(rule, []).append(f"{ns_name}.{name}")
            else:
                entries[name] = describe(name, getattr(ns, name), ns_name)
        namespaces[ns_name] = entries
    return {
        "torch_version": torch.__version__.split("+")[0],
        "generated_by": "tools/api_manifest.py",
        "exclusions": [
            {"rule": rule, "pattern": pattern, "reason": reason, "names": sorted(excluded.get(rule, []))}
            for rule, pattern, reason in EXCLUSIONS
        ],
        "namespaces": namespaces,
    }


def dumps(manifest):
    """JSON with one line per name, so that a regenerated manifest diffs name by name."""
    lines = ["{"]
    for key in ("torch_version", "generated_by"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(manifest[key])},")
    lines.append('  "exclusions": [')
    rules = [f"    {json.dumps(rule, sort_keys=True)}" for rule in manifest["exclusions"]]
    lines.append(",\n".join(rules))
    lines.append("  ],")
    lines.append('  "namespaces": {')
    blocks = []
    for ns_name, entries in manifest["namespaces"].items():
        rows = [f"      {json.dumps(n)}: {json.dumps(e, sort_keys=True)}" for n, e in sorted(entries.items())]
        blocks.append(f"    {json.dumps(ns_name)}: {{\n" + ",\n".join(rows) + "\n    }")
    lines.append(",\n".join(blocks))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MANIFEST)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    text = dumps(build())
    if args.check:
        if args.out.read_text() != text:
            print(f"{args.out} is out of date: rerun python tools/api_manifest.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text)
    counts = {ns: len(entries) for ns, entries in json.loads(text)["namespaces"].items()}
    print(f"wrote {args.out}: " + ", ".join(f"{ns} {n}" for ns, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
