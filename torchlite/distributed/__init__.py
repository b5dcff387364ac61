"""torchlite.distributed: torch.distributed's process groups and collectives, on MPI.

Install the extra (`pip install -e ".[distributed]"`: mpi4py and the mpich wheel); without it
`is_available()` is False and `init_process_group` raises saying what to install.

Backends. CPU tensors are exchanged through MPI whatever the name: "gloo", "mpi", None and
"cpu:gloo" all run on it. CUDA tensors run on NCCL (libnccl from the nvidia-nccl-cu13 wheel,
`pip install -e ".[nccl]"`, bound through ctypes: see _nccl) when the program asks for "nccl", or
for "cpu:gloo,cuda:nccl" or None on a machine with a GPU and libnccl; otherwise they are staged
through host memory on MPI, so "cpu:gloo,cuda:nccl" programs run unchanged on CPU-only machines.
"nccl" alone without a GPU raises RuntimeError. get_backend() answers "mpi", or
"cpu:mpi,cuda:nccl" when CUDA tensors run on NCCL.

How ranks meet. They are the processes of one MPI job, so they already share MPI_COMM_WORLD:
  - `python -m torchlite.distributed.run --nproc-per-node N script.py` starts the N ranks of a
    node through MPICH's `mpiexec` and sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and
    MASTER_PORT as torchrun does;
  - `mpirun -n N python script.py` (or `mpirun -hostfile hosts -n N ...` across machines) works
    as it is: rank and world size come from MPI;
  - with `--nnodes M`, each node's launcher starts its own job and the jobs join through an MPI
    port whose name node 0 hands out at MASTER_ADDR:MASTER_PORT (see _rendezvous).
A process started with WORLD_SIZE > 1 by anything else is refused with a clear error.

Tensors are exchanged without copies: MPI reads and writes a contiguous CPU tensor's memory
through a NumPy view. Non-contiguous tensors go through a contiguous copy. float16 and bfloat16
travel as 16-bit words and are reduced in float32. bool reduces logically (SUM and MAX are OR).

Timeouts. Every operation is a nonblocking MPI request polled against the group's `timeout`
(30 minutes by default): if a peer never joins, the call raises DistBackendError (a
RuntimeError) instead of hanging, the group refuses further use, and the MPI job is aborted when
the process exits (MPI cannot cancel a collective under way).
"""

from torchlite.distributed._grad_bucket import GradBucket
from torchlite.distributed._mpi import DistBackendError, DistError, Work
from torchlite.distributed.distributed_c10d import (
    Backend,
    GroupMember,
    ProcessGroup,
    ReduceOp,
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    broadcast_object_list,
    default_pg_timeout,
    destroy_process_group,
    gather,
    gather_object,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    irecv,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    isend,
    monitored_barrier,
    new_group,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    scatter_object_list,
    send,
)


def is_available() -> bool:
    """Whether torchlite.distributed can run here (mpi4py is installed)."""
    return is_mpi_available()


__all__ = [
    "Backend", "DistBackendError", "DistError", "GradBucket", "GroupMember", "ProcessGroup", "ReduceOp", "Work",
    "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single",
    "barrier", "broadcast", "broadcast_object_list", "default_pg_timeout", "destroy_process_group", "gather",
    "gather_object", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend", "monitored_barrier", "new_group",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"
]
