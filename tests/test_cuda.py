"""torchlite.cuda and the CUDA kernels.

Without a GPU: the module reports no devices, CUDA tensors raise clear errors, memory stats
are zero, and the caching allocator's pool logic is tested on host memory. With a GPU: every
CUDA kernel is compared with the CPU result (and CuPy when importable).
"""

import numpy as np
import pytest
from helpers import ALL_DTYPES, FLOAT_DTYPES, LAYOUTS, NP_DTYPE, assert_close, random_array, to_numpy

import torchlite as tl
import torchlite.cuda as tcuda

HAS_GPU = tcuda.is_available()
requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")
requires_no_gpu = pytest.mark.skipif(HAS_GPU, reason="a CUDA device is present")

KiB = 1024
MiB = 1024 * 1024


# ---- without a GPU ------------------------------------------------------------------------


def test_is_built_is_bool():
    assert isinstance(tcuda.is_built(), bool)


@requires_no_gpu
def test_no_devices():
    assert tcuda.is_available() is False
    assert tcuda.device_count() == 0


@requires_no_gpu
@pytest.mark.parametrize(
    "make",
    [
        lambda: tl.empty(2, device="cuda"),
        lambda: tl.empty(0, 3, device="cuda:0"),
        lambda: tl.empty_strided((2, 2), (2, 1), device="cuda"),
        lambda: tl.tensor([1.0, 2.0]).to("cuda"),
        lambda: tl.tensor([1.0, 2.0]).cuda(),
    ],
    ids=["empty", "empty_zero_size", "empty_strided", "to", "cuda"],
)
def test_cuda_tensor_without_gpu_raises(make):
    # RuntimeError (NotImplementedError, its subclass, in a build without CUDA).
    with pytest.raises(RuntimeError, match="(?i)cuda"):
        make()


@requires_no_gpu
def test_cuda_tensor_error_says_no_device():
    if not tcuda.is_built():
        pytest.skip("build without CUDA")
    with pytest.raises(RuntimeError, match="no CUDA-capable device is detected"):
        tl.empty(2, device="cuda")
    # the failure leaves no sticky state behind
    assert tl.empty(2).shape == (2,)
    assert tcuda.device_count() == 0


@requires_no_gpu
def test_device_queries_without_gpu_raise():
    for f in (
        tcuda.current_device,
        tcuda.synchronize,
        tcuda.get_device_name,
        tcuda.get_device_capability,
        tcuda.mem_get_info,
        tcuda.current_stream,
        tcuda.Stream,
    ):
        with pytest.raises(RuntimeError):
            f()
    with pytest.raises(RuntimeError):
        tcuda.set_device(0)
    with pytest.raises(RuntimeError), tcuda.device(0):
        pass
    with tcuda.device(None):  # no-op, as in PyTorch
        pass


@requires_no_gpu
def test_memory_stats_without_gpu_are_zero():
    stats = tcuda.memory_stats()
    for key in (
        "allocated_bytes.all.current",
        "allocated_bytes.all.peak",
        "reserved_bytes.all.current",
        "reserved_bytes.all.peak",
    ):
        assert stats[key] == 0
    assert all(v == 0 for k, v in stats.items() if k != "max_split_size")
    assert stats["max_split_size"] == -1  # no limit, as PyTorch reports it
    assert tcuda.memory_allocated() == 0
    assert tcuda.max_memory_allocated() == 0
    assert tcuda.memory_reserved() == 0
    assert tcuda.max_memory_reserved() == 0
    assert tcuda.is_bf16_supported() is False
    tcuda.manual_seed_all(0)
    tcuda.empty_cache()
    tcuda.reset_peak_memory_stats()
    assert tcuda.memory_allocated(0) == 0


# ---- Note [32-bit index splits]: host-side planning of the CUDA elementwise launches -------

INT32_MAX = 2**31 - 1


def _dense_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in shape:  # dim 0 moves fastest, as in the iterator
        strides.append(step)
        step *= n
    return strides


