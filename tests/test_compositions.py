"""Python-level compositions beyond what the registry (tests/opinfo/compositions.py) covers,
against PyTorch: shape helpers, in-place view ops and resize_, factories, Tensor.new/apply_/map_,
histogramdd, and the errors PyTorch raises."""

import numpy as np
import pytest

import torchlite as tl
from torchlite.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def _both(fn, *arrays):
    """fn(lib, *tensors) on torchlite and on PyTorch: the same result, or the same error type."""
    try:
        theirs = fn(torch, *[torch.tensor(a) for a in arrays])
    except Exception as e:  # noqa: BLE001  (whatever PyTorch raises, torchlite raises too)
        with pytest.raises(type(e)):
            fn(tl, *[tl.tensor(a) for a in arrays])
        return
    _same(fn(tl, *[tl.tensor(a) for a in arrays]), theirs)


@pytest.mark.parametrize("shapes", [[(2, 1), (3,)], [2, (1,)], [], [(0,), (1,)], [(2, 1), (3, 3)], [(-1,), (2,)],
                                    [torch.Size([2]), [2]], [(1, 4), (3, 1), (2, 1, 1)]])
def test_broadcast_shapes(shapes):
    try:
        want = torch.broadcast_shapes(*shapes)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            tl.broadcast_shapes(*shapes)
        return
    got = tl.broadcast_shapes(*shapes)
    assert isinstance(got, tl.Size) and tuple(got) == tuple(want)


@pytest.mark.parametrize("indices,shape", [([4, 1], (2, 3)), (4, (2, 3)), ([-1], (2, 3)), ([6], (2, 3)),
                                           ([0], ()), ([0], 3), ([[5, 0], [2, 3]], (3, 2)), ([0], (2, -1))])
def test_unravel_index(indices, shape):
    _both(lambda m, i: m.unravel_index(i, shape), np.array(indices))
    with pytest.raises(TypeError):
        tl.unravel_index(tl.tensor([1.0]), (2, 3))


@pytest.mark.parametrize("a,b,kw", [([1, 2, 3], [2, 5], {}), ([[1, 2], [3, 2]], [2, 5], {"invert": True}),
                                    ([1.5, 2.0], [2], {}), ([], [2], {}), ([1], [], {}),
                                    ([np.nan, 1.0], [np.nan], {}), ([3, 1, 2], [1, 2], {"assume_unique": True})])
def test_isin(a, b, kw):
    _both(lambda m, x, y: m.isin(x, y, **kw), np.array(a), np.array(b, dtype=np.array(a).dtype if not b else None))
    _same(tl.isin(2, tl.tensor([1, 2])), torch.isin(2, torch.tensor([1, 2])))
    _same(tl.isin(tl.tensor([1, 2]), 2.5), torch.isin(torch.tensor([1, 2]), 2.5))


def test_tensordot_errors():
    for dims in [-1, 3, ([1], [0, 1])]:
        _both(lambda m, a, b, dims=dims: m.tensordot(a, b, dims), np.ones((2, 3)), np.ones((3, 4)))
    _both(lambda m, a, b: m.tensordot(a, b, 1), np.ones((2, 3)), np.ones((2, 4)))
    _both(lambda m, a, b: m.tensordot(a, b, m.tensor([[1], [0]])), np.ones((2, 3)), np.ones((3, 4)))
    _both(lambda m, a, b: m.inner(a, b), np.ones((2, 3)), np.ones(2))


@pytest.mark.parametrize("args", [(1, 2, 1), (1, 4, 1), (1, 2, 0), (1, 0, 1), (0, 1, 1), (2, 1, 1), (-1, 3, 2)])
def test_unfold_views(args):
    x = np.arange(24.0).reshape(2, 3, 4)
    _both(lambda m, t: t.unfold(*args), x)
    _both(lambda m, t: t.transpose(0, 2).unfold(*args), x)
    _both(lambda m, t: t[0, 0, 0].unfold(0, 1, 1), x)
    v = tl.tensor(x).unfold(1, 2, 1)
    assert v._is_view
    _both(lambda m, t: t.requires_grad_().unfold(*args).detach(), x)
    leaf = tl.tensor(x[0], requires_grad=True)  # overlapping windows: gradients add up
    for fn in [lambda t: t.unfold(1, 3, 1), lambda t: t.unfold(0, 2, 1), lambda t: t.t().unfold(0, 2, 2)]:
        assert gradcheck(fn, (leaf,)) and gradgradcheck(fn, (leaf,))


