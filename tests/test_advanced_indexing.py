"""Advanced indexing (x[tensor], x[mask], lists, mixed with basic items; setitem, index_put_
with accumulate), nonzero/where/argwhere, embedding and one_hot, and the error paths of the
indexing operators (bounds, dtypes, shapes). Values are checked against NumPy (whose
advanced-indexing rules PyTorch follows) and, for gradients, against PyTorch when installed."""

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F
from helpers import TORCH, assert_close

E = Ellipsis
A = np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5)
I2 = np.array([1, 3])
J2 = np.array([0, 2])
M43 = (A[:, :, 0] % 3) == 0  # a (4, 3) mask

GET_CASES = [
    I2, [0, 2, 2], [[0, 1], [3, 2]], [-1, 0],
    (I2, J2), (I2, slice(None), np.array([4, 0])), (slice(None), J2, np.array([1, 4])),
    (I2, 1, J2), (0, J2), (slice(1, None), J2), (E, np.array([4, 4, 0])), (None, I2), (I2, None, 2),
    (np.array([[1], [2]]), J2), (slice(None), np.array([[0], [2]]), np.array([[1, 2]])),
    M43, A[:, 0, 0] > 20, (slice(None), A[0, :, 0] > 2), (M43, 1), (1, A[1] > 25),
    [True, False, True, True], (slice(None), slice(None), [4, 0, 4]),
    (np.array([], dtype=np.int64),), (slice(None), np.zeros((0, 2), np.int64)),
    # A bool scalar is an advanced index of a new dim (found by the fuzzer): it broadcasts with idx.
    (True, 1, np.array([[0, 2], [1, 1]])), (False, 1), (True, I2),
]


def case_id(c):
    return repr(c).replace("\n", "").replace(" ", "")[:60]


def _to_tl(index):
    conv = lambda i: tl.tensor(i) if isinstance(i, np.ndarray) else i
    return tuple(conv(i) for i in index) if isinstance(index, tuple) else conv(index)


@pytest.mark.parametrize("index", GET_CASES, ids=case_id)
def test_getitem_vs_numpy(index):
    x = tl.tensor(A)
    r = x[_to_tl(index)]
    assert_close(r, A[index])
    assert not r._shares_storage(x)


@pytest.mark.parametrize("index", GET_CASES[:12], ids=case_id)
def test_getitem_noncontiguous_self(index):
    base = np.ascontiguousarray(A.transpose(2, 1, 0))
    x = tl.tensor(base).permute(2, 1, 0)
    assert not x.is_contiguous()
    assert_close(x[_to_tl(index)], A[index])


@pytest.mark.parametrize("dtype", [tl.int32, tl.int64, tl.bool, tl.float16, tl.bfloat16])
def test_getitem_dtypes(dtype):
    x = tl.tensor(A).to(dtype)
    r = x[tl.tensor([2, 0]), 1:]
    assert r.dtype == dtype and r.shape == (2, 2, 5)
    assert_close(r.float(), x.float()[tl.tensor([2, 0]), 1:])


def test_int32_indices_and_numpy_array_index():
    x = tl.tensor(A)
    assert_close(x[tl.tensor([3, 1], dtype=tl.int32)], A[[3, 1]])
    assert_close(x[np.array([3, 1])], A[[3, 1]])
    assert_close(x[tl.tensor([0, 1, 0, 0], dtype=tl.uint8)], A[np.array([False, True, False, False])])


SET_CASES = [I2, (I2, J2), (slice(None), J2, np.array([1, 4])), (I2, slice(None), np.array([4, 0])), M43,
             (E, A[0, 0] > 1), (0, J2)]


@pytest.mark.parametrize("index", SET_CASES, ids=case_id)
def test_setitem_vs_numpy(index):
    x = tl.tensor(A)
    e = A.copy()
    shape = e[index].shape
    v = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 100
    x[_to_tl(index)] = tl.tensor(v)
    e[index] = v
    assert_close(x, e)
    x[_to_tl(index)] = 7  # a number broadcasts
    e[index] = 7
    assert_close(x, e)