@pytest.mark.parametrize("shape,in_strides,itemsize", [
    ([2**31 + 5], [4], 4),                      # too many elements, contiguous
    ([3, 2**30], [8, 24], 8),                   # byte extents too large in 2-d
    ([2**20, 3000], [0, 4], 4),                 # a broadcast input (stride 0)
    ([7, 5], [4, 28], 4),                       # small: one piece, untouched
    ([7, 5], [-4, 28], 4),                      # a flipped input (negative stride), small
    ([2**31 + 5], [-4], 4),                     # a flipped input, too many elements
    ([3, 2**30], [8, -24], 8),                  # a flipped input, byte extents too large
])
def test_32bit_index_split_covers_the_iteration_once(shape, in_strides, itemsize):
    out_strides = _dense_strides(shape, itemsize)
    pieces = tl._C._cuda._test_32bit_index_split(shape, [out_strides, in_strides])
    boxes = []
    for p_shape, p_strides, p_offsets in pieces:
        assert p_strides == [out_strides, in_strides]
        numel = int(np.prod(p_shape, dtype=object))
        assert numel <= INT32_MAX
        for st in p_strides:  # offsets are signed: forward and backward extents each fit
            assert sum((n - 1) * s for n, s in zip(p_shape, st) if s > 0) <= INT32_MAX
            assert sum((n - 1) * -s for n, s in zip(p_shape, st) if s < 0) <= INT32_MAX
        # the piece's start coordinates, decoded from the dense output's offset
        start, rest = [], p_offsets[0]
        for s in reversed(out_strides):
            start.insert(0, rest // s)
            rest %= s
        assert rest == 0
        assert p_offsets[1] == sum(c * s for c, s in zip(start, in_strides))
        boxes.append((start, p_shape))
    total = int(np.prod(shape, dtype=object))
    assert sum(int(np.prod(b[1], dtype=object)) for b in boxes) == total
    for i, (s1, n1) in enumerate(boxes):  # pairwise disjoint: together they cover it exactly once
        assert all(0 <= c and c + n <= full for c, n, full in zip(s1, n1, shape))
        for s2, n2 in boxes[i + 1:]:
            assert any(a + m <= b or b + k <= a for a, m, b, k in zip(s1, n1, s2, n2))
    if shape == [7, 5]:
        assert pieces == [([7, 5], [out_strides, in_strides], [0, 0])]
    else:
        assert len(pieces) > 1


# ---- caching allocator pool logic on host memory (no GPU needed) ----------------------------


@pytest.fixture
def pool():
    p = tcuda._HostPool()
    yield p
    tcuda._HostPool()  # release everything


def test_pool_rounds_to_512(pool):
    for n, rounded in [(1, 512), (0, 512), (512, 512), (513, 1024), (1000, 1024), (MiB, MiB)]:
        p = pool.malloc(n)
        assert p % 512 == 0
        s = pool.stats()
        assert s["allocated_bytes.all.current"] == rounded, n
        assert s["requested_bytes.all.current"] == n
        pool.free(p)
    assert pool.stats()["allocated_bytes.all.current"] == 0


def test_pool_small_requests_share_a_2mib_segment_and_split(pool):
    a = pool.malloc(1000)
    b = pool.malloc(3000)
    c = pool.malloc(512)
    assert b == a + 1024  # carved from the same segment, right after a
    assert c == b + 3072
    s = pool.stats()
    assert s["reserved_bytes.all.current"] == 2 * MiB
    assert s["reserved_bytes.small_pool.current"] == 2 * MiB
    assert s["segment.all.current"] == 1
    assert s["allocation.all.current"] == 3
    assert s["allocated_bytes.all.current"] == 1024 + 3072 + 512
    assert s["inactive_split_bytes.all.current"] == 2 * MiB - (1024 + 3072 + 512)
    assert s["raw_alloc_calls"] == 1
    for p in (a, b, c):
        pool.free(p)


def test_pool_reuses_freed_blocks_without_new_segments(pool):
    a = pool.malloc(4096)
    pool.free(a)
    for _ in range(10):
        b = pool.malloc(4000)
        assert b == a
        pool.free(b)
    s = pool.stats()
    assert s["raw_alloc_calls"] == 1
    assert s["allocated_bytes.all.current"] == 0
    assert s["reserved_bytes.all.current"] == 2 * MiB  # cached, not released
    assert s["allocation.all.allocated"] == 11
    assert s["allocated_bytes.all.freed"] == 11 * 4096


def test_pool_best_fit(pool):
    # Three free holes of 8K, 2K and 4K separated by live blocks; a 3K request takes the 4K hole.
    blocks = [pool.malloc(n) for n in (8 * KiB, 512, 2 * KiB, 512, 4 * KiB, 512)]
    for i in (0, 2, 4):
        pool.free(blocks[i])
    assert pool.malloc(3 * KiB) == blocks[4]
    assert pool.malloc(2 * KiB) == blocks[2]
    assert pool.malloc(5 * KiB) == blocks[0]


def test_pool_coalesces_so_segments_can_be_released(pool):
    ptrs = [pool.malloc(100 * KiB) for _ in range(8)]
    for p in ptrs[::2] + ptrs[1::2]:  # free out of order
        pool.free(p)
    s = pool.stats()
    assert s["inactive_split.all.current"] == 0  # merged back to one block
    assert s["reserved_bytes.all.current"] == 2 * MiB
    big = pool.malloc(MiB)  # the merged block serves a request larger than any piece
    assert big == ptrs[0]
    pool.free(big)
    pool.empty_cache()
    s = pool.stats()
    assert s["reserved_bytes.all.current"] == 0
    assert s["segment.all.current"] == 0
    assert s["reserved_bytes.all.peak"] == 2 * MiB


def test_pool_empty_cache_keeps_segments_in_use(pool):
    a = pool.malloc(1000)
    b = pool.malloc(5 * MiB)
    pool.free(b)
    pool.empty_cache()
    s = pool.stats()
    assert s["reserved_bytes.all.current"] == 2 * MiB
    assert s["reserved_bytes.large_pool.current"] == 0
    pool.free(a)


def test_pool_large_requests(pool):
    a = pool.malloc(5 * MiB)  # < 10 MiB: from a 20 MiB segment
    s = pool.stats()
    assert s["reserved_bytes.large_pool.current"] == 20 * MiB
    assert s["allocated_bytes.large_pool.current"] == 5 * MiB
    b = pool.malloc(3 * MiB + 1)  # split from the same segment
    assert b == a + 5 * MiB
    assert pool.stats()["segment.large_pool.current"] == 1
    c = pool.malloc(13 * MiB)  # >= 10 MiB: its own segment, rounded up to 2 MiB
    s = pool.stats()
    assert s["reserved_bytes.large_pool.current"] == 20 * MiB + 14 * MiB
    # the 1 MiB tail of c's segment is too small to split off in the large pool
    assert s["allocated_bytes.all.current"] == 5 * MiB + 3 * MiB + 512 + 14 * MiB
    for p in (a, b, c):
        pool.free(p)
    # A remainder of <= 1 MiB in the large pool is not split off.
    d = pool.malloc(19 * MiB + 600 * KiB)
    assert pool.stats()["allocated_bytes.all.current"] == 20 * MiB
    pool.free(d)


def test_pool_per_stream(pool):
    a = pool.malloc(1000, stream=0)
    pool.free(a)
    b = pool.malloc(1000, stream=7)  # a cached block of another stream is not reused
    assert b != a
    assert pool.stats()["segment.all.current"] == 2
    pool.free(b)
    assert pool.malloc(1000, stream=7) == b
    assert pool.malloc(1000, stream=0) == a


def test_pool_peak_and_reset(pool):
    a = pool.malloc(MiB)
    b = pool.malloc(MiB)
    pool.free(a)
    pool.free(b)
    s = pool.stats()
    assert s["allocated_bytes.all.peak"] == 2 * MiB
    assert s["allocated_bytes.all.current"] == 0
    assert s["reserved_bytes.all.peak"] == 2 * MiB
    pool.reset_peak()  # peaks drop to the current values
    s = pool.stats()
    assert s["allocated_bytes.all.peak"] == 0
    assert s["reserved_bytes.all.peak"] == 2 * MiB


def test_pool_out_of_memory_retries_after_freeing_cache():
    pool = tcuda._HostPool(memory_limit=21 * MiB)
    a = pool.malloc(1000)
    pool.free(a)  # 2 MiB cached in the small pool
    b = pool.malloc(5 * MiB)  # needs 20 MiB: fits only after the cached segment is released
    s = pool.stats()
    assert s["num_alloc_retries"] == 1
    assert s["num_ooms"] == 0
    assert s["reserved_bytes.all.current"] == 20 * MiB
    with pytest.raises(tl.OutOfMemoryError, match="CUDA out of memory. Tried to allocate 16.00 MiB"):
        pool.malloc(16 * MiB)  # 15 MiB are free in b's segment: not enough, and 20 + 16 > 21
    s = pool.stats()
    assert s["num_ooms"] == 1
    assert s["reserved_bytes.all.current"] == 20 * MiB  # the live segment survives
    pool.free(b)
    tcuda._HostPool()


def test_pool_free_of_unknown_pointer_raises(pool):
    with pytest.raises(RuntimeError, match="not allocated by this pool"):
        pool.free(12345)


def test_pool_record_stream_defers_reuse_until_the_other_streams_events_complete(pool):
    a = pool.malloc(4096, stream=0)
    pool.record_stream(a, 5)  # also used on stream 5
    pool.record_stream(a, 0)  # its own stream: nothing to wait for
    pool.free(a)
    s = pool.stats()
    assert s["allocated_bytes.all.current"] == 0  # freed by the host ...
    assert s["active_bytes.all.current"] == 4096  # ... but still in use on stream 5
    assert [b["state"] for b in pool.snapshot()[0]["blocks"]][:1] == ["active_pending_free"]
    b = pool.malloc(4096, stream=0)
    assert b != a  # not reused while stream 5's event is pending
    pool.complete_events()
    c = pool.malloc(4096, stream=0)
    assert c == a  # the event completed: the block is back in stream 0's pool
    for p in (b, c):
        pool.free(p)
    assert pool.stats()["active_bytes.all.current"] == 0


def test_pool_empty_cache_waits_for_pending_blocks(pool):
    a = pool.malloc(5 * MiB)
    pool.record_stream(a, 3)
    pool.free(a)
    pool.empty_cache()  # synchronizes, so the pending block is freed and its segment released
    s = pool.stats()
    assert s["reserved_bytes.all.current"] == 0
    assert s["active.all.current"] == 0


def test_pool_record_stream_of_unknown_pointer_raises(pool):
    with pytest.raises(RuntimeError, match="not allocated by the CUDA caching allocator"):
        pool.record_stream(12345, 1)


def test_pool_max_split_size_keeps_oversize_blocks_whole():
    pool = tcuda._HostPool(alloc_conf="max_split_size_mb:40")
    big = pool.malloc(60 * MiB)  # oversize: its own segment, never split
    s = pool.stats()
    assert s["max_split_size"] == 40 * MiB
    assert s["oversize_allocations.current"] == 1 and s["oversize_segments.current"] == 1
    pool.free(big)
    small = pool.malloc(12 * MiB)  # below max_split: may not take the cached 60 MiB block
    assert small != big
    assert pool.stats()["segment.large_pool.current"] == 2
    again = pool.malloc(59 * MiB)  # oversize and within 20 MiB of it: reuses it whole
    assert again == big
    assert pool.stats()["allocated_bytes.large_pool.current"] == 12 * MiB + 60 * MiB
    assert pool.stats()["inactive_split.large_pool.current"] == 0
    for p in (small, again):
        pool.free(p)
    tcuda._HostPool()


def test_pool_default_has_no_max_split_size(pool):
    assert pool.stats()["max_split_size"] == -1


@pytest.mark.parametrize("conf,match", [
    ("max_split_size_mb:10", "greater than 20"),
    ("max_split_size_mb:abc", "must be an integer"),
    ("max_split_size_mb", "expected key:value"),
    ("no_such_option:1", "unrecognized option 'no_such_option'"),
])
def test_pool_alloc_conf_errors(conf, match):
    with pytest.raises(ValueError, match=match):
        tcuda._HostPool(alloc_conf=conf)


def test_pool_alloc_conf_accepts_pytorchs_other_options():
    pool = tcuda._HostPool(alloc_conf="expandable_segments:False,max_split_size_mb:128,garbage_collection_threshold:0.6")
    assert pool.stats()["max_split_size"] == 128 * MiB


def test_pool_snapshot_lists_segments_and_blocks(pool):
    a = pool.malloc(1000)
    b = pool.malloc(3000)
    pool.free(a)
    (seg,) = pool.snapshot()
    assert seg["segment_type"] == "small" and seg["total_size"] == 2 * MiB and seg["stream"] == 0
    assert seg["allocated_size"] == 3072 and seg["requested_size"] == 3000
    assert [(blk["size"], blk["state"]) for blk in seg["blocks"]] == [
        (1024, "inactive"), (3072, "active_allocated"), (2 * MiB - 4096, "inactive")]
    assert seg["blocks"][1]["address"] == b
    pool.free(b)


def test_memory_summary_table_from_stats(pool):
    a = pool.malloc(3 * MiB)
    text = tcuda._format_memory_summary(pool.stats(), "torchlite CUDA memory summary, device ID 0", False)
    lines = text.splitlines()
    assert "torchlite CUDA memory summary, device ID 0" in lines[1]
    row = next(line for line in lines if line.startswith("| Allocated memory"))
    assert row.split("|")[2].strip() == "3072 KiB"  # current usage
    assert any("from large pool" in line for line in lines)
    assert len({len(line) for line in lines}) == 1  # a rectangular table
    short = tcuda._format_memory_summary(pool.stats(), "x", True)
    assert "from large pool" not in short
    pool.free(a)


def test_memory_summary_and_snapshot_without_gpu_or_with():
    assert "Allocated memory" in tcuda.memory_summary()
    assert isinstance(tcuda.memory_snapshot(), list)


@requires_no_gpu
def test_pin_memory_needs_a_gpu():
    x = tl.ones(3)
    assert not x.is_pinned()
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        x.pin_memory()


@requires_no_gpu
def test_dataloader_pin_memory_without_gpu_warns_and_yields_plain_batches():
    loader = tl.utils.data.DataLoader(tl.utils.data.TensorDataset(tl.arange(6.0)), batch_size=3, pin_memory=True)
    with pytest.warns(UserWarning, match="no accelerator is found"):
        batches = list(loader)
    assert [b[0].tolist() for b in batches] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert not batches[0][0].is_pinned()


def test_pin_memory_walks_batches_as_collate_builds_them():
    from collections import namedtuple

    from torchlite.utils.data._utils.pin_memory import pin_memory

    class Marked:  # stands in for a tensor: records that it was pinned
        def pin_memory(self):
            return "pinned"

    Pair = namedtuple("Pair", "a b")
    batch = {"x": [Marked(), (Marked(), "label")], "y": Pair(Marked(), 3), "z": b"raw"}
    assert pin_memory(batch) == {"x": ["pinned", ("pinned", "label")], "y": Pair("pinned", 3), "z": b"raw"}


# ---- with a GPU -----------------------------------------------------------------------------


def host(array, dtype=None):
    """A CPU tensor of `dtype` (bfloat16 arrays come as float32 from random_array)."""
    t = tl.tensor(np.asarray(array))
    return t if dtype is None or t.dtype == dtype else t.to(dtype)


def cuda_layout(array, layout, dtype=None):
    """The array as a CUDA tensor in the given memory layout (views made on the device)."""
    a = np.asarray(array)
    if layout == "contiguous" or a.ndim == 0:
        return host(a, dtype).to("cuda")
    if layout == "transposed":
        return host(np.ascontiguousarray(a.T), dtype).to("cuda").permute(*reversed(range(a.ndim)))
    if layout == "sliced":
        return host(np.repeat(a, 2, axis=-1), dtype).to("cuda")[..., ::2]
    if layout == "expanded":
        if a.shape[0] > 1 and np.all(a == a[:1]):
            return host(a[:1], dtype).to("cuda").expand(*a.shape)
        return host(a, dtype).to("cuda")
    raise ValueError(layout)


def np_of(dtype):
    return NP_DTYPE.get(dtype, np.float32)


@requires_gpu
def test_device_queries():
    assert tcuda.device_count() >= 1
    assert 0 <= tcuda.current_device() < tcuda.device_count()
    assert isinstance(tcuda.get_device_name(), str) and tcuda.get_device_name()
    tcuda.synchronize()
    with tcuda.device(0):
        assert tcuda.current_device() == 0
    major, minor = tcuda.get_device_capability()
    assert major >= 1 and minor >= 0
    free, total = tcuda.mem_get_info()
    assert 0 < free <= total


@requires_gpu
def test_cuda_tensor_has_cuda_device():
    t = tl.empty(3, device="cuda")
    assert t.is_cuda and t.device.type == "cuda" and t.device.index == 0
    assert tl.empty(0, device="cuda").numel() == 0
    bad = tcuda.device_count()
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        tl.empty(2, device=f"cuda:{bad}")


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roundtrip_host_device(dtype, layout):
    a = random_array((5, 6), dtype)
    if layout == "expanded":
        a = np.broadcast_to(a[:1], a.shape).copy()
    x = cuda_layout(a, layout, dtype)
    assert x.is_cuda and x.dtype == dtype
    ref = to_numpy(host(a, dtype))
    assert_close(x.to("cpu"), ref)
    assert_close(x.clone().cpu(), ref)


@requires_gpu
@pytest.mark.parametrize("src_dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dst_dtype", [tl.bool, tl.int32, tl.float16, tl.bfloat16, tl.float64], ids=str)
def test_copy_converts_dtypes_every_direction(src_dtype, dst_dtype):
    # non-negative and in range: float -> int of out-of-range values differs between devices
    a = random_array((4, 7), src_dtype, low=0, high=5)
    cpu = host(a, src_dtype)
    expected = cpu.to(dst_dtype)  # the CPU kernel is the reference
    ref = to_numpy(expected)
    # host -> device with conversion
    assert_close(cpu.to("cuda", dst_dtype).cpu(), ref)
    # device -> device with conversion
    assert_close(cpu.cuda().to(dst_dtype).cpu(), ref)
    # device -> host with conversion
    out = tl.empty(4, 7, dtype=dst_dtype)
    out.copy_(cpu.cuda())
    assert_close(out, ref)


@requires_gpu
@pytest.mark.parametrize("layout", LAYOUTS)
def test_copy_strided_destinations_and_broadcast(layout):
    a = random_array((6, 5), tl.float32)
    # non-contiguous CUDA destination, CPU and CUDA sources, broadcast source
    dst = tl.empty(5, 6, device="cuda").permute(1, 0)
    dst.copy_(tl.tensor(a))
    assert_close(dst.cpu(), a)
    dst.copy_(cuda_layout(a, layout))
    assert_close(dst.cpu(), a)
    row = random_array((5,), tl.int64)
    dst.copy_(tl.tensor(row))
    assert_close(dst.cpu(), np.broadcast_to(row.astype(np.float32), (6, 5)))
    # non-contiguous CPU destination from a non-contiguous CUDA source
    host = tl.empty(5, 6).permute(1, 0)
    host.copy_(cuda_layout(a, layout))
    assert_close(host, a)
    with pytest.raises(RuntimeError, match="broadcast"):
        dst.copy_(tl.tensor(random_array((4,), tl.float32)))


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fill(dtype):
    t = tl.empty(4, 6, dtype=dtype, device="cuda")
    t.fill_(3)
    assert_close(t.cpu(), np.full((4, 6), 3, dtype=np_of(dtype)))
    view = t[:, ::2]
    view.fill_(True if dtype == tl.bool else 1)
    expected = np.full((4, 6), 3, dtype=np_of(dtype))
    expected[:, ::2] = 1
    assert_close(t.cpu(), expected)


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_add_matches_cpu(dtype, layout):
    a = random_array((5, 6), dtype, rng=np.random.default_rng(1))
    b = random_array((5, 6), dtype, rng=np.random.default_rng(2))
    if layout == "expanded":
        a = np.broadcast_to(a[:1], a.shape).copy()
    alpha = True if dtype == tl.bool else 2
    expected = tl.add(host(a, dtype), host(b, dtype), alpha=alpha)
    got = tl.add(cuda_layout(a, layout, dtype), cuda_layout(b, layout, dtype), alpha=alpha)
    assert got.is_cuda and got.dtype == expected.dtype
    assert_close(got.cpu(), to_numpy(expected))


@requires_gpu
def test_add_broadcast_promotion_scalars_out_inplace():
    a = random_array((3, 1, 4), tl.int32)
    b = random_array((5, 1), tl.float32)
    x, y = tl.tensor(a), tl.tensor(b)
    assert_close((x.cuda() + y.cuda()).cpu(), to_numpy(x + y))
    assert_close((x.cuda() + 2.5).cpu(), to_numpy(x + 2.5))
    assert_close((y.cuda() + tl.tensor(3)).cpu(), to_numpy(y + tl.tensor(3)))  # 0-dim CPU operand
    out = tl.empty(3, 5, 4, device="cuda")
    tl.add(x.cuda(), y.cuda(), alpha=-1, out=out)
    assert_close(out.cpu(), to_numpy(tl.add(x, y, alpha=-1)))
    z = y.cuda().expand(5, 4).clone()
    z.add_(y.cuda())
    assert_close(z.cpu(), to_numpy(y.expand(5, 4) + y))
    with pytest.raises(RuntimeError, match="same device"):
        x.cuda() + tl.tensor(b)


@requires_gpu
def test_cpu_scalar_tensors_only_where_read_as_scalars():
    """Note [Device check]: a 0-dim CPU tensor joins a CUDA op where the kernel reads it as a scalar
    (TensorIterator inputs, cpu_scalars: in the YAML), and raises anywhere a CUDA kernel would read
    its host memory."""
    a = np.random.default_rng(5).random((3, 4)).astype(np.float32)
    x, two = tl.tensor(a).cuda(), tl.tensor(2.0)
    assert_close((x * two).cpu(), a * 2)  # structured
    assert_close(tl.sub(x, two).cpu(), a - 2)  # hand-written TensorIterator kernel, cpu_scalars
    assert_close(tl.lerp(x, x * 3, tl.tensor(0.5)).cpu(), a * 2)
    assert_close(x.clone().masked_fill_(x > 0.5, tl.tensor(-1.0)).cpu(), np.where(a > 0.5, -1, a))  # item()
    y = x.clone()
    y[x > 0.5] = tl.tensor(7.0)  # setitem moves the value to the device
    assert_close(y.cpu(), np.where(a > 0.5, 7, a))
    for call in (lambda: tl.index_select(x, 0, tl.tensor(1)), lambda: tl.take(x, tl.tensor(1)),
                 lambda: tl.mul(x[0, 0], x[0, 0], out=tl.tensor(0.0))):
        with pytest.raises(RuntimeError, match="same device"):
            call()


@requires_gpu
@pytest.mark.parametrize("n", [1, 3, 4, 5, 1023, 1024, 4099])
def test_scalar_operands_on_the_vectorized_path(n):
    # A Python number becomes a 0-dim operand of stride 0, on either side and beside a
    # contiguous tensor; sizes around the vector width and the block's work cover the ragged end.
    a = np.random.default_rng(n).random(n).astype(np.float32)
    x = tl.tensor(a).cuda()
    assert_close((x * 2.5).cpu(), a * np.float32(2.5))
    assert_close((2.5 - x).cpu(), np.float32(2.5) - a)
    assert_close(tl.where(x > 0.5, x, 0.0).cpu(), np.where(a > 0.5, a, np.float32(0)))
    assert_close(tl.clamp(x[1:], 0.25, 0.75).cpu(), np.clip(a[1:], 0.25, 0.75))  # unaligned: strided kernel


@requires_gpu
def test_add_large_and_many_dims():
    a = np.random.default_rng(0).random((3, 2, 2, 2, 2, 2, 2, 2, 2, 3)).astype(np.float32)
    x = tl.tensor(a).cuda().permute(*reversed(range(a.ndim)))
    assert_close((x + x).cpu(), (a + a).transpose(*reversed(range(a.ndim))))
    n = 3 * 1024 * 1024 + 7
    big = tl.tensor(np.arange(n, dtype=np.float32)).cuda()
    assert_close((big + big).cpu(), 2 * np.arange(n, dtype=np.float32))


@requires_gpu
def test_memory_stats_track_allocations():
    tcuda.synchronize()
    tcuda.empty_cache()
    base = tcuda.memory_allocated()
    t = tl.empty(1000, dtype=tl.uint8, device="cuda")
    assert tcuda.memory_allocated() == base + 1024
    assert tcuda.memory_reserved() >= 2 * MiB
    assert tcuda.max_memory_allocated() >= base + 1024
    stats = tcuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == tcuda.memory_allocated()
    del t
    assert tcuda.memory_allocated() == base
    tcuda.reset_peak_memory_stats()
    assert tcuda.max_memory_allocated() == base
    tcuda.empty_cache()
    assert tcuda.memory_reserved() <= tcuda.max_memory_reserved()


@requires_gpu
def test_out_of_memory_is_a_clear_error():
    with pytest.raises(tl.cuda.OutOfMemoryError, match="CUDA out of memory"):
        tl.empty(1 << 50, dtype=tl.uint8, device="cuda")
    assert (tl.tensor([1.0]).cuda() + 1).cpu().item() == 2.0


@requires_gpu
def test_streams():
    s = tcuda.Stream()
    assert tcuda.current_stream() == tcuda.default_stream()
    x = tl.tensor(np.arange(10, dtype=np.float32)).cuda()
    tcuda.synchronize()
    with tcuda.stream(s):
        assert tcuda.current_stream() == s
        y = x + x
    assert tcuda.current_stream() == tcuda.default_stream()
    s.synchronize()
    assert s.query()
    assert_close(y.cpu(), 2 * np.arange(10, dtype=np.float32))


@requires_gpu
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_against_cupy(dtype):
    cp = pytest.importorskip("cupy")
    a = random_array((7, 9), dtype)
    b = random_array((9,), dtype)
    got = (tl.tensor(a).cuda() + tl.tensor(b).cuda()).cpu()
    assert_close(got, cp.asnumpy(cp.asarray(a) + cp.asarray(b)))


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape,ndims",
    [
        ((1000,), 1),
        ((3, 5), 1),
        ((3, 5), 2),
        ((4, 0), 1),
        ((0, 4), 1),
        ((2, 3, 4), 2),
        ((7, 100003), 1),
        ((3000, 17), 1),
    ],
)
def test_sum_over_inner_dims(dtype, shape, ndims):
    """sum over the innermost dims: the reduction launcher's row shapes (Note [CUDA reductions])."""
    a = random_array(shape, dtype, low=-3, high=3)
    x = host(a, dtype).cuda()
    a = to_numpy(host(a, dtype))  # the values actually summed (bfloat16-rounded)
    axes = tuple(range(len(shape) - ndims, len(shape)))
    got = tl.sum(x, dim=list(axes)).cpu()
    if dtype in (tl.float16, tl.bfloat16, tl.float32, tl.float64):
        expected = a.astype(np.float64).sum(axis=axes)
        assert got.dtype == dtype
        tol = {tl.float16: 2e-2, tl.bfloat16: 5e-2, tl.float32: 1e-4}.get(dtype, 1e-10)
        np.testing.assert_allclose(to_numpy(got).astype(np.float64), expected, rtol=tol, atol=tol * 10)
    else:
        expected = a.astype(np.int64).sum(axis=axes)
        assert got.dtype == tl.int64
        np.testing.assert_array_equal(to_numpy(got), expected)


