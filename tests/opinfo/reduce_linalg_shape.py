"""Registry entries: matrix/vector products (addmm, baddbmm, addmv, mv, dot, vdot, outer/ger,
linear, bilinear, einsum), reductions and scans, shape ops (h-reduce)."""

import numpy as np

from opinfo.core import OpInfo, SampleInput, rand

# ---- products ---------------------------------------------------------------------------------


def _np_addmm(self, m1, m2, beta=1, alpha=1):
    prod = alpha * (m1 @ m2)
    return prod if beta == 0 else beta * self + prod


def _addmm_samples(dtype, rng):
    yield SampleInput((rand((2, 4), dtype, rng), rand((2, 3), dtype, rng), rand((3, 4), dtype, rng)))
    yield SampleInput((rand((4,), dtype, rng), rand((2, 3), dtype, rng), rand((3, 4), dtype, rng)),
                      {"beta": 0.5, "alpha": 2.0})
    yield SampleInput((rand((1, 1), dtype, rng), rand((1, 3), dtype, rng), rand((3, 1), dtype, rng)), {"beta": 0})
    yield SampleInput((rand((2, 0), dtype, rng), rand((2, 3), dtype, rng), rand((3, 0), dtype, rng)), grad=False)


def _baddbmm_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 4), dtype, rng), rand((2, 2, 3), dtype, rng), rand((2, 3, 4), dtype, rng)))
    yield SampleInput((rand((4,), dtype, rng), rand((2, 1, 3), dtype, rng), rand((2, 3, 4), dtype, rng)),
                      {"beta": -1.5, "alpha": 0.5})


def _addmv_samples(dtype, rng):
    yield SampleInput((rand((2,), dtype, rng), rand((2, 3), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((1,), dtype, rng), rand((4, 3), dtype, rng), rand((3,), dtype, rng)),
                      {"beta": 2, "alpha": -1})
    yield SampleInput((rand((0,), dtype, rng), rand((0, 3), dtype, rng), rand((3,), dtype, rng)), grad=False)


def _mv_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((1, 1), dtype, rng), rand((1,), dtype, rng)))
    yield SampleInput((rand((3, 0), dtype, rng), rand((0,), dtype, rng)), grad=False)


def _vec_pair_samples(dtype, rng):
    yield SampleInput((rand((4,), dtype, rng), rand((4,), dtype, rng)))
    yield SampleInput((rand((1,), dtype, rng), rand((1,), dtype, rng)))
    yield SampleInput((rand((0,), dtype, rng), rand((0,), dtype, rng)), grad=False)


def _outer_samples(dtype, rng):
    yield SampleInput((rand((3,), dtype, rng), rand((4,), dtype, rng)))
    yield SampleInput((rand((1,), dtype, rng), rand((0,), dtype, rng)), grad=False)


def _np_linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def _linear_samples(dtype, rng):
    yield SampleInput((rand((4, 5), dtype, rng), rand((3, 5), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((2, 2, 5), dtype, rng), rand((3, 5), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((2, 5), dtype, rng), rand((3, 5), dtype, rng)))
    yield SampleInput((rand((5,), dtype, rng), rand((3, 5), dtype, rng), rand((1,), dtype, rng)))
    yield SampleInput((rand((0, 5), dtype, rng), rand((3, 5), dtype, rng), rand((3,), dtype, rng)), grad=False)


def _np_bilinear(x1, x2, w, b=None):
    y = np.einsum("...i,oij,...j->...o", x1, w, x2)
    return y if b is None else y + b


def _bilinear_samples(dtype, rng):
    yield SampleInput((rand((3, 2), dtype, rng), rand((3, 4), dtype, rng), rand((5, 2, 4), dtype, rng),
                       rand((5,), dtype, rng)))
    yield SampleInput((rand((2, 1, 2), dtype, rng), rand((2, 1, 3), dtype, rng), rand((2, 2, 3), dtype, rng)))


_EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # matmul
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),  # batched matmul
    ("ik,jk", [(2, 3), (4, 3)]),  # implicit output: a @ b.T
    ("ij->ji", [(2, 3)]),
    ("ii", [(3, 3)]),  # trace
    ("ii->i", [(3, 3)]),  # diagonal
    ("i,j->ij", [(3,), (2,)]),  # outer
    ("ijk->", [(2, 3, 2)]),
    ("ij->j", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),  # ellipsis with broadcasting
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 2), (2, 2)]),  # bilinear: three operands
    ("i, i ->", [(4,), (4,)]),  # dot, with spaces
    ("ij,ij->ij", [(2, 1), (2, 3)]),  # broadcasting size-1 dim
    ("i,j->", [(2,), (0,)]),
]


def _einsum_samples(dtype, rng):
    for eq, shapes in _EINSUM:
        yield SampleInput((eq, [rand(s, dtype, rng) for s in shapes]), grad=0 not in sum(shapes, ()))


def _np_einsum(eq, operands):
    # NumPy does not broadcast size-1 labelled dims: expand them first.
    sizes = {}
    terms = eq.replace(" ", "").split("->")[0].split(",")
    for t, a in zip(terms, operands):
        if "." not in t:
            for c, n in zip(t, a.shape):
                sizes[c] = max(sizes.get(c, 1), n) if n else 0
    ops = []
    for t, a in zip(terms, operands):
        ops.append(a if "." in t else np.broadcast_to(a, [sizes[c] for c in t]))
    return np.einsum(eq.replace(" ", ""), *ops)


# ---- shape ------------------------------------------------------------------------------------


def _diagonal_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng),))
    yield SampleInput((rand((3, 4), dtype, rng),), {"offset": 1})
    yield SampleInput((rand((3, 4), dtype, rng),), {"offset": -2})
    yield SampleInput((rand((2, 3, 4), dtype, rng),), {"offset": 1, "dim1": 2, "dim2": 0})
    yield SampleInput((rand((2, 3, 4), dtype, rng),), {"dim1": -1, "dim2": 1})
    yield SampleInput((rand((3, 4), dtype, rng),), {"offset": 5})
    yield SampleInput((rand((0, 4), dtype, rng),))


def _np_diagonal(a, offset=0, dim1=0, dim2=1):
    return np.diagonal(a, offset, dim1, dim2)


OPS = [
    OpInfo("addmm", _addmm_samples, ref=_np_addmm, supports_out=True, inplace=True),
    OpInfo("baddbmm", _baddbmm_samples, ref=_np_addmm, supports_out=True, inplace=True),
    OpInfo("addmv", _addmv_samples, ref=_np_addmm, supports_out=True, inplace=True),
    OpInfo("mv", _mv_samples, ref=np.matmul, supports_out=True),
    OpInfo("dot", _vec_pair_samples, ref=np.dot, supports_out=True),
    OpInfo("vdot", _vec_pair_samples, ref=np.vdot, supports_out=True),
    OpInfo("outer", _outer_samples, ref=np.outer, supports_out=True),
    OpInfo("ger", _outer_samples, ref=np.outer, supports_out=True),
    OpInfo("linear", _linear_samples, ref=_np_linear, op=lambda lib, *a: lib.nn.functional.linear(*a)),
    OpInfo("bilinear", _bilinear_samples, ref=_np_bilinear, op=lambda lib, *a: lib.nn.functional.bilinear(*a)),
    OpInfo("einsum", _einsum_samples, ref=_np_einsum),
    OpInfo("diagonal", _diagonal_samples, ref=_np_diagonal, covers=("diagonal_backward",)),
]
