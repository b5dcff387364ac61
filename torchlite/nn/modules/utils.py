"""Argument helpers shared by the layers: _single/_pair/_triple expand an int to a tuple."""

from collections.abc import Iterable
from itertools import repeat


def _ntuple(n, name):
    def parse(x):
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n=2: F.pad's last-dimension-first padding order."""
    return tuple(x for x in reversed(t) for _ in range(n))
