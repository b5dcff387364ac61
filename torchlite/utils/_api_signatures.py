"""The signature format of tools/api_manifest.json: reading signatures and comparing two.

A signature is a list of short strings: "x", "x=default", "*" (the rest are keyword-only),
"/" (the ones before are positional-only), "*args", "**kwargs". Both sides are read the same
way: inspect.signature where it works, else the `name(...) -> ...` lines of the docstring
(PyTorch documents its C operators that way; pybind11 writes torchlite's overloads that way,
with type annotations, which are dropped).

This module imports nothing from torchlite, so tools/api_manifest.py can load it by its path
with only PyTorch installed.
"""

import ast
import inspect
import re

# `name(params) -> ...` alone on a docstring line, after `.. function::` (PyTorch's extra
# overloads) or after `1. ` (pybind11's numbered overloads). Only a `torch.` or `Tensor.` prefix:
# example output such as `torch.return_types.max(values=...)` is not a signature.
_DOC_SIG = r"^\s*(?:\.\. function:: |\d+\. )?(?:torch\.|Tensor\.)?{name}\((.*?)\)\s*(?:->.*)?$"
_NAME = re.compile(r"\*{0,2}[A-Za-z_]\w*")


def split_params(text):
    """Split a parameter list at its top-level commas (defaults and types hold brackets and strings)."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_param(text):
    """'x', 'x=1', 'x: int = 1', '*', '/', '*args' -> (name, default text or None); None if not simple."""
    if text in ("*", "/"):
        return text, None
    name, eq, default = text.partition("=")
    name = name.split(":")[0].strip()
    if not _NAME.fullmatch(name):
        return None
    return name, default.strip() if eq else None


def _default_text(value):
    # Addresses in reprs (functions, sentinels) would make the manifest differ on every run.
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def inspect_params(obj, drop_self):
    """The signature inspect.signature reads, or None where it reads none."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name == "self":
        params = params[1:]
    out, kwonly = [], False
    for i, p in enumerate(params):
        if p.kind is p.VAR_POSITIONAL:
            out.append("*" + p.name)
            kwonly = True
            continue
        if p.kind is p.VAR_KEYWORD:
            out.append("**" + p.name)
            continue
        if p.kind is p.KEYWORD_ONLY and not kwonly:
            out.append("*")
            kwonly = True
        out.append(p.name if p.default is p.empty else f"{p.name}={_default_text(p.default)}")
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            out.append("/")
    return out


def doc_params(name, doc, drop_self):
    """The overloads a docstring documents, or None if it documents none in a simple form."""
    sigs = []
    for line in (doc or "").splitlines():
        m = re.match(_DOC_SIG.format(name=re.escape(name)), line)
        if not m:
            continue
        parsed = [parse_param(p) for p in split_params(m.group(1))]
        if None in parsed:
            return None
        params = [n if d is None else f"{n}={d}" for n, d in parsed]
        if drop_self and params and params[0] == "self":
            params = params[1:]
        # pybind11's catch-all overload (a `__args` sentinel, then *args): torchlite's bindings
        # route calls that match no real overload there to raise PyTorch's error message.
        # `name(*args, **kwargs)` heads pybind11's list of overloads: it is not one of them.
        if any(p.startswith("__") for p in params) or params == ["*args", "**kwargs"]:
            continue
        if params not in sigs:
            sigs.append(params)
    return sigs or None


def signatures(obj, name, drop_self):
    """(where from: "inspect" | "doc" | None, list of overloads or None) for a callable."""
    params = inspect_params(obj, drop_self)
    # A bare (*args, **kwargs) says nothing (C classes, decorated wrappers): try the docs.
    if params is not None and params != ["*args", "**kwargs"]:
        return "inspect", [params]
    doc = obj.__doc__ if isinstance(obj.__doc__, str) else None  # some classes make __doc__ a property
    sigs = doc_params(name, doc, drop_self)
    return ("doc" if sigs else None), sigs


def _named(sig):
    """[(name, default, positional, variadic)] of a signature: markers and **kwargs dropped."""
    out, positional = [], True
    for text in sig:
        name, default = parse_param(text)
        if name == "*":
            positional = False
        elif name.startswith("**") or name == "/":
            continue
        elif name.startswith("*"):
            # PyTorch's `zeros(*size)` is torchlite's `zeros(size)` that also takes the sizes unpacked
            out.append((name[1:], None, True, True))
            positional = False
        else:
            out.append((name, default, positional, False))
    return out


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b}


def _number(node):
    """The value of a number literal or of arithmetic on them (PyTorch's docs write `lower=1./8`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        a, b = _number(node.left), _number(node.right)
        if a is not None and b is not None and not (isinstance(node.op, ast.Div) and b == 0):
            return _ARITHMETIC[type(node.op)](a, b)
    return None


# dtype names that are the same dtype object (torch.long is torch.int64).
_DTYPE_ALIASES = {"long": "int64", "int": "int32", "short": "int16", "half": "float16", "float": "float32",
                  "double": "float64", "cfloat": "complex64", "cdouble": "complex128"}


def _literal(text):
    text = re.sub(r"\b(?:torch|torchlite)\.(\w+)", lambda m: _DTYPE_ALIASES.get(m[1], m[1]), text)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            value = _number(ast.parse(text, mode="eval").body)
        except SyntaxError:
            value = None
        return text if value is None else value
    return tuple(value) if isinstance(value, list) else value


def same_default(theirs, ours):
    """Whether two default texts mean the same value: 1 and 1.0, [0] and (0,), torch.x and torchlite.x,
    torch.long and torchlite.int64."""
    if ours.startswith("<") or theirs.startswith("<"):  # a function or object with no literal form
        return True
    if theirs == "...":  # PyTorch's stubs say only that there is a default
        return True
    return _literal(theirs) == _literal(ours)


def _default_note(name, theirs, ours):
    if theirs is None:
        return None  # torchlite may be more lenient: a default where PyTorch requires the argument
    if ours is None:
        return f"`{name}` has no default (PyTorch: {theirs})"
    if name == "layout" and {_literal(theirs), _literal(ours)} <= {None, "strided"}:
        return None  # PyTorch's parser reads layout=None as strided; its docs write either
    if not same_default(theirs, ours):
        return f"`{name}` defaults to {ours} (PyTorch: {theirs})"
    return None


def differences(theirs, ours):
    """How signature `ours` differs from PyTorch's `theirs` in parameter names, order and defaults.

    Types and keyword-only markers are not compared: docstring signatures are too loose about
    them. torchlite's extra optional parameters are not differences (a PyTorch program never
    passes them); extra required ones are."""
    pt, tl = _named(theirs), _named(ours)
    tl_index = {t[0]: i for i, t in enumerate(tl)}
    pt_names = {t[0] for t in pt}
    notes, used = [], set()
    for i, (name, default, positional, _) in enumerate(pt):
        j = tl_index.get(name)
        if j is None and positional and i < len(tl) and tl[i][0] not in pt_names:
            j = i  # the same place under another name: PyTorch's `input` as torchlite's `self`
            notes.append(f"`{name}` is called `{tl[j][0]}`")
        if j is None:
            notes.append(f"no `{name}`")
            continue
        used.add(j)
        if positional and tl[j][2] and i != j:
            notes.append(f"`{name}` is argument {j + 1} (PyTorch: {i + 1})")
        note = _default_note(name, default, tl[j][1])
        if note:
            notes.append(note)
    for j, (name, default, _, variadic) in enumerate(tl):
        if j not in used and default is None and not variadic:
            notes.append(f"needs `{name}`, which PyTorch does not have")
    return notes