@pytest.mark.parametrize("size", [(1, 3), (3,), ((2, 1),), (tl.Size([1]),), (2, 2), (1, 2, 3)])
def test_sum_to_size(size):
    t_size = tuple(torch.Size(s) if isinstance(s, tl.Size) else s for s in size)
    _both(lambda m, t: t.sum_to_size(*(size if m is tl else t_size)), np.arange(6.0).reshape(2, 3))


def test_scatter_errors():
    x = np.zeros((3, 4))
    for fn in [lambda m, t: m.select_scatter(t, m.ones(4, dtype=t.dtype), 1, 0),
               lambda m, t: m.select_scatter(t, m.ones(3, dtype=t.dtype), 1, 5),
               lambda m, t: m.slice_scatter(t, m.ones(3, 1, dtype=t.dtype), 1, 0, None, 2),
               lambda m, t: m.diagonal_scatter(t, m.ones(2, dtype=t.dtype)),
               lambda m, t: m.index_fill(t, 1, m.tensor([0, 2], dtype=m.int32), 5),
               lambda m, t: m.index_fill(t, 1, m.tensor([0, 7]), 5),
               lambda m, t: m.index_fill(t, 1, m.tensor([[0]]), 5),
               lambda m, t: m.index_fill(t, 1, m.tensor(0), m.tensor([2.0], dtype=t.dtype)),
               lambda m, t: m.index_fill(t, 1, m.tensor([-1]), m.tensor(2.0, dtype=t.dtype)),
               lambda m, t: t.index_copy(1, m.tensor([0, 2]), m.ones(3, 3, dtype=t.dtype)),
               lambda m, t: t.index_copy(1, m.tensor([0, 2]), m.ones(3, 2, dtype=m.float32)),
               lambda m, t: t.index_copy(1, m.tensor([0, 9]), m.ones(3, 2, dtype=t.dtype)),
               lambda m, t: t.index_copy(1, m.tensor([0, 2.0]), m.ones(3, 2, dtype=t.dtype)),
               lambda m, t: m.masked_scatter(t, m.tensor([True, False, True, False]), m.arange(3.0, dtype=t.dtype)),
               lambda m, t: m.masked_scatter(t, m.tensor([1, 0, 1, 0]), m.arange(12.0, dtype=t.dtype)),
               lambda m, t: m.masked_scatter(t, m.ones(4, dtype=m.bool), m.arange(12)),
               lambda m, t: t.put(m.tensor([1, 12]), m.tensor([9.0, 8], dtype=t.dtype)),
               lambda m, t: t.put(m.tensor([1, -13]), m.tensor([9.0, 8], dtype=t.dtype)),
               lambda m, t: t.put(m.tensor([1, 1]), m.tensor([9.0], dtype=t.dtype)),
               lambda m, t: t.put(m.tensor([1, 1.0]), m.tensor([9.0, 1], dtype=t.dtype)),
               lambda m, t: t.put(m.tensor([1, 1]), m.tensor([9, 1])),
               lambda m, t: t.index_reduce(1, m.tensor([0, 0]), m.ones(3, 2, dtype=t.dtype), "sum"),
               lambda m, t: t.clone().fill_diagonal_(1, wrap=True),
               lambda m, t: m.zeros(7, 3).fill_diagonal_(1, wrap=True),
               lambda m, t: m.zeros(7, 3).fill_diagonal_(1),
               lambda m, t: m.zeros(3).fill_diagonal_(1),
               lambda m, t: m.zeros(3, 3, 2).fill_diagonal_(1),
               lambda m, t: m.zeros(2, 2, dtype=m.int64).fill_diagonal_(1.7),
               lambda m, t: m.fill(m.zeros(2), m.tensor([1.7])),
               lambda m, t: m.put(m.zeros(()), m.tensor([0]), m.tensor([9.0])),
               lambda m, t: m.index_copy(m.zeros(()), 0, m.tensor(0), m.ones(()))]:
        _both(fn, x)


