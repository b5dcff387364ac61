"""Shape compositions against PyTorch: values, dtypes and shapes (0-d and empty included), out=,
gradients, and the errors PyTorch raises."""

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float64", start=0):
    a = (np.arange(int(np.prod(shape))) + start).reshape(shape).astype(dtype)
    return tl.tensor(a), torch.tensor(a)


def _same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def _grad_matches(fn, shapes):
    """fn(module, *tensors) summed with fixed weights: torchlite's input gradients equal PyTorch's."""
    ours = [tl.tensor(np.random.default_rng(i).normal(size=s), requires_grad=True) for i, s in enumerate(shapes)]
    theirs = [torch.tensor(o.detach().numpy(), requires_grad=True) for o in ours]

    def total(m, res):
        res = res if isinstance(res, tuple) else (res,)
        return sum((r * m.arange(r.numel(), dtype=m.float64).reshape(r.shape)).sum() for r in res)

    total(tl, fn(tl, *ours)).backward()
    total(torch, fn(torch, *theirs)).backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy())


SHAPES = [(), (0,), (3,), (2, 3), (2, 0), (2, 1, 3)]


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", SHAPES)
def test_atleast(name, shape):
    x, y = _pair(shape)
    _same(getattr(tl, name)(x), getattr(torch, name)(y))
    _same(getattr(tl, name)(x, x), getattr(torch, name)(y, y))
    _same(getattr(tl, name)([x]), getattr(torch, name)([y]))
    assert getattr(tl, name)(x)._is_view or getattr(tl, name)(x) is x


STACK_CASES = [[(3,), (2,)], [(2, 2), (2, 1)], [(), ()], [(0,), (2,)], [(2, 0), (2, 3)]]


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shapes", STACK_CASES + [[(3,), (3,)], [(2, 3), (2, 3)], [(2, 2, 1), (2, 2, 3)]])
def test_stacks(name, shapes):
    pairs = [_pair(s, start=10 * i) for i, s in enumerate(shapes)]
    try:
        want = getattr(torch, name)([p[1] for p in pairs])
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(tl, name)([p[0] for p in pairs])
        return
    _same(getattr(tl, name)([p[0] for p in pairs]), want)
    out = tl.empty(0, dtype=tl.float64)
    assert getattr(tl, name)([p[0] for p in pairs], out=out) is out
    _same(out, want)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_stacks_gradients_and_errors(name):
    _grad_matches(lambda m, a, b: getattr(m, name)([a, b]), [(2, 3), (2, 3)])
    with pytest.raises(RuntimeError, match="non-empty"):
        getattr(tl, name)([])


def test_stack_promotes_dtypes():
    _same(tl.hstack([tl.ones(2, dtype=tl.int32), tl.ones(1)]), torch.hstack([torch.ones(2, dtype=torch.int32), torch.ones(1)]))


def test_concat_aliases():
    (a, ta), (b, tb) = _pair((2, 3)), _pair((1, 3), start=7)
    _same(tl.concat([a, b]), torch.concat([ta, tb]))
    _same(tl.concatenate([a, b.reshape(3, 1).t()], axis=0), torch.concatenate([ta, tb], axis=0))
    _same(tl.concat((a, a), dim=1), torch.concat((ta, ta), dim=1))
    out = tl.empty(0, dtype=tl.float64)
    tl.concatenate([a, b], dim=0, out=out)
    _same(out, torch.cat([ta, tb]))
    _grad_matches(lambda m, x, y: m.concat([x, y], dim=-1), [(2, 1), (2, 2)])


SPLITS = [3, 1, 7, [1, 3], [-2, 1, 9], [], [0], (2, 2)]


