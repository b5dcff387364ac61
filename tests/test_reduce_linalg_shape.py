"""Products, reductions/scans and shape ops: errors, semantics and larger shapes against PyTorch
(the registry in tests/opinfo/reduce_linalg_shape.py covers values and gradients on small inputs)."""

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F
from helpers import TORCH, assert_close

needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- products -----------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: tl.addmm(tl.zeros(2, 4), tl.zeros(3), tl.zeros(3, 4)), "mat1 must be a matrix, got 1-D tensor"),
    (lambda: tl.addmm(tl.zeros(2, 4), tl.zeros(2, 3), tl.zeros(2, 4)),
     r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x4\)"),
    (lambda: tl.addmm(tl.zeros(3, 4), tl.zeros(2, 3), tl.zeros(3, 4)), "cannot be broadcast"),
    (lambda: tl.zeros(4).addmm_(tl.zeros(2, 3), tl.zeros(3, 4)), "cannot hold the result"),
    (lambda: tl.addmm(tl.zeros(2, 4, dtype=tl.float64), tl.zeros(2, 3), tl.zeros(3, 4)), "same dtype"),
    (lambda: tl.baddbmm(tl.zeros(2, 2, 4), tl.zeros(2, 3), tl.zeros(2, 3, 4)), "batch1 must be a 3D tensor"),
    (lambda: tl.addmv(tl.zeros(2), tl.zeros(2, 3), tl.zeros(2)), r"size mismatch, got input \(2\), mat \(2x3\)"),
    (lambda: tl.mv(tl.zeros(2, 3), tl.zeros(3, 1)), "vector \\+ matrix @ vector expected, got 1, 2, 2"),
    (lambda: tl.dot(tl.zeros(3), tl.zeros(4)), r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"),
    (lambda: tl.dot(tl.zeros(3, 1), tl.zeros(3)), "1D tensors expected, but got 2D and 1D tensors"),
    (lambda: tl.dot(tl.zeros(3), tl.zeros(3, dtype=tl.float64)),
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: tl.outer(tl.zeros(3, 1), tl.zeros(3)), "outer: Expected 1-D argument self, but got 2-D"),
    (lambda: F.linear(tl.zeros(4, 5), tl.zeros(3, 6)), r"mat1 and mat2 shapes cannot be multiplied \(4x5 and 6x3\)"),
    (lambda: F.bilinear(tl.zeros(3, 2), tl.zeros(4, 4), tl.zeros(5, 2, 4)),
     "bilinear\\(\\): input batch dimensions do not match: got 3 and 4"),
    (lambda: F.bilinear(tl.zeros(3, 2), tl.zeros(3, 4), tl.zeros(5, 3, 4)),
     "bilinear\\(\\): input1 size does not match weight size: got 2 but expected 3"),
])
def test_product_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


@pytest.mark.parametrize("eq, shapes, message", [
    ("ij,jk->ik", [(2, 3)], "fewer operands were provided than specified in the equation"),
    ("ij->ij", [(2, 3), (3,)], "more operands were provided than specified in the equation"),
    ("ij->ij", [(2, 3, 4)], r"number of subscripts in the equation \(2\) does not match the number of dimensions"),
    ("ij->k", [(2, 3)], "output subscript k does not appear in the equation for any input operand"),
    ("ij->ii", [(2, 3)], "output subscript i appears more than once in the output"),
    ("ij,jk->ik", [(2, 3), (4, 2)], "operands do not broadcast"),
    ("ii->i", [(2, 3)], "subscript i is repeated for operand 0 but the sizes don't match"),
    ("i1->i", [(2, 3)], "invalid subscript '1'"),
    ("i.j->i", [(2, 3)], "found '.' for operand that is not part of any ellipsis"),
    ("...i...->i", [(2, 3)], "more than one ellipsis"),
])
def test_einsum_errors(eq, shapes, message):
    with pytest.raises(RuntimeError, match=message):
        tl.einsum(eq, *[tl.zeros(*s) for s in shapes])


