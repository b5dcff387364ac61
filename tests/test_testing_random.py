"""torchlite.testing (assert_close, assert_allclose, make_tensor) and torchlite.random (fork_rng and
the generator state), checked against PyTorch's messages and behaviour."""

import warnings

import numpy as np
import pytest

import torchlite as tl

# Each case runs on both libraries (m is torch or torchlite); the outcome must be the same.
COMPARISONS = {
    "float-mismatch": lambda m: m.testing.assert_close(m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.])),
    "int-mismatch": lambda m: m.testing.assert_close(m.tensor([1, 2, 3]), m.tensor([1, 4, 3])),
    "2d-mismatch": lambda m: m.testing.assert_close(m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3., 5.]])),
    "shape": lambda m: m.testing.assert_close(m.tensor([1., 2.]), m.tensor([1., 2., 3.])),
    "dtype": lambda m: m.testing.assert_close(m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64)),
    "dtype-unchecked": lambda m: m.testing.assert_close(m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64),
                                                        check_dtype=False),
    "stride": lambda m: m.testing.assert_close(m.ones(2, 3).t(), m.ones(3, 2), check_stride=True),
    "float-scalars": lambda m: m.testing.assert_close(1.0, 1.5),
    "int-scalars": lambda m: m.testing.assert_close(1, 2),
    "scalar-types": lambda m: m.testing.assert_close(1, 1.0),
    "bools": lambda m: m.testing.assert_close(True, False),
    "none": lambda m: m.testing.assert_close(None, 1),
    "none-equal": lambda m: m.testing.assert_close(None, None),
    "strings": lambda m: m.testing.assert_close("a", "a"),
    "0-d": lambda m: m.testing.assert_close(m.tensor(1.), m.tensor(2.)),
    "0-d-zero-expected": lambda m: m.testing.assert_close(m.tensor(1.), m.tensor(0.)),
    "list-item": lambda m: m.testing.assert_close([m.tensor(1.), m.tensor(2.)], [m.tensor(1.), m.tensor(3.)]),
    "nested-item": lambda m: m.testing.assert_close({"a": [1.0, 2.0]}, {"a": [1.0, 2.5]}),
    "mapping-keys": lambda m: m.testing.assert_close({"a": 1}, {"b": 1}),
    "lengths": lambda m: m.testing.assert_close([1, 2], [1, 2, 3]),
    "tuple-vs-list": lambda m: m.testing.assert_close((m.tensor([1.]), 2), [m.tensor([1.]), 2]),
    "nan": lambda m: m.testing.assert_close(m.tensor([float("nan")]), m.tensor([float("nan")])),
    "nan-equal": lambda m: m.testing.assert_close(m.tensor([float("nan")]), m.tensor([float("nan")]), equal_nan=True),
    "inf-equal": lambda m: m.testing.assert_close(m.tensor([float("inf"), 1.]), m.tensor([float("inf"), 1.])),
    "inf-opposite": lambda m: m.testing.assert_close(m.tensor([float("inf"), 1.]), m.tensor([float("-inf"), 1.])),
    "rtol-only": lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), rtol=0.2),
    "rtol-atol": lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), rtol=0.2, atol=0),
    "int-tolerance": lambda m: m.testing.assert_close(m.tensor([1, 2]), m.tensor([1, 3]), rtol=0.5, atol=0),
    "msg-str": lambda m: m.testing.assert_close(m.tensor([1.]), m.tensor([1.1]), msg="boom"),
    "msg-callable": lambda m: m.testing.assert_close([m.tensor([1.])], [m.tensor([1.1])], msg=lambda s: f"<{s}>"),
    "tensor-vs-float": lambda m: m.testing.assert_close(m.tensor([1.]), 1.0),
    "tensor-vs-numpy": lambda m: m.testing.assert_close(m.tensor([1.]), np.array([1.], dtype=np.float32)),
    "numpy-pair": lambda m: m.testing.assert_close(np.array([1., 2.]), np.array([1., 2.5])),
    "subclass-refused": lambda m: m.testing.assert_close(m.tensor([1.]), m.nn.Parameter(m.tensor([1.])),
                                                         allow_subclasses=False),
    "bool-tensors": lambda m: m.testing.assert_close(m.tensor([True, False]), m.tensor([True, True])),
    "complex": lambda m: m.testing.assert_close(m.tensor([1 + 1j]), m.tensor([1 + 2j])),
    "bfloat16": lambda m: m.testing.assert_close(m.tensor([1., 2.], dtype=m.bfloat16), m.tensor([1., 2.01], dtype=m.bfloat16)),
    "float16": lambda m: m.testing.assert_close(m.tensor([1., 2.], dtype=m.float16), m.tensor([1., 2.01], dtype=m.float16)),
    "allclose-list": lambda m: m.testing.assert_allclose(m.tensor([1.]), [1.5]),
    "allclose-scalar": lambda m: m.testing.assert_allclose(m.tensor([1.]), 1.00001),
    "make-int-grad": lambda m: m.testing.make_tensor(2, dtype=m.int32, device="cpu", requires_grad=True),
    "make-low-high": lambda m: m.testing.make_tensor(2, dtype=m.float32, device="cpu", low=2, high=1),
    "make-nan": lambda m: m.testing.make_tensor(2, dtype=m.float32, device="cpu", low=float("nan")),
    "make-out-of-range": lambda m: m.testing.make_tensor(2, dtype=m.uint8, device="cpu", low=-5, high=-1),
    "make-exclusive": lambda m: m.testing.make_tensor(2, 2, dtype=m.float32, device="cpu", noncontiguous=True,
                                                      memory_format=m.contiguous_format),
}


