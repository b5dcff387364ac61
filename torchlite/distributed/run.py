"""The launcher, with torchrun's flags:

    python -m torchlite.distributed.run --nproc-per-node N [--nnodes M --node-rank K
        --master-addr HOST --master-port PORT | --standalone] script.py [args...]

It starts this node's N ranks as one MPI job through MPICH's `mpiexec`, each running this module
again in worker mode: a worker sets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR and MASTER_PORT, prefixes every line its script prints with `[rank R]`, and runs the
script as __main__. When a rank fails, mpiexec stops the others, and the launcher exits 1 with the
first failing rank's traceback (or the ranks that died without one, e.g. killed by a signal).
Started by `mpirun` itself (`mpirun -n N python -m torchlite.distributed.run script.py`), it is a
worker straight away, with the ranks of that MPI job.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from torchlite.distributed._rendezvous import started_by_mpi_launcher

__all__ = ["get_args_parser", "main", "parse_args", "run"]


def get_args_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="torchlite distributed launcher (torchrun's flags, on MPI)")
    p.add_argument("--nnodes", type=str, default="1:1", help="number of nodes, or MIN:MAX (which must be equal)")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=str, default="1",
                   help="ranks on this node: a number, or 'cpu'/'auto' for one per core")
    p.add_argument("--rdzv-backend", "--rdzv_backend", type=str, default="static")
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", type=str, default="", help="HOST:PORT of node 0")
    p.add_argument("--rdzv-id", "--rdzv_id", type=str, default="none")
    p.add_argument("--rdzv-conf", "--rdzv_conf", type=str, default="")
    p.add_argument("--standalone", action="store_true", help="one node on a free local port")
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0)
    p.add_argument("--monitor-interval", "--monitor_interval", type=float, default=0.1)
    p.add_argument("--start-method", "--start_method", type=str, default="spawn")
    p.add_argument("--role", type=str, default="default")
    p.add_argument("-m", "--module", action="store_true", help="run training_script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true", help="run training_script as a program")
    p.add_argument("--run-path", "--run_path", action="store_true")
    p.add_argument("--log-dir", "--log_dir", type=str, default=None)
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", type=str, default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=None)
    p.add_argument("--local-addr", "--local_addr", type=str, default=None)
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    return get_args_parser().parse_args(args)


def _nnodes(spec):
    low, _, high = spec.partition(":")
    if high and int(high) != int(low):
        raise ValueError(f"--nnodes {spec}: elastic node counts are not supported; give one number")
    return int(low)


def _nproc(spec):
    return (os.cpu_count() or 1) if spec in ("cpu", "auto") else int(spec)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = beside if os.path.exists(beside) else shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("torchlite.distributed.run needs MPICH's mpiexec: pip install 'torchlite[distributed]'")
    return found


# --- launcher ----------------------------------------------------------------------------------

def _report(error_dir, returncode, dead_pids):
    """The first failure's report, from the files the workers left in error_dir and the pids
    mpiexec said ended badly."""
    failures, pids = [], {}
    for name in sorted(os.listdir(error_dir)):
        with open(os.path.join(error_dir, name)) as f:
            if name.endswith(".json"):
                failures.append(json.load(f))
            else:  # rankR.pid: written at start, removed when the rank ended with a report
                pids[int(f.read())] = name[len("rank"):-len(".pid")]
    if failures:
        first = min(failures, key=lambda f: f["time"])
        return (f"rank {first['rank']} (local rank {first['local_rank']}) failed with exit code {first['exitcode']} "
                f"(first of {len(failures)} failing ranks):\n{first['message']}")
    dead = [pids[p] for p in dead_pids if p in pids]
    if dead:
        return f"rank {dead[0]} died without a report (mpiexec exited with {returncode}: killed by a signal?)"
    return f"mpiexec exited with {returncode}"


def run(args):
    """Starts this node's ranks under mpiexec and waits; exits 1 with the first failure."""
    nnodes, nproc = _nnodes(args.nnodes), _nproc(args.nproc_per_node)
    addr, port = args.master_addr, args.master_port
    if args.standalone:
        nnodes, addr, port = 1, "127.0.0.1", _free_port()
    elif args.rdzv_endpoint:
        addr, _, p = args.rdzv_endpoint.partition(":")
        port = int(p) if p else port
    if args.max_restarts:
        raise ValueError("--max-restarts: torchlite.distributed.run does not restart failed ranks")
    if not 0 <= args.node_rank < nnodes:
        raise ValueError(f"--node-rank {args.node_rank} must be in [0, {nnodes - 1}]")
    with tempfile.TemporaryDirectory(prefix="torchlite_run_") as error_dir:
        env = dict(os.environ, MASTER_ADDR=addr, MASTER_PORT=str(29500 if port is None else port),
                   TORCHLITE_RUN_NNODES=str(nnodes), TORCHLITE_RUN_NODE_RANK=str(args.node_rank),
                   TORCHLITE_RUN_NPROC=str(nproc), TORCHLITE_RUN_ERROR_DIR=error_dir,
                   TORCHELASTIC_RUN_ID=args.rdzv_id)
        cmd = [_mpiexec(), "-n", str(nproc), sys.executable, "-m", "torchlite.distributed.run", *sys.argv[1:]]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda s, _f: proc.send_signal(s))
        dead_pids = []
        for line in proc.stdout:  # the ranks' output, and mpiexec's note naming a process that died
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
            if found := re.search(rb"BAD TERMINATION|PID (\d+) RUNNING AT", line):
                dead_pids += [int(found.group(1))] if found.group(1) else []
        returncode = proc.wait()
        if returncode:
            print(f"torchlite.distributed.run: {_report(error_dir, returncode, dead_pids)}", file=sys.stderr,
                  flush=True)
            sys.exit(1)


