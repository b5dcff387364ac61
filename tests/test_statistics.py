"""Dtype rules, errors and Python calling conventions of the statistics operators that the registry
(tests/opinfo/statistics.py) does not check: result dtypes, messages for bad input, methods."""

import re

import numpy as np
import pytest

import torchlite as tl


def test_result_dtypes_follow_pytorch():
    ints = tl.tensor([[1, 0, 3], [0, 5, 6]])
    assert tl.count_nonzero(ints).dtype == tl.int64
    assert tl.count_nonzero(ints.float(), dim=1).dtype == tl.int64
    assert tl.nansum(ints.to(tl.int32)).dtype == tl.int64  # integers sum like sum
    assert tl.nansum(ints, dtype=tl.float64).dtype == tl.float64
    assert tl.cummax(ints, 1).indices.dtype == tl.int64
    assert tl.searchsorted(tl.tensor([1.0, 2.0]), tl.tensor([1.5]), out_int32=True).dtype == tl.int32
    assert tl.bincount(tl.tensor([0, 1, 1])).dtype == tl.int64
    assert tl.bincount(tl.tensor([0, 1, 1]), tl.tensor([0.5, 1.0, 1.0])).dtype == tl.float32
    assert tl.trapezoid(tl.tensor([1, 2, 4])).dtype == tl.float32
    assert tl.cov(tl.tensor([[1, 2, 4], [3, 1, 0]])).dtype == tl.float32


def test_methods_and_named_results():
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert x.aminmax().min.item() == 0.0 and x.aminmax().max.item() == 5.0
    assert x.cummin(1).values.tolist() == [[3.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    assert x.quantile(0.5).item() == 2.5
    assert x.nanmedian().item() == 2.0
    assert x.isclose(x).all().item() and x.allclose(x) and x.equal(x.clone())
    assert x.diff().tolist() == [[-2.0, 1.0], [5.0, -1.0]]
    values, counts = tl.tensor([2, 1, 2]).unique(return_counts=True)
    assert values.tolist() == [1, 2] and counts.tolist() == [1, 2]
    assert tl.unique_consecutive(tl.tensor([1, 1, 2, 1])).tolist() == [1, 2, 1]
    assert tl.bucketize(2.5, tl.tensor([1.0, 2.0, 3.0])).item() == 2
    assert tl.searchsorted(tl.tensor([1, 2, 3]), 2, right=True).item() == 2


@pytest.mark.parametrize("call,message", [
    (lambda: tl.nanmean(tl.tensor([1, 2])), "nanmean(): expected input to have floating point"),
    (lambda: tl.quantile(tl.tensor([1.0, 2.0]), 1.5), "q values must be in the range [0, 1]"),
    (lambda: tl.quantile(tl.tensor([1.0, 2.0]), 0.5, interpolation="cubic"), "interpolation must be one of"),
    (lambda: tl.quantile(tl.tensor([1.0, 2.0]), tl.tensor([0.5], dtype=tl.float64)), "same dtype"),
    (lambda: tl.quantile(tl.tensor([1, 2]), 0.5), "float or double"),
    (lambda: tl.diff(tl.tensor(1.0)), "at least one-dimensional"),
    (lambda: tl.cov(tl.zeros(2, 2, 2)), "two or fewer dimensions"),
    (lambda: tl.cov(tl.zeros(2, 3), fweights=tl.tensor([1.0, 1.0, 1.0])), "integral dtype"),
    (lambda: tl.cov(tl.zeros(2, 3), fweights=tl.tensor([1, -1, 1])), "cannot be negative"),
    (lambda: tl.isclose(tl.tensor([1.0]), tl.tensor([1.0], dtype=tl.float64)), "same dtype"),
    (lambda: tl.searchsorted(tl.zeros(2, 3), tl.zeros(3, 3)), "first N-1 dimensions"),
    (lambda: tl.searchsorted(tl.tensor([1.0]), tl.tensor([1.0]), side="middle"), "side can only be"),
    (lambda: tl.searchsorted(tl.tensor([1.0]), tl.tensor([1.0]), right=True, side="left"), "opposites"),
    (lambda: tl.bucketize(tl.tensor([1.0]), tl.zeros(2, 2)), "boundaries tensor must be 1 dimension"),
    (lambda: tl.histc(tl.tensor([1.0]), bins=0), "bins must be > 0"),
    (lambda: tl.histc(tl.tensor([1.0]), min=2, max=1), "max must be larger than min"),
    (lambda: tl.histc(tl.tensor([1, 2]), bins=3), "not implemented for 'Long'"),
    (lambda: tl.bincount(tl.tensor([1, -1])), "non-negative integral"),
    (lambda: tl.bincount(tl.tensor([1.0])), "non-negative integral"),
    (lambda: tl.logcumsumexp(tl.tensor([1, 2]), 0), "not implemented for 'Long'"),
    (lambda: tl.aminmax(tl.zeros(0)), "empty dimension"),
])
def test_errors(call, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        call()


def test_cummax_gradient_goes_to_the_running_extreme():
    x = tl.tensor([1.0, 3.0, 2.0, 3.0], requires_grad=True)
    tl.cummax(x, 0).values.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 0.0, 1.0]  # ties move the index forward


def test_logcumsumexp_is_stable_for_large_values():
    x = tl.tensor([1000.0, 1000.0, -1000.0], dtype=tl.float64, requires_grad=True)
    y = tl.logcumsumexp(x, 0)
    np.testing.assert_allclose(y.detach().numpy(), [1000.0, 1000.0 + np.log(2), 1000.0 + np.log(2)])
    y.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_out_forms_with_two_results():
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    for name, args, kwargs in (("aminmax", (), {"dim": 1}), ("cummax", (1,), {}), ("cummin", (0,), {}),
                               ("nanmedian", (1,), {})):
        expected = getattr(tl, name)(x, *args, **kwargs)
        out = (tl.empty(0), tl.empty(0, dtype=expected[1].dtype))
        result = getattr(tl, name)(x, *args, **kwargs, out=out)
        assert result[0] is out[0] and result[1] is out[1]
        assert out[0].tolist() == expected[0].tolist() and out[1].tolist() == expected[1].tolist()
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.cummax(x, 1, out=(tl.empty(0), tl.empty(0)))


@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantiles_interpolate_infinite_neighbours_as_pytorch(fn):
    """Found by the fuzz campaign: a + w * (b - a) gave nan/inf where PyTorch's two-sided lerp
    gives -inf/nan (w < 0.5 from a, else from b)."""
    torch = pytest.importorskip("torch")
    inf = float("inf")
    for data, q in [([-inf, inf, 1.0], 0.25), ([1.0, inf], 0.5), ([-inf, 2.0], 0.7), ([-inf, 2.0], 0.2),
                    ([3.0, inf, 5.0], 0.9)]:
        ours = getattr(tl, fn)(tl.tensor(data, dtype=tl.float64), q).item()
        theirs = getattr(torch, fn)(torch.tensor(data, dtype=torch.float64), q).item()
        assert (ours == theirs) or (ours != ours and theirs != theirs), (data, q, ours, theirs)