def _outcome(module, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            case(module)
        except Exception as e:  # noqa: BLE001  (the outcome is the exception's type and text)
            text = str(e).replace("torchlite._C.Tensor", "torch.Tensor").replace("torchlite.", "torch.")
            return type(e).__name__, text
    return "ok", ""


@pytest.mark.parametrize("name", COMPARISONS)
def test_outcome_matches_torch(name):
    torch = pytest.importorskip("torch")
    assert _outcome(tl, COMPARISONS[name]) == _outcome(torch, COMPARISONS[name])


def test_assert_close_without_torch():
    tl.testing.assert_close(tl.tensor([1.0, 2.0]), tl.tensor([1.0, 2.0 + 1e-7]))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        tl.testing.assert_close(tl.tensor([1.0, 2.0]), tl.tensor([1.0, 2.1]))
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        tl.testing.assert_close(tl.tensor([1.0]), tl.tensor([1.0]), atol=1)
    with pytest.warns(FutureWarning, match="assert_close"):
        tl.testing.assert_allclose(tl.tensor([1.0]), [1.0])


@pytest.mark.parametrize("dtype,low,high", [
    (tl.float32, None, None), (tl.float64, -1, 1), (tl.bfloat16, 0, 5), (tl.complex64, -2, 2),
    (tl.int64, None, None), (tl.uint8, None, None), (tl.int8, -200, 200), (tl.bool, None, None),
])
def test_make_tensor_values_lie_in_the_range(dtype, low, high):
    t = tl.testing.make_tensor(50, 4, dtype=dtype, device="cpu", low=low, high=high)
    assert t.shape == (50, 4) and t.dtype == dtype and t.is_contiguous()
    a = t.to(tl.int64 if dtype == tl.bool else t.dtype).numpy() if dtype != tl.bfloat16 else t.float().numpy()
    parts = [a.real, a.imag] if np.iscomplexobj(a) else [a]
    defaults = {tl.bool: (0, 2), tl.uint8: (0, 10), tl.int8: (-128, 128)}
    lo, hi = defaults.get(dtype, (-9, 10 if dtype == tl.int64 else 9)) if low is None or dtype == tl.int8 else (low, high)
    for part in parts:
        assert part.min() >= lo and (part.max() < hi or dtype == tl.bfloat16 and part.max() == hi)  # bf16 rounds up
        assert len(np.unique(part)) > 1  # drawn, not filled


def test_make_tensor_options():
    t = tl.testing.make_tensor((3, 4), dtype=tl.float32, device="cpu", noncontiguous=True, requires_grad=True)
    assert t.shape == (3, 4) and not t.is_contiguous() and t.requires_grad
    t = tl.testing.make_tensor(2, 3, 4, 5, dtype=tl.float64, device="cpu", memory_format=tl.channels_last)
    assert t.is_contiguous(memory_format=tl.channels_last)
    t = tl.testing.make_tensor(200, dtype=tl.int64, device="cpu", low=-1, high=1, exclude_zero=True)
    assert set(t.tolist()) == {-1, 1}
    t = tl.testing.make_tensor(5, dtype=tl.float32, device="cpu", low=-1e39, high=1e39)  # clamped to the dtype
    assert bool(tl.isfinite(t).all())
    assert tl.testing.make_tensor(1, dtype=tl.float32, device="cpu", noncontiguous=True).is_contiguous()


def test_rng_state_round_trip_and_fork_rng():
    state = tl.random.get_rng_state()
    a = tl.rand(4)
    tl.random.set_rng_state(state)
    assert tl.equal(tl.rand(4), a)
    with tl.random.fork_rng(devices=iter([])):
        inside = tl.rand(3)
    assert tl.equal(tl.rand(3), inside)  # the draw inside left no trace
    with tl.random.fork_rng(enabled=False):
        skipped = tl.rand(3)
    assert not tl.equal(tl.rand(3), skipped)
    assert tl.random.thread_safe_generator() is None
    assert tl.random.initial_seed() == tl.initial_seed()
    with pytest.raises(TypeError, match="ByteTensor"):
        tl.random.set_rng_state(tl.zeros(3))