@pytest.mark.parametrize("shape,dim", [((5,), 0), ((4, 6), 1), ((4, 6), -2), ((0, 3), 0), ((2, 7, 3), 1)])
@pytest.mark.parametrize("spec", SPLITS)
def test_tensor_split(shape, dim, spec):
    x, y = _pair(shape)
    _same(tl.tensor_split(x, spec, dim), torch.tensor_split(y, spec, dim))
    _same(x.tensor_split(spec, dim=dim), y.tensor_split(spec, dim=dim))
    tensor_spec = tl.tensor(spec, dtype=tl.int64)
    _same(tl.tensor_split(x, tensor_spec, dim), torch.tensor_split(y, torch.tensor(spec, dtype=torch.int64), dim))
    assert all(p._is_view for p in tl.tensor_split(x, spec, dim))


def test_tensor_split_errors_and_gradient():
    x = tl.arange(5)
    for m, t in ((torch, torch.arange(5)), (tl, x)):
        for bad in (0, m.tensor([1.0]), m.tensor([[1]])):
            with pytest.raises(RuntimeError):
                m.tensor_split(t, bad)
        with pytest.raises(RuntimeError):
            m.tensor_split(m.tensor(1), 2)
    with pytest.raises(RuntimeError, match="larger than 0"):
        tl.tensor_split(x, 0)
    _grad_matches(lambda m, a: m.tensor_split(a, [1, 3], dim=1), [(2, 5)])


@pytest.mark.parametrize("name,shape", [("hsplit", (6,)), ("hsplit", (2, 4)), ("vsplit", (4, 2)), ("dsplit", (1, 2, 4)),
                                        ("hsplit", (2, 0))])
@pytest.mark.parametrize("spec", [2, 1, [1, 3], [5]])
def test_hvd_split(name, shape, spec):
    x, y = _pair(shape)
    try:
        want = getattr(torch, name)(y, spec)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match="divisible"):
            getattr(tl, name)(x, spec)
        assert "divisible" in str(e)
        return
    _same(getattr(tl, name)(x, spec), want)
    _same(getattr(x, name)(spec), getattr(y, name)(spec))


@pytest.mark.parametrize("name,shape", [("hsplit", ()), ("vsplit", (3,)), ("dsplit", (2, 2))])
def test_hvd_split_needs_dims(name, shape):
    for m, (x, y) in ((tl, _pair(shape)), (torch, _pair(shape))):
        with pytest.raises(RuntimeError, match="at least"):
            getattr(m, name)(x if m is tl else y, 1)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (0, 2), (2, 0, 1)])
def test_flips_and_ravel(shape):
    x, y = _pair(shape)
    _same(tl.flipud(x), torch.flipud(y))
    _same(x.flipud(), y.flipud())
    _same(tl.ravel(x), torch.ravel(y))
    _same(x.ravel(), y.ravel())
    _same(tl.ravel(x.t() if x.dim() == 2 else x), torch.ravel(y.t() if y.dim() == 2 else y))
    if len(shape) >= 2:
        _same(tl.fliplr(x), torch.fliplr(y))
        _same(x.fliplr(), y.fliplr())
    else:
        with pytest.raises(RuntimeError, match=">= 2-d"):
            tl.fliplr(x)
    with pytest.raises(RuntimeError, match=">= 1-d"):
        tl.flipud(tl.tensor(1.0))
    _grad_matches(lambda m, a: (m.fliplr(a), m.flipud(a), m.ravel(a)), [(2, 3)])


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("shape,dims", [((2, 3), (0, 1)), ((2, 3), (1, 0)), ((2, 3, 4), (2, 0)), ((2, 3, 4), (-1, 1)),
                                        ((0, 3), (0, 1))])
def test_rot90(k, shape, dims):
    x, y = _pair(shape)
    _same(tl.rot90(x, k, dims), torch.rot90(y, k, dims))
    _same(x.rot90(k, dims), y.rot90(k, dims))


def test_rot90_errors_and_gradient():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="rotation dims == 2"):
            m.rot90(m.ones(2, 2), 1, [0])
        with pytest.raises(RuntimeError, match="different"):
            m.rot90(m.ones(2, 2), 1, [1, 1])
        with pytest.raises(RuntimeError, match="total dims >= 2"):
            m.rot90(m.ones(2), 1, [0, 1])
    _same(tl.rot90(tl.ones(2, 2)), torch.rot90(torch.ones(2, 2)))
    _grad_matches(lambda m, a: m.rot90(a, 1, (0, 1)), [(2, 3)])
    _grad_matches(lambda m, a: m.rot90(a, -1, (1, 2)), [(2, 3, 2)])