@requires_gpu
def test_sum_non_contiguous():
    a = random_array((6, 9), tl.float32)
    x = tl.tensor(np.ascontiguousarray(a.T)).cuda().permute(1, 0)
    assert_close(tl.sum(x, dim=1).cpu(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


# ---- elementwise family on CUDA: every kernel vs the CPU result -----------------------------

# Every op whose kernel is a stub (Note [Stubs]) runs on CUDA from the same functor as on the CPU.
BINARY_OPS = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum",
              "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
              "bitwise_and", "bitwise_or", "bitwise_xor", "atan2", "fmod"]
UNARY_OPS = ["abs", "sign", "floor", "ceil", "round", "trunc", "bitwise_not", "logical_not", "exp", "log",
             "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "reciprocal",
             "neg", "relu", "erf", "erfc", "erfinv", "isnan", "isinf", "isposinf", "isneginf", "isfinite",
             "nan_to_num"]
ACTIVATIONS = ["gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh"]


def _cpu_vs_cuda(fn, *cpu_args):
    """fn on CPU tensors and on their CUDA copies: same error type, or same dtype and values."""
    try:
        expected = fn(*cpu_args)
    except Exception as e:  # the CUDA kernel must refuse the same inputs the same way
        with pytest.raises(type(e)):
            fn(*[a.cuda() if isinstance(a, tl.Tensor) else a for a in cpu_args])
        return
    got = fn(*[a.cuda() if isinstance(a, tl.Tensor) else a for a in cpu_args])
    assert got.is_cuda and got.dtype == expected.dtype
    rtol = {tl.float16: 2e-3, tl.bfloat16: 1.6e-2}.get(expected.dtype)  # 1 ulp of rounding apart
    assert_close(got.cpu(), to_numpy(expected), rtol=rtol, atol=rtol)


def _operand(shape, dtype, seed, positive=False):
    a = random_array(shape, dtype, rng=np.random.default_rng(seed))
    if positive and dtype != tl.bool:
        a = np.abs(a) + 1
    return host(a, dtype)


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", BINARY_OPS)
def test_binary_ops_match_cpu(op, dtype):
    fn = getattr(tl, op)
    divides = op in ("div", "floor_divide", "remainder")
    a = _operand((4, 5), dtype, 1)
    b = _operand((4, 5), dtype, 2, positive=divides or op == "pow")
    _cpu_vs_cuda(fn, a, b)
    _cpu_vs_cuda(fn, a.t(), b.t())  # non-contiguous
    _cpu_vs_cuda(fn, a, b[:1])  # broadcast
    _cpu_vs_cuda(fn, a, _operand((5,), tl.float32, 3, positive=True))  # mixed dtypes


@requires_gpu
def test_binary_ops_out_inplace_modes_and_scalars():
    a, b = _operand((3, 4), tl.float32, 1), _operand((3, 4), tl.float32, 2, positive=True)
    for mode in ("trunc", "floor", None):
        _cpu_vs_cuda(lambda x, y, mode=mode: tl.div(x, y, rounding_mode=mode), a, b)
    i, j = _operand((3, 4), tl.int64, 3), _operand((3, 4), tl.int64, 4, positive=True)
    for mode in ("trunc", "floor"):
        _cpu_vs_cuda(lambda x, y, mode=mode: tl.div(x, y, rounding_mode=mode), i, j)
    _cpu_vs_cuda(lambda x: tl.pow(x, 2), a)
    _cpu_vs_cuda(lambda x: tl.pow(x, 3), i)
    _cpu_vs_cuda(lambda x: tl.pow(x, 0.5), b)
    _cpu_vs_cuda(lambda x, y: tl.sub(x, y, alpha=3), a, b)
    out = tl.empty(3, 4, device="cuda")
    tl.mul(a.cuda(), b.cuda(), out=out)
    assert_close(out.cpu(), to_numpy(a * b))
    x = a.cuda().clone()
    x.mul_(b.cuda())
    assert_close(x.cpu(), to_numpy(a * b))


@requires_gpu
@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
def test_integer_division_by_zero_raises_on_cuda(op):
    a = tl.tensor([1, 2, 3]).cuda()
    b = tl.tensor([1, 0, 3]).cuda()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(tl, op)(a, b)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tl.div(a, b, rounding_mode="trunc")


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", UNARY_OPS)
def test_unary_ops_match_cpu(op, dtype):
    fn = getattr(tl, op)
    a = _operand((4, 5), dtype, 1, positive=op in ("log", "sqrt", "rsqrt", "log1p"))
    _cpu_vs_cuda(fn, a)
    _cpu_vs_cuda(fn, a.t())


@requires_gpu
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("op", ACTIVATIONS)
def test_activations_and_gradients_match_cpu(op, dtype):
    fn = getattr(tl.nn.functional, op)
    a = _operand((4, 5), dtype, 1)
    _cpu_vs_cuda(fn, a)
    x = a.cuda().requires_grad_()
    fn(x).sum().backward()
    xc = a.clone().requires_grad_()
    fn(xc).sum().backward()
    rtol = {tl.float16: 2e-3, tl.bfloat16: 1.6e-2}.get(dtype)
    assert_close(x.grad.cpu(), to_numpy(xc.grad), rtol=rtol, atol=rtol)


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_where_clamp_relu_match_cpu(dtype):
    c = host(random_array((4, 5), tl.bool, rng=np.random.default_rng(0)), tl.bool)
    a, b = _operand((4, 5), dtype, 1), _operand((5,), dtype, 2)
    _cpu_vs_cuda(tl.where, c, a, b)
    _cpu_vs_cuda(tl.where, c.t(), a.t(), b[:4])
    _cpu_vs_cuda(lambda x: tl.clamp(x, 0, 1), a)
    _cpu_vs_cuda(lambda x: tl.clamp(x, min=-1), a.t())
    _cpu_vs_cuda(lambda x: tl.clamp(x, max=1000), a)
    if dtype != tl.bool:
        x = a.cuda().clone()
        tl.relu_(x)
        assert_close(x.cpu(), to_numpy(tl.relu(a)))


@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), ((1,), True), ((0, 2), False), ((-1,), False)])
def test_reductions_match_cpu(op, dtype, dim, keepdim):
    a = _operand((3, 4, 5), dtype, 1)
    kwargs = {"keepdim": keepdim}
    if dim is not None:
        kwargs["dim"] = dim
    elif op in ("amax", "amin"):
        kwargs["dim"] = ()
    fn = getattr(tl, op)
    _cpu_vs_cuda(lambda x: fn(x, **kwargs), a)
    _cpu_vs_cuda(lambda x: fn(x.permute(2, 0, 1), **kwargs), a)  # non-contiguous


