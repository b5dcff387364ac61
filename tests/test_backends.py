"""torchlite.backends: the flags PyTorch programs set, read back with the meaning they have here."""

import pytest

import torchlite as tl


def test_allow_tf32_is_the_matmul_precision_setting():
    saved = tl.get_float32_matmul_precision()
    try:
        tl.backends.cuda.matmul.allow_tf32 = True
        assert tl.get_float32_matmul_precision() == "high"
        tl.set_float32_matmul_precision("highest")
        assert tl.backends.cuda.matmul.allow_tf32 is False
    finally:
        tl.set_float32_matmul_precision(saved)


def test_flags_are_recorded(monkeypatch):
    for module, name, value in [(tl.backends.cudnn, "benchmark", True), (tl.backends.cudnn, "deterministic", True),
                                (tl.backends.cudnn, "enabled", False), (tl.backends.opt_einsum, "enabled", False),
                                (tl.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", False)]:
        monkeypatch.setattr(module, name, value)
        assert getattr(module, name) is value
    assert tl.backends.cudnn.is_available() is False and tl.backends.cudnn.version() is None
    assert tl.backends.mps.is_available() is False and tl.backends.mps.is_built() is False
    assert tl.backends.openmp.is_available() is True
    assert tl.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert tl.backends.cuda.is_built() == tl.cuda.is_built()


def test_sdp_switches_and_context():
    assert tl.backends.cuda.flash_sdp_enabled()
    with tl.backends.cuda.sdp_kernel(enable_flash=False):
        assert not tl.backends.cuda.flash_sdp_enabled() and tl.backends.cuda.math_sdp_enabled()
    assert tl.backends.cuda.flash_sdp_enabled()
    tl.backends.cuda.enable_mem_efficient_sdp(False)
    try:
        assert not tl.backends.cuda.mem_efficient_sdp_enabled()
    finally:
        tl.backends.cuda.enable_mem_efficient_sdp(True)


def test_opt_einsum_availability_matches_torch():
    torch = pytest.importorskip("torch")
    assert tl.backends.opt_einsum.is_available() == torch.backends.opt_einsum.is_available()
    assert tl.backends.opt_einsum.strategy == torch.backends.opt_einsum.strategy
