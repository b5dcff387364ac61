"""A tokenizer and recursive-descent parser for the schema language of `func:` strings.

    add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)

Errors raise SchemaError with the column, so callers can point at file:line.
"""

from __future__ import annotations

import re

from codegen.model import (
    BASE_TYPES,
    Annotation,
    Argument,
    BaseType,
    FunctionSchema,
    ListType,
    OperatorName,
    OptionalType,
    Return,
    SchemaKind,
    Type,
    base_of,
)


class SchemaError(Exception):
    def __init__(self, msg: str, col: int | None = None):
        super().__init__(msg)
        self.msg = msg
        self.col = col


_TOKEN = re.compile(r"\s*(?:(?P<arrow>->)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>-?\d+)|(?P<punct>[()\[\],.*?!=]))")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    # -- low level -------------------------------------------------------------------------
    def _peek(self) -> tuple[str, str, int] | None:
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            rest = self.text[self.pos:].strip()
            if not rest:
                return None
            raise SchemaError(f"unexpected character {rest[0]!r}", self.pos + 1)
        kind = m.lastgroup
        assert kind is not None
        return kind, m.group(kind), m.start(kind)

    def _next(self) -> tuple[str, str, int]:
        tok = self._peek()
        if tok is None:
            raise SchemaError("unexpected end of schema", len(self.text))
        m = _TOKEN.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()
        return tok

    def _accept(self, value: str) -> bool:
        tok = self._peek()
        if tok is not None and tok[1] == value:
            self._next()
            return True
        return False

    def _expect(self, value: str) -> None:
        kind, v, col = self._next()
        if v != value:
            raise SchemaError(f"expected {value!r}, found {v!r}", col + 1)

    def _ident(self, what: str) -> str:
        kind, v, col = self._next()
        if kind != "ident":
            raise SchemaError(f"expected {what}, found {v!r}", col + 1)
        return v

    # -- grammar ---------------------------------------------------------------------------
    def schema(self) -> FunctionSchema:
        name = self.operator_name()
        self._expect("(")
        args = self.arguments()
        self._expect("->")
        returns = self.returns()
        if self._peek() is not None:
            _, v, col = self._next()
            raise SchemaError(f"unexpected {v!r} after the returns", col + 1)
        return FunctionSchema(name, tuple(args), tuple(returns))

    def operator_name(self) -> OperatorName:
        base = self._ident("operator name")
        overload = ""
        if self._accept("."):
            overload = self._ident("overload name")
        if base.endswith("_out"):
            raise SchemaError(f"operator '{base}': use an '.out' overload, not an '_out' suffix", 1)
        inplace = base.endswith("_") and not base.endswith("__")
        return OperatorName(base[:-1] if inplace else base, inplace, overload)

    def type_with_annotation(self) -> tuple[Type, Annotation | None, int]:
        kind, name, col = self._next()
        if kind != "ident":
            raise SchemaError(f"expected a type, found {name!r}", col + 1)
        if name not in BASE_TYPES:
            raise SchemaError(f"unknown type '{name}'", col + 1)
        annotation = None
        if self._accept("("):
            alias = self._ident("alias set")
            write = self._accept("!")
            self._expect(")")
            if name != "Tensor":
                raise SchemaError(f"alias annotation on non-Tensor type '{name}'", col + 1)
            annotation = Annotation(alias, write)
        t: Type = BaseType(name)
        while True:
            if self._accept("?"):
                t = OptionalType(t)
            elif self._accept("["):
                tok = self._peek()
                size = None
                if tok is not None and tok[0] == "num":
                    size = int(self._next()[1])
                    if size <= 0:
                        raise SchemaError(f"list size must be positive, got {size}", col + 1)
                self._expect("]")
                t = ListType(t, size)
            else:
                break
        return t, annotation, col

    def default_text(self) -> str:
        """Raw default up to the next top-level ',' or ')'."""
        depth = 0
        start = self.pos
        i = self.pos
        while i < len(self.text):
            c = self.text[i]
            if c in "[(":
                depth += 1
            elif c in "])":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        self.pos = i
        text = self.text[start:i].strip()
        if not text:
            raise SchemaError("empty default value", start + 1)
        return text

    def arguments(self) -> list[Argument]:
        args: list[Argument] = []
        kwarg_only = False
        if self._accept(")"):
            return args
        while True:
            if self._accept("*"):
                if kwarg_only:
                    raise SchemaError("'*' appears twice", self.pos)
                kwarg_only = True
            else:
                t, ann, col = self.type_with_annotation()
                name = self._ident("argument name")
                default = self.default_text() if self._accept("=") else None
                if default is not None:
                    validate_default(t, default, col)
                args.append(Argument(name, t, default, ann, kwarg_only))
            if self._accept(")"):
                return args
            self._expect(",")

    def returns(self) -> list[Return]:
        if self._accept("("):
            rets: list[Return] = []
            if self._accept(")"):
                return rets
            while True:
                rets.append(self.one_return())
                if self._accept(")"):
                    return rets
                self._expect(",")
        return [self.one_return()]

    def one_return(self) -> Return:
        t, ann, _ = self.type_with_annotation()
        name = None
        tok = self._peek()
        if tok is not None and tok[0] == "ident":
            name = self._next()[1]
        return Return(name, t, ann)


