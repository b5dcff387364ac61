"""torchlite.utils.data: datasets, samplers, collation and the DataLoader (incl. worker processes)."""

import collections
import os
import random
import time

import numpy as np
import pytest

import torchlite as tl
from torchlite.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    get_worker_info,
    random_split,
)

# ---------------------------------------------------------------------------------------------
# datasets used by worker tests live at module level (picklable by reference)


class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": tl.tensor([float(i), float(i * i)]), "i": i}


class FailsAt(Dataset):
    def __init__(self, bad):
        self.bad = bad

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError(f"bad sample {i}")
        return i


class WorkerInfoDataset(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return (i, info.id, info.num_workers, info.seed, random.random(), tl.rand(1).item())


class Range(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))

    def __len__(self):
        return self.end - self.start


class Sleepy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(1.5)
        return i


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


class Unpicklable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return lambda: i


class MissingKey(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {}["absent"]


def init_fn(worker_id):
    np.random.seed(1000 + worker_id)
    os.environ["TL_TEST_WORKER"] = str(worker_id)


class EnvDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return int(os.environ.get("TL_TEST_WORKER", "-1"))


def failing_init(worker_id):
    raise RuntimeError(f"init failed in {worker_id}")


# ---------------------------------------------------------------------------------------------
# datasets


def test_tensor_dataset():
    x, y = tl.arange(6.0).reshape(3, 2), tl.tensor([0, 1, 2])
    ds = TensorDataset(x, y)
    assert len(ds) == 3 and ds[1][0].tolist() == [2.0, 3.0] and ds[1][1].item() == 1
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(x, tl.ones(4))


def test_concat_subset_stack_chain():
    a, b = TensorDataset(tl.arange(3)), TensorDataset(tl.arange(10, 15))
    c = a + b
    assert isinstance(c, ConcatDataset) and len(c) == 8
    assert [c[i][0].item() for i in range(8)] == [0, 1, 2, 10, 11, 12, 13, 14]
    assert c[-1][0].item() == 14
    with pytest.raises(IndexError):
        c[8]
    s = Subset(c, [7, 0])
    assert len(s) == 2 and s[0][0].item() == 14
    st = StackDataset(a, a)
    assert st[2][0][0].item() == 2 and len(st) == 3
    assert StackDataset(p=a, q=a)[1]["q"][0].item() == 1
    chained = Range(0, 2) + Range(5, 7)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 5, 6] and len(chained) == 4
    with pytest.raises(AssertionError, match="IterableDataset"):
        ConcatDataset([Range(0, 2)])


def test_random_split_lengths_fractions_generator():
    ds = list(range(10))
    g = tl.Generator()
    g.manual_seed(1)
    parts = random_split(ds, [3, 7], generator=g)
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(list(parts[0]) + list(parts[1])) == ds
    g2 = tl.Generator()
    g2.manual_seed(1)
    again = random_split(ds, [3, 7], generator=g2)
    assert list(again[0]) == list(parts[0])
    fr = random_split(ds, [0.5, 0.25, 0.25])
    assert [len(p) for p in fr] == [6, 2, 2]  # remainder goes round-robin from the first split
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])


def test_dataset_base_errors():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    with pytest.raises(NotImplementedError):
        iter(IterableDataset())


# ---------------------------------------------------------------------------------------------
# samplers


def test_sequential_and_random_sampler():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = tl.Generator()
    g.manual_seed(0)
    perm = list(RandomSampler(range(20), generator=g))
    assert sorted(perm) == list(range(20)) and perm != list(range(20))
    g.manual_seed(0)
    assert list(RandomSampler(range(20), generator=g)) == perm
    s = RandomSampler(range(5), replacement=True, num_samples=70)
    draws = list(s)
    assert len(s) == 70 and len(draws) == 70 and set(draws) <= set(range(5))
    more = list(RandomSampler(range(3), num_samples=7))
    assert len(more) == 7 and sorted(more[:3]) == [0, 1, 2]
    tl.manual_seed(5)
    a = list(RandomSampler(range(10)))
    tl.manual_seed(5)
    assert list(RandomSampler(range(10))) == a  # no generator: seeded from the global generator


def test_sampler_errors():
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(range(3), 2, 1)