def test_setitem_broadcasts_and_converts_the_value():
    x = tl.zeros(4, 3, dtype=tl.int64)
    x[tl.tensor([0, 2])] = tl.tensor([1.9, 2.0, 3.0])  # float values into an int tensor
    assert x.tolist() == [[1, 2, 3], [0, 0, 0], [1, 2, 3], [0, 0, 0]]
    x[x > 1] = -1
    assert x.tolist() == [[1, -1, -1], [0, 0, 0], [1, -1, -1], [0, 0, 0]]
    v = x._version
    x[[1]] = 5
    assert x._version > v and x[1].tolist() == [5, 5, 5]


def test_setitem_through_a_view_writes_the_base():
    base = tl.zeros(3, 4)
    base[1:][tl.tensor([0, 1]), tl.tensor([3, 0])] = 2.0
    e = np.zeros((3, 4), np.float32)
    e[1:][[0, 1], [3, 0]] = 2
    assert_close(base, e)


def test_index_put_accumulate_with_duplicates():
    x = tl.zeros(5)
    x.index_put_((tl.tensor([0, 0, 3, 0]),), tl.tensor([1.0, 2.0, 3.0, 4.0]), accumulate=True)
    assert x.tolist() == [7.0, 0.0, 0.0, 3.0, 0.0]
    y = tl.index_put(tl.zeros(2, 2), (tl.tensor([1]), None), tl.tensor(1.5))
    assert y.tolist() == [[0.0, 0.0], [1.5, 1.5]]


def test_getitem_and_setitem_gradients_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((4, 3, 5))
    key_np = (np.array([1, 1, 3]), slice(None), np.array([0, 4, 0]))
    x = tl.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    tkey = (torch.tensor(key_np[0]), slice(None), torch.tensor(key_np[2]))
    g = np.random.default_rng(1).standard_normal((3, 3))
    x[_to_tl(key_np)].backward(tl.tensor(g))
    tx[tkey].backward(torch.tensor(g))
    assert_close(x.grad, tx.grad.numpy())
    assert x[_to_tl(key_np)].grad_fn.name() == "IndexBackward0"
    # setitem on a non-leaf: values' gradient flows through index_put_
    v = tl.tensor(np.ones((3, 3)), requires_grad=True)
    y = tl.tensor(a, requires_grad=True) * 1
    y[_to_tl(key_np)] = v * 2
    y.sum().backward()
    tv = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(a, requires_grad=True) * 1
    ty[tkey] = tv * 2
    ty.sum().backward()
    assert_close(v.grad, tv.grad.numpy())


def test_mask_getitem_gradient():
    x = tl.tensor(A.astype(np.float64), requires_grad=True)
    m = tl.tensor(M43)
    x[m].sum().backward()
    assert_close(x.grad, np.broadcast_to(M43[:, :, None], A.shape).astype(np.float64))