@requires_gpu
def test_reductions_dtype_out_nan_and_large():
    a = _operand((6, 7), tl.float32, 2)
    _cpu_vs_cuda(lambda x: tl.sum(x, dim=(1,), dtype=tl.float64), a)
    _cpu_vs_cuda(lambda x: tl.mean(x, dim=(0,), dtype=tl.float64), a)
    _cpu_vs_cuda(lambda x: tl.sum(x, dim=(0,)), _operand((6, 7), tl.int32, 3))
    out = tl.empty(6, device="cuda")
    tl.sum(a.cuda(), dim=(1,), out=out)
    assert_close(out.cpu(), to_numpy(tl.sum(a, dim=(1,))))
    n = tl.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])
    _cpu_vs_cuda(lambda x: tl.amax(x, dim=(1,)), n)
    _cpu_vs_cuda(lambda x: tl.amin(x, dim=(1,)), n)
    big = tl.tensor(np.arange(3 * 1024 * 1024 + 7, dtype=np.float32))
    _cpu_vs_cuda(lambda x: tl.sum(x), big)
    _cpu_vs_cuda(lambda x: tl.amax(x), big)
    _cpu_vs_cuda(lambda x: tl.amax(x, dim=(0,)), tl.empty(0, 3))  # same error as the CPU
    _cpu_vs_cuda(lambda x: tl.sum(x, dim=(0,)), tl.empty(0, 3))
    _cpu_vs_cuda(lambda x: tl.mean(x, dim=(0,)), tl.empty(0, 3))