def test_batch_subset_weighted_samplers():
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    s = SubsetRandomSampler([10, 20, 30])
    assert sorted(s) == [10, 20, 30] and len(s) == 3
    w = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200))
    assert set(w) <= {1, 3} and w.count(3) > w.count(1)
    nr = list(WeightedRandomSampler([1.0, 1.0, 0.0, 1.0], 3, replacement=False))
    assert sorted(nr) == [0, 1, 3]
    with pytest.raises(RuntimeError, match="without replacement"):
        WeightedRandomSampler([1.0, 0.0], 2, replacement=False)


# ---------------------------------------------------------------------------------------------
# collate


def test_default_collate_tensors_numbers():
    b = default_collate([tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0])])
    assert b.shape == (2, 2) and b.tolist() == [[1, 2], [3, 4]]
    f = default_collate([1.5, 2.0])
    assert f.dtype == tl.float64 and f.tolist() == [1.5, 2.0]
    i = default_collate([1, 2])
    assert i.dtype == tl.int64
    bo = default_collate([True, False])
    assert bo.dtype == tl.bool and bo.tolist() == [True, False]
    assert default_collate(["a", "b"]) == ["a", "b"]


def test_default_collate_numpy():
    a = default_collate([np.ones((2,), np.float32), np.zeros((2,), np.float32)])
    assert a.dtype == tl.float32 and a.tolist() == [[1, 1], [0, 0]]
    s = default_collate([np.int32(3), np.int32(4)])
    assert s.dtype == tl.int32 and s.tolist() == [3, 4]
    f = default_collate([np.float64(0.5), np.float64(1.5)])
    assert f.dtype == tl.float64
    ro = np.arange(3.0)
    ro.flags.writeable = False
    assert default_collate([ro, ro]).tolist() == [[0, 1, 2]] * 2
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([np.array(["x"]), np.array(["y"])])


def test_default_collate_nested_structures():
    Point = collections.namedtuple("Point", "x y")
    batch = [
        {"img": tl.ones(2), "meta": {"id": 1, "name": "a"}, "pt": Point(1.0, tl.zeros(1)), "pair": (1, 2)},
        {"img": tl.zeros(2), "meta": {"id": 2, "name": "b"}, "pt": Point(2.0, tl.ones(1)), "pair": (3, 4)},
    ]
    out = default_collate(batch)
    assert out["img"].shape == (2, 2)
    assert out["meta"]["id"].tolist() == [1, 2] and out["meta"]["name"] == ["a", "b"]
    assert isinstance(out["pt"], Point) and out["pt"].x.tolist() == [1.0, 2.0] and out["pt"].y.shape == (2, 1)
    assert isinstance(out["pair"], list) and out["pair"][0].tolist() == [1, 3]  # tuples become lists, as in PyTorch
    od = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert type(od) is collections.OrderedDict
    lst = default_collate([[1, 2.0], [3, 4.0]])
    assert isinstance(lst, list) and lst[1].dtype == tl.float64


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([tl.ones(2), tl.ones(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors.*object"):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="same keys"):
        default_collate([{"a": 1}, {"b": 1}])
    with pytest.raises(TypeError, match="element 1 is int"):
        default_collate([tl.ones(1), 3])


def test_default_convert():
    out = default_convert({"a": np.arange(3), "b": [np.float32(1.0), "s"], "c": 5})
    assert isinstance(out["a"], tl.Tensor) and out["a"].dtype == tl.int64
    assert isinstance(out["b"][0], tl.Tensor) and out["b"][1] == "s" and out["c"] == 5
    t = tl.ones(2)
    assert default_convert(t) is t


# ---------------------------------------------------------------------------------------------
# DataLoader, single process


def test_loader_batches_len_drop_last():
    ds = TensorDataset(tl.arange(10.0), tl.arange(10))
    dl = DataLoader(ds, batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3 and batches[2][0].tolist() == [8.0, 9.0]
    dl = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dl) == 2 and len(list(dl)) == 2
    nobatch = list(DataLoader(ds, batch_size=None))
    assert len(nobatch) == 10 and nobatch[3][0].item() == 3.0


def test_loader_shuffle_generator_reproducible():
    ds = TensorDataset(tl.arange(16))

    def epoch(seed):
        g = tl.Generator()
        g.manual_seed(seed)
        return [b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g)]

    e = epoch(3)
    assert e == epoch(3) and sorted(sum(e, [])) == list(range(16)) and sum(e, []) != list(range(16))


def test_loader_sampler_batch_sampler_collate_fn():
    ds = list(range(10))
    assert [b.tolist() for b in DataLoader(ds, sampler=[9, 8, 7], batch_size=2)] == [[9, 8], [7]]
    bs = [[0, 5], [1]]
    assert [b.tolist() for b in DataLoader(ds, batch_sampler=bs)] == [[0, 5], [1]]
    assert list(DataLoader(ds, batch_size=3, collate_fn=sum)) == [3, 12, 21, 9]


@pytest.mark.parametrize("kwargs, match", [
    (dict(sampler=[0], shuffle=True), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(num_workers=1, multiprocessing_context="nope"), "valid start method"),
])
def test_loader_option_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(list(range(4)), **kwargs)


def test_loader_iterable_dataset_errors_and_len():
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Range(0, 4), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Range(0, 4), sampler=[0])
    with pytest.raises(ValueError, match="expected unspecified batch_sampler option"):
        DataLoader(Range(0, 4), batch_sampler=[[0]])
    dl = DataLoader(Range(0, 5), batch_size=2)
    assert len(dl) == 3 and [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(Range(0, 5), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]


def test_loader_attribute_frozen_and_pin_memory():
    dl = DataLoader(list(range(4)), batch_size=2, pin_memory=True)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        dl.batch_size = 3
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3]]
    assert get_worker_info() is None


