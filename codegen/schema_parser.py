"""A tokenizer and recursive-descent parser for the schema language of `func:` strings.

    add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)

Errors raise SchemaError with the column, so callers can point at file:line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .model import (
    BASE_TYPES,
    NAMED_DEFAULTS,
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
    annotated_type,
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
        # 1-based column where each argument / return starts, for errors found after parsing.
        self.arg_cols: list[int] = []
        self.ret_cols: list[int] = []

    # -- low level -------------------------------------------------------------------------
    def _peek(self) -> tuple[str, str, int] | None:
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            rest = self.text[self.pos:]
            if not rest.strip():
                return None
            col = self.pos + len(rest) - len(rest.lstrip()) + 1
            raise SchemaError(f"unexpected character {rest.strip()[0]!r}", col)
        kind = m.lastgroup
        assert kind is not None
        return kind, m.group(kind), m.start(kind)

    def _next(self) -> tuple[str, str, int]:
        tok = self._peek()
        if tok is None:
            raise SchemaError("unexpected end of schema", len(self.text) + 1)
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
        _, v, col = self._next()
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

    def annotation(self) -> Annotation:
        """After the '(' of Tensor(a), Tensor(a!) or Tensor(a -> *)."""
        alias = self._ident("alias set")
        write = self._accept("!")
        to_wildcard = False
        if self._accept("->"):
            self._expect("*")
            to_wildcard = True
        self._expect(")")
        return Annotation(alias, write, to_wildcard)

    def type_with_annotation(self) -> tuple[Type, Annotation | None, int]:
        kind, name, col = self._next()
        if kind != "ident":
            raise SchemaError(f"expected a type, found {name!r}", col + 1)
        if name not in BASE_TYPES:
            raise SchemaError(f"unknown type '{name}'", col + 1)
        annotation = None
        if self._accept("("):
            if name != "Tensor":
                raise SchemaError(f"alias annotation on non-Tensor type '{name}'", col + 1)
            annotation = self.annotation()
        t: Type = BaseType(name)
        while True:
            if self._accept("?"):
                if isinstance(t, OptionalType):
                    raise SchemaError(f"type '{t}?' is optional twice", col + 1)
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

    def default_text(self) -> tuple[str, int]:
        """Raw default up to the next top-level ',' or ')', and its 1-based column."""
        depth = 0
        start = self.pos
        i = self.pos
        quote = ""
        while i < len(self.text):
            c = self.text[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c in "[(":
                depth += 1
            elif c in "])":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        self.pos = i
        raw = self.text[start:i]
        text = raw.strip()
        col = start + len(raw) - len(raw.lstrip()) + 1
        if not text:
            raise SchemaError("empty default value", col)
        if quote:
            raise SchemaError(f"unterminated string default {text}", col)
        return text, col

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
                tok = self._peek()
                if tok is not None and tok[1] == ")":
                    raise SchemaError("'*' must be followed by keyword-only arguments", tok[2] + 1)
            else:
                t, ann, col = self.type_with_annotation()
                name = self._ident("argument name")
                default = None
                if self._accept("="):
                    default, default_col = self.default_text()
                    validate_default(t, default, default_col)
                args.append(Argument(name, t, default, ann, kwarg_only))
                self.arg_cols.append(col + 1)
            if self._accept(")"):
                return args
            self._expect(",")

    def returns(self) -> list[Return]:
        if not self._accept("("):
            # A bare return has no name: `-> Tensor`; named returns need parentheses.
            t, ann, col = self.type_with_annotation()
            self.ret_cols.append(col + 1)
            return [Return(None, t, ann)]
        rets: list[Return] = []
        if self._accept(")"):
            return rets
        while True:
            t, ann, col = self.type_with_annotation()
            name = None
            tok = self._peek()
            if tok is not None and tok[0] == "ident":
                name = self._next()[1]
            rets.append(Return(name, t, ann))
            self.ret_cols.append(col + 1)
            if self._accept(")"):
                return rets
            self._expect(",")


_INT = re.compile(r"-?\d+$")
_FLOAT = re.compile(r"-?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf)$")


def validate_default(t: Type, text: str, col: int | None = None) -> None:
    """Raise SchemaError when `text` is not a valid default for type `t` (col: where the default starts)."""
    if text == "None":
        if not isinstance(t, OptionalType):
            raise SchemaError(f"default None for non-optional type '{t}'", col)
        return
    if isinstance(t, OptionalType):
        t = t.elem
    if isinstance(t, ListType):
        if base_of(t).name not in ("int", "SymInt", "bool", "float"):
            raise SchemaError(f"list type '{t}' cannot have a default other than None", col)
        if text.startswith("["):
            if not text.endswith("]"):
                raise SchemaError(f"bad list default {text!r}", col)
            items = [s.strip() for s in text[1:-1].split(",")] if text[1:-1].strip() else []
            if t.size is not None and items and len(items) != t.size:
                raise SchemaError(f"default {text} has {len(items)} elements, type '{t}' has {t.size}", col)
            for item in items:
                validate_default(t.elem, item, col)
        else:  # int[2] x=1 means [1, 1]
            if t.size is None:
                raise SchemaError(f"bare default {text!r} needs a fixed-size list type, not '{t}'", col)
            validate_default(t.elem, text, col)
        return
    name = base_of(t).name
    ok = {
        "int": lambda s: bool(_INT.match(s)) or s in NAMED_DEFAULTS["int"],
        "SymInt": lambda s: bool(_INT.match(s)),
        "float": lambda s: bool(_FLOAT.match(s)) or bool(_INT.match(s)),
        "Scalar": lambda s: bool(_FLOAT.match(s)) or bool(_INT.match(s)) or s in ("True", "False"),
        "bool": lambda s: s in ("True", "False"),
        "str": lambda s: len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'",
    }.get(name)
    if ok is not None:
        if not ok(text):
            raise SchemaError(f"bad default {text!r} for type '{name}'", col)
        return
    if name in NAMED_DEFAULTS:
        if text not in NAMED_DEFAULTS[name]:
            known = ", ".join(sorted(NAMED_DEFAULTS[name]))
            raise SchemaError(f"bad default {text!r} for type '{name}' (known: {known})", col)
        return
    raise SchemaError(f"type '{name}' cannot have a default other than None", col)


def parse_schema(text: str) -> FunctionSchema:
    """Parses and validates one schema string; SchemaError.col is 1-based."""
    parser = _Parser(text)
    schema = parser.schema()
    check_schema(schema, parser.arg_cols, parser.ret_cols)
    return schema


def check_schema(s: FunctionSchema, arg_cols: Sequence[int] = (), ret_cols: Sequence[int] = ()) -> None:
    """The invariants PyTorch's schema model enforces, as SchemaErrors. arg_cols / ret_cols give the
    column of each argument / return (when known) so errors can point at it."""

    def arg_error(a: Argument, msg: str) -> SchemaError:
        i = next(i for i, b in enumerate(s.arguments) if b is a)  # by identity: equal arguments may repeat
        return SchemaError(msg, arg_cols[i] if i < len(arg_cols) else None)

    def ret_error(i: int, msg: str) -> SchemaError:
        return SchemaError(msg, ret_cols[i] if i < len(ret_cols) else None)

    seen: set[str] = set()
    for a in s.arguments:
        if a.name in seen:
            raise arg_error(a, f"duplicate argument name '{a.name}'")
        seen.add(a.name)
        if a.name in ("result", "grad_input_mask"):
            raise arg_error(a, f"argument name '{a.name}' is reserved for derivatives.yaml")
    ret_names: set[str] = set()
    for i, r in enumerate(s.returns):
        if r.name in ret_names:
            raise ret_error(i, f"duplicate return name '{r.name}'")
        if r.name:
            ret_names.add(r.name)
    seen_default = False
    for a in s.positional:
        if a.default is not None:
            seen_default = True
        elif seen_default:
            raise arg_error(a, f"positional argument '{a.name}' without a default follows one with a default")
    writers: dict[str, Argument] = {}
    for a in s.arguments:
        if a.is_write and a.annotation is not None:
            first = writers.setdefault(a.annotation.alias_set, a)
            if first is not a:
                raise arg_error(
                    a, f"alias set '{a.annotation.alias_set}' is written by both '{first.name}' and '{a.name}'"
                )
    outs = s.out_arguments
    kind = s.kind()
    if outs:
        if kind == SchemaKind.inplace:
            raise arg_error(outs[0], "an in-place operator cannot have out arguments")
        kw = s.kwarg_only
        for a in kw[kw.index(outs[0]):]:
            if not a.is_write:
                raise arg_error(a, f"argument '{a.name}' follows the out arguments: out arguments must come last")
        if s.name.overload == "":
            raise SchemaError("an out= operator needs an overload name (e.g. '.out')", 1)
        if s.returns and len(outs) != len(s.returns):  # -> () is allowed (foreach / split_copy out=)
            col = ret_cols[0] if ret_cols else None
            raise SchemaError(
                f"an out= operator must return exactly its {len(outs)} out argument(s) in order, "
                f"or nothing; it returns {len(s.returns)} value(s)",
                col,
            )
        for i, (a, r) in enumerate(zip(outs, s.returns)):
            if a.annotation != r.annotation or a.type != r.type:
                raise ret_error(i, f"return '{r}' does not match out argument '{a.name}' ({_type_text(a)})")
    if kind == SchemaKind.inplace:
        self_arg = s.self_argument()
        msg = "an in-place operator must take 'Tensor(a!) self'"
        if self_arg is None:
            raise SchemaError(msg, 1)
        if not self_arg.is_write:
            raise arg_error(self_arg, msg)
        if str(self_arg.type) == "Tensor":
            if len(s.returns) != 1 or s.returns[0].annotation != self_arg.annotation:
                raise ret_error(0, f"an in-place operator must return self: -> {_type_text(self_arg)}")
        elif s.returns:  # Tensor(a!)[] self: nothing to chain methods on
            raise ret_error(0, f"an in-place operator on '{_type_text(self_arg)} self' must return ()")
    for i, r in enumerate(s.returns):
        if r.is_write and not any(a.annotation == r.annotation for a in s.arguments):
            raise ret_error(i, f"mutable return '{r}' aliases no argument")
    written = [r.is_write for r in s.returns]
    if any(written) and not all(written):
        raise ret_error(written.index(False), "mutable and immutable returns cannot be mixed")


def _type_text(a: Argument) -> str:
    return annotated_type(a.type, a.annotation)