# ---- the other families on CUDA: paths the registry samples do not stress ----------------------


@requires_gpu
def test_scatter_and_index_put_accumulate_duplicate_targets():
    # Many values land on one target: the CUDA kernels add with atomics.
    src = host(np.arange(1, 1001, dtype=np.float32))
    idx = tl.zeros(1000, dtype=tl.int64)
    _cpu_vs_cuda(lambda s, i: tl.zeros(3, device=s.device).scatter_add(0, i, s), src, idx)
    _cpu_vs_cuda(lambda s, i: tl.zeros(3, dtype=tl.int16, device=s.device).scatter_add(0, i, s.to(tl.int16)), src, idx)
    _cpu_vs_cuda(lambda s, i: tl.ones(3, device=s.device).scatter_reduce(0, i, s, "amax", include_self=False), src, idx)
    _cpu_vs_cuda(lambda s, i: tl.zeros(3, device=s.device).scatter_reduce(0, i, s, "mean"), src, idx)
    _cpu_vs_cuda(lambda s, i: tl.zeros(3, device=s.device).index_put_((i,), s, accumulate=True), src, idx)
    _cpu_vs_cuda(lambda s, i: tl.zeros(3, 2, device=s.device).index_add(0, i, s.reshape(1000, 1).expand(1000, 2)), src, idx)


