"""Process-wide settings and constants (torchlite/_global_state.py) against PyTorch: the values,
the flags round-tripping, the random generator's state, and the errors."""

import math
import warnings

import pytest

import torchlite as tl

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_constants():
    assert (tl.e, tl.pi, tl.inf, tl.newaxis) == (math.e, math.pi, math.inf, None)
    assert math.isnan(tl.nan)
    assert tl.has_openmp is True
    assert tl.ones(2, 3)[:, tl.newaxis].shape == (2, 1, 3)


@pytest.fixture
def restore_flags():
    yield
    tl.use_deterministic_algorithms(False)
    tl.set_warn_always(False)
    tl.set_float32_matmul_precision("highest")
    tl.set_anomaly_enabled(False)


@pytest.mark.usefixtures("restore_flags")
def test_deterministic_flags():
    assert not tl.are_deterministic_algorithms_enabled() and tl.get_deterministic_debug_mode() == 0
    tl.use_deterministic_algorithms(True, warn_only=True)
    assert tl.are_deterministic_algorithms_enabled() and tl.is_deterministic_algorithms_warn_only_enabled()
    assert tl.get_deterministic_debug_mode() == 1
    tl.set_deterministic_debug_mode("error")
    assert tl.get_deterministic_debug_mode() == 2 and not tl.is_deterministic_algorithms_warn_only_enabled()
    tl.set_deterministic_debug_mode(0)
    assert not tl.are_deterministic_algorithms_enabled()
    with pytest.raises(TypeError, match="must be bool"):
        tl.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match="debug_mode must be str or int"):
        tl.set_deterministic_debug_mode(1.0)
    with pytest.raises(RuntimeError, match="expected one of `default`"):
        tl.set_deterministic_debug_mode("loud")
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2"):
        tl.set_deterministic_debug_mode(3)


@pytest.mark.usefixtures("restore_flags")
def test_other_flags():
    tl.set_warn_always(True)
    assert tl.is_warn_always_enabled()
    tl.set_float32_matmul_precision("medium")
    assert tl.get_float32_matmul_precision() == "medium"
    with pytest.warns(UserWarning, match="has no effect"):
        tl.set_float32_matmul_precision("low")
    assert tl.get_float32_matmul_precision() == "medium"
    with pytest.raises(RuntimeError, match="expects a str"):
        tl.set_float32_matmul_precision(1)


@pytest.mark.usefixtures("restore_flags")
def test_anomaly_mode_is_autograds():
    assert not tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()
    tl.set_anomaly_enabled(True, False)
    assert tl.is_anomaly_enabled() and not tl.is_anomaly_check_nan_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), tl.autograd.detect_anomaly(check_nan=True):
        assert tl.is_anomaly_enabled() and tl.is_anomaly_check_nan_enabled()
    assert tl.is_anomaly_enabled() and not tl.is_anomaly_check_nan_enabled()


def test_threads():
    assert tl.get_num_interop_threads() > 0
    assert tl.init_num_threads() is None
    with pytest.raises(RuntimeError, match="positive integer"):
        tl.set_num_interop_threads(0)


def test_rng_state_round_trip():
    saved = tl.get_rng_state()
    try:
        assert saved.dtype == tl.uint8 and saved.dim() == 1
        first = tl.rand(4)
        tl.set_rng_state(saved)
        assert tl.equal(tl.rand(4), first)
        g = tl.Generator().manual_seed(3)
        state = g.get_state()
        g.manual_seed(5)
        assert g.set_state(state) is g and g.initial_seed() == 3 and tl.equal(g.get_state(), state)
        with pytest.raises(TypeError, match="ByteTensor"):
            tl.set_rng_state(tl.zeros(3))
        with pytest.raises(RuntimeError, match="get_state"):
            tl.set_rng_state(tl.zeros(3, dtype=tl.uint8))
        s = tl.seed()
        assert isinstance(s, int) and tl.initial_seed() == s
    finally:
        tl.set_rng_state(saved)


def test_predicates():
    x = tl.ones(2, 3)
    assert tl.is_same_size(x, tl.zeros(2, 3)) and not x.is_same_size(tl.zeros(3, 2))
    assert not tl.is_inference(x) and not x.is_inference()
    assert tl.is_nonzero(tl.tensor([2])) and not tl.tensor(0.0).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value"):
        tl.is_nonzero(x)
    with pytest.raises(RuntimeError, match="no values"):
        tl.is_nonzero(tl.zeros(0))
    assert tl.get_device(x) == -1 and not tl.is_storage(x)
    assert tl.is_floating_point(x) and not tl.is_floating_point(input=tl.ones(1, dtype=tl.int64))
    with pytest.raises(TypeError, match="must be Tensor"):
        tl.is_floating_point(1.0)


def test_device_module():
    assert tl.get_device_module("cpu") is tl.cpu and tl.get_device_module(tl.device("cuda")) is tl.cuda
    assert tl.get_device_module() is (tl.cuda if tl.cuda.is_available() else tl.cpu)
    assert tl.cpu.is_available() and tl.cpu.device_count() == 1
    with pytest.raises(RuntimeError, match="Invalid value of device"):
        tl.get_device_module(3)


def test_set_default_tensor_type():
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            tl.set_default_tensor_type("torch.DoubleTensor")
        assert tl.get_default_dtype() == tl.float64 and tl.zeros(1).dtype == tl.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tl.set_default_tensor_type(tl.FloatTensor)
            assert tl.get_default_dtype() == tl.float32
            with pytest.raises(TypeError, match="only floating-point types"):
                tl.set_default_tensor_type("torch.LongTensor")
    finally:
        tl.set_default_dtype(tl.float32)


@needs_torch
@pytest.mark.parametrize("name", ["e", "pi", "inf", "has_openmp"])
def test_values_match_torch(name):
    assert getattr(tl, name) == getattr(torch, name)


@needs_torch
def test_flags_match_torch_defaults():
    for name in ["are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
                 "get_deterministic_debug_mode", "is_warn_always_enabled", "get_float32_matmul_precision",
                 "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]:
        assert getattr(tl, name)() == getattr(torch, name)(), name
