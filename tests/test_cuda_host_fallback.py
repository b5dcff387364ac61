"""Note [Host fallback]: the linear algebra and FFT operators run on CUDA through their CPU kernels.
The registry samples compare their values on a GPU (test_ops.py::test_cuda_matches_cpu); here: the
errors and info codes are the CPU's, results stay on the input's device, gradients flow through,
and every such operator has a CUDA path (checked without a GPU too)."""

import numpy as np
import pytest
from helpers import to_numpy

import torchlite as tl
from codegen.cli import ROOT, load_all, ops_without_cuda

requires_gpu = pytest.mark.skipif(not tl.cuda.is_available(), reason="no CUDA device")

FALLBACK_FAMILIES = ("linalg", "cholesky", "lu_", "ldl", "geqrf", "ormqr", "_fft_")


def test_linalg_and_fft_operators_have_a_cuda_path():
    fns = load_all(ROOT, f"{ROOT}/native_functions.yaml", f"{ROOT}/derivatives.yaml")
    missing = [str(f.name) for f in ops_without_cuda(fns) if any(k in str(f.name) for k in FALLBACK_FAMILIES)]
    assert missing == []
    cuda = {str(f.name): f.kernel("CUDA") for f in fns}
    assert {cuda[op] for op in ("_fft_c2r", "linalg_qr", "linalg_inv_ex")} == {"host_fallback"}
    # Note [cuSOLVER kernels], Note [cuFFT kernels]: these try the CUDA library first.
    for op in ("linalg_cholesky_ex", "linalg_lu_factor_ex", "_linalg_eigh", "_fft_c2c", "_fft_r2c"):
        assert cuda[op] == f"{op}_cuda"


def _both(fn, *arrays):
    """fn on CPU tensors and on their CUDA copies: (cpu result, cuda result) or the two errors."""
    results = []
    for device in ("cpu", "cuda"):
        try:
            results.append(fn(*[tl.tensor(a, device=device) for a in arrays]))
        except Exception as e:  # the error itself is compared
            results.append(e)
    return results


SINGULAR = np.zeros((2, 3, 3))
ERRORS = {
    "inv": (lambda A: tl.linalg.inv(A), SINGULAR),
    "cholesky": (lambda A: tl.linalg.cholesky(A), SINGULAR),
    "solve": (lambda A: tl.linalg.solve(A, tl.ones(2, 3, 1, dtype=A.dtype, device=A.device)), SINGULAR),
    "lu_factor": (lambda A: tl.linalg.lu_factor(A), SINGULAR),
    "inv_not_square": (lambda A: tl.linalg.inv(A), np.ones((2, 3))),
    "qr_mode": (lambda A: tl.linalg.qr(A, mode="thin"), np.ones((3, 3))),
}


@requires_gpu
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_are_the_cpus(case):
    fn, A = ERRORS[case]
    cpu, cuda = _both(fn, A)
    assert isinstance(cpu, Exception)
    assert type(cuda) is type(cpu) and str(cuda) == str(cpu)


@requires_gpu
@pytest.mark.parametrize("op", [tl.linalg.inv_ex, tl.linalg.cholesky_ex, tl.linalg.lu_factor_ex])
def test_info_codes_are_the_cpus(op):
    A = np.stack([np.eye(3), np.zeros((3, 3)), np.diag([1.0, -1.0, 1.0])])
    cpu, cuda = _both(lambda a: tuple(op(a)), A)
    info = to_numpy(cpu[-1])
    np.testing.assert_array_equal(to_numpy(cuda[-1].cpu()), info)
    ok = info == 0  # where a factorization failed its other results are unspecified, as in PyTorch
    for c, g in zip(cpu[:-1], cuda[:-1]):
        assert g.device.type == "cuda"
        np.testing.assert_allclose(to_numpy(g.cpu())[ok], to_numpy(c)[ok], rtol=1e-10, atol=1e-10)


