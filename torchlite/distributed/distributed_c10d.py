"""Process groups and collectives with torch.distributed's API, over MPI (see the package docstring)."""

from __future__ import annotations

import enum
import os
import pickle
import time
from datetime import timedelta

import numpy as np

import torchlite
from torchlite.distributed import _nccl
from torchlite.distributed._mpi import DistBackendError, Work, as_array, as_bytes, mpi, mpi_op, poll

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "broadcast",
    "broadcast_object_list", "default_pg_timeout", "destroy_process_group", "gather", "gather_object",
    "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
    "group", "init_process_group", "irecv", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_torchelastic_launched", "isend", "new_group", "recv", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
]

default_pg_timeout = timedelta(minutes=30)


class Backend(str):
    """A backend's name. CPU tensors run on MPI whatever the name ("gloo", "mpi"); CUDA tensors run
    on NCCL where "nccl" is asked for (see _resolve_backend), else through host memory on MPI."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, got {type(name).__name__}")
        return super().__new__(cls, name.lower())


def _nccl_usable():
    return torchlite.cuda.is_available() and _nccl.is_available()


def _resolve_backend(backend):
    """{device type: backend} for a requested name. CPU tensors always run on "mpi". CUDA tensors
    run on "nccl" when "nccl" alone is asked for (an error without a GPU and libnccl), and when
    "cuda:nccl" or no backend is asked for and NCCL can run here; otherwise on "mpi" through host
    memory (so "cpu:gloo,cuda:nccl" programs also run on machines without GPUs)."""
    if backend is None:
        return {"cpu": Backend.MPI, "cuda": Backend.NCCL if _nccl_usable() else Backend.MPI}
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a string or None, got {type(backend).__name__}")
    pairs = [p.split(":", 1) if ":" in p else ["", p] for p in backend.lower().split(",")]
    names = {device.strip(): name.strip() for device, name in pairs}
    for device, name in names.items():
        if name not in (Backend.GLOO, Backend.MPI, Backend.NCCL) or device not in ("", "cpu", "cuda"):
            raise ValueError(f"Invalid backend: {backend!r} (torchlite runs 'gloo', 'mpi', 'nccl', "
                             "'cpu:gloo,cuda:nccl' and None)")
    if names == {"": Backend.NCCL}:
        if not torchlite.cuda.is_available():
            raise RuntimeError("Backend 'nccl' needs a CUDA GPU, and none is visible: use 'gloo' (CPU tensors "
                               "over MPI) or 'cpu:gloo,cuda:nccl'")
        _nccl.load()  # a clear error when libnccl is missing
        return {"cpu": Backend.MPI, "cuda": Backend.NCCL}
    wants_nccl = names.get("cuda") == Backend.NCCL
    return {"cpu": Backend.MPI, "cuda": Backend.NCCL if wants_nccl and _nccl_usable() else Backend.MPI}


class ReduceOp:
    """Reduction operations: SUM, AVG, PRODUCT, MIN, MAX and the bitwise BAND, BOR, BXOR."""

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR


class ProcessGroup:
    """A set of ranks sharing an MPI communicator (and, for CUDA tensors on NCCL, an NCCL one made
    at the first CUDA collective). ranks[i] is the global rank of group rank i."""

    def __init__(self, comm, ranks, timeout, backends=None):
        self.comm = comm
        self.ranks = list(ranks)
        self.timeout = timeout
        self.broken = False
        self.backends = dict(backends or {"cpu": Backend.MPI, "cuda": Backend.MPI})
        self._backend = Backend("cpu:mpi,cuda:nccl" if self.backends["cuda"] == Backend.NCCL else Backend.MPI)
        self._nccl = None

    def nccl_for(self, *tensors):
        """The NCCL communicator when these are CUDA tensors that this group runs on NCCL, else None."""
        if self.backends["cuda"] != Backend.NCCL or not any(t.is_cuda for t in tensors):
            return None
        if self._nccl is None:
            self._nccl = _nccl.Communicator(self.comm)
        return self._nccl

    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return self.comm.Get_size()

    def name(self) -> str:
        return self._backend

    def check_usable(self):
        if self.broken:
            raise DistBackendError("torchlite.distributed: this process group timed out earlier and can no longer "
                                   "be used")

    def __repr__(self):
        return f"ProcessGroup(backend={self._backend!r}, rank={self.rank()}, size={self.size()})"


class GroupMember:
    """WORLD is the default group once init_process_group ran; a rank outside a new_group gets
    NON_GROUP_MEMBER, and collectives on it do nothing."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801  (torch.distributed.group.WORLD)
    WORLD: ProcessGroup | None = None


