"""The CUDA matrix products: cuBLAS loaded at run time and the tiled kernel (aten/native/cuda/
MatmulKernel.cu, Note [cuBLAS at run time] in aten/cuda/CuBLAS.h).

Without a GPU: the library search and the backend query. With one: mm, bmm and matmul on both
backends (TORCHLITE_CUBLAS=0, or _set_cublas_enabled(False), forces the tiled kernel) against the CPU, over dtypes, shapes
(empty, one element, sizes across the tile edges), transposed and strided operands and
broadcast batches; TF32 only when set_float32_matmul_precision allows it.
"""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from helpers import random_array, to_numpy

import torchlite as tl
import torchlite.cuda as tcuda

HAS_GPU = tcuda.is_available()
requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")
requires_cuda_build = pytest.mark.skipif(not tcuda.is_built(), reason="built without CUDA")
SONAME = "libcublas.so.13"


# ---- the library search (no GPU needed) ---------------------------------------------------


def test_candidates_are_the_wheels_then_the_soname_then_toolkits(tmp_path):
    new = tmp_path / "site" / "nvidia" / "cu13" / "lib"
    old = tmp_path / "old" / "nvidia" / "cublas" / "lib"
    toolkit = tmp_path / "cuda" / "lib64"
    for d in (new, old, toolkit):
        d.mkdir(parents=True)
        (d / SONAME).write_bytes(b"")
    (tmp_path / "empty").mkdir()
    search = [str(tmp_path / "empty"), str(tmp_path / "site"), str(tmp_path / "old"), str(tmp_path / "site")]
    toolkits = [None, str(tmp_path / "empty"), str(tmp_path / "cuda")]
    assert tcuda._library_candidates(SONAME, search, toolkits) == [str(new / SONAME), str(old / SONAME), SONAME,
                                                                   str(toolkit / SONAME)]


def test_candidates_without_the_wheel_are_the_soname(tmp_path):
    assert tcuda._library_candidates(SONAME, [str(tmp_path)], [str(tmp_path)]) == [SONAME]


def test_candidates_of_another_library_use_its_folder(tmp_path):
    soname = "libcusolver.so.12"
    old = tmp_path / "nvidia" / "cusolver" / "lib"
    old.mkdir(parents=True)
    (old / soname).write_bytes(b"")
    (tmp_path / "nvidia" / "cublas" / "lib").mkdir(parents=True)
    (tmp_path / "nvidia" / "cublas" / "lib" / SONAME).write_bytes(b"")
    assert tcuda._library_candidates(soname, [str(tmp_path)], []) == [str(old / soname), soname]


def test_gemm_backend_says_which_and_why():
    kind, detail = tcuda._gemm_backend()
    if not tcuda.is_built():
        assert (kind, detail) == ("none", "torchlite was built without CUDA")
    else:
        assert kind in ("cublas", "tiled") and detail