@requires_gpu
def test_sort_orders_nan_signed_zero_and_ties_as_cpu():
    a = host(np.array([[3.0, np.nan, -0.0, 0.0, 1.0, 3.0, -np.inf, np.nan]], dtype=np.float32))
    for descending in (False, True):
        _cpu_vs_cuda(lambda x, d=descending: tl.sort(x, dim=-1, descending=d, stable=True)[1], a)
        _cpu_vs_cuda(lambda x, d=descending: tl.sort(x.t(), dim=0, descending=d)[0], a)
    # Descending sorts run ascending on complemented integer / negated float keys: every key width.
    ints = host(np.array([[3, -1, 0, 3, 127, -128, 5, 0, -1]], dtype=np.int8))
    for dt in (tl.int8, tl.uint8, tl.int16, tl.int32, tl.int64, tl.bool, tl.float16, tl.bfloat16, tl.float64):
        for descending in (False, True):
            _cpu_vs_cuda(lambda x, d=descending, t=dt: tl.sort(x.to(t), dim=-1, descending=d, stable=True)[1], ints)
    _cpu_vs_cuda(lambda x: tl.median(x, dim=-1)[1], a)
    _cpu_vs_cuda(lambda x: tl.nanmedian(x, dim=-1)[0], a)
    _cpu_vs_cuda(lambda x: tl.topk(x, 3, dim=-1)[1], host(np.array([[1, 5, 5, 2, 5]], dtype=np.int64)))