_group_namespace = group  # what destroy_process_group's `group` argument hides


_group_count = 0  # new_group calls so far: the tag that keeps MPI_Comm_create_group calls apart


def is_mpi_available() -> bool:
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available() -> bool:
    """"gloo" runs on the MPI backend, so it is available exactly when MPI is."""
    return is_mpi_available()


def is_nccl_available() -> bool:
    """Whether libnccl loads (it runs only with a CUDA GPU as well)."""
    return _nccl.is_available()


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def is_torchelastic_launched() -> bool:
    """Whether this process was started by torchlite.distributed.run (or torchrun)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def _env_int(name):
    value = os.environ.get(name)
    return None if value is None else int(value)


def _parse_init_method(init_method):
    if init_method is None or init_method == "env://":
        return
    if init_method.startswith("tcp://"):  # where a multi-node job meets: as MASTER_ADDR/MASTER_PORT
        host, _, port = init_method[len("tcp://"):].partition(":")
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = host, port.split("?")[0]
        return
    if init_method.startswith("file://"):
        return  # ranks meet through MPI's launcher; a shared file adds nothing
    raise ValueError(f"Unsupported init_method {init_method!r}: use 'env://', 'tcp://host:port' or 'file://path'")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None, _ranks=None):
    """Creates the default group over every rank of the MPI job (see the package docstring for how
    ranks meet). world_size and rank, when given (or set as WORLD_SIZE/RANK), must agree with it."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    resolved = _resolve_backend(backend)
    _parse_init_method(init_method)
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    MPI = mpi()
    from torchlite.distributed._rendezvous import join_jobs

    comm = join_jobs(MPI.COMM_WORLD, timeout)
    expected_size = world_size if world_size != -1 else _env_int("WORLD_SIZE")
    expected_rank = rank if rank != -1 else _env_int("RANK")
    if expected_size is not None and expected_size != comm.Get_size():
        raise ValueError(f"world_size={expected_size} but the MPI job has {comm.Get_size()} processes: start the "
                         "ranks with `python -m torchlite.distributed.run --nproc-per-node N` or `mpirun -n N`")
    if expected_rank is not None and expected_rank != comm.Get_rank():
        raise ValueError(f"rank={expected_rank} but MPI gave this process rank {comm.Get_rank()}")
    world = ProcessGroup(comm, range(comm.Get_size()), timeout, resolved)
    GroupMember.WORLD = group.WORLD = world


def destroy_process_group(group=None):
    """Frees group (every group when None, which also ends the default one)."""
    global _group_count
    if group is not None and group is not GroupMember.NON_GROUP_MEMBER and group._nccl is not None:
        group._nccl.abort()
    if group is None or group is GroupMember.WORLD:
        if GroupMember.WORLD is not None and GroupMember.WORLD._nccl is not None:
            GroupMember.WORLD._nccl.abort()
        GroupMember.WORLD = _group_namespace.WORLD = None
        _group_count = 0
    elif group is not GroupMember.NON_GROUP_MEMBER and group.comm is not mpi().COMM_WORLD:
        group.comm.Free()


def _world():
    if GroupMember.WORLD is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return GroupMember.WORLD


def _group(g):
    return _world() if g is None else g


def get_rank(group=None) -> int:
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).rank()


def get_world_size(group=None) -> int:
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _group(group).size()


def get_backend(group=None) -> Backend:
    return Backend(_group(group).name())


def get_process_group_ranks(group) -> list[int]:
    return list(_group(group).ranks)


def get_global_rank(group, group_rank) -> int:
    ranks = _group(group).ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank) -> int:
    ranks = _group(group).ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None, sort_ranks=True):
    """A group of the given global ranks (all when None). Every rank of the default group calls it
    in the same order; ranks outside the group get GroupMember.NON_GROUP_MEMBER."""
    global _group_count
    world = _world()
    backends = world.backends if backend is None else _resolve_backend(backend)
    ranks = list(range(world.size())) if ranks is None else list(ranks)
    if sort_ranks:
        ranks = sorted(ranks)
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < world.size() for r in ranks):
        raise ValueError(f"new_group: ranks {ranks} must be distinct ranks in [0, {world.size() - 1}]")
    _group_count += 1
    if world.rank() not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    comm = world.comm.Create_group(world.comm.Get_group().Incl(ranks), tag=_group_count)
    return ProcessGroup(comm, ranks, world.timeout if timeout is None else timeout, backends)