@pytest.mark.parametrize(
    "index, exc, msg",
    [
        (np.array([4]), IndexError, "index 4 is out of bounds for dimension 0 with size 4"),
        ((slice(None), np.array([-4])), IndexError, "index -4 is out of bounds for dimension 1 with size 3"),
        ((I2, np.array([0, 1, 2])), IndexError, r"shape mismatch: indexing tensors could not be broadcast together"),
        (np.ones((3, 3), bool), IndexError, r"The shape of the mask \[3, 3\] at index 0 does not match"),
        ((0, 0, 0, I2), IndexError, "too many indices for tensor of dimension 3"),
        (np.array([1.0]), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
        ("a", IndexError, "got str"),
    ],
    ids=case_id,
)
def test_getitem_errors(index, exc, msg):
    with pytest.raises(exc, match=msg):
        tl.tensor(A)[_to_tl(index)]


def test_setitem_errors():
    x = tl.zeros(4, 3)
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape \\[2\\] cannot be broadcast"):
        x[tl.tensor([0, 1, 2])] = tl.ones(2)
    with pytest.raises(IndexError, match="out of bounds"):
        x[tl.tensor([9])] = 1.0
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        x.index_put_((tl.tensor([0]),), tl.ones(3, dtype=tl.float64))


# ---- nonzero / where / argwhere ----------------------------------------------------------------

def test_nonzero_forms():
    a = np.array([[0, 1.5, 0], [2, 0, -1]])
    x = tl.tensor(a)
    assert_close(tl.nonzero(x), np.argwhere(a))
    assert_close(x.nonzero(), np.argwhere(a))
    for got, e in zip(tl.nonzero(x, as_tuple=True), np.nonzero(a)):
        assert_close(got, e)
    t = x.nonzero(as_tuple=True)
    assert isinstance(t, tuple) and len(t) == 2
    assert_close(x[t], a[np.nonzero(a)])
    for got, e in zip(tl.where(x > 0), np.nonzero(a > 0)):
        assert_close(got, e)
    assert_close(tl.argwhere(x), np.argwhere(a))
    out = tl.empty(0, dtype=tl.int64)
    assert tl.nonzero(x, out=out) is out and out.shape == (3, 2)
    s = tl.nonzero(tl.tensor(3.0), as_tuple=True)
    assert len(s) == 1 and s[0].tolist() == [0]
    assert tl.nonzero(tl.tensor(0.0)).shape == (0, 0)
    assert not tl.nonzero(tl.ones(2, requires_grad=True)).requires_grad


# ---- error paths of the indexing operators ------------------------------------------------------

@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda x: x.index_select(0, tl.tensor([4])), IndexError, "index out of range in self"),
        (lambda x: x.index_select(0, tl.tensor([-1])), IndexError, "index out of range in self"),
        (lambda x: x.index_select(0, tl.tensor([[0]])), IndexError, "Index is supposed to be a vector"),
        (lambda x: x.index_select(0, tl.tensor([0.0])), RuntimeError, "Expected dtype int32 or int64 for index"),
        (lambda x: x.index_select(2, tl.tensor([0])), IndexError, "Dimension out of range"),
        (lambda x: x.gather(1, tl.tensor([[3]])), RuntimeError, "index 3 is out of bounds for dimension 1 with size 3"),
        (lambda x: x.gather(1, tl.tensor([[-1]])), RuntimeError, "index -1 is out of bounds"),
        (lambda x: x.gather(1, tl.tensor([0])), RuntimeError, "Index tensor must have the same number of dimensions"),
        (lambda x: x.gather(1, tl.zeros(5, 1, dtype=tl.int64)), RuntimeError, "Size does not match at dimension 0"),
        (lambda x: x.gather(1, tl.zeros(1, 1)), RuntimeError, "Expected dtype int32 or int64 for index"),
        (lambda x: x.scatter(0, tl.tensor([[4]]), 1.0), RuntimeError, "index 4 is out of bounds for dimension 0"),
        (lambda x: x.scatter(0, tl.tensor([[0, 0]]), tl.ones(1, 1)), RuntimeError, "no larger size than src"),
        (lambda x: x.scatter(0, tl.tensor([[0]]), tl.ones(1, 1, dtype=tl.float64)), RuntimeError,
         "Expected self.dtype to be equal to src.dtype"),
        (lambda x: x.scatter(0, tl.tensor([[0]]), tl.ones(1, 1), reduce="max"), RuntimeError,
         "reduce argument must be either add or multiply"),
        (lambda x: x.scatter_reduce(0, tl.tensor([[0]]), tl.ones(1, 1), "add"), RuntimeError,
         "reduce argument must be either sum, prod, mean, amax or amin"),
        (lambda x: x.scatter_add(1, tl.tensor([[0, 7]]), tl.ones(1, 2)), RuntimeError, "index 7 is out of bounds"),
        (lambda x: x.index_add(0, tl.tensor([5]), tl.ones(1, 3)), IndexError, "index 5 is out of bounds"),
        (lambda x: x.index_add(0, tl.tensor([0, 1]), tl.ones(1, 3)), RuntimeError, "Number of indices"),
        (lambda x: x.index_add(0, tl.tensor([0]), tl.ones(1, 2)), RuntimeError, "source tensor shape must match self"),
        (lambda x: x.masked_fill(tl.ones(4, 3), 1.0), RuntimeError, "only supports boolean masks"),
        (lambda x: x.masked_fill(tl.ones(4, 3, dtype=tl.bool), tl.ones(2)), RuntimeError,
         "only supports a 0-dimensional value tensor"),
        (lambda x: x.clone().masked_fill_(tl.ones(2, 4, 3, dtype=tl.bool), 1.0), RuntimeError, "cannot be broadcast"),
        (lambda x: x.masked_select(tl.ones(4, 3)), RuntimeError, "expected BoolTensor for mask"),
        (lambda x: x.take(tl.tensor([12])), IndexError, "out of range: tried to access index 12 on a tensor of 12"),
        (lambda x: x.take(tl.tensor([-13])), IndexError, "tried to access index -13"),
        (lambda x: x.take(tl.tensor([0], dtype=tl.int32)), TypeError, "Expected a long tensor for index"),
    ],
)
def test_indexing_op_errors(call, exc, msg):
    x = tl.zeros(4, 3)
    with pytest.raises(exc, match=msg):
        call(x)