@pytest.mark.parametrize("shapes", [[(2, 3), (6,)], [(), (1, 1)], [(0,), (0, 3)], [(2, 2), (4,)]])
def test_reshape_and_view_as(shapes):
    (x, y), (o, p) = _pair(shapes[0]), _pair(shapes[1])
    _same(x.reshape_as(o), y.reshape_as(p))
    _same(x.view_as(o), y.view_as(p))
    _same(x.t().reshape_as(o) if x.dim() == 2 else x, y.t().reshape_as(p) if y.dim() == 2 else y)


BLOCKS = [[(2, 2), (1, 3)], [(), (2,)], [(0,), (2, 1)], [(2, 0), (0, 2)], [(1,)], []]


@pytest.mark.parametrize("shapes", BLOCKS)
def test_block_diag(shapes):
    pairs = [_pair(s, start=1 + 5 * i) for i, s in enumerate(shapes)]
    _same(tl.block_diag(*[p[0] for p in pairs]), torch.block_diag(*[p[1] for p in pairs]))


def test_block_diag_promotes_errors_and_gradient():
    a, b = tl.ones(2, dtype=tl.int32), tl.tensor(2.5)
    _same(tl.block_diag(a, b), torch.block_diag(torch.ones(2, dtype=torch.int32), torch.tensor(2.5)))
    with pytest.raises(RuntimeError, match="2 or fewer dimensions"):
        tl.block_diag(tl.ones(1, 1, 1))
    _grad_matches(lambda m, x, y, z: m.block_diag(x, y, z), [(2, 2), (3,), ()])


@pytest.mark.parametrize("sizes", [[3], [2, 3], [2, 0], [1, 2, 2], [0]])
def test_cartesian_prod(sizes):
    pairs = [_pair((n,), start=3 * i) for i, n in enumerate(sizes)]
    _same(tl.cartesian_prod(*[p[0] for p in pairs]), torch.cartesian_prod(*[p[1] for p in pairs]))


def test_cartesian_prod_errors_and_gradient():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="1D vector"):
            m.cartesian_prod(m.ones(2, 2))
        with pytest.raises(RuntimeError, match="same dtype"):
            m.cartesian_prod(m.ones(2), m.ones(2, dtype=m.int64))
    _grad_matches(lambda m, a, b: m.cartesian_prod(a, b), [(2,), (3,)])


@pytest.mark.parametrize("n", [0, 1, 3, 4])
@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(n, r, with_replacement):
    x, y = _pair((n,), dtype="int64")
    _same(tl.combinations(x, r, with_replacement), torch.combinations(y, r, with_replacement))


def test_combinations_errors_and_gradient():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="1D vector"):
            m.combinations(m.ones(2, 2))
        with pytest.raises(RuntimeError, match="non-negative"):
            m.combinations(m.ones(2), -1)
    _grad_matches(lambda m, a: m.combinations(a, 2, with_replacement=True), [(3,)])


@pytest.mark.parametrize("sa,sb", [((2, 2), (2, 3)), ((), ()), ((3,), (2,)), ((2,), (2, 3)), ((2, 1, 2), (3, 2)),
                                   ((0, 2), (2, 2)), ((2,), ())])
def test_kron(sa, sb):
    (a, ta), (b, tb) = _pair(sa, start=1), _pair(sb, start=2)
    _same(tl.kron(a, b), torch.kron(ta, tb))
    _same(a.kron(b), ta.kron(tb))
    out = tl.empty(0, dtype=tl.float64)
    assert tl.kron(a, b, out=out) is out
    _same(out, torch.kron(ta, tb))


def test_kron_dtype_and_gradient():
    _same(tl.kron(tl.ones(2, dtype=tl.int32), tl.tensor([1.5])), torch.kron(torch.ones(2, dtype=torch.int32), torch.tensor([1.5])))
    _grad_matches(lambda m, a, b: m.kron(a, b), [(2, 3), (3, 2)])