@requires_gpu
def test_results_follow_the_input_and_gradients_flow():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    grads = []
    for device in ("cpu", "cuda"):
        a = tl.tensor(A, device=device, requires_grad=True)
        U, S, Vh = tl.linalg.svd(a, full_matrices=False)
        L = tl.linalg.cholesky(a @ a.mT)
        (tl.linalg.det(a).sum() + S.sum() + L.sum()).backward()
        assert {t.device.type for t in (U, S, Vh, L)} == {device}
        grads.append(to_numpy(a.grad.cpu()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-10)


@requires_gpu
def test_svd_takes_a_cusolver_driver_on_cuda():
    A = np.random.default_rng(1).standard_normal((3, 4))
    S = tl.linalg.svdvals(tl.tensor(A))
    for driver in ("gesvd", "gesvdj", "gesvda"):
        got = tl.linalg.svd(tl.tensor(A, device="cuda"), full_matrices=False, driver=driver).S
        np.testing.assert_allclose(to_numpy(got.cpu()), to_numpy(S), rtol=1e-12)
    with pytest.raises(RuntimeError, match="unknown svd driver gesdd"):
        tl.linalg.svd(tl.tensor(A, device="cuda"), driver="gesdd")
    with pytest.raises(RuntimeError, match="only supported on CUDA inputs"):
        tl.linalg.svd(tl.tensor(A), driver="gesvd")


@requires_gpu
def test_ffts_match_the_cpu():
    """cuFFT where installed (Note [cuFFT kernels]), else the host fallback: the CPU's values either way."""
    rng = np.random.default_rng(2)
    z = rng.standard_normal((3, 4, 6)) + 1j * rng.standard_normal((3, 4, 6))
    x = rng.standard_normal((3, 4, 6))
    cases = [
        (tl._C._fft_c2c, z, ([2, 0], 1, True)),
        (tl._C._fft_c2c, z, ([1], 2, False)),
        (tl._C._fft_r2c, x, ([0, 2], 0, True)),
        (tl._C._fft_r2c, x, ([1], 1, False)),
        (tl._C._fft_c2r, z[..., :4], ([2], 2, 6)),
    ]
    for op, a, args in cases:
        cpu = op(tl.tensor(a), *args)
        cuda = op(tl.tensor(a, device="cuda"), *args)
        assert cuda.device.type == "cuda"
        np.testing.assert_allclose(to_numpy(cuda.cpu()), to_numpy(cpu), rtol=1e-10, atol=1e-10)


def test_cufft_plan_cache_without_gpu_raises():
    if tl.cuda.is_available():
        pytest.skip("a CUDA device is present")
    cache = tl.backends.cuda.cufft_plan_cache
    with pytest.raises(RuntimeError, match="expected 0 <= device index < 0"):
        cache[0]
    with pytest.raises(RuntimeError, match="CUDA"):
        cache.size
    # The operators behind it (native_functions.yaml) have no device to name either.
    calls = [(tl._C._cufft_get_plan_cache_size, 0), (tl._C._cufft_get_plan_cache_max_size, 0),
             (tl._C._cufft_set_plan_cache_max_size, 0, 8), (tl._C._cufft_clear_plan_cache, 0)]
    for op, *args in calls:
        with pytest.raises(RuntimeError, match="compiled with CUDA" if not tl.backends.cuda.is_built() else
                           "expected 0 <= device index < 0"):
            op(*args)


@requires_gpu
def test_cufft_plan_cache_keeps_plans_and_results():
    """Note [cuFFT plan cache]: one plan per (sizes, type, batch), evicted beyond max_size; the
    values are the CPU's whatever the cache holds."""
    cache = tl.backends.cuda.cufft_plan_cache[0]
    assert tl.backends.cuda.cufft_plan_cache.max_size == cache.max_size == 4096
    assert tl.backends.cuda.cufft_plan_cache["cuda"].device_index == tl.cuda.current_device()
    with pytest.raises(RuntimeError, match="read-only"):
        cache.size = 3
    with pytest.raises(RuntimeError, match="expected 0 <= device index"):
        tl._C._cufft_get_plan_cache_size(tl.cuda.device_count())
    rng = np.random.default_rng(3)
    signals = [rng.standard_normal((2, n)) + 1j * rng.standard_normal((2, n)) for n in (8, 12, 8)]

    def check_all():
        for z in signals:
            got = tl._C._fft_c2c(tl.tensor(z, device="cuda"), [1], 0, True)
            np.testing.assert_allclose(to_numpy(got.cpu()), np.fft.fft(z, axis=1), rtol=1e-10, atol=1e-10)

    try:
        cache.clear()
        check_all()
        if cache.size == 0:
            pytest.skip("no cuFFT: the host fallback ran")
        assert cache.size == 2  # two shapes; the third signal reused the first plan
        cache.max_size = 1
        assert cache.size == 1
        check_all()
        cache.max_size = 0
        assert cache.size == 0
        check_all()
        assert cache.size == 0
        with pytest.raises(RuntimeError, match="max_size must be non-negative"):
            cache.max_size = -1
        cache.max_size = 4096
        check_all()
        cache.clear()
        assert cache.size == 0
    finally:
        cache.max_size = 4096


@requires_gpu
def test_cufft_one_plan_on_two_streams():
    """Note [cuFFT plan cache]: each run has its own work area, so one cached plan may run on two
    streams at once."""
    rng = np.random.default_rng(4)
    signals = [rng.standard_normal((64, 4096)) + 1j * rng.standard_normal((64, 4096)) for _ in range(2)]
    streams = [tl.cuda.Stream(), tl.cuda.Stream()]
    inputs = [tl.tensor(z, device="cuda") for z in signals]
    tl.cuda.synchronize()
    outs = []
    for _ in range(5):
        for z, s in zip(inputs, streams):
            with tl.cuda.stream(s):
                outs.append(tl._C._fft_c2c(z, [1], 0, True))
    tl.cuda.synchronize()
    for k, got in enumerate(outs):
        np.testing.assert_allclose(to_numpy(got.cpu()), np.fft.fft(signals[k % 2], axis=1), rtol=1e-9, atol=1e-9)
