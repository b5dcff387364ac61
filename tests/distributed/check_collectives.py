"""Run by tests/test_distributed.py under the launcher: every collective against NumPy, on every
dtype and reduction, plus groups, point-to-point, objects, async work and bad arguments."""

import os
from datetime import timedelta

import numpy as np

import torchlite as torch
import torchlite.distributed as dist

assert "LOCAL_RANK" in os.environ and "MASTER_PORT" in os.environ and dist.is_torchelastic_launched()
dist.init_process_group("cpu:gloo,cuda:nccl", timeout=timedelta(seconds=60))
rank, n = dist.get_rank(), dist.get_world_size()
assert rank == int(os.environ["RANK"]) and n == int(os.environ["WORLD_SIZE"]) and dist.get_backend() == "mpi"
Op = dist.ReduceOp
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int32,
          torch.int64, torch.bool, torch.complex64]
checked = 0


def data(r, dtype, shape=(2, 3)):
    """Rank r's input: small integers (1..3, or bools), exact in every dtype and under every op."""
    a = np.random.default_rng([r, len(shape)]).integers(1, 4, size=shape)
    if dtype == torch.bool:
        a = a > 1
    return a


def as_tl(a, dtype):
    return torch.tensor(a.tolist(), dtype=dtype)


def expect(got, want_np, dtype, what):
    """got (a torchlite tensor) equals want_np computed in NumPy, rounded like dtype."""
    global checked
    want = as_tl(np.asarray(want_np), dtype).to(torch.float64 if not (dtype.is_complex or dtype == torch.bool)
                                                  else dtype)
    got = got.to(want.dtype)
    assert got.shape == want.shape and bool((got == want).all()), f"{what} {dtype}: got {got}, want {want}"
    checked += 1


def reduce_np(arrays, op, dtype):
    stack = np.stack(arrays).astype(np.complex128 if dtype.is_complex else np.float64)
    if dtype == torch.bool:
        stack = stack.astype(bool)
        return {Op.SUM: stack.any(0), Op.MAX: stack.any(0), Op.MIN: stack.all(0), Op.PRODUCT: stack.all(0),
                Op.BOR: stack.any(0), Op.BAND: stack.all(0), Op.BXOR: np.logical_xor.reduce(stack, 0)}[op]
    if op in (Op.BAND, Op.BOR, Op.BXOR):
        ints = stack.real.astype(np.int64)
        return {Op.BAND: np.bitwise_and, Op.BOR: np.bitwise_or, Op.BXOR: np.bitwise_xor}[op].reduce(ints, 0)
    return {Op.SUM: stack.sum(0), Op.AVG: stack.mean(0), Op.PRODUCT: stack.prod(0), Op.MAX: stack.max(0),
            Op.MIN: stack.min(0)}[op]


def ops_for(dtype):
    if dtype == torch.bool:
        return [Op.SUM, Op.MAX, Op.MIN, Op.PRODUCT, Op.BAND, Op.BOR, Op.BXOR]
    if dtype.is_complex:
        return [Op.SUM, Op.AVG, Op.PRODUCT]
    if dtype.is_floating_point:
        return [Op.SUM, Op.AVG, Op.PRODUCT, Op.MAX, Op.MIN]
    return [Op.SUM, Op.PRODUCT, Op.MAX, Op.MIN, Op.BAND, Op.BOR, Op.BXOR]


every = lambda dtype, shape=(2, 3): [data(r, dtype, shape) for r in range(n)]  # noqa: E731

for dtype in DTYPES:
    for op in ops_for(dtype):
        t = as_tl(data(rank, dtype), dtype)
        dist.all_reduce(t, op=op)
        expect(t, reduce_np(every(dtype), op, dtype), dtype, f"all_reduce {op}")
        t = as_tl(data(rank, dtype), dtype)
        dist.reduce(t, dst=n - 1, op=op)
        expect(t, reduce_np(every(dtype), op, dtype) if rank == n - 1 else data(rank, dtype), dtype, f"reduce {op}")
        big = as_tl(data(rank, dtype, (n, 2, 2)), dtype)
        out = torch.empty(2, 2, dtype=dtype)
        dist.reduce_scatter_tensor(out, big, op=op)
        expect(out, reduce_np(every(dtype, (n, 2, 2)), op, dtype)[rank], dtype, f"reduce_scatter_tensor {op}")
        out = torch.empty(2, 2, dtype=dtype)
        dist.reduce_scatter(out, list(big.unbind(0)), op=op)
        expect(out, reduce_np(every(dtype, (n, 2, 2)), op, dtype)[rank], dtype, f"reduce_scatter {op}")
    src = n - 1
    t = as_tl(data(rank, dtype), dtype)
    dist.broadcast(t, src=src)
    expect(t, data(src, dtype), dtype, "broadcast")
    mine = as_tl(data(rank, dtype), dtype)
    outs = [torch.empty(2, 3, dtype=dtype) for _ in range(n)]
    dist.all_gather(outs, mine)
    expect(torch.stack(outs), np.stack(every(dtype)), dtype, "all_gather")
    flat = torch.empty(n * 2, 3, dtype=dtype)
    dist.all_gather_into_tensor(flat, mine)
    expect(flat, np.concatenate(every(dtype)), dtype, "all_gather_into_tensor")
    gl = [torch.empty(2, 3, dtype=dtype) for _ in range(n)] if rank == 0 else None
    dist.gather(mine, gl, dst=0)
    if rank == 0:
        expect(torch.stack(gl), np.stack(every(dtype)), dtype, "gather")
    got = torch.empty(2, 3, dtype=dtype)
    dist.scatter(got, [as_tl(data(10 + r, dtype), dtype) for r in range(n)] if rank == 1 else None, src=1)
    expect(got, data(10 + rank, dtype), dtype, "scatter")
    # all_to_all_single with uneven splits: rank r sends j + 1 rows to rank j
    rows_out = [j + 1 for j in range(n)]
    rows_in = [rank + 1] * n
    send = as_tl(data(rank, dtype, (sum(rows_out), 2)), dtype)
    recv_t = torch.empty(sum(rows_in), 2, dtype=dtype)
    dist.all_to_all_single(recv_t, send, rows_in, rows_out)
    offset = sum(rows_out[:rank])
    expect(recv_t, np.concatenate([data(r, dtype, (sum(rows_out), 2))[offset:offset + rank + 1] for r in range(n)]),
           dtype, "all_to_all_single")
    ins = [as_tl(data(100 * rank + j, dtype), dtype) for j in range(n)]
    outs = [torch.empty(2, 3, dtype=dtype) for _ in range(n)]
    dist.all_to_all(outs, ins)
    expect(torch.stack(outs), np.stack([data(100 * r + rank, dtype) for r in range(n)]), dtype, "all_to_all")

