"""The NCCL backend without a GPU: backend-name mapping, loading libnccl through ctypes, and the
error paths. Collectives on CUDA tensors need GPUs and run where they exist."""

import ctypes

import pytest

import torchlite
from torchlite.distributed import DistBackendError, _nccl
from torchlite.distributed.distributed_c10d import ProcessGroup, _resolve_backend, init_process_group

no_gpu = pytest.mark.skipif(torchlite.cuda.is_available(), reason="checks the behaviour without a GPU")
needs_libnccl = pytest.mark.skipif(not _nccl.is_available(), reason="libnccl not installed (pip install '.[nccl]')")


@no_gpu
def test_backend_names_map_cuda_tensors_to_nccl_only_where_it_can_run():
    staged = {"cpu": "mpi", "cuda": "mpi"}  # no GPU: CUDA tensors would go through host memory
    for name in (None, "gloo", "mpi", "GLOO", "cpu:gloo", "cpu:gloo,cuda:nccl", "cuda:nccl,cpu:gloo"):
        assert _resolve_backend(name) == staged, name
    for call in (lambda: _resolve_backend("nccl"), lambda: init_process_group("nccl")):
        with pytest.raises(RuntimeError, match="'nccl' needs a CUDA GPU"):
            call()
    with pytest.raises(ValueError, match="Invalid backend"):
        _resolve_backend("cuda:ucc")
    with pytest.raises(TypeError, match="string or None"):
        _resolve_backend(3)


def test_a_group_on_nccl_leaves_cpu_tensors_to_mpi():
    group = ProcessGroup(comm=None, ranks=[0], timeout=None, backends={"cpu": "mpi", "cuda": "nccl"})
    assert group.name() == "cpu:mpi,cuda:nccl"
    assert group.nccl_for(torchlite.ones(2)) is None  # no communicator is made for CPU tensors
    assert ProcessGroup(None, [0], None).name() == "mpi"


def test_a_missing_library_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(_nccl, "_lib", None)
    monkeypatch.setenv("TORCHLITE_NCCL_LIBRARY", "/nonexistent/libnccl.so.2")
    assert _nccl.library_path() == "/nonexistent/libnccl.so.2"
    with pytest.raises(RuntimeError, match=r"pip install 'torchlite\[nccl\]'"):
        _nccl.load()
    assert not _nccl.is_available()
    assert not torchlite.distributed.is_nccl_available()


def test_unsupported_dtypes_and_ops_are_refused():
    with pytest.raises(ValueError, match="cannot exchange torchlite.bool"):
        _nccl._dtype(torchlite.ones(2, dtype=torchlite.bool))
    with pytest.raises(ValueError, match="BAND is not supported"):
        _nccl._op("BAND", torchlite.ones(2))
    with pytest.raises(ValueError, match="AVG needs a floating-point"):
        _nccl._op("AVG", torchlite.ones(2, dtype=torchlite.int64))
    with pytest.raises(ValueError, match="contiguous CUDA tensors"):
        _nccl._ptr(torchlite.ones(2))


@needs_libnccl
def test_the_binding_loads_and_calls_libnccl():
    major, minor, _ = _nccl.version()
    assert (major, minor) >= (2, 10)  # ncclAvg
    uid = _nccl.UniqueId()
    assert _nccl.load().ncclGetUniqueId(ctypes.byref(uid)) == 0 and any(bytes(uid))  # no GPU needed
    with pytest.raises(DistBackendError, match="ncclAllReduce failed: NCCL error 4, invalid argument"):
        _nccl.check(4, "ncclAllReduce")


@needs_libnccl
@no_gpu
def test_a_communicator_needs_a_gpu():
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        _nccl.Communicator(mpi_comm=None)
