"""Registry entries: factory functions (zeros, arange, eye, ...), *_like / new_* forms and the
random fills. Random ops are compared by their properties (shape, dtype, range) here; their
distributions and seeding are tested in tests/test_creation.py."""

import numpy as np

import torchlite as tl
from opinfo.core import OpInfo, SampleInput, rand


def _none(dtype, rng):
    yield SampleInput(())


def _one(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng),))
    yield SampleInput((rand((0, 2), dtype, rng),))


def _factory(name, op, ref, dtypes=(tl.float32,), **kw):
    """A factory entry: `op(lib)` builds the tensor, `ref()` is NumPy's."""
    return OpInfo(name, _none, op=lambda lib: op(lib), ref=lambda: ref(), dtypes=dtypes, differentiable=False,
                  **kw)


def _like(name, op, ref, **kw):
    """A *_like / new_* entry: same shape and dtype as the input."""
    return OpInfo(name, _one, op=op, ref=ref, differentiable=False, **kw)


def _shape_dtype_in_range(low, high):
    """A property op for random results: (shape, dtype name, all values within [low, high))."""
    def describe(t):
        v = t.double() if hasattr(t, "double") else t
        inside = bool(((v >= low) & (v < high)).all()) if t.numel() else True
        return tuple(t.shape), str(t.dtype).split(".")[-1], inside
    return describe


def _random_like(name, call, low, high):
    describe = _shape_dtype_in_range(low, high)
    return OpInfo(name, _one, op=lambda lib, x: describe(call(lib, x)),
                  ref=lambda x: (x.shape, x.dtype.name, True), differentiable=False, torch=False)


def _random(name, call, shape, dtype, low, high):
    describe = _shape_dtype_in_range(low, high)
    return OpInfo(name, _none, op=lambda lib: describe(call(lib)), ref=lambda: (shape, dtype, True),
                  differentiable=False, torch=False)


OPS = [
    _factory("zeros", lambda lib: lib.zeros(2, 3), lambda: np.zeros((2, 3), np.float32), supports_out=False),
    _factory("ones", lambda lib: lib.ones((2, 3), dtype=lib.int64), lambda: np.ones((2, 3), np.int64)),
    _factory("full", lambda lib: lib.full((2, 3), 1.5), lambda: np.full((2, 3), 1.5, np.float32)),
    _factory("arange", lambda lib: (lib.arange(5), lib.arange(1, 4), lib.arange(0.0, 1.0, 0.25)),
             lambda: (np.arange(5), np.arange(1, 4), np.arange(0.0, 1.0, 0.25, dtype=np.float32))),
    _factory("linspace", lambda lib: lib.linspace(-1, 1, 5), lambda: np.linspace(-1, 1, 5, dtype=np.float32)),
    _factory("eye", lambda lib: (lib.eye(3), lib.eye(2, 3)), lambda: (np.eye(3), np.eye(2, 3))),
    # empty*: only the shape and dtype are defined.
    _factory("empty", lambda lib: tuple(lib.empty(2, 3).shape), lambda: (2, 3), values=False),
    _factory("empty_strided", lambda lib: lib.empty_strided((2, 3), (1, 2)).stride(), lambda: (1, 2), values=False),
    _like("empty_like", lambda lib, x: (tuple(lib.empty_like(x).shape), lib.empty_like(x).dtype == x.dtype),
          lambda x: (x.shape, True), values=False),
    _like("new_empty", lambda lib, x: tuple(x.new_empty((3, 1)).shape), lambda x: (3, 1), values=False),
    _like("zeros_like", lambda lib, x: lib.zeros_like(x), np.zeros_like),
    _like("ones_like", lambda lib, x: lib.ones_like(x), np.ones_like),
    _like("full_like", lambda lib, x: lib.full_like(x, 7), lambda x: np.full_like(x, 7)),
    _like("new_zeros", lambda lib, x: x.new_zeros((2, 2)), lambda x: np.zeros((2, 2), x.dtype)),
    _like("new_ones", lambda lib, x: x.new_ones(3), lambda x: np.ones(3, x.dtype)),
    _like("new_full", lambda lib, x: x.new_full((2,), -1.0), lambda x: np.full(2, -1.0, x.dtype)),
    _random("rand", lambda lib: lib.rand(50, 2), (50, 2), "float32", 0, 1),
    _random("randn", lambda lib: lib.randn(4, 3, dtype=lib.float64), (4, 3), "float64", -50, 50),
    _random("randint", lambda lib: lib.randint(3, 7, (20,)), (20,), "int64", 3, 7),
    _random_like("rand_like", lambda lib, x: lib.rand_like(x), 0, 1),
    _random_like("randn_like", lambda lib, x: lib.randn_like(x), -50, 50),
    _random_like("randint_like", lambda lib, x: lib.randint_like(x, 5), 0, 5),
    _random_like("uniform", lambda lib, x: x.clone().uniform_(-2, -1), -2, -1),
    _random_like("normal", lambda lib, x: x.clone().normal_(3.0, 0.5), -10, 20),
    _random_like("random", lambda lib, x: x.clone().random_(0, 9), 0, 9),
    OpInfo("zero", _one, op=lambda lib, x: x.clone().zero_(), ref=np.zeros_like, differentiable=False),
    OpInfo("fill", _one, op=lambda lib, x: x.clone().fill_(2.5), ref=lambda x: np.full_like(x, 2.5),
           differentiable=False),
]
