"""torchlite.backends.opt_einsum: whether einsum may ask the opt_einsum package for a contraction
order. torchlite's einsum contracts its operands in the order given, so `enabled` and `strategy`
are recorded with no effect; is_available() says whether the package is installed, as in
PyTorch."""

import importlib.util

__all__ = ["enabled", "get_opt_einsum", "is_available", "strategy"]


def is_available():
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The opt_einsum module, or None where it is not installed."""
    return importlib.import_module("opt_einsum") if is_available() else None


enabled = is_available()
strategy = "auto" if enabled else None
