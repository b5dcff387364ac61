"""hypothesis strategies for the pieces of a call: dtypes, shapes (0-d, empty, size 1, large,
overflowing), layouts, and odd argument values. Values are Python source text in the names of
tests/fuzz/repro.py, so a drawn call can be printed as its own reproducer."""

import math

from hypothesis import strategies as st

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
FLOATS = ("float16", "float32", "float64")
MAX_LARGE = 200_000  # elements of a "large" array: big enough for vectorized and parallel paths

dtypes = st.sampled_from(DTYPES)
seeds = st.integers(0, 2**16)

small_shapes = st.lists(st.integers(0, 5), max_size=4).map(tuple)
empty_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3).flatmap(
    lambda s: st.integers(0, len(s) - 1).map(lambda k: (*s[:k], 0, *s[k + 1:])))
ones_shapes = st.lists(st.sampled_from((1, 1, 2, 3)), min_size=1, max_size=4).map(tuple)
large_shapes = st.one_of(
    st.integers(1000, MAX_LARGE).map(lambda n: (n,)),
    st.tuples(st.integers(2, 700), st.integers(2, 700)).filter(lambda s: math.prod(s) <= MAX_LARGE),
    st.tuples(st.integers(1, 40), st.integers(1, 40), st.integers(1, 100)),
)
shapes = st.one_of(st.just(()), empty_shapes, ones_shapes, small_shapes, large_shapes)

# Sizes whose product (or byte count) does not fit in int64, and negative sizes.
OVERFLOW_SHAPES = ((2**40, 2**40), (2**32, 2**32), (2**21, 2**21, 2**22), (2**62, 4), (2**63 - 1, 2),
                   (2**61,), (2**60, 16), (2**31, 2**31, 4), (2**63,), (2**64,), (3, -2), (-5,), (2**40, 0, 2**40))
overflow_shapes = st.sampled_from(OVERFLOW_SHAPES)

# Layouts that keep an array's values (repro.py), and those that need values made to fit.
LAYOUTS = ("contiguous", "transposed", "sliced", "offset")
SHAPED_LAYOUTS = {"expanded": "rows_equal", "overlapping": "windows"}


def layouts(ndim):
    """(value mutation or None, layout builder) for an array of `ndim` dims."""
    plain = [(None, name) for name in LAYOUTS if ndim >= 1 or name == "contiguous"]
    shaped = [(value, name) for name, value in SHAPED_LAYOUTS.items() if ndim >= 1]
    return st.sampled_from(plain + shaped)


def odd_dims(ndim):
    """Dims out of range in both directions, and integers near the int32/int64 limits."""
    return st.sampled_from((ndim, -ndim - 1, ndim + 5, -2**31, 2**31, 2**63 - 1, -2**63, 2**63, 2**64, -2**70))


odd_scalars = st.sampled_from((
    "None", "'x'", "True", "1.5", "float('nan')", "float('inf')", "-float('inf')", "1e308", "-1e-320",
    "2**63", "-2**63 - 1", "2**64", "[]", "[None]", "(1, 'a')", "[2**40, 2**40]", "tl.float32", "tl.int64",
    "object()", "{}", "b''", "1j",
))


@st.composite
def random_tensors(draw):
    """A torchlite tensor of random shape, dtype and layout (source text)."""
    shape = draw(st.one_of(st.just(()), empty_shapes, ones_shapes, small_shapes))
    dtype = draw(dtypes)
    value, layout = draw(layouts(len(shape)))
    src = f"rand({shape!r}, '{dtype}', {draw(seeds)})"
    if value is not None:
        src = f"{value}({src})"
    return f"{layout}({src})"


random_values = st.one_of(
    random_tensors(),
    odd_scalars,
    st.integers(-4, 4).map(repr),
    st.lists(st.integers(-3, 3), max_size=3).map(repr),
    st.sampled_from(("0.5", "-2.0", "float('nan')")),
)
