"""How the ranks of several MPI jobs (one per node, started by torchlite.distributed.run) become
one communicator.

One job (every rank started by one `mpiexec`/`mpirun`) already shares MPI_COMM_WORLD. When the
launcher runs on several nodes (--nnodes), each node's launcher starts its own job, and the jobs
join with MPI's port mechanism: rank 0 of node 0 opens an MPI port and hands its name, over a TCP
socket at MASTER_ADDR:MASTER_PORT, to each other node in turn; the ranks gathered so far accept
the node's connect and merge with it. Finally ranks are ordered by their RANK.
"""

from __future__ import annotations

import os
import socket
import time

from torchlite.distributed._mpi import DistBackendError, mpi

_LAUNCHER_ENV = ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID")


def started_by_mpi_launcher() -> bool:
    return any(name in os.environ for name in _LAUNCHER_ENV)


def _serve_port(port_name, joiner, deadline):
    """On node 0's rank 0: hands port_name and the joiner's number to the next node to connect."""
    addr, port = os.environ.get("MASTER_ADDR", "127.0.0.1"), int(os.environ.get("MASTER_PORT", "29500"))
    with socket.create_server(("", port), reuse_port=False) as server:
        server.settimeout(max(deadline - time.monotonic(), 0.1))
        try:
            conn, _ = server.accept()
        except TimeoutError:
            raise DistBackendError(f"torchlite.distributed: node {joiner} never connected to {addr}:{port}") from None
        with conn:
            conn.sendall(f"{port_name}\n{joiner}\n".encode())


def _fetch_port(deadline):
    """On another node's rank 0: the MPI port name and this node's joining turn, from node 0."""
    addr, port = os.environ.get("MASTER_ADDR", "127.0.0.1"), int(os.environ.get("MASTER_PORT", "29500"))
    while True:
        try:
            with socket.create_connection((addr, port), timeout=5) as conn:
                data = b""
                while data.count(b"\n") < 2:
                    chunk = conn.recv(4096)
                    if not chunk:
                        raise ConnectionError("closed early")
                    data += chunk
            port_name, turn = data.decode().split("\n")[:2]
            return port_name, int(turn)
        except OSError:
            if time.monotonic() > deadline:
                raise DistBackendError(f"torchlite.distributed: could not reach node 0 at {addr}:{port}") from None
            time.sleep(0.1)


def join_jobs(local, timeout):
    """The communicator of all WORLD_SIZE ranks: local itself for a single job."""
    world_size = int(os.environ.get("WORLD_SIZE", local.Get_size()))
    if world_size == local.Get_size():
        return local
    if not started_by_mpi_launcher():
        raise RuntimeError(f"WORLD_SIZE={world_size}, but this process was not started by an MPI launcher: start "
                           "the ranks with `python -m torchlite.distributed.run` or `mpirun`")
    if world_size % local.Get_size():
        raise ValueError(f"WORLD_SIZE={world_size} is not a multiple of this node's {local.Get_size()} processes")
    MPI = mpi()
    nnodes = world_size // local.Get_size()
    node = int(os.environ.get("GROUP_RANK", "0"))
    deadline = time.monotonic() + timeout.total_seconds()
    if node == 0:
        port_name = MPI.Open_port() if local.Get_rank() == 0 else None
        merged, turn = local, 0
    else:
        port_name, turn = _fetch_port(deadline) if local.Get_rank() == 0 else (None, None)
        port_name, turn = local.bcast((port_name, turn), root=0)
        merged = local.Connect(port_name, root=0).Merge(high=True)
    for joiner in range(turn + 1, nnodes):
        if merged.Get_rank() == 0:
            _serve_port(port_name, joiner, deadline)
        merged = merged.Accept(port_name, root=0).Merge(high=False)
    if node == 0 and local.Get_rank() == 0:
        MPI.Close_port(port_name)
    rank = int(os.environ.get("RANK", node * local.Get_size() + local.Get_rank()))
    return merged.Split(0, rank)
