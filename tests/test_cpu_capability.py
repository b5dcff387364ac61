"""Runtime ISA dispatch (Note [CPU capabilities], aten/native/cpu/CpuCapability.h).

The capability is chosen once per process, so each one runs in a child process with
TORCHLITE_CPU_CAPABILITY set. Every capability this CPU supports must give the same results
as the best one, within rounding (FMA contraction and summation order differ between the
copies), and be correct against NumPy.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

ORDER = ["DEFAULT", "AVX2", "AVX512"]

# Writes the results of the dispatched kernels (GEMM through mm/bmm/conv2d, vector math) for
# fixed inputs to the .npz file named by argv[1].
CHILD = r"""
import sys, numpy as np, torchlite as torch
rng = np.random.default_rng(0)
out = {"capability": np.array(torch.backends.cpu.get_cpu_capability())}
def t(a):
    return torch.from_numpy(np.ascontiguousarray(a))
# On 2 threads the GEMM splits C over N (few rows, B read in place) or over M (Note [CPU GEMM]).
torch.set_num_threads(2)
shapes = {"gemv_m1": (1, 300, 70), "gemv_n1": (70, 300, 1), "small": (5, 7, 9), "blocked": (67, 300, 130),
          "split_n": (16, 300, 1024), "split_m": (200, 70, 33)}
for dt in ("float32", "float64"):
    for name, (m, k, n) in shapes.items():
        a, b = rng.uniform(-1, 1, (m, k)).astype(dt), rng.uniform(-1, 1, (k, n)).astype(dt)
        out[f"mm_{name}_{dt}_a"], out[f"mm_{name}_{dt}_b"] = a, b
        out[f"mm_{name}_{dt}"] = (t(a) @ t(b)).numpy()
        out[f"mm_{name}_{dt}_bT"] = (t(a) @ t(b.T.copy()).T).numpy()  # strided B
    x, y = rng.uniform(-1, 1, (3, 40, 50)).astype(dt), rng.uniform(-1, 1, (3, 50, 30)).astype(dt)
    out[f"bmm_{dt}_a"], out[f"bmm_{dt}_b"], out[f"bmm_{dt}"] = x, y, torch.bmm(t(x), t(y)).numpy()
    img, w = rng.uniform(-1, 1, (2, 3, 9, 9)).astype(dt), rng.uniform(-1, 1, (4, 3, 3, 3)).astype(dt)
    out[f"conv2d_{dt}"] = torch.nn.functional.conv2d(t(img), t(w), padding=1).numpy()
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 1e-310, 0.5, 88.5, -88.5, 700.0, -700.0, 1e30, -1e30]
    with np.errstate(over="ignore"):
        v = np.concatenate([rng.uniform(-10, 10, 997), rng.uniform(-1, 1, 300), special]).astype(dt)
    out[f"vec_in_{dt}"] = v
    for f in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "erf", "erfc",
              "atan", "asin", "acos", "sinh", "cosh"):
        out[f"{f}_{dt}"] = getattr(torch, f)(t(v)).numpy()
    out[f"mish_{dt}"] = torch.nn.functional.mish(t(v)).numpy()
    u = v[::-1].copy()
    out[f"atan2_{dt}"] = torch.atan2(t(v), t(u)).numpy()
    out[f"pow_{dt}"] = torch.pow(t(np.abs(v)), t(u / 4)).numpy()
