"""README, "Add an operator in three steps": exp2 was added exactly that way (its schema with
`structured:`/`stubs:` in native_functions.yaml, Exp2Functor in ElementwiseFunctors.h, its
formula in derivatives.yaml). These tests keep that example real."""

import os

import numpy as np
import pytest

import torchlite as tl
from codegen.native_functions import load_native_functions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_exp2_is_declared_as_the_readme_says():
    fns = {str(f.name): f for f in load_native_functions(os.path.join(ROOT, "native_functions.yaml"))}
    out = fns["exp2.out"]
    assert out.structured == "unary_float_op_iter"
    assert [(s.name, s.functor, s.types) for s in out.stubs] == [("exp2", "Exp2Functor", "Floating")]
    assert dict(out.dispatch) == {"CPU": "exp2_out", "CUDA": "exp2_out"}  # one generated kernel, every device
    assert str(fns["exp2"].structured_delegate) == "exp2.out"
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert "exp2: Exp2Functor Floating" in readme and "Exp2Functor, std::exp2(x)" in readme


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.int64])
def test_exp2_values(dtype):
    a = np.array([-3.0, -0.5, 0.0, 1.0, 2.5, 10.0])
    x = tl.tensor(a).to(dtype)
    got = tl.exp2(x)
    assert got.dtype == (tl.float32 if dtype == tl.int64 else dtype)  # integers compute in the default float
    np.testing.assert_allclose(got.numpy(), np.exp2(x.to(tl.float64).numpy()), rtol=1e-6)
    y = x.to(tl.float64).clone()
    y.exp2_()
    np.testing.assert_allclose(y.numpy(), np.exp2(a.astype(np.int64) if dtype == tl.int64 else a), rtol=1e-12)


def test_exp2_gradient_matches_finite_differences():
    a = np.array([-1.5, 0.25, 2.0])
    x = tl.tensor(a, dtype=tl.float64, requires_grad=True)
    tl.exp2(x).sum().backward()
    eps = 1e-6
    numeric = (np.exp2(a + eps) - np.exp2(a - eps)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-7)