@requires_gpu
def test_index_reductions_scans_and_nonzero_match_cpu():
    a = host(np.array([[1.0, 5.0, 5.0, np.nan, 2.0], [0.0, -1.0, 7.0, 7.0, 3.0]], dtype=np.float32))
    for fn in (lambda x: tl.argmax(x, dim=1), lambda x: tl.max(x, dim=0)[1], lambda x: tl.min(x, dim=1)[1],
               lambda x: tl.argmin(x), lambda x: tl.cummax(x, dim=1)[1], lambda x: tl.cumsum(x, dim=0),
               lambda x: tl.nonzero(x), lambda x: tl.masked_select(x, x > 1), lambda x: tl.prod(x, dim=1),
               lambda x: tl.all(x, dim=1), lambda x: tl.any(x > 4, dim=0)):
        _cpu_vs_cuda(fn, a)
    long_row = host(np.random.default_rng(0).standard_normal((2, 100_003)).astype(np.float32))
    _cpu_vs_cuda(lambda x: tl.argmax(x, dim=1), long_row)
    _cpu_vs_cuda(lambda x: tl.sort(x, dim=1)[1], long_row)


@requires_gpu
def test_fused_adam_and_dropout_match_cpu():
    rng = np.random.default_rng(0)
    state = [host(np.abs(rng.standard_normal(1000)).astype(np.float32)) for _ in range(4)]  # param, grad, m, v
    cpu, gpu = [t.clone() for t in state], [t.cuda() for t in state]
    for p, g, m, v in (cpu, gpu):
        tl._C._fused_adam_([p], [g], [m], [v], [], [tl.tensor(3.0)], lr=0.1, beta1=0.9, beta2=0.999,
                           weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False)
    assert_close(gpu[0].cpu(), to_numpy(cpu[0]), rtol=1e-5, atol=1e-6)
    x = host(rng.standard_normal((64, 64)).astype(np.float32))
    tl.manual_seed(7)
    expected = tl.nn.functional.dropout(x, 0.3)
    tl.manual_seed(7)
    got = tl.nn.functional.dropout(x.cuda(), 0.3)  # the same mask for a seed on every device
    assert_close(got.cpu(), to_numpy(expected))


@requires_gpu
def test_events_time_order_and_query():
    start, end = tcuda.Event(enable_timing=True), tcuda.Event(enable_timing=True)
    assert start.query()  # not recorded yet: nothing to wait for
    x = tl.ones(1 << 22, device="cuda")
    start.record()
    for _ in range(20):
        x = x * 1.0001
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        tcuda.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="must be recorded"):
        tcuda.Event(enable_timing=True).elapsed_time(end)


@requires_gpu
def test_streams_wait_for_each_other_and_record_stream():
    side = tcuda.Stream()
    x = tl.ones(1 << 20, device="cuda")
    side.wait_stream(tcuda.current_stream())  # x is ready before side uses it
    with tcuda.stream(side):
        y = x * 2
    x.record_stream(side)  # x's memory is not reused before side's work is done
    del x
    tcuda.current_stream().wait_stream(side)
    assert float(y.sum()) == 2 * (1 << 20)
    ev = side.record_event()
    ev.synchronize()
    assert ev.query() and side.query()
    with pytest.raises(RuntimeError, match="expected a CUDA tensor"):
        tl.ones(2).record_stream(side)


# ---- convolution (aten/native/cuda/ConvolutionKernel.cu) ------------------------------------
# The registry samples (tests/opinfo/conv_pool.py, test_ops.py::test_cuda_matches_cpu) cover the
# geometries in float32/float64; these cover the rest.