# --- tensors as MPI buffers --------------------------------------------------------------------

def _check_tensor(t, name="tensor"):
    if not isinstance(t, torchlite.Tensor):
        raise TypeError(f"Invalid function argument: {name} should be a Tensor, got {type(t).__name__}")


def _stage(t, to_float32=False):
    """A contiguous CPU tensor to hand MPI for t (t itself when it already is one), and the copy
    back into t to run once MPI is done (None when t was used directly)."""
    if to_float32 and t.dtype in (torchlite.float16, torchlite.bfloat16):
        buf = t.detach().to(device="cpu", dtype=torchlite.float32)
    elif t.device.type != "cpu" or not t.is_contiguous():
        buf = t.detach().to("cpu").contiguous()
    else:
        return t, None

    def copy_back():
        with torchlite.no_grad():
            t.copy_(buf)
    return buf, copy_back


def _run(group, requests, what, finish, async_op, outputs=(), status=None):
    work = Work(requests, group, what, finish, outputs, status)
    if async_op:
        return work
    work.wait()
    return None


def _on_nccl(group, what, async_op, outputs, call, *tensors, source=None):
    """Queues call on the current CUDA stream with contiguous versions of tensors (copied back into
    the non-contiguous ones afterwards, on the same stream). The Work is complete at once: what
    follows on the stream runs after the collective, as with PyTorch's NCCL work."""
    staged = [t if t.is_contiguous() else t.contiguous() for t in tensors]
    call(*staged)
    with torchlite.no_grad():
        for t, s in zip(tensors, staged):
            if s is not t:
                t.copy_(s)
    work = Work([], group, what, outputs=outputs, source=source)
    return work if async_op else None


def _chain(*steps):
    steps = [s for s in steps if s is not None]
    if not steps:
        return None

    def run():
        for s in steps:
            s()
    return run


def _same_shape(tensors, ref, what):
    for t in tensors:
        _check_tensor(t, what)
        if t.numel() != ref.numel() or t.dtype != ref.dtype:
            raise ValueError(f"{what}: every tensor must have {ref.numel()} elements of {ref.dtype}, got "
                             f"{t.numel()} of {t.dtype}")


def _op_name(op):
    if isinstance(op, ReduceOp.RedOpType):
        return op.name
    raise TypeError(f"op must be a torchlite.distributed.ReduceOp, got {op!r}")


def _avg(buf, group, op):
    if op is not ReduceOp.AVG:
        return None

    def divide():
        with torchlite.no_grad():
            buf.div_(group.size())
    return divide


def _not_member(g):
    return g is GroupMember.NON_GROUP_MEMBER


# --- collectives --------------------------------------------------------------------------------

def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    name = _op_name(op)
    nccl = g.nccl_for(tensor)
    if nccl is not None:
        return _on_nccl(g, "all_reduce", async_op, [tensor], lambda t: nccl.all_reduce(t, name), tensor)
    buf, copy_back = _stage(tensor, to_float32=True)
    mop = mpi_op(name, buf.dtype)
    req = g.comm.Iallreduce(mpi().IN_PLACE, as_array(buf), mop)
    return _run(g, [req], "all_reduce", _chain(_avg(buf, g, op), copy_back), async_op, [tensor])


