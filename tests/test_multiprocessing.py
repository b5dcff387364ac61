"""torchlite.multiprocessing: storages in shared memory, tensors crossing processes by handle,
spawn/start_processes, and DataLoader workers handing batches over through shared memory."""

import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import torchlite as tl
import torchlite.multiprocessing as mp
from torchlite.utils.data import DataLoader, Dataset

torch = pytest.importorskip("torch")

fork = mp.get_context("fork")


@pytest.mark.parametrize("lib", [tl, torch], ids=["torchlite", "torch"])
def test_share_memory_moves_the_storage_in_place(lib):
    base = lib.arange(12, dtype=lib.float32)
    view = base[2:].view(2, 5)
    assert not base.is_shared() and not base.untyped_storage().is_shared()
    assert base.share_memory_() is base
    assert base.is_shared() and view.is_shared() and view.untyped_storage().is_shared()
    assert view.tolist() == [[2, 3, 4, 5, 6], [7, 8, 9, 10, 11]]
    view[0, 0] = -1  # the view still sees the base's (now shared) memory
    assert base[2].item() == -1
    ptr = base.data_ptr()
    base.share_memory_()  # already shared: nothing moves
    assert base.data_ptr() == ptr


def test_shared_tensor_cannot_grow():
    # (PyTorch 2.13 segfaults here rather than raise)
    base = tl.arange(12.0).share_memory_()
    with pytest.raises(RuntimeError, match="not resizable"):
        base.resize_(100)
    base.resize_(3)  # shrinking keeps the shared storage
    assert base.is_shared()


def test_module_share_memory():
    lin = tl.nn.Linear(3, 2)
    before = lin.weight.tolist()
    assert lin.share_memory() is lin
    assert all(p.is_shared() for p in lin.parameters()) and lin.weight.tolist() == before


def test_tensors_pickle_as_a_handle_not_their_bytes():
    t = tl.zeros(256, 1024)  # 1 MiB
    payload = ForkingPickler.dumps(t)
    assert len(payload) < 1024 and t.is_shared()
    back = pickle.loads(payload)
    assert back.is_shared() and back.shape == t.shape and back.dtype == t.dtype
    back[3, 4] = 7  # same pages: the write shows in the original
    assert t[3, 4].item() == 7
    view = t[1:, 2:5].t()
    v = pickle.loads(ForkingPickler.dumps(view))
    assert v.stride() == view.stride() and v.storage_offset() == view.storage_offset()
    assert np.array_equal(v.numpy(), view.numpy())
    p = pickle.loads(ForkingPickler.dumps(tl.nn.Parameter(tl.ones(2))))
    assert isinstance(p, tl.nn.Parameter) and p.requires_grad
    plain = pickle.dumps(tl.zeros(256, 1024))  # ordinary pickling still copies the data
    assert len(plain) > 1024 * 1024


def test_non_leaf_requiring_grad_is_refused():
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ForkingPickler.dumps(x * 2)


def _child_doubles_and_answers(inbox, outbox):
    t = inbox.get()
    t.mul_(2)  # in place, on the shared pages
    outbox.put(tl.full((3,), 5.0))
    inbox.get()  # a sender stays alive until its tensors are received (their fds come from it)


def test_queue_shares_memory_between_processes():
    inbox, outbox = fork.Queue(), fork.SimpleQueue()
    t = tl.arange(6, dtype=tl.float64)
    proc = fork.Process(target=_child_doubles_and_answers, args=(inbox, outbox))
    proc.start()
    inbox.put(t)
    answer = outbox.get()
    inbox.put(None)
    proc.join(30)
    assert proc.exitcode == 0
    assert t.tolist() == [0, 2, 4, 6, 8, 10]  # the child's write is visible here
    assert answer.tolist() == [5, 5, 5] and answer.is_shared()


def _row_sum(t):
    return t.sum().item()


def test_pool_map_over_tensors():
    with fork.Pool(2) as pool:
        assert pool.map(_row_sum, list(tl.arange(6.0).view(3, 2))) == [1.0, 5.0, 9.0]


def test_spawn_and_start_processes():
    # the targets live in a module without PyTorch, which each spawned process imports
    from mp_targets import exit_with_3, fail_on_rank_1, write_rank

    out = tl.zeros(2)
    mp.spawn(write_rank, args=(out,), nprocs=2)
    assert out.tolist() == [10, 11]
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: rank one failed"):
        mp.start_processes(fail_on_rank_1, nprocs=2, start_method="fork")
    ctx = mp.start_processes(exit_with_3, nprocs=1, join=False, start_method="fork")
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        while not ctx.join():
            pass
    assert info.value.exit_code == 3
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(write_rank, args=(out,), nprocs=0, start_method="fork")


def test_sharing_strategy():
    assert mp.get_sharing_strategy() == "file_descriptor"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError, match="invalid sharing strategy"):
        mp.set_sharing_strategy("file_system_nope")


class _Images(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return tl.full((3, 4, 4), float(i)), i


def test_dataloader_workers_return_batches_in_shared_memory():
    single = [(x.tolist(), y.tolist()) for x, y in DataLoader(_Images(), batch_size=3)]
    batches = list(DataLoader(_Images(), batch_size=3, num_workers=2))
    assert [(x.tolist(), y.tolist()) for x, y in batches] == single
    assert all(x.is_shared() and y.is_shared() for x, y in batches)