@requires_gpu
@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16], ids=str)
def test_convolution_low_precision_matches_cpu(dtype):
    # Every device computes in float and rounds once, so CUDA and CPU agree to that rounding.
    x, w, b = _operand((2, 4, 6, 5), dtype, 0), _operand((6, 2, 3, 2), dtype, 1), _operand((6,), dtype, 2)
    gy = _operand((2, 6, 3, 3), dtype, 3)
    _cpu_vs_cuda(lambda x, w, b: tl.convolution(x, w, b, [2, 1], [1, 0], [1, 2], False, [0, 0], 2), x, w, b)
    _cpu_vs_cuda(lambda gy, w: tl.convolution(gy, w, None, [2, 1], [1, 0], [1, 2], True, [1, 0], 2), gy, w)
    _cpu_vs_cuda(lambda gy, w: tl.convolution_backward_input(gy, w, [2, 4, 6, 5], [2, 1], [1, 0], [1, 2], 2), gy, w)
    _cpu_vs_cuda(lambda gy, x: tl.convolution_backward_weight(gy, x, [6, 2, 3, 2], [2, 1], [1, 0], [1, 2], 2), gy, x)


@requires_gpu
def test_convolution_in_several_batch_chunks_matches_cpu():
    # A sample's column matrix here holds 8*9*256*256 = 4.7M elements, so the 9 samples go through
    # every map in more than one chunk (kColumnBudget).
    rng = np.random.default_rng(0)
    x, w, b, gy = (host(rng.standard_normal(s)) for s in ((9, 8, 256, 256), (4, 4, 3, 3), (4,), (9, 4, 256, 256)))
    results = []
    for dev in ("cpu", "cuda"):
        xd, wd, bd = (t.to(dev).detach().requires_grad_() for t in (x, w, b))  # leaves on both devices
        y = tl.nn.functional.conv2d(xd, wd, bd, padding=1, groups=2)
        y.backward(gy.to(dev))
        results.append([t.cpu() for t in (y.detach(), xd.grad, wd.grad, bd.grad)])
    for got, expected in zip(results[1], results[0]):
        assert_close(got, to_numpy(expected), rtol=1e-9, atol=1e-9)


@requires_gpu
def test_residual_network_training_steps_match_cpu():
    """Two SGD-with-momentum steps of a small ResNet (convolutions, batch norm, max and adaptive
    average pooling, relu, cross-entropy) on CUDA give the CPU's losses and parameters."""
    nn = tl.nn

    class Block(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(cin, cout, 3, 2, 1, bias=False), nn.BatchNorm2d(cout)
            self.conv2, self.bn2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, 2, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            h = self.bn1(self.conv1(x)).relu()
            return (self.bn2(self.conv2(h)) + self.shortcut(x)).relu()

    rng = np.random.default_rng(0)
    inputs, target = host(rng.standard_normal((4, 3, 16, 16)).astype(np.float32)), tl.tensor([0, 3, 1, 3])
    runs = []
    for dev in ("cpu", "cuda"):
        tl.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                              Block(8, 16), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4)).to(dev)
        opt = tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for _ in range(2):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(inputs.to(dev)), target.to(dev))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs.append((losses, [p.detach().cpu() for p in model.parameters()]))
    (cpu_losses, cpu_params), (gpu_losses, gpu_params) = runs
    assert_close(tl.tensor(gpu_losses), np.array(cpu_losses, dtype=np.float32), rtol=1e-4, atol=1e-5)
    for got, expected in zip(gpu_params, cpu_params):
        assert_close(got, to_numpy(expected), rtol=1e-4, atol=1e-5)


@requires_gpu
def test_pin_memory_and_non_blocking_copies():
    x = tl.arange(1 << 20, dtype=tl.float32)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory() is p
    assert tl.equal(p, x)
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        p.cuda().pin_memory()
    d = p.to("cuda", non_blocking=True)  # asynchronous: the source is page-locked
    back = tl.empty(1 << 20).pin_memory()
    back.copy_(d * 2, non_blocking=True)  # returns before the copy is done
    tcuda.synchronize()
    assert tl.equal(back, x * 2)
    loader = tl.utils.data.DataLoader(tl.utils.data.TensorDataset(tl.arange(6.0)), batch_size=3, pin_memory=True)
    assert all(b[0].is_pinned() for b in loader)


@requires_gpu
@pytest.mark.parametrize("shape", [(6, 3), (4, 5, 7), (2, 4, 9, 11), (1, 1, 33)])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16], ids=str)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_cpu(shape, dtype, training):
    """Note [Batch norm stubs]: the CUDA loops (one block per channel) give the CPU's outputs,
    running statistics and gradients."""
    rng = np.random.default_rng(sum(shape))
    C = shape[1]
    x = tl.tensor(rng.standard_normal(shape) * 3 + 1).to(dtype)
    w, b = tl.tensor(rng.random(C) + 0.5).to(dtype), tl.tensor(rng.standard_normal(C)).to(dtype)
    stats_dtype = tl.float32 if dtype == tl.float16 else dtype
    rm0, rv0 = tl.tensor(rng.standard_normal(C)).to(stats_dtype), tl.tensor(rng.random(C) + 0.5).to(stats_dtype)
    results = []
    for device in ("cpu", "cuda"):
        xd, wd, bd = (t.to(device).detach().clone().requires_grad_() for t in (x, w, b))  # new leaves
        rm, rv = rm0.clone().to(device), rv0.clone().to(device)
        y = tl.nn.functional.batch_norm(xd, rm, rv, wd, bd, training=training, momentum=0.3, eps=1e-4)
        (y * y).sum().backward()
        results.append([to_numpy(t.detach().cpu()).astype(np.float64) for t in (y, xd.grad, wd.grad, bd.grad, rm, rv)])
    tol = 3e-2 if dtype == tl.float16 else 1e-4 if dtype == tl.float32 else 1e-10
    for cpu, cuda in zip(*results):
        np.testing.assert_allclose(cuda, cpu, rtol=tol, atol=tol)


@requires_gpu
def test_batch_norm_parameters_on_another_device_raise():
    # One channel: a 0-dim CPU weight is refused like any other (Note [Device check]).
    x = tl.randn(4, 1, 5, device="cuda")
    with pytest.raises(RuntimeError, match="same device"):
        tl.nn.functional.batch_norm(x, None, None, tl.tensor(1.0), tl.tensor(0.0), training=True)
    with pytest.raises(RuntimeError, match="same device"):
        tl.nn.functional.batch_norm(x, tl.tensor([0.0]), tl.tensor([1.0]), training=False)