def _root(group, rank, group_rank, what):
    """The group rank a src/dst (global rank) or group_src/group_dst names."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"{what}: pass either a global rank or a group rank, not both")
    if group_rank is not None:
        return group_rank
    return get_group_rank(group, 0 if rank is None else rank)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    root = _root(g, src, group_src, "broadcast")
    nccl = g.nccl_for(tensor)
    if nccl is not None:
        return _on_nccl(g, "broadcast", async_op, [tensor], lambda t: nccl.broadcast(t, root), tensor)
    buf, copy_back = _stage(tensor)
    req = g.comm.Ibcast(as_bytes(buf), root=root)
    return _run(g, [req], "broadcast", copy_back, async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    root = _root(g, dst, group_dst, "reduce")
    name = _op_name(op)
    buf, copy_back = _stage(tensor, to_float32=True)
    mop = mpi_op(name, buf.dtype)
    arr = as_array(buf)
    if g.rank() == root:
        req = g.comm.Ireduce(mpi().IN_PLACE, arr, mop, root=root)
        finish = _chain(_avg(buf, g, op), copy_back)
    else:  # PyTorch leaves non-root tensors unspecified; torchlite leaves them unchanged
        req = g.comm.Ireduce(arr, None, mop, root=root)
        finish = None
    return _run(g, [req], "reduce", finish, async_op, [tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    if _not_member(group):
        return None
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    g = _group(group)
    g.check_usable()
    if output_tensor.dtype != input_tensor.dtype or output_tensor.numel() != input_tensor.numel() * g.size():
        raise ValueError(f"all_gather_into_tensor: output must hold world_size ({g.size()}) x the input's "
                         f"{input_tensor.numel()} elements of {input_tensor.dtype}, got {output_tensor.numel()} "
                         f"of {output_tensor.dtype}")
    nccl = g.nccl_for(output_tensor, input_tensor)
    if nccl is not None:
        return _on_nccl(g, "all_gather_into_tensor", async_op, [output_tensor],
                        lambda out, inp: nccl.all_gather(out, inp), output_tensor, input_tensor)
    out, copy_back = _stage(output_tensor)
    inp, _ = _stage(input_tensor)
    req = g.comm.Iallgather(as_bytes(inp), as_bytes(out))
    return _run(g, [req], "all_gather_into_tensor", copy_back, async_op, [output_tensor])


def _flat_list(tensors, ref, what):
    """One contiguous buffer holding len(tensors) pieces shaped like ref, and the copy out of it."""
    _same_shape(tensors, ref, what)
    flat = torchlite.empty((len(tensors),) + tuple(ref.shape), dtype=ref.dtype)

    def copy_out():
        with torchlite.no_grad():
            for t, piece in zip(tensors, flat):
                t.copy_(piece.view(t.shape))
    return flat, copy_out


def all_gather(tensor_list, tensor, group=None, async_op=False):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list must have world_size ({g.size()}) tensors, got {len(tensor_list)}")
    flat, copy_out = _flat_list(tensor_list, tensor, "all_gather")
    inp, _ = _stage(tensor)
    req = g.comm.Iallgather(as_bytes(inp), as_bytes(flat))
    return _run(g, [req], "all_gather", copy_out, async_op, [tensor_list])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    root = _root(g, dst, group_dst, "gather")
    inp, _ = _stage(tensor)
    if g.rank() == root:
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError(f"gather: the destination rank needs a gather_list of world_size ({g.size()}) tensors")
        flat, finish = _flat_list(gather_list, tensor, "gather")
        recv = as_bytes(flat)
    else:
        if gather_list:
            raise ValueError("gather: gather_list must be given only on the destination rank")
        recv, finish = None, None
    req = g.comm.Igather(as_bytes(inp), recv, root=root)
    return _run(g, [req], "gather", finish, async_op, [gather_list])


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    root = _root(g, src, group_src, "scatter")
    out, copy_back = _stage(tensor)
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError(f"scatter: the source rank needs a scatter_list of world_size ({g.size()}) tensors")
        _same_shape(scatter_list, tensor, "scatter")
        send = as_bytes(torchlite.stack([t.detach().reshape(-1).cpu() for t in scatter_list]))
    else:
        if scatter_list:
            raise ValueError("scatter: scatter_list must be given only on the source rank")
        send = None
    req = g.comm.Iscatter(send, as_bytes(out), root=root)
    return _run(g, [req], "scatter", copy_back, async_op, [tensor])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    if _not_member(group):
        return None
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _group(group)
    g.check_usable()
    if output.dtype != input.dtype or input.numel() != output.numel() * g.size():
        raise ValueError(f"reduce_scatter_tensor: input must hold world_size ({g.size()}) x the output's "
                         f"{output.numel()} elements of {output.dtype}, got {input.numel()} of {input.dtype}")
    name = _op_name(op)
    nccl = g.nccl_for(output, input)
    if nccl is not None:
        return _on_nccl(g, "reduce_scatter_tensor", async_op, [output],
                        lambda out, inp: nccl.reduce_scatter(out, inp, name), output, input)
    out, copy_back = _stage(output, to_float32=True)
    inp, _ = _stage(input, to_float32=True)
    req = g.comm.Ireduce_scatter_block(as_array(inp), as_array(out), mpi_op(name, out.dtype))
    return _run(g, [req], "reduce_scatter_tensor", _chain(_avg(out, g, op), copy_back), async_op, [output])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    if _not_member(group):
        return None
    _check_tensor(output, "output")
    g = _group(group)
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list must have world_size ({g.size()}) tensors, got {len(input_list)}")
    _same_shape(input_list, output, "reduce_scatter")
    stacked = torchlite.stack([t.detach().reshape(-1) for t in input_list])
    return reduce_scatter_tensor(output, stacked, op, group, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    if _not_member(group):
        return None
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    g = _group(group)
    g.check_usable()
    n = g.size()
    if output.dtype != input.dtype:
        raise ValueError(f"all_to_all_single: output is {output.dtype} but input is {input.dtype}")

    def byte_splits(t, sizes, what):
        """Bytes per rank along dim 0 (equal shares when sizes is None)."""
        rows = t.shape[0] if t.dim() else 1
        row_bytes = t.numel() * t.element_size() // max(rows, 1)
        if sizes is None:
            if rows % n:
                raise ValueError(f"all_to_all_single: {what}'s first dimension ({rows}) must divide by world "
                                 f"size {n} when no split sizes are given")
            sizes = [rows // n] * n
        sizes = list(sizes)
        if len(sizes) != n or sum(sizes) != rows:
            raise ValueError(f"all_to_all_single: {what} split sizes {sizes} must be {n} numbers summing to {rows}")
        counts = [s * row_bytes for s in sizes]
        return counts, [sum(counts[:i]) for i in range(n)]

    out, copy_back = _stage(output)
    inp, _ = _stage(input)
    scounts, sdispls = byte_splits(input, input_split_sizes, "input")
    rcounts, rdispls = byte_splits(output, output_split_sizes, "output")
    B = mpi().BYTE
    req = g.comm.Ialltoallv([as_bytes(inp), (scounts, sdispls), B], [as_bytes(out), (rcounts, rdispls), B])
    return _run(g, [req], "all_to_all_single", copy_back, async_op, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    if _not_member(group):
        return None
    g = _group(group)
    n = g.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists must have world_size ({n}) tensors")
    for t in (*output_tensor_list, *input_tensor_list):
        _check_tensor(t, "all_to_all tensors")
    sizes_in = [t.numel() for t in input_tensor_list]
    sizes_out = [t.numel() for t in output_tensor_list]
    flat_in = torchlite.cat([t.detach().reshape(-1).cpu() for t in input_tensor_list])
    flat_out = torchlite.empty(sum(sizes_out), dtype=flat_in.dtype)

    def copy_out():
        with torchlite.no_grad():
            for t, piece in zip(output_tensor_list, flat_out.split(sizes_out)):
                t.copy_(piece.view(t.shape))
    work = all_to_all_single(flat_out, flat_in, sizes_out, sizes_in, g, async_op=True)
    work._finish = _chain(work._finish, copy_out)
    work._outputs = [output_tensor_list]
    if async_op:
        return work
    work.wait()
    return None


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    if _not_member(group):
        return None
    g = _group(group)
    g.check_usable()
    work = Work([g.comm.Ibarrier()], g, "barrier")
    if async_op:
        return work
    work.wait(timeout)
    return None


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that fails after timeout (the group's when None) naming this rank."""
    return barrier(group, timeout=timeout)