# --- worker ------------------------------------------------------------------------------------

def _pump(read_fd, out_fd, prefix):
    pending = b""
    while chunk := os.read(read_fd, 1 << 16):
        *lines, pending = (pending + chunk).split(b"\n")
        if lines:
            os.write(out_fd, b"".join(prefix + line + b"\n" for line in lines))
    if pending:
        os.write(out_fd, prefix + pending + b"\n")


def _prefix_output(prefix):
    """Routes fds 1 and 2 through threads that prefix each line; returns what ends them."""
    threads = []
    for fd in (1, 2):
        out = os.dup(fd)
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        t = threading.Thread(target=_pump, args=(r, out, prefix), daemon=True)
        t.start()
        threads.append(t)

    def finish():
        sys.stdout.flush()
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            os.dup2(devnull, fd)
        for t in threads:
            t.join(timeout=5)
    return finish


def _worker_env():
    """RANK and the rest for this process, from the launcher's settings and MPI's rank."""
    env = os.environ
    local_rank = int(env.get("PMI_RANK") or env.get("OMPI_COMM_WORLD_RANK") or env.get("PMIX_RANK") or 0)
    local_size = int(env.get("PMI_SIZE") or env.get("OMPI_COMM_WORLD_SIZE") or 1)
    node, nnodes = int(env.get("TORCHLITE_RUN_NODE_RANK", 0)), int(env.get("TORCHLITE_RUN_NNODES", 1))
    rank = node * local_size + local_rank
    env.update(RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(nnodes * local_size),
               LOCAL_WORLD_SIZE=str(local_size), GROUP_RANK=str(node), GROUP_WORLD_SIZE=str(nnodes),
               ROLE_RANK=str(rank), ROLE_WORLD_SIZE=str(nnodes * local_size))
    env.setdefault("MASTER_ADDR", "127.0.0.1")
    env.setdefault("MASTER_PORT", "29500")
    env.setdefault("TORCHELASTIC_RUN_ID", "none")
    return rank, local_rank


def _exit_code(e: SystemExit):
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return 1


def _work(args):
    """Runs the training script in this process, as a rank."""
    rank, local_rank = _worker_env()
    error_dir = os.environ.get("TORCHLITE_RUN_ERROR_DIR")
    pid_file = error_dir and os.path.join(error_dir, f"rank{rank}.pid")
    if pid_file:
        with open(pid_file, "w") as f:
            f.write(str(os.getpid()))
    if args.no_python:
        os.execvp(args.training_script, [args.training_script, *args.training_script_args])
    finish_output = _prefix_output(f"[rank {rank}] ".encode())
    sys.argv = [args.training_script, *args.training_script_args]
    code = 0
    try:
        if args.module:
            runpy.run_module(args.training_script, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(args.training_script)))
            runpy.run_path(args.training_script, run_name="__main__")
    except SystemExit as e:
        code = _exit_code(e)
    except BaseException:
        message = traceback.format_exc()
        sys.stderr.write(message)
        code = 1
        if error_dir:
            with open(os.path.join(error_dir, f"rank{rank}.json"), "w") as f:
                json.dump({"rank": rank, "local_rank": local_rank, "exitcode": code, "time": time.time(),
                           "message": message}, f)
    if pid_file:
        os.remove(pid_file)
    if code:  # skip MPI_Finalize, which could wait on peers; mpiexec stops them
        finish_output()
        os._exit(code)
    atexit.register(finish_output)


def main(args=None):
    args = parse_args(sys.argv[1:] if args is None else args)
    if started_by_mpi_launcher():
        _work(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