# ---------------------------------------------------------------------------------------------
# DataLoader with worker processes


def test_workers_results_in_order():
    dl = DataLoader(Squares(10), batch_size=3, num_workers=2)
    out = list(dl)
    assert [b["i"].tolist() for b in out] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert out[1]["x"].tolist() == [[3.0, 9.0], [4.0, 16.0], [5.0, 25.0]]
    # again, with shuffling: the same order as the single-process loader for the same generator
    g1, g2 = tl.Generator(), tl.Generator()
    g1.manual_seed(7)
    g2.manual_seed(7)
    a = [b["i"].tolist() for b in DataLoader(Squares(10), batch_size=3, shuffle=True, generator=g1, num_workers=2)]
    b = [b["i"].tolist() for b in DataLoader(Squares(10), batch_size=3, shuffle=True, generator=g2)]
    assert a == b


def test_workers_info_seeds_and_init_fn():
    rows = list(DataLoader(WorkerInfoDataset(), batch_size=None, num_workers=2))
    ids = {r[1] for r in rows}
    assert ids == {0, 1} and all(r[2] == 2 for r in rows)
    seeds = {r[1]: r[3] for r in rows}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id
    assert len({r[4] for r in rows}) == len(rows)  # python `random` differs across workers
    env = list(DataLoader(EnvDataset(), batch_size=None, num_workers=2, worker_init_fn=init_fn))
    assert sorted(set(env)) == [0, 1]


def test_worker_exception_reraised_with_worker_name():
    dl = DataLoader(FailsAt(5), batch_size=2, num_workers=2)
    with pytest.raises(ValueError, match=r"(?s)Caught ValueError in DataLoader worker process \d.*bad sample 5"):
        list(dl)
    with pytest.raises(RuntimeError, match="(?s)Caught RuntimeError in DataLoader worker process.*init failed"):
        list(DataLoader(FailsAt(99), num_workers=2, worker_init_fn=failing_init))


def test_worker_index_error_reraised():
    with pytest.raises(IndexError, match="DataLoader worker process"):
        list(DataLoader(Squares(3), sampler=[0, 7], num_workers=2, batch_size=1))


def test_iterable_dataset_sharded_across_workers():
    dl = DataLoader(Range(0, 10), batch_size=2, num_workers=2)
    out = sorted(sum((b.tolist() for b in dl), []))
    assert out == list(range(10))
    dup = DataLoader(ChainDataset([Range(0, 3)]), batch_size=None, num_workers=2)
    assert len(list(dup)) == 3  # ChainDataset iterates Range, which shards itself