def test_inplace_scatter_forms_share_self():
    x = tl.zeros(3, 4)
    for call in [lambda t: t.index_fill_(1, tl.tensor([1]), 2.0), lambda t: t.index_copy_(0, tl.tensor([2]),
                                                                                          tl.ones(1, 4)),
                 lambda t: t.masked_scatter_(tl.tensor([True, False, False, True]), tl.ones(8)),
                 lambda t: t.put_(tl.tensor([0]), tl.tensor([5.0])), lambda t: t.fill_diagonal_(3.0),
                 lambda t: t.index_reduce_(0, tl.tensor([1]), tl.ones(1, 4), "amax"),
                 lambda t: t.renorm_(2, 0, 1.0)]:
        version = x._version
        assert call(x) is x and x._version > version
    t = torch.zeros(3, 4)
    t.index_fill_(1, torch.tensor([1]), 2.0).index_copy_(0, torch.tensor([2]), torch.ones(1, 4))
    t.masked_scatter_(torch.tensor([True, False, False, True]), torch.ones(8)).put_(torch.tensor([0]),
                                                                                   torch.tensor([5.0]))
    t.fill_diagonal_(3.0).index_reduce_(0, torch.tensor([1]), torch.ones(1, 4), "amax").renorm_(2, 0, 1.0)
    _same(x, t)


@pytest.mark.parametrize("name,args", [("t_", ()), ("transpose_", (0, 2)), ("swapaxes_", (1, 0)),
                                       ("swapdims_", (-1, 0)), ("unsqueeze_", (1,)), ("squeeze_", ()),
                                       ("squeeze_", (1,)), ("squeeze_", ((0, 1),)),
                                       ("as_strided_", ((2, 2), (1, 2), 1))])
@pytest.mark.parametrize("shape", [(2, 1, 3), (3, 1), (1,)])
def test_inplace_views(name, args, shape):
    data = np.arange(float(np.prod(shape))).reshape(shape)
    try:
        want = getattr(torch.tensor(data), name)(*args)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            getattr(tl.tensor(data), name)(*args)
        return
    x = tl.tensor(data)
    version = x._version
    assert getattr(x, name)(*args) is x and x._version > version
    _same(x, want)
    assert x.stride() == want.stride() and x.storage_offset() == want.storage_offset()


def test_inplace_views_and_autograd():
    leaf = tl.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.t_()
    with pytest.raises(RuntimeError, match="out-of-place"):
        (leaf * 2).t_()
    with tl.no_grad():
        assert leaf.t_().shape == (3, 2)
    with pytest.raises(RuntimeError, match="cannot resize"):
        tl.zeros(2, requires_grad=True).resize_(3)


def test_resize():
    x = tl.arange(4.0)
    view = x[1:]
    assert x.resize_(2, 3) is x and x.shape == (2, 3)
    np.testing.assert_array_equal(x.reshape(-1)[:4].numpy(), [0, 1, 2, 3])  # the old elements are kept
    np.testing.assert_array_equal(view.numpy(), [1, 2, 3])
    y = tl.arange(6.0).view(2, 3)
    y.resize_(2)
    np.testing.assert_array_equal(y.numpy(), [0, 1])
    assert tl.zeros(2, 3).resize_as_(tl.zeros(5)).shape == (5,)
    assert tl.resize_as_(tl.zeros(2, 3), tl.zeros(1, 5)).shape == (1, 5)
    assert tl.zeros(2, 3).resize_(tl.Size([3, 2])).shape == (3, 2)
    with pytest.warns(UserWarning, match="deprecated"):
        assert tl.zeros(2, 3).resize(3, 2).shape == (3, 2)
    with pytest.warns(UserWarning, match="deprecated"), pytest.raises(RuntimeError, match="requested resize"):
        tl.zeros(2, 3).resize_as(tl.zeros(4))
    with pytest.raises(RuntimeError, match="negative dimension"):
        tl.zeros(2).resize_(-1)


def test_detach_():
    leaf = tl.ones(2, requires_grad=True)
    y = leaf * 2
    assert tl.detach_(y) is y and not y.requires_grad and y.grad_fn is None


def test_range_and_factories():
    with pytest.warns(UserWarning, match="deprecated"):
        cases = [((1, 4), {}), ((1, 4, 0.5), {}), ((1, 4), {"dtype": tl.int64}), ((0, 1, 0.3), {}),
                 ((4, 1, -1), {})]
        for args, kw in cases:
            t_kw = {k: getattr(torch, str(v).split(".")[-1]) for k, v in kw.items()}
            _same(tl.range(*args, **kw), torch.range(*args, **t_kw))
        with pytest.raises(RuntimeError):
            tl.range(1, 4, -1)
    _same(tl.scalar_tensor(2), torch.scalar_tensor(2))
    _same(tl.scalar_tensor(True), torch.scalar_tensor(True))
    _same(tl.scalar_tensor(2, dtype=tl.int64), torch.scalar_tensor(2, dtype=torch.int64))
    assert tl.scalar_tensor(1.5, requires_grad=True).requires_grad
    for size, layout in [((2, 3, 4), (0, 2, 1)), ((2, 3), (1, 0)), ((), ())]:
        ours, theirs = tl.empty_permuted(size, layout), torch.empty_permuted(size, layout)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    for layout in [(0, 2), (0, 2, 2)]:
        with pytest.raises(RuntimeError):
            tl.empty_permuted((2, 3, 4), layout)


