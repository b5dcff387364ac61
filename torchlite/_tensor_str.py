"""repr() of tensors in PyTorch's format: tensor([1.0000, 2.5000], dtype=torchlite.float64),
with the options set_printoptions sets."""

import math
from types import SimpleNamespace

import numpy as np

# threshold: summarise tensors with more elements than this; sci_mode None: chosen per tensor
_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {"default": _DEFAULTS, "short": {**_DEFAULTS, "precision": 2, "edgeitems": 2},
             "full": {**_DEFAULTS, "threshold": math.inf}}
PRINT_OPTS = SimpleNamespace(**_DEFAULTS, sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
    sci_mode=None): how tensors print. profile ('default', 'short', 'full') sets the first four, which
    the other arguments then override; sci_mode True/False forces scientific notation on/off.

    >>> torchlite.set_printoptions(precision=2)
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        vars(PRINT_OPTS).update(_PROFILES[profile])
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    vars(PRINT_OPTS).update({k: v for k, v in given.items() if v is not None})
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Chooses one format for every element, as torch's _Formatter does."""

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values.tolist()), default=1)
            return
        # as in PyTorch, the format comes from the non-zero finite values alone
        nonzero = values[np.isfinite(values) & (values != 0)]
        if nonzero.size == 0:
            return
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        absf = np.abs(nonzero)
        amax, amin = float(absf.max()), float(absf.min())
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        else:
            self.sci_mode = amax / amin > 1000.0 or amax > 1e8 or amin < 1e-4
        self.width = max(len(self.format(float(v))) for v in nonzero.tolist())

    @staticmethod
    def _fmt_special(v: float) -> str:
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")

    def format(self, v) -> str:
        if not self.floating:
            return str(v)
        if not math.isfinite(v):
            return self._fmt_special(v)
        if self.sci_mode:
            return f"{v:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRINT_OPTS.precision}f}"

    def __call__(self, v) -> str:
        return self.format(v).rjust(self.width)


class _BoolFormatter:
    def __init__(self, values: np.ndarray):
        self.width = 4 if np.all(values) else 5

    def __call__(self, v) -> str:
        return ("True" if v else "False").rjust(self.width)


class _ComplexFormatter:
    """Real and imaginary parts each get their own format, as in PyTorch: 1.5000+2.0000j."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(values.real.astype(np.float64), True)
        self.imag = _Formatter(values.imag.astype(np.float64), True)
        self.width = self.real.width + self.imag.width + 1  # the sign between; the 'j' is counted by callers

    def __call__(self, v) -> str:
        imag = (self.imag(v.imag) + "j").lstrip()
        return self.real(v.real) + (imag if imag[0] in "+-" else "+" + imag)


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (the edge items of every dim), to choose the format from."""
    edge = PRINT_OPTS.edgeitems
    for axis, n in enumerate(a.shape):
        if n > 2 * edge:
            a = np.take(a, list(range(edge)) + list(range(n - edge, n)), axis=axis)
    return a


def _body(a: np.ndarray, fmt, indent: int, summarize: bool) -> str:
    if a.ndim == 0:
        return fmt(a.item())
    n, edge = a.shape[0], PRINT_OPTS.edgeitems
    if summarize and n > 2 * edge:
        idx = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        idx = list(range(n))
    if a.ndim == 1:
        items = [" ..." if i is None else fmt(a[i].item()) for i in idx]
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.width + 2 + isinstance(fmt, _ComplexFormatter)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i is None else _body(a[i], fmt, indent + 1, summarize) for i in idx]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_repr(t) -> str:
    from torchlite import _C  # late: this module is imported while torchlite loads

    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    default_float = _C.get_default_dtype()
    if t.dtype == _C.bfloat16:
        values = t.to(_C.float32).numpy(force=True)
    else:
        values = t.numpy(force=True)
    floating = t.dtype.is_floating_point
    if t.numel() == 0:
        body = "[]"
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
    else:
        summarize = t.numel() > PRINT_OPTS.threshold
        sample = (_summarized(values) if summarize else values).reshape(-1)
        if t.dtype == _C.bool:
            fmt = _BoolFormatter(sample)
        elif t.dtype.is_complex:
            fmt = _ComplexFormatter(sample)
        else:
            fmt = _Formatter(sample.astype(np.float64) if floating else sample, floating)
        body = _body(values, fmt, len("tensor("), summarize)
    show_dtype = t.dtype not in (default_float, default_float.to_complex(), _C.int64, _C.bool)
    if show_dtype:
        suffixes.append(f"dtype={t.dtype}")
    return "tensor(" + body + "".join(", " + s for s in suffixes) + ")"