def test_persistent_workers_multiple_epochs():
    dl = DataLoader(Squares(6), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b["i"].tolist() for b in dl]
    it = iter(dl)
    next(it)  # abandon the second epoch midway
    third = [b["i"].tolist() for b in dl]
    assert first == third == [[0, 1], [2, 3], [4, 5]]
    pids = [w.pid for w in dl._iterator._workers]
    list(dl)
    assert [w.pid for w in dl._iterator._workers] == pids  # same processes
    dl._iterator._shutdown_workers()
    assert not any(w.is_alive() for w in dl._iterator._workers)

    it_dl = DataLoader(Range(0, 6), batch_size=2, num_workers=2, persistent_workers=True)
    assert sorted(sum((b.tolist() for b in it_dl), [])) == list(range(6))
    assert sorted(sum((b.tolist() for b in it_dl), [])) == list(range(6))
    it_dl._iterator._shutdown_workers()


def test_workers_shut_down_after_epoch():
    dl = DataLoader(Squares(4), batch_size=2, num_workers=2)
    it = iter(dl)
    workers = list(it._workers)
    list(it)
    assert not any(w.is_alive() for w in workers)
    it2 = iter(dl)
    next(it2)
    ws = list(it2._workers)
    del it2  # abandoned iterator: workers are cleaned up
    time.sleep(0.1)
    for w in ws:
        w.join(timeout=5)
    assert not any(w.is_alive() for w in ws)


def test_worker_timeout():
    dl = DataLoader(Sleepy(), batch_size=None, num_workers=1, timeout=0.5)
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(iter(dl))


def test_worker_dies_unexpectedly():
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(DataLoader(Dies(), num_workers=1))


def test_prefetch_factor_and_in_order_false():
    dl = DataLoader(Squares(9), batch_size=2, num_workers=2, prefetch_factor=1, in_order=False)
    got = sorted(i for b in dl for i in b["i"].tolist())
    assert got == list(range(9))


def test_workers_numpy_dataset_tensors_cross_processes():
    arr = np.arange(24, dtype=np.float32).reshape(6, 4)
    ds = TensorDataset(tl.from_numpy(arr), tl.arange(6).to(tl.bfloat16))
    out = list(DataLoader(ds, batch_size=3, num_workers=2))
    assert out[1][0].tolist() == arr[3:].tolist() and out[1][1].dtype == tl.bfloat16


def test_worker_batch_that_cannot_be_pickled_and_key_error():
    with pytest.raises(Exception, match="(?s)in DataLoader worker process 0 while sending a batch.*pickle"):
        list(DataLoader(Unpicklable(), batch_size=None, num_workers=1, timeout=20))
    with pytest.raises(KeyError, match="(?s)Caught KeyError in DataLoader worker process 0.*absent"):
        list(DataLoader(MissingKey(), batch_size=None, num_workers=1, timeout=20))


@pytest.mark.parametrize("n,replicas,drop_last,shuffle", [(10, 3, False, False), (10, 3, True, False),
                                                          (10, 3, False, True), (2, 4, False, False), (12, 4, True, True)])
def test_distributed_sampler_splits_like_torch(n, replicas, drop_last, shuffle):
    samplers = [DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=shuffle, seed=3,
                                   drop_last=drop_last) for r in range(replicas)]
    shares = [list(s) for s in samplers]
    assert all(len(share) == len(s) for share, s in zip(shares, samplers))
    visited = sorted(i for share in shares for i in share)
    if drop_last:
        assert len(set(visited)) == len(visited) and len(visited) == (n // replicas) * replicas
    else:
        assert set(visited) == set(range(n))
    torch = pytest.importorskip("torch")
    for r, share in enumerate(shares):
        ref = torch.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=shuffle,
                                                  drop_last=drop_last)
        assert len(share) == len(ref)
        if not shuffle:  # a shuffle draws from each library's own generator
            assert share == list(ref)


def test_distributed_sampler_epochs_and_errors():
    s = DistributedSampler(range(20), num_replicas=2, rank=1, seed=5)
    first = list(s)
    assert list(s) == first  # same epoch, same order
    s.set_epoch(1)
    assert list(s) != first
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(RuntimeError, match="num_replicas and rank"):
        DistributedSampler(range(4))