@pytest.mark.parametrize("shape,ishape,dim", [((3, 4), (3, 2), 1), ((3, 4), (1, 4), 0), ((3, 4), (1, 2), 1),
                                              ((3, 4), (5,), None), ((2, 3, 4), (2, 1, 4), -2), ((3,), (0,), 0)])
def test_take_along_dim(shape, ishape, dim):
    x, y = _pair(shape)
    bound = shape[dim] if dim is not None else int(np.prod(shape))
    idx = np.random.default_rng(0).integers(0, bound, size=ishape)
    _same(tl.take_along_dim(x, tl.tensor(idx), dim), torch.take_along_dim(y, torch.tensor(idx), dim))
    _same(x.take_along_dim(tl.tensor(idx), dim), y.take_along_dim(torch.tensor(idx), dim))
    out = tl.empty(0, dtype=tl.float64)
    tl.take_along_dim(x, tl.tensor(idx), dim, out=out)
    _same(out, torch.take_along_dim(y, torch.tensor(idx), dim))


def test_take_along_dim_errors_and_gradient():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="Long"):
            m.take_along_dim(m.ones(2, 2), m.ones(2, 2, dtype=m.int32), 0)
        with pytest.raises(RuntimeError, match="same number of dimensions"):
            m.take_along_dim(m.ones(2, 2), m.ones(2, dtype=m.int64), 0)
    idx = [[0, 2, 2], [1, 1, 0]]
    _grad_matches(lambda m, a: m.take_along_dim(a, m.tensor(idx), 1), [(2, 3)])
    _grad_matches(lambda m, a: m.take_along_dim(a, m.tensor([5, 0, 5])), [(2, 3)])


@pytest.mark.parametrize("shape,repeats,dim", [((3,), 2, None), ((2, 3), 2, 1), ((2, 3), [1, 0, 2], 1), ((2, 3), [3], None),
                                               ((2, 3), 0, 0), ((), 3, None), ((0, 2), 2, 0), ((2, 3), [2, 1], -2)])
def test_repeat_interleave(shape, repeats, dim):
    x, y = _pair(shape)
    rt, rp = (tl.tensor(repeats), torch.tensor(repeats)) if isinstance(repeats, list) else (repeats, repeats)
    _same(tl.repeat_interleave(x, rt, dim), torch.repeat_interleave(y, rp, dim))
    _same(x.repeat_interleave(rt, dim), y.repeat_interleave(rp, dim))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_repeat_interleave_indices(dtype):
    for counts in ([2, 0, 1], [], [0]):
        _same(tl.repeat_interleave(tl.tensor(counts, dtype=getattr(tl, dtype))),
              torch.repeat_interleave(torch.tensor(counts, dtype=getattr(torch, dtype))))


def test_repeat_interleave_errors_and_gradient():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="same size as input"):
            m.repeat_interleave(m.ones(2), m.tensor([1, 2, 3]))
        with pytest.raises(RuntimeError, match="can not be negative"):
            m.repeat_interleave(m.ones(2), m.tensor([1, -1]))
        with pytest.raises(RuntimeError, match="non-negative"):
            m.repeat_interleave(m.ones(2), -1)
        with pytest.raises(RuntimeError, match="0-dim or 1-dim"):
            m.repeat_interleave(m.ones(2, 2), m.tensor([[1]]))
    _grad_matches(lambda m, a: m.repeat_interleave(a, 2, dim=1), [(2, 3)])
    _grad_matches(lambda m, a: m.repeat_interleave(a, m.tensor([2, 0, 1]), dim=1), [(2, 3)])
    _grad_matches(lambda m, a: m.repeat_interleave(a, 3), [(2, 2)])


def test_take_along_dim_shapes_must_broadcast():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="must match"):
            m.take_along_dim(m.ones(3, 4), m.zeros(2, 1, dtype=m.int64), 1)
