"""repr() of tensors in PyTorch's format: tensor([1.0000, 2.5000], dtype=torchlite.float64)."""

import math

import numpy as np

PRECISION = 4
THRESHOLD = 1000  # summarise tensors with more elements than this
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """Chooses one format for every element, as torch's _Formatter does."""

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        finite = values[np.isfinite(values)] if floating and values.size else values
        if not floating:
            self.width = max((len(str(v)) for v in values.tolist()), default=1)
            return
        if finite.size == 0:
            self.width = max((len(self._fmt_special(v)) for v in values.tolist()), default=1)
            return
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        absf = np.abs(finite)
        nonzero = absf[absf != 0]
        amax = float(nonzero.max()) if nonzero.size else 0.0
        amin = float(nonzero.min()) if nonzero.size else 0.0
        if self.int_mode:
            self.sci_mode = amax > 1e8
        else:
            self.sci_mode = nonzero.size > 0 and (amax / amin > 1000.0 or amax > 1e8 or amin < 1e-4)
        self.width = max(len(self.format(float(v))) for v in values.tolist())

    @staticmethod
    def _fmt_special(v: float) -> str:
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")

    def format(self, v) -> str:
        if not self.floating:
            return str(v)
        if not math.isfinite(v):
            return self._fmt_special(v)
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def __call__(self, v) -> str:
        return self.format(v).rjust(self.width)


def _format_bool(v) -> str:
    return "True" if v else "False"


def _body(a: np.ndarray, fmt, indent: int, summarize: bool) -> str:
    if a.ndim == 0:
        return fmt(a.item())
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        idx = list(range(EDGEITEMS)) + [None] + list(range(n - EDGEITEMS, n))
    else:
        idx = list(range(n))
    if a.ndim == 1:
        items = ["..." if i is None else fmt(a[i].item()) for i in idx]
        per_line = max(1, (LINEWIDTH - indent) // (len(items[0]) + 2)) if items else 1
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
        summarize = t.numel() > THRESHOLD
        flat = values.reshape(-1)
        if summarize:
            sample = np.concatenate([flat[:EDGEITEMS * 10], flat[-EDGEITEMS * 10:]])
        else:
            sample = flat
        if t.dtype == _C.bool:
            width = 5 if not np.all(sample) else 4
            fmt = lambda v: _format_bool(v).rjust(width)
        else:
            fmt = _Formatter(sample.astype(np.float64) if floating else sample, floating)
        body = _body(values, fmt, len("tensor("), summarize)
    show_dtype = t.dtype not in (default_float, _C.int64, _C.bool)
    if show_dtype:
        suffixes.append(f"dtype={t.dtype}")
    return "tensor(" + body + "".join(", " + s for s in suffixes) + ")"