# non-contiguous tensors, async work, point to point, objects, groups
t = torch.arange(6.0).reshape(2, 3).t() * (rank + 1)
dist.all_reduce(t)
expect(t, np.arange(6.0).reshape(2, 3).T * sum(range(1, n + 1)), torch.float32, "non-contiguous all_reduce")
t = torch.ones(1000)
work = dist.all_reduce(t, op=Op.AVG, async_op=True)
assert work.wait() and work.is_completed() and work.result()[0] is t
expect(t, np.ones(1000), torch.float32, "async all_reduce")
if rank == 0:
    for peer in range(1, n):
        dist.send(torch.full((3,), float(peer)), dst=peer, tag=7)
    got = torch.empty(3)
    sources = sorted(dist.recv(got) for _ in range(1, n))
    assert sources == list(range(1, n)), sources
else:
    got = torch.empty(3)
    assert dist.recv(got, src=0, tag=7) == 0
    expect(got, np.full(3, float(rank)), torch.float32, "recv")
    dist.isend(torch.full((3,), float(rank)), dst=0).wait()
objs = [{"rank": 0, "list": [1, 2]}, "x"] if rank == 0 else [None, None]
dist.broadcast_object_list(objs, src=0)
assert objs == [{"rank": 0, "list": [1, 2]}, "x"], objs
gathered = [None] * n
dist.all_gather_object(gathered, ("r", rank) * (rank + 1))
assert gathered == [("r", r) * (r + 1) for r in range(n)], gathered
og = [None] * n if rank == 0 else None
dist.gather_object(rank * 2, og, dst=0)
assert rank != 0 or og == [2 * r for r in range(n)]
out = [None]
dist.scatter_object_list(out, [f"o{r}" for r in range(n)] if rank == 0 else None, src=0)
assert out == [f"o{rank}"]
sub = dist.new_group([0, n - 1])
if rank in (0, n - 1):
    t = torch.tensor([float(rank)])
    dist.all_reduce(t, group=sub)
    assert t.item() == n - 1 and dist.get_world_size(sub) == 2 and dist.get_process_group_ranks(sub) == [0, n - 1]
    dist.broadcast(t, src=n - 1, group=sub)
    assert dist.get_group_rank(sub, n - 1) == 1 and dist.get_global_rank(sub, 1) == n - 1
else:
    assert sub is dist.GroupMember.NON_GROUP_MEMBER and dist.all_reduce(torch.ones(1), group=sub) is None
dist.barrier()


def raises(exc, fn, match):
    try:
        fn()
    except exc as e:
        assert match in str(e), f"{match!r} not in {e}"
        return
    raise AssertionError(f"{fn} did not raise {exc.__name__}")


raises(ValueError, lambda: dist.all_reduce(torch.ones(2, dtype=torch.int32), op=Op.AVG), "AVG is not supported")
raises(ValueError, lambda: dist.all_reduce(torch.ones(2, dtype=torch.complex64), op=Op.MAX), "not supported")
raises(ValueError, lambda: dist.all_reduce(torch.ones(2), op=Op.BAND), "not supported")
raises(TypeError, lambda: dist.all_reduce([1.0]), "should be a Tensor")
raises(ValueError, lambda: dist.all_gather([torch.ones(2)], torch.ones(2)), "world_size")
raises(ValueError, lambda: dist.all_gather_into_tensor(torch.ones(3), torch.ones(2)), "world_size")
raises(ValueError, lambda: dist.send(torch.ones(1), dst=rank), "same as the rank")
raises(ValueError, lambda: dist.init_process_group("gloo"), "twice")
raises(RuntimeError, lambda: dist.new_group(backend="nccl"), "needs a CUDA GPU")
dist.destroy_process_group()
assert not dist.is_initialized()
raises(ValueError, lambda: dist.get_rank(), "has not been initialized")
print(f"OK {checked} checks")