_INT = re.compile(r"-?\d+$")
_FLOAT = re.compile(r"-?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf)$")
_NAMED_DEFAULTS = {
    "ScalarType": {"float", "double", "long", "int", "bool"},
    "Layout": {"strided"},
    "MemoryFormat": {"contiguous_format", "preserve_format"},
}


def validate_default(t: Type, text: str, col: int) -> None:
    """Raise SchemaError when `text` is not a valid default for type `t`."""
    if text == "None":
        if not isinstance(t, OptionalType):
            raise SchemaError(f"default None for non-optional type '{t}'", col + 1)
        return
    if isinstance(t, OptionalType):
        t = t.elem
    if isinstance(t, ListType):
        if base_of(t).name not in ("int", "SymInt", "bool", "float"):
            raise SchemaError(f"list type '{t}' cannot have a default other than None", col + 1)
        if text.startswith("["):
            if not text.endswith("]"):
                raise SchemaError(f"bad list default {text!r}", col + 1)
            inner = text[1:-1].strip()
            for item in filter(None, (s.strip() for s in inner.split(","))):
                validate_default(t.elem, item, col)
        else:  # int[2] x=1 means [1, 1]
            if t.size is None:
                raise SchemaError(f"bare default {text!r} needs a fixed-size list type, not '{t}'", col + 1)
            validate_default(t.elem, text, col)
        return
    name = base_of(t).name
    ok = {
        "int": lambda s: bool(_INT.match(s)),
        "SymInt": lambda s: bool(_INT.match(s)),
        "float": lambda s: bool(_FLOAT.match(s)) or bool(_INT.match(s)),
        "Scalar": lambda s: bool(_FLOAT.match(s)) or bool(_INT.match(s)) or s in ("True", "False"),
        "bool": lambda s: s in ("True", "False"),
        "str": lambda s: len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'",
    }.get(name)
    if ok is not None:
        if not ok(text):
            raise SchemaError(f"bad default {text!r} for type '{name}'", col + 1)
        return
    if name in _NAMED_DEFAULTS:
        if text not in _NAMED_DEFAULTS[name]:
            raise SchemaError(f"bad default {text!r} for type '{name}'", col + 1)
        return
    raise SchemaError(f"type '{name}' cannot have a default other than None", col + 1)


def parse_schema(text: str) -> FunctionSchema:
    schema = _Parser(text).schema()
    check_schema(schema)
    return schema


def check_schema(s: FunctionSchema) -> None:
    """The invariants PyTorch's schema model enforces, as SchemaErrors."""
    names = [a.name for a in s.arguments]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SchemaError(f"duplicate argument name '{sorted(dup)[0]}'")
    for a in s.arguments:
        if a.name in ("result", "grad_input_mask"):
            raise SchemaError(f"argument name '{a.name}' is reserved for derivatives.yaml")
    seen_default = False
    for a in s.positional:
        if a.default is not None:
            seen_default = True
        elif seen_default:
            raise SchemaError(f"positional argument '{a.name}' without a default follows one with a default")
    outs = s.out_arguments
    kind = s.kind()
    if outs:
        written_rets = [r for r in s.returns if r.is_write]
        if len(written_rets) != len(s.returns) or len(outs) != len(s.returns):
            raise SchemaError("an out= operator must return exactly its out arguments")
        for a, r in zip(outs, s.returns):
            if a.annotation != r.annotation:
                raise SchemaError(f"return {r} does not match out argument '{a.name}'")
        if s.name.overload == "":
            raise SchemaError("an out= operator needs an overload name (e.g. '.out')")
        kw = s.kwarg_only
        first = kw.index(outs[0])
        if any(not a.is_write for a in kw[first:]):
            raise SchemaError("out arguments must come last")
    if kind == SchemaKind.inplace:
        self_arg = s.self_argument()
        if self_arg is None or not self_arg.is_write:
            raise SchemaError("an in-place operator must take 'Tensor(a!) self'")
        if len(s.returns) != 1 or s.returns[0].annotation != self_arg.annotation:
            raise SchemaError("an in-place operator must return self: -> Tensor(a!)")
    for r in s.returns:
        if r.is_write and not any(a.annotation == r.annotation for a in s.arguments):
            raise SchemaError(f"mutable return {r} aliases no argument")
    written = [r for r in s.returns if r.is_write]
    if written and len(written) != len(s.returns):
        raise SchemaError("mutable and immutable returns cannot be mixed")