@requires_cuda_build
def test_environment_forces_the_tiled_kernel():
    # The variable is read once per process, at the first query: ask a fresh one.
    code = ("import torchlite.cuda as c; print(c._gemm_backend()); c._cuda._set_cublas_enabled(True); "
            "print('disabled' in c._gemm_backend()[1]); c._cuda._set_cublas_enabled(None); print(c._gemm_backend())")
    env = dict(os.environ, TORCHLITE_CUBLAS="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == [str(("tiled", "TORCHLITE_CUBLAS=0")), "False", str(("tiled", "TORCHLITE_CUBLAS=0"))]


@requires_cuda_build
def test_the_libraries_searched_for():
    sonames = tcuda._cuda._cuda_library_sonames()
    assert sorted(sonames) == ["libcublas.so.13", "libcufft.so.12", "libcusolver.so.12"]


@requires_cuda_build
def test_switching_cublas_off_and_on():
    try:
        tcuda._cuda._set_cublas_enabled(False)
        assert tcuda._gemm_backend() == ("tiled", "cuBLAS disabled by _set_cublas_enabled(False)")
        tcuda._cuda._set_cublas_enabled(True)
        assert tcuda._gemm_backend()[0] in ("cublas", "tiled") and "disabled" not in tcuda._gemm_backend()[1]
    finally:
        tcuda._cuda._set_cublas_enabled(None)  # back to what the environment says


@requires_cuda_build
def test_probe_reports_each_path_that_did_not_load(tmp_path):
    missing = str(tmp_path / "nowhere" / SONAME)
    not_elf = tmp_path / SONAME
    not_elf.write_bytes(b"not a library")
    path, error = tcuda._cuda._library_probe([missing, str(not_elf), "libm.so.6"], ["cublasCreate_v2"])
    assert path == ""
    assert missing in error and str(not_elf) in error and "libm.so.6: no cublasCreate_v2" in error


@pytest.mark.skipif(tcuda.is_built(), reason="built with CUDA")
def test_probe_without_cuda_raises():
    with pytest.raises(RuntimeError, match="not compiled with CUDA"):
        tcuda._cuda._library_probe([SONAME], [])


# ---- both backends against the CPU (GPU) --------------------------------------------------

# Both sides accumulate in float32 (float64) in different orders; half types round once.
TOLERANCE = {tl.float32: 5e-4, tl.float64: 1e-10, tl.float16: 4e-3, tl.bfloat16: 2e-2, tl.int64: 0, tl.int32: 0}
# (m, k, n): one element, empty, and sizes on both sides of the tiled kernel's 64 x 64 x 16 tiles.
LAYOUTS = ("contiguous", "transposed", "sliced", "strided")
# Each layout of either operand beside a contiguous other, and both transposed.
LAYOUT_PAIRS = [*((la, "contiguous") for la in LAYOUTS), *(("contiguous", lb) for lb in LAYOUTS[1:]),
                ("transposed", "transposed")]
SHAPES = [(1, 1, 1), (0, 3, 4), (3, 0, 4), (3, 4, 0), (7, 5, 3), (64, 16, 64), (65, 17, 130), (130, 70, 33)]


@pytest.fixture(params=["cublas", "tiled"])
def backend(request):
    if not HAS_GPU:
        pytest.skip("no CUDA device")
    tcuda._cuda._set_cublas_enabled(request.param == "cublas")
    request.addfinalizer(lambda: tcuda._cuda._set_cublas_enabled(None))
    if request.param == "cublas" and tcuda._gemm_backend()[0] != "cublas":
        pytest.skip(f"no cuBLAS: {tcuda._gemm_backend()[1]}")
    assert tcuda._gemm_backend()[0] == request.param
    return request.param


def _operand(shape, dtype, layout, rng):
    """A CPU tensor of `shape` laid out as `layout`: contiguous, transposed (the last two dims
    swapped in memory), sliced (the first columns of a wider one: rows further apart than
    their length) or strided (every other column of a wider one)."""
    a = random_array(shape, dtype, rng, low=-2, high=3)
    t = tl.tensor(a).to(dtype)
    if layout == "transposed":
        return t.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout in ("sliced", "strided"):
        wide = tl.zeros((*shape[:-1], 2 * shape[-1]), dtype=dtype)
        cols = slice(None, shape[-1]) if layout == "sliced" else slice(None, None, 2)
        wide[..., cols] = t
        return wide[..., cols]
    return t


def _check(op, a, b, dtype, what):
    expected = op(a, b)
    got = op(a.to("cuda"), b.to("cuda"))
    assert got.device.type == "cuda" and got.dtype == expected.dtype, what
    assert tuple(got.shape) == tuple(expected.shape), what
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(to_numpy(got.cpu().float() if dtype == tl.bfloat16 else got.cpu()),
                               to_numpy(expected.float() if dtype == tl.bfloat16 else expected),
                               rtol=tol, atol=tol, err_msg=what)


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16, tl.bfloat16, tl.int64])
def test_mm_matches_cpu(backend, dtype):
    rng = np.random.default_rng(0)
    for m, k, n in SHAPES:
        for la, lb in LAYOUT_PAIRS:
            a, b = _operand((m, k), dtype, la, rng), _operand((k, n), dtype, lb, rng)
            _check(tl.mm, a, b, dtype, f"{backend} {dtype} {m}x{k}x{n} {la} @ {lb}")