def test_inplace_variants_and_out():
    x = tl.zeros(3, 4)
    idx = tl.tensor([[0, 1, 2, 0]])
    r = x.scatter_(0, idx, 1.0)
    assert r is x and x.sum().item() == 4
    x.scatter_add_(0, idx, tl.ones(1, 4))
    x.scatter_(0, idx, tl.full((1, 4), 2.0), reduce="multiply")
    assert x[0].tolist() == [4.0, 0.0, 0.0, 4.0]
    x.index_add_(1, tl.tensor([3]), tl.ones(3, 1), alpha=-2)
    assert x[:, 3].tolist() == [2.0, -2.0, -2.0]
    x.scatter_reduce_(0, tl.tensor([[2, 2, 2, 2]]), tl.full((1, 4), 9.0), "amax", include_self=False)
    assert x[2].tolist() == [9.0, 9.0, 9.0, 9.0]
    y = x.t()  # non-contiguous self, written in place
    y.masked_fill_(y < 0, 5.0)
    assert x[1, 3].item() == 5.0
    out = tl.empty(7)
    assert tl.index_select(x, 0, tl.tensor([1]), out=out) is out and out.shape == (1, 4)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.gather(x, 0, idx, out=tl.empty(0, dtype=tl.int64))


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("value", [False, True])
def test_scatter_legacy_reduce(reduce, value):
    # scatter(..., reduce=) has no derivative (as in PyTorch): forward only, vs NumPy and PyTorch.
    rng = np.random.default_rng(0)
    x, idx, src = rng.standard_normal((3, 5)), rng.integers(0, 5, (3, 4)), rng.standard_normal((3, 4))
    s = 2.5 if value else src
    expected = x.copy()
    for i, j in np.ndindex(*idx.shape):
        v = s if value else s[i, j]
        expected[i, idx[i, j]] = expected[i, idx[i, j]] + v if reduce == "add" else expected[i, idx[i, j]] * v
    got = tl.tensor(x).scatter(1, tl.tensor(idx), s if value else tl.tensor(s), reduce=reduce)
    assert_close(got, expected)
    if TORCH is not None:
        theirs = TORCH.tensor(x).scatter(1, TORCH.tensor(idx), s if value else TORCH.tensor(s), reduce=reduce)
        assert_close(got, theirs.numpy())
    y = tl.tensor(x, requires_grad=True).scatter(1, tl.tensor(idx), 1.0, reduce=reduce)
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