def test_einsum_list_and_varargs_forms():
    a, b = _r(2, 3), _r(3, 4, seed=1)
    expected = a @ b
    assert_close(tl.einsum("ij,jk->ik", tl.tensor(a), tl.tensor(b)), expected)
    assert_close(tl.einsum("ij,jk->ik", [tl.tensor(a), tl.tensor(b)]), expected)
    # path (a contraction-order hint) is accepted by the operator
    assert_close(tl._C.einsum("ij,jk->ik", [tl.tensor(a), tl.tensor(b)], path=[0, 1]), expected)


def test_einsum_transpose_is_a_view():
    x = tl.tensor(_r(2, 3))
    y = tl.einsum("ij->ji", x)
    y[0, 1] = 5.0
    assert x[1, 0].item() == 5.0


def test_addmm_beta_zero_ignores_nan_and_inplace_form():
    self = tl.full((2, 2), float("nan"))
    m = tl.eye(2)
    assert_close(tl.addmm(self, m, m, beta=0), np.eye(2, dtype=np.float32))
    c = tl.ones(2, 2)
    version = c._version
    assert c.addmm_(m, m, beta=2, alpha=3) is c and c._version > version
    assert_close(c, (2 + 3 * np.eye(2)).astype(np.float32))


def test_linear_uses_one_addmm_with_bias():
    x = tl.tensor(_r(2, 3, 4), requires_grad=True)
    w = tl.tensor(_r(5, 4, seed=1), requires_grad=True)
    b = tl.tensor(_r(5, seed=2), requires_grad=True)
    y = F.linear(x, w, b)
    assert tuple(y.shape) == (2, 3, 5)
    names = []
    fn = y.grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert "AddmmBackward0" in names


@needs_torch
def test_nn_linear_and_bilinear_match_torch():
    x = _r(8, 7, 16)
    lin = tl.nn.Linear(16, 12)
    ref = TORCH.nn.Linear(16, 12).double()
    with TORCH.no_grad():
        ref.weight.copy_(TORCH.from_numpy(lin.weight.detach().double().numpy()))
        ref.bias.copy_(TORCH.from_numpy(lin.bias.detach().double().numpy()))
    lin = lin.double()
    ours = tl.tensor(x, requires_grad=True)
    theirs = TORCH.from_numpy(x.copy()).requires_grad_()
    lin(ours).pow(2).sum().backward()
    ref(theirs).pow(2).sum().backward()
    assert_close(ours.grad, theirs.grad.numpy())
    assert_close(lin.weight.grad, ref.weight.grad.numpy())
    assert_close(lin.bias.grad, ref.bias.grad.numpy())
    x1, x2, w = _r(6, 5), _r(6, 4, seed=1), _r(3, 5, 4, seed=2)
    assert_close(F.bilinear(tl.tensor(x1), tl.tensor(x2), tl.tensor(w)),
                 TORCH.nn.functional.bilinear(*(TORCH.from_numpy(a) for a in (x1, x2, w))).numpy())


@needs_torch
@pytest.mark.parametrize("eq, shapes", [
    ("bij,bjk->bik", [(4, 30, 20), (4, 20, 10)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 8, 16), (2, 3, 9, 16)]),
    ("ijk,jkl->il", [(5, 6, 7), (6, 7, 3)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("iij->j", [(3, 3, 4)]),
    ("i,i,i->", [(5,), (5,), (5,)]),
])
def test_einsum_matches_torch_with_grads(eq, shapes):
    arrays = [_r(*s, seed=i) for i, s in enumerate(shapes)]
    ours = [tl.tensor(a, requires_grad=True) for a in arrays]
    theirs = [TORCH.from_numpy(a.copy()).requires_grad_() for a in arrays]
    y, yt = tl.einsum(eq, *ours), TORCH.einsum(eq, *theirs)
    assert_close(y, yt.detach().numpy())
    g = _r(*yt.shape, seed=9)
    y.backward(tl.tensor(g))
    yt.backward(TORCH.from_numpy(g))
    for o, t in zip(ours, theirs):
        assert_close(o.grad, t.grad.numpy())