def test_tensor_new_and_type_as():
    x, t = tl.tensor([1.0, 2.0], dtype=tl.float64), torch.tensor([1.0, 2.0], dtype=torch.float64)
    _same(x.new(), t.new())
    _same(x.new([1, 2]), t.new([1, 2]))
    _same(x.new((1, 2)), t.new((1, 2)))
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == tl.float64
    assert x.new(tl.Size([1, 2])).shape == (1, 2)
    with pytest.raises(TypeError):
        x.new(tl.tensor([1, 2]))
    _same(x.type_as(tl.ones(1, dtype=tl.int32)), t.type_as(torch.ones(1, dtype=torch.int32)))
    assert x.type_as(tl.ones(1, dtype=tl.float64)) is x


def _apply_and_map(lib):
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    x.apply_(lambda v: v * 2)
    x.map_(lib.ones(1, dtype=lib.float64), lambda a, b: a + b)
    x.map2_(lib.ones(3, dtype=lib.float64), lib.full((1,), 2.0, dtype=lib.float64), lambda a, b, c: a * c - b)
    return x, lib.tensor([1, 2]).apply_(lambda v: v * 1.7)


def test_apply_and_map():
    _same(_apply_and_map(tl), _apply_and_map(torch))
    with pytest.raises(TypeError, match="map_"):
        tl.ones(3, dtype=tl.float64).map_(tl.ones(3), lambda a, b: a)
    with pytest.raises(TypeError, match="map2_"):
        tl.ones(3, dtype=tl.float64).map2_(tl.ones(3), tl.ones(3, dtype=tl.float64), lambda a, b, c: a)
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(3, requires_grad=True).apply_(lambda v: v)


@pytest.mark.parametrize("case", [
    ((3, 2), [2, 3], {}), ((5, 2), 3, {"range": [0.0, 1.0, -1.0, 2.0]}), ((4, 3), [2, 1, 2], {"density": True}),
    ((6, 2), 2, {"weight": True}), ((0, 2), 2, {}),
])
def test_histogramdd(case):
    shape, bins, kw = case
    data = np.random.default_rng(0).uniform(-1, 1, shape)
    t_kw, l_kw = dict(kw), dict(kw)
    if kw.get("weight"):
        w = np.arange(shape[0], dtype=np.float64)
        t_kw["weight"], l_kw["weight"] = torch.tensor(w), tl.tensor(w)
    theirs = torch.histogramdd(torch.tensor(data), bins, **t_kw)
    ours = tl.histogramdd(tl.tensor(data), bins, **l_kw)
    _same(ours.hist, theirs.hist)
    _same(list(ours.bin_edges), list(theirs.bin_edges))


def test_histogram_edges_and_errors():
    for data, bins, kw in [([1.0, 1, 1], 2, {}), ([], 2, {}), ([1.0, 2, 1], 2, {"range": (0.0, 1.0)}),
                           ([1.0, 2, 1], [0.0, 1.5, 2.0, 5.0], {"weight": [1.0, 2, 3]})]:
        to = lambda m, v: m.tensor(v) if isinstance(v, list) else v  # noqa: E731
        theirs = torch.histogram(torch.tensor(data), to(torch, bins), **{k: to(torch, v) for k, v in kw.items()})
        ours = tl.histogram(tl.tensor(data), to(tl, bins), **{k: to(tl, v) for k, v in kw.items()})
        _same(tuple(ours), tuple(theirs))
        assert ours.hist is ours[0] and type(ours).__name__ == "histogram"
    for fn in [lambda m: m.histogram(m.tensor([1, 2]), 2), lambda m: m.histogram(m.tensor([1.0]), m.tensor([0, 1])),
               lambda m: m.histogram(m.tensor([1.0, float("nan")]), 2),
               lambda m: m.histogram(m.tensor([1.0, 3]), 2, range=(2.0, 1.0)),
               lambda m: m.histogram(m.tensor([1.0, 3]), 0)]:
        try:
            fn(torch)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(tl)