def test_scatter_src_larger_than_index():
    # Only index's extent of src is read; its gradient then has index's shape, which PyTorch's
    # formula rejects as well, so this is forward-only.
    x = tl.zeros(3, 4)
    r = x.scatter_add(0, tl.tensor([[2, 0], [2, 2]]), tl.arange(12.0).reshape(3, 4))
    assert r.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.0] * 4, [4.0, 5.0, 0.0, 0.0]]
    r = x.scatter(1, tl.tensor([[3], [0]]), tl.full((3, 4), 7.0))
    assert r.tolist() == [[0.0, 0.0, 0.0, 7.0], [7.0, 0.0, 0.0, 0.0], [0.0] * 4]


def test_scatter_reduce_int_mean_floors():
    x = tl.tensor([10, -7])
    r = x.scatter_reduce(0, tl.tensor([0, 1, 1]), tl.tensor([1, 0, 0]), "mean")
    assert r.tolist() == [5, -3]


# ---- embedding / one_hot ---------------------------------------------------------------------------

def test_embedding_padding_idx_gradient_and_module():
    emb = tl.nn.Embedding(5, 3, padding_idx=0)
    assert emb.weight[0].tolist() == [0.0, 0.0, 0.0]
    idx = tl.tensor([[0, 2, 2], [4, 0, 1]])
    out = emb(idx)
    assert out.shape == (2, 3, 3)
    out.sum().backward()
    assert emb.weight.grad[:, 0].tolist() == [0.0, 1.0, 2.0, 0.0, 1.0]
    w = tl.randn(5, 3, requires_grad=True)
    F.embedding(idx, w, padding_idx=-1, scale_grad_by_freq=True).sum().backward()
    assert w.grad[:, 1].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]


def test_embedding_max_norm_renormalizes_used_rows():
    w = tl.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    F.embedding(tl.tensor([0, 1]), w, max_norm=1.0)
    assert_close(w, np.array([[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], np.float32), atol=1e-5, rtol=1e-5)


def test_embedding_errors():
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(tl.tensor([0]), tl.ones(3))
    with pytest.raises(IndexError, match="index 3 is out of"):
        F.embedding(tl.tensor([3]), tl.ones(3, 2))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices'"):
        F.embedding(tl.tensor([0.0]), tl.ones(3, 2))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(tl.tensor([0]), tl.ones(3, 2), padding_idx=3)


def test_one_hot():
    r = F.one_hot(tl.tensor([0, 2, 1]))
    assert r.dtype == tl.int64 and r.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(tl.tensor([[1]]), 4).shape == (1, 1, 4)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(tl.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(tl.tensor([-1]))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor"):
        F.one_hot(tl.zeros(0, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(tl.tensor([1.0]))


@pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")
def test_embedding_module_matches_torch():
    torch = TORCH
    w = np.random.default_rng(0).standard_normal((7, 4))
    idx = np.array([[1, 3, 3], [6, 0, 1]])
    ours = tl.nn.Embedding.from_pretrained(tl.tensor(w), freeze=False, padding_idx=3)
    theirs = torch.nn.Embedding.from_pretrained(torch.tensor(w), freeze=False, padding_idx=3)
    g = np.random.default_rng(1).standard_normal((2, 3, 4))
    ours(tl.tensor(idx)).backward(tl.tensor(g))
    theirs(torch.tensor(idx)).backward(torch.tensor(g))
    assert_close(ours.weight.grad, theirs.weight.grad.numpy())


def test_embedding_backward_refuses_a_0d_grad():
    # Found by the fuzzer: a 0-dim grad_output with empty indices read past its sizes.
    with pytest.raises(RuntimeError, match="grad_output must have at least 1 dimension"):
        tl.embedding_dense_backward(tl.tensor(1.0, dtype=tl.float64), tl.tensor([], dtype=tl.int64), 4, -1, False)