# --- point to point -----------------------------------------------------------------------------

def _peer(g, rank, group_rank, what):
    if rank is None and group_rank is None:
        raise ValueError(f"{what}: a peer rank is required")
    peer = _root(g, rank, group_rank, what)
    if peer == g.rank():
        raise ValueError(f"{what}: Invalid destination rank: should not be the same as the rank of the current "
                         "process.")
    return peer


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    peer = _peer(g, dst, group_dst, "isend")
    nccl = g.nccl_for(tensor)
    if nccl is not None:
        return _on_nccl(g, "send", True, [tensor], lambda t: nccl.send(t, peer), tensor)
    buf, _ = _stage(tensor)
    return Work([g.comm.Isend(as_bytes(buf), dest=peer, tag=tag)], g, "send", outputs=[buf])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    if _not_member(group):
        return None
    _check_tensor(tensor)
    g = _group(group)
    g.check_usable()
    MPI = mpi()
    nccl = g.nccl_for(tensor)
    if nccl is not None:
        if src is None and group_src is None:
            raise ValueError("irecv from any source is not supported for CUDA tensors on NCCL: pass src")
        peer = _peer(g, src, group_src, "irecv")
        return _on_nccl(g, "recv", True, [tensor], lambda t: nccl.recv(t, peer), tensor, source=peer)
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _peer(g, src, group_src, "irecv")
    buf, copy_back = _stage(tensor)
    status = MPI.Status()
    return Work([g.comm.Irecv(as_bytes(buf), source=peer, tag=tag)], g, "recv", copy_back, [tensor], status)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into tensor; returns the global rank it came from (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    return -1 if work is None else work.source_rank()


# --- picklable objects --------------------------------------------------------------------------

def _bcast_bytes(g, payload, root, what):
    """payload (bytes, on root) broadcast to every rank of g; its length goes first."""
    deadline = time.monotonic() + g.timeout.total_seconds()
    length = np.array([len(payload) if g.rank() == root else 0], np.int64)
    poll([g.comm.Ibcast(length, root=root)], deadline, g.timeout.total_seconds(), what)
    data = np.frombuffer(payload, np.uint8).copy() if g.rank() == root else np.empty(int(length[0]), np.uint8)
    poll([g.comm.Ibcast(data, root=root)], deadline, g.timeout.total_seconds(), what)
    return data.tobytes()


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    if _not_member(group):
        return
    g = _group(group)
    g.check_usable()
    root = _root(g, src, group_src, "broadcast_object_list")
    data = _bcast_bytes(g, pickle.dumps(list(object_list)) if g.rank() == root else b"", root,
                        "broadcast_object_list")
    if g.rank() != root:
        object_list[:] = pickle.loads(data)


def _gather_bytes(g, payload, root, what):
    """Every rank's payload, gathered on root (or on all ranks when root is None)."""
    deadline = time.monotonic() + g.timeout.total_seconds()
    mine = np.frombuffer(payload, np.uint8).copy()
    lengths = np.zeros(g.size(), np.int64)
    count = np.array([len(payload)], np.int64)
    req = g.comm.Iallgather(count, lengths)
    poll([req], deadline, g.timeout.total_seconds(), what)
    everything = np.empty(int(lengths.sum()), np.uint8)
    displs = [int(lengths[:i].sum()) for i in range(g.size())]
    spec = [everything, (lengths.tolist(), displs), mpi().BYTE]
    if root is None:
        req = g.comm.Iallgatherv(mine, spec)
    else:
        req = g.comm.Igatherv(mine, spec if g.rank() == root else None, root=root)
    poll([req], deadline, g.timeout.total_seconds(), what)
    return [everything[d:d + n].tobytes() for d, n in zip(displs, lengths.tolist())]


def all_gather_object(object_list, obj, group=None):
    if _not_member(group):
        return
    g = _group(group)
    g.check_usable()
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list must have world_size ({g.size()}) entries")
    object_list[:] = [pickle.loads(b) for b in _gather_bytes(g, pickle.dumps(obj), None, "all_gather_object")]


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    if _not_member(group):
        return
    g = _group(group)
    g.check_usable()
    root = _root(g, dst, group_dst, "gather_object")
    gathered = _gather_bytes(g, pickle.dumps(obj), root, "gather_object")
    if g.rank() == root:
        if object_gather_list is None or len(object_gather_list) != g.size():
            raise ValueError(f"gather_object: the destination needs an object_gather_list of {g.size()} entries")
        object_gather_list[:] = [pickle.loads(b) for b in gathered]


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    if _not_member(group):
        return
    g = _group(group)
    g.check_usable()
    root = _root(g, src, group_src, "scatter_object_list")
    objects = [None] * g.size()
    if g.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != g.size():
            raise ValueError(f"scatter_object_list: the source needs {g.size()} input objects")
        objects = list(scatter_object_input_list)
    broadcast_object_list(objects, group_src=root, group=g)
    scatter_object_output_list[0] = objects[g.rank()]