def test_gradient_spacing_forms():
    y = np.array([1.0, 2, 4, 7, 11])
    x = np.array([0.0, 1, 3, 4, 7])
    for kw in [{}, {"spacing": 2.0}, {"spacing": [2.0]}, {"edge_order": 2}]:
        _same(tl.gradient(tl.tensor(y), **kw), torch.gradient(torch.tensor(y), **kw))
    for order in (1, 2):
        _same(tl.gradient(tl.tensor(y), spacing=(tl.tensor(x),), edge_order=order),
              torch.gradient(torch.tensor(y), spacing=(torch.tensor(x),), edge_order=order))
        leaf = tl.tensor(y, requires_grad=True)
        assert gradcheck(lambda t, order=order: tl.gradient(t, spacing=(tl.tensor(x),), edge_order=order), (leaf,))
    m = np.arange(12.0).reshape(3, 4) ** 2
    _same(tl.gradient(tl.tensor(m), dim=[1], spacing=[3.0]), torch.gradient(torch.tensor(m), dim=[1], spacing=[3.0]))
    _same(tl.gradient(tl.tensor([1, 2, 4])), torch.gradient(torch.tensor([1, 2, 4])))
    for fn in [lambda lib: lib.gradient(lib.tensor([1.0, 2, 4]), edge_order=3),
               lambda lib: lib.gradient(lib.tensor([1.0, 2]), edge_order=2),
               lambda lib: lib.gradient(lib.tensor(m), spacing=[3.0])]:
        with pytest.raises(RuntimeError):
            fn(torch)
        with pytest.raises(RuntimeError):
            fn(tl)


def test_distance_errors():
    for fn in [lambda m: m.cdist(m.ones(3, 2), m.ones(4, 3)), lambda m: m.cdist(m.ones(3), m.ones(4)),
               lambda m: m.cdist(m.ones(3, 2), m.ones(4, 2), -1),
               lambda m: m.cdist(m.ones(3, 2), m.ones(4, 2), compute_mode="bad"),
               lambda m: m.cdist(m.ones(3, 2, dtype=m.int64), m.ones(4, 2, dtype=m.int64)),
               lambda m: m.cdist(m.ones(3, 2, dtype=m.float64), m.ones(4, 2)),
               lambda m: m.pdist(m.ones(3, 2, 2)), lambda m: m.pdist(m.ones(3, 2), -1),
               lambda m: m.pdist(m.ones(3, 2, dtype=m.int64)),
               lambda m: m.dist(m.ones(3, dtype=m.int64), m.zeros(3, dtype=m.int64)),
               lambda m: m.renorm(m.ones(2, 3), 0, 0, 3), lambda m: m.renorm(m.ones(2, 3), 2, 0, -3),
               lambda m: m.renorm(m.ones(3), 2, 0, 1)]:
        try:
            fn(torch)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(tl)
        else:
            raise AssertionError("expected PyTorch to raise")
    # zero distances have a zero gradient, as in PyTorch
    a = np.array([[0.0, 1.0], [2.0, 3.0]])
    for fn in [lambda m, x: m.cdist(x, x), lambda m, x: m.pdist(m.cat([x, x])), lambda m, x: m.dist(x, x)]:
        ours, theirs = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        fn(tl, ours).sum().backward()
        fn(torch, theirs).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())
    _same(tl.cdist(tl.ones(0, 2), tl.ones(4, 2)), torch.cdist(torch.ones(0, 2), torch.ones(4, 2)))
    _same(tl.pdist(tl.ones(1, 2)), torch.pdist(torch.ones(1, 2)))
    x = np.random.default_rng(0).normal(size=(30, 3))
    ours, theirs = tl.cdist(tl.tensor(x), tl.tensor(x[:5])), torch.cdist(torch.tensor(x), torch.tensor(x[:5]))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)  # the mm form: rounding