@pytest.mark.parametrize("dtype", [tl.float32, tl.float16, tl.int32])
def test_bmm_and_matmul_match_cpu(backend, dtype):
    rng = np.random.default_rng(1)
    for bs, m, k, n in [(3, 65, 17, 33), (0, 2, 3, 4), (2, 1, 1, 1), (4, 0, 2, 3)]:
        for la in ("contiguous", "transposed"):
            for lb in ("contiguous", "transposed"):
                a, b = _operand((bs, m, k), dtype, la, rng), _operand((bs, k, n), dtype, lb, rng)
                _check(tl.bmm, a, b, dtype, f"{backend} {dtype} bmm {bs}x{m}x{k}x{n} {la} @ {lb}")
    # Broadcast batches: a stride-0 batch reaches bmm as is, a partly broadcast one as a copy.
    a, b = _operand((5, 7), dtype, "contiguous", rng), _operand((1, 7, 6), dtype, "transposed", rng)
    _check(lambda x, y: tl.bmm(x.expand(4, 5, 7), y.expand(4, 7, 6)), a.unsqueeze(0), b, dtype, "stride-0 batches")
    _check(tl.matmul, _operand((2, 1, 5, 7), dtype, "contiguous", rng), _operand((3, 7, 6), dtype, "transposed", rng),
           dtype, f"{backend} {dtype} matmul broadcast")
    _check(tl.matmul, _operand((7,), dtype, "contiguous", rng), _operand((3, 7, 6), dtype, "contiguous", rng),
           dtype, f"{backend} {dtype} matmul vector @ batch")


def test_out_stream_and_threads(backend):
    rng = np.random.default_rng(2)
    a, b = _operand((33, 20), tl.float32, "contiguous", rng), _operand((20, 17), tl.float32, "transposed", rng)
    expected = to_numpy(tl.mm(a, b))
    ga, gb = a.to("cuda"), b.to("cuda")
    out = tl.empty((17, 33), device="cuda").t()  # a non-contiguous out= is written through
    tl.mm(ga, gb, out=out)
    np.testing.assert_allclose(to_numpy(out.cpu()), expected, rtol=5e-4, atol=5e-4)
    s = tcuda.Stream()
    with tcuda.stream(s):
        on_stream = tl.mm(ga, gb)
    s.synchronize()
    np.testing.assert_allclose(to_numpy(on_stream.cpu()), expected, rtol=5e-4, atol=5e-4)
    results = []
    for _ in range(2):  # each thread creates its own cuBLAS handle (a handle outliving its thread failed)
        t = threading.Thread(target=lambda: results.append(to_numpy(tl.mm(ga, gb).cpu())))
        t.start()
        t.join()
    assert len(results) == 2
    for r in results:
        np.testing.assert_allclose(r, expected, rtol=5e-4, atol=5e-4)


@requires_gpu
def test_bad_arguments_raise_as_on_the_cpu():
    a, b = tl.ones(2, 3, device="cuda"), tl.ones(4, 5, device="cuda")
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        tl.mm(a, b)
    with pytest.raises(RuntimeError, match="dtype"):
        tl.mm(a, tl.ones(3, 2, device="cuda", dtype=tl.float64))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        tl.bmm(a, b)


@requires_gpu
def test_tf32_only_when_the_precision_allows_it():
    if tcuda._gemm_backend()[0] != "cublas":
        pytest.skip("TF32 is a cuBLAS mode")
    rng = np.random.default_rng(3)
    a, b = (tl.tensor(random_array((512, 512), tl.float32, rng)) for _ in range(2))
    exact = to_numpy(tl.mm(a.double(), b.double()))
    ga, gb = a.to("cuda"), b.to("cuda")
    saved = tl.get_float32_matmul_precision()
    try:
        tl.set_float32_matmul_precision("highest")
        full = to_numpy(tl.mm(ga, gb).cpu())
        tl.backends.cuda.matmul.allow_tf32 = True
        tf32 = to_numpy(tl.mm(ga, gb).cpu())
    finally:
        tl.set_float32_matmul_precision(saved)
    scale = np.abs(exact).max()
    assert np.abs(full - exact).max() < 1e-5 * scale
    assert 1e-5 * scale < np.abs(tf32 - exact).max() < 1e-2 * scale  # TF32 keeps 10 mantissa bits
