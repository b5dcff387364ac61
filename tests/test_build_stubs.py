"""What the stub files instantiate (issue 12: the clean build's CPU time): stubs of one functor share
a shard, and the dtypes the YAML lists for a stub are PyTorch's, no more (each extra dtype is a loop
compiled per device in every build)."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import pytest

import torchlite as tl
from codegen import gen
from codegen.native_functions import load_native_functions

ROOT = Path(__file__).resolve().parents[1]
STUBS = [s for f in load_native_functions(str(ROOT / "native_functions.yaml")) for s in f.stubs]

# Special functions PyTorch computes only in float32 and float64, on the CPU and on CUDA (checked
# against torch 2.13 CPU and 2.11 CUDA): their stubs are FloatDouble. Name -> number of tensor arguments.
FLOAT_DOUBLE_ONLY = {
    "erfcx": 1, "log_ndtr": 1, "bessel_j0": 1, "bessel_j1": 1, "bessel_y0": 1, "bessel_y1": 1,
    "modified_bessel_i0": 1, "modified_bessel_i1": 1, "modified_bessel_k0": 1, "modified_bessel_k1": 1,
    "scaled_modified_bessel_k0": 1, "scaled_modified_bessel_k1": 1, "airy_ai": 1, "spherical_bessel_j0": 1,
    "zeta": 2, "chebyshev_polynomial_t": 2, "chebyshev_polynomial_u": 2, "chebyshev_polynomial_v": 2,
    "chebyshev_polynomial_w": 2, "shifted_chebyshev_polynomial_t": 2, "shifted_chebyshev_polynomial_u": 2,
    "shifted_chebyshev_polynomial_v": 2, "shifted_chebyshev_polynomial_w": 2, "hermite_polynomial_h": 2,
    "hermite_polynomial_he": 2, "laguerre_polynomial_l": 2, "legendre_polynomial_p": 2,
}


def test_stubs_of_one_functor_share_a_shard():
    shards = collections.defaultdict(set)
    for s in STUBS:
        shards[s.functor].add(gen.stub_shard(s))
    assert {f: v for f, v in shards.items() if len(v) > 1} == {}
    # The sharing this buys: these functors serve two stubs each.
    shared = {f for f, n in collections.Counter(s.functor for s in STUBS).items() if n > 1}
    assert {"I0Functor", "I1Functor", "ClampFunctor", "ShrinkBackwardFunctor"} <= shared


def test_special_function_stubs_are_float_double():
    types = {s.name: s.types for s in STUBS}
    assert {name: types["special_" + name] for name in FLOAT_DOUBLE_ONLY} == dict.fromkeys(FLOAT_DOUBLE_ONLY,
                                                                                         "FloatDouble")


@pytest.mark.parametrize("name", sorted(FLOAT_DOUBLE_ONLY))
def test_special_functions_reject_half_precision(name):
    fn = getattr(tl.special, name)
    nargs = FLOAT_DOUBLE_ONLY[name]
    for dtype, type_name in ((tl.float16, "Half"), (tl.bfloat16, "BFloat16")):
        args = [tl.ones(3, dtype=dtype)] * nargs
        with pytest.raises(NotImplementedError, match=f"not implemented for '{type_name}'"):
            fn(*args)
    # float32 and float64 still compute, the same value in both up to float32's rounding.
    x32 = [tl.tensor([0.25, 0.5, 2.0], dtype=tl.float32)] * nargs
    x64 = [tl.tensor([0.25, 0.5, 2.0], dtype=tl.float64)] * nargs
    r32, r64 = fn(*x32).numpy(), fn(*x64).numpy()
    assert r32.dtype == np.float32 and r64.dtype == np.float64
    np.testing.assert_allclose(r32, r64, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["bessel_j0", "zeta", "hermite_polynomial_h"])
def test_special_function_dtype_errors_match_pytorch(name):
    torch = pytest.importorskip("torch")
    nargs = FLOAT_DOUBLE_ONLY[name]
    with pytest.raises(NotImplementedError):
        getattr(torch.special, name)(*[torch.ones(3, dtype=torch.float16)] * nargs)
    with pytest.raises(NotImplementedError):
        getattr(tl.special, name)(*[tl.ones(3, dtype=tl.float16)] * nargs)