def test_tensor_metadata_methods():
    x, t = tl.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    _same(x.narrow_copy(1, 1, 2), t.narrow_copy(1, 1, 2))
    _same(tl.narrow_copy(x, 0, 1, 1), torch.narrow_copy(t, 0, 1, 1))
    assert not x.narrow_copy(1, 1, 2)._shares_storage(x)
    for make in [lambda m: m.zeros(2, 3).t(), lambda m: m.zeros(2, 3, 4).permute(2, 0, 1), lambda m: m.zeros(2, 1, 3)]:
        assert make(tl).dim_order() == make(torch).dim_order()
    with pytest.raises(RuntimeError, match="unique dim order"):
        tl.zeros(2, 1, 3).dim_order(ambiguity_check=True)
    assert x.is_set_to(x.view(2, 3)) and not x.is_set_to(x.clone()) and not x.is_set_to(x.t())
    assert x.const_data_ptr() == x.data_ptr() and not x.is_meta and not x.is_nested
    assert not tl.is_distributed(x) and tl.set_flush_denormal(True) is False
    for data, kw in [([1, 0, 2], {"size": 4}), ([[1, 0], [0, 2]], {"size": 1, "fill_value": -5}), (3, {"size": 2})]:
        _same(tl.nonzero_static(tl.tensor(data), **kw), torch.nonzero_static(torch.tensor(data), **kw))
    _same(tl.tensor([0, 3]).nonzero_static(size=2), torch.tensor([0, 3]).nonzero_static(size=2))
    out = tl.empty(0, dtype=tl.int64)
    assert tl.nonzero_static(tl.tensor([0, 5, 6]), size=3, out=out) is out
    _same(out, torch.nonzero_static(torch.tensor([0, 5, 6]), size=3))
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.nonzero_static(tl.ones(2), size=-1)
    y = tl.arange(6.)
    assert tl.as_strided_(y, (2, 2), (1, 2)) is y and y.tolist() == [[0.0, 2.0], [1.0, 3.0]]


@pytest.mark.parametrize("name,args,mean", [("exponential_", (2.0,), 0.5), ("geometric_", (0.25,), 4.0),
                                            ("log_normal_", (0.0, 0.5), float(np.exp(0.125))),
                                            ("cauchy_", (1.0, 0.5), None)])
def test_random_fills(name, args, mean):
    tl.manual_seed(0)
    x = tl.empty(20000, dtype=tl.float64)
    assert getattr(x, name)(*args) is x
    values = x.numpy()
    if mean is None:  # the Cauchy distribution has no mean: check its median and quartiles
        np.testing.assert_allclose(np.percentile(values, [25, 50, 75]), [0.5, 1.0, 1.5], atol=0.03)
    else:
        np.testing.assert_allclose(values.mean(), mean, rtol=0.05)
    g = tl.Generator().manual_seed(1)
    a = getattr(tl.empty(5), name)(*args, generator=g)
    g.manual_seed(1)
    assert tl.equal(getattr(tl.empty(5), name)(*args, generator=g), a)
    bad = {"exponential_": (0,), "geometric_": (1.5,), "log_normal_": (1, 0), "cauchy_": (0, -1)}[name]
    for lib in (torch, tl):
        with pytest.raises(RuntimeError):
            getattr(lib.empty(3), name)(*bad)
    if name != "geometric_":
        for lib in (torch, tl):
            with pytest.raises((RuntimeError, NotImplementedError)):
                getattr(lib.zeros(3, dtype=lib.int64), name)()
    else:
        assert (tl.zeros(50, dtype=tl.int64).geometric_(0.5) >= 1).all()


def test_fill():
    for make, value in [(lambda m: m.zeros(2, 3), 2.5), (lambda m: m.zeros(2, dtype=m.int64), 1.7),
                        (lambda m: m.zeros(2), None)]:
        v_tl = tl.tensor(1.5, dtype=tl.float64) if value is None else value
        v_t = torch.tensor(1.5, dtype=torch.float64) if value is None else value
        _same(tl.fill(make(tl), v_tl), torch.fill(make(torch), v_t))
    x = tl.ones(3, dtype=tl.float64, requires_grad=True)
    v = tl.tensor(2.0, dtype=tl.float64, requires_grad=True)
    assert gradcheck(lambda a, b: tl.fill(a, b), (x, v))