np.savez(sys.argv[1], **out)
"""


def _child(tmp_path, capability, code=CHILD):
    """Runs code in a fresh interpreter with TORCHLITE_CPU_CAPABILITY=capability; returns the results."""
    env = dict(os.environ, TORCHLITE_CPU_CAPABILITY=capability)
    path = tmp_path / f"{capability}.npz"
    proc = subprocess.run([sys.executable, "-c", code, str(path)], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc, (dict(np.load(path)) if path.exists() else None)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cpu_capability")
    return {cap: _child(tmp, cap)[1] for cap in ("default", "avx2", "avx512")}


def test_forced_capability_is_reported_and_only_lowers(results):
    best = str(results["avx512"]["capability"])  # avx512 asks for the best this CPU has
    assert best in ORDER
    for cap, res in results.items():
        expected = ORDER[min(ORDER.index(cap.upper()), ORDER.index(best))]
        assert str(res["capability"]) == expected


def _assert_close(got, want, dtype, rel):
    """Within `rel` units of dtype's epsilon, relative to max(|value|, tiny); NaN where NaN."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    finite = np.isfinite(want) & ok
    np.testing.assert_array_equal(got[ok & ~finite], want[ok & ~finite])  # infinities exactly
    tiny = np.finfo(dtype).tiny
    scale = np.maximum(np.abs(want[finite]), tiny)
    err = np.abs(got[finite] - want[finite]) / scale
    assert err.max(initial=0) <= rel * np.finfo(dtype).eps, err.max()


def _assert_product_close(got, a, b, dtype):
    """got == a @ b up to the summation-order error of products of |x| <= 1 (k of them)."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    tol = a.shape[-1] * np.finfo(dtype).eps * np.matmul(np.abs(a), np.abs(b))
    assert np.all(np.abs(got - np.matmul(a, b)) <= tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_matches_numpy_at_every_capability(results, dtype):
    for res in results.values():
        for name in ("gemv_m1", "gemv_n1", "small", "blocked", "split_n", "split_m"):
            a, b = res[f"mm_{name}_{dtype}_a"], res[f"mm_{name}_{dtype}_b"]
            _assert_product_close(res[f"mm_{name}_{dtype}"], a, b, dtype)
            _assert_product_close(res[f"mm_{name}_{dtype}_bT"], a, b, dtype)
        _assert_product_close(res[f"bmm_{dtype}"], res[f"bmm_{dtype}_a"], res[f"bmm_{dtype}_b"], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_capabilities_agree(results, dtype):
    best = results["avx512"]
    vecmath = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "erf", "erfc",
               "atan", "asin", "acos", "sinh", "cosh", "mish", "atan2", "pow"]
    for cap in ("default", "avx2"):
        for f in vecmath:
            # Correctly rounded float, 2-ulp double (Note [Vector math]): copies differ by rounding only.
            _assert_close(results[cap][f"{f}_{dtype}"], best[f"{f}_{dtype}"], dtype, 4)
        np.testing.assert_allclose(results[cap][f"conv2d_{dtype}"], best[f"conv2d_{dtype}"],
                                   rtol=0, atol=64 * np.finfo(dtype).eps * 27)


def test_vector_math_of_lowest_capability_is_accurate(results):
    # The DEFAULT copy runs only where AVX2 is missing (or forced): check its float64 values
    # against NumPy, as tests/test_vecmath.py does in-process for the best copy.
    res = results["default"]
    v = res["vec_in_float64"]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for f, ref in (("exp", np.exp), ("tanh", np.tanh), ("atan", np.arctan), ("sinh", np.sinh), ("log", np.log)):
            _assert_close(res[f"{f}_float64"], ref(v), "float64", 4)


def test_invalid_request_warns_and_keeps_the_best(tmp_path):
    code = "import warnings, sys\nwith warnings.catch_warnings(record=True) as w:\n"
    code += "    warnings.simplefilter('always')\n    import torchlite\n"
    code += "print(torchlite.backends.cpu.get_cpu_capability())\nprint([str(x.message) for x in w])\n"
    proc, _ = _child(tmp_path, "sse9", code)
    capability, messages = proc.stdout.splitlines()
    assert "ignoring invalid value for TORCHLITE_CPU_CAPABILITY: 'sse9'" in messages
    best = _child(tmp_path, "avx512", "import torchlite; print(torchlite.backends.cpu.get_cpu_capability())")[0]
    assert capability == best.stdout.strip()