def test_fmax_fmin_nan_rules():
    a, b = [1.0, np.nan, 2.0, np.nan, 1.0], [np.nan, 3.0, 1.0, np.nan, 1.0]
    for name in ("fmax", "fmin"):
        _both(lambda m, x, y, name=name: getattr(m, name)(x, y), np.array(a), np.array(b))
        _both(lambda m, x, y, name=name: getattr(x, name)(y), np.array([1, 5]), np.array([2.5, 1.0]))
        with pytest.raises(TypeError, match="must be Tensor"):
            getattr(tl, name)(tl.ones(2), 1.5)
    ours, theirs = tl.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    tl.fmax(ours, tl.tensor([1.0, 3.0])).sum().backward()  # a tie goes to input, as in PyTorch
    torch.fmax(theirs, torch.tensor([1.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_channel_shuffle_and_norm_errors():
    for fn in [lambda m: m.channel_shuffle(m.ones(1, 4, 2), 3), lambda m: m.channel_shuffle(m.ones(4, 2), 2)]:
        for lib in (torch, tl):
            with pytest.raises(RuntimeError):
                fn(lib)
    with pytest.warns(UserWarning, match="deprecated"):
        tl.frobenius_norm(tl.ones(2), 0)


def test_normal():
    shapes = [((tl.zeros(3), 1.0), (3,)), ((0.0, tl.ones(2, 1)), (2, 1)), ((tl.zeros(3), tl.ones(2, 1)), (2, 3)),
              ((0.0, 1.0, (2, 3)), (2, 3))]
    for args, shape in shapes:
        assert tl.normal(*args).shape == shape
    assert tl.normal(0.0, 1.0, size=(2,), dtype=tl.float64).dtype == tl.float64
    tl.manual_seed(0)
    x = tl.normal(tl.full((20000,), 3.0, dtype=tl.float64), 2.0)
    np.testing.assert_allclose([x.mean().item(), x.std().item()], [3.0, 2.0], rtol=0.03)
    g = tl.Generator().manual_seed(4)
    a = tl.normal(tl.zeros(4), 1.0, generator=g)
    assert tl.equal(tl.normal(tl.zeros(4), 1.0, generator=g.manual_seed(4)), a)
    out = tl.empty(0)
    assert tl.normal(0.0, 1.0, (3,), out=out) is out and out.shape == (3,)
    mean, std = tl.zeros(3, requires_grad=True), tl.ones(3, requires_grad=True)
    sample = tl.normal(mean, std)
    sample.sum().backward()  # d/dmean = 1, d/dstd = the standard normal draw
    np.testing.assert_allclose(mean.grad.numpy(), 1.0)
    np.testing.assert_allclose(std.grad.numpy(), sample.detach().numpy(), rtol=1e-6)
    for fn, err in [(lambda m: m.normal(m.zeros(3), -1.0), RuntimeError),
                    (lambda m: m.normal(m.zeros(3, dtype=m.int64), 1.0), NotImplementedError),
                    (lambda m: m.normal(m.zeros(3), m.ones(2)), RuntimeError), (lambda m: m.normal(2, 3), TypeError)]:
        for lib in (torch, tl):
            with pytest.raises(err):
                fn(lib)


def test_tensor_storage_flags_and_module_load():
    x = tl.ones(2)
    assert not x.is_pinned() and not x.is_shared() and not x.is_distributed()
    p = tl.zeros(2)
    assert p.module_load(x) is not p and tl.equal(p, x)
    assert tl.equal(p.module_load(tl.full((2,), 3.0), assign=True), tl.full((2,), 3.0))


@pytest.mark.parametrize("case", [
    (lambda m: m.dot, {}, [(3, 2), (3, 2)]),
    (lambda m: m.mul, {"in_dims": (0, None)}, [(3, 2), (2,)]),
    (lambda m: m.mv, {"in_dims": (None, 1), "out_dims": 1}, [(4, 2), (2, 5)]),
    (lambda m: (lambda x: (x.sum(), x * 2)), {"out_dims": (0, 1)}, [(3, 2)]),
    (lambda m: m.outer, {"in_dims": -1}, [(2, 3), (4, 3)]),
])
def test_vmap(case):
    make, kw, shapes = case
    arrays = [np.random.default_rng(i).normal(size=s) for i, s in enumerate(shapes)]
    _same(tl.vmap(make(tl), **kw)(*[tl.tensor(a) for a in arrays]),
          torch.vmap(make(torch), **kw)(*[torch.tensor(a) for a in arrays]))
    leaves = tuple(tl.tensor(a, requires_grad=True) for a in arrays)
    assert gradcheck(tl.vmap(make(tl), **kw), leaves)


def test_vmap_errors():
    for call in [lambda m: m.vmap(m.dot)(m.ones(3, 2), m.ones(4, 2)),
                 lambda m: m.vmap(m.mul)(m.ones(3), 2.0),
                 lambda m: m.vmap(m.mul, in_dims=(0, 0, 0))(m.ones(3), m.ones(3)),
                 lambda m: m.vmap(m.mul, in_dims=(None, None))(m.ones(3), m.ones(3)),
                 lambda m: m.vmap(m.sum, in_dims=2)(m.ones(3)),
                 lambda m: m.vmap(lambda x: 1.0)(m.ones(3))]:
        for lib in (torch, tl):
            with pytest.raises(ValueError):
                call(lib)
    with pytest.raises(RuntimeError, match="randomness"):
        tl.vmap(tl.sum, randomness="sometimes")


def test_resize_keeps_numpy_memory():
    a = np.zeros(4)
    t = tl.from_numpy(a)
    t.resize_(2, 2)  # fits: only the shape changes
    for make in (torch.from_numpy, tl.from_numpy):
        with pytest.raises(RuntimeError, match="not resizable"):
            make(np.zeros(4)).resize_(10)


def test_trapezoid_family_on_0d_input():
    for name, kw in [("trapz", {}), ("trapezoid", {}), ("cumulative_trapezoid", {"dx": 0.5})]:
        for lib in (torch, tl):
            with pytest.raises(IndexError):
                getattr(lib, name)(lib.tensor(1.0), **kw)


def test_set_():
    def run(lib):
        a = lib.arange(6.0)
        b = lib.zeros(2).set_(a)
        shares = b.data_ptr() == a.data_ptr()
        c = lib.zeros(2).set_(a, 1, (2, 2), (2, 1))
        d = lib.zeros(2).set_(a, 1, (2, 2))
        e = lib.zeros(2).set_()
        f = lib.zeros(2).set_(a, 4, (2, 2), (2, 1))  # grows a's memory, keeping its values
        return shares, b.clone(), c.clone(), d.clone(), e, f[0].clone(), a.numel()

    ours, theirs = run(tl), run(torch)
    assert ours[0] and theirs[0] and ours[-1] == theirs[-1]
    _same(ours[1:-1], theirs[1:-1])
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match="Could not set tensor"):
            lib.zeros(2).set_(lib.zeros(2, dtype=lib.float64))
        with pytest.raises(RuntimeError, match="leaf Variable"):
            lib.zeros(2, requires_grad=True).set_(lib.zeros(2))


def test_nn_functional_exports():
    x = np.random.default_rng(0).normal(size=(1, 6, 2))
    for name, args in [("pdist", (x[0],)), ("channel_shuffle", (x, 3)), ("native_channel_shuffle", (x, 2))]:
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        rest = [a for a in args if not isinstance(a, np.ndarray)]
        _same(getattr(tl.nn.functional, name)(*[tl.tensor(a) for a in arrays], *rest),
              getattr(torch.nn.functional, name)(*[torch.tensor(a) for a in arrays], *rest))


def test_storage_handles():
    data = np.arange(6.0)
    for lib in (tl, torch):
        a = lib.tensor(data)
        s = a[2:].untyped_storage()
        assert s.data_ptr() == a.data_ptr() and s.nbytes() == 48 and len(s) == 48 and s.element_size() == 1
        assert s.tolist()[8:16] == list(np.array([1.0]).view(np.uint8)) and s[8] == s.tolist()[8]
        assert lib.is_storage(s) and not lib.is_storage(a)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        typed = tl.tensor(data)[1:].storage()
    assert typed.size() == 6 and typed.dtype == tl.float64 and typed[1] == 1.0 and typed.tolist() == data.tolist()
    assert typed.untyped().nbytes() == 48 and typed.element_size() == 8
    a = tl.zeros(4)
    assert a[1:].untyped_storage() == a.untyped_storage() and a.untyped_storage() != tl.zeros(4).untyped_storage()


def test_poisson():
    tl.manual_seed(0)
    rates = tl.tensor([0.0, 0.5, 4.0, 100.0], dtype=tl.float64).expand(5000, 4)
    x = tl.poisson(rates)
    assert x.dtype == tl.float64 and x.shape == (5000, 4)
    np.testing.assert_allclose(x.mean(0).numpy(), [0.0, 0.5, 4.0, 100.0], rtol=0.05)
    assert bool((x == x.round()).all())
    tl.manual_seed(1)
    a = tl.poisson(tl.full((5,), 3.0))
    tl.manual_seed(1)
    assert tl.equal(tl.poisson(tl.full((5,), 3.0)), a)
    g = tl.Generator().manual_seed(2)
    assert tl.poisson(tl.ones(3), generator=g).shape == (3,)
    leaf = tl.ones(3, requires_grad=True)
    tl.poisson(leaf).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), 0.0)
    for bad, err in [(lambda m: m.poisson(m.tensor([-1.0, 2.0])), RuntimeError),
                     (lambda m: m.poisson(m.tensor([float("nan")])), RuntimeError),
                     (lambda m: m.poisson(m.tensor([1, 2])), NotImplementedError)]:
        for lib in (torch, tl):
            with pytest.raises(err):
                bad(lib)
