"""torchlite.distributed across processes: each scenario is one script (tests/distributed/) run by
the launcher with 2 or 3 ranks, checking many things per launch to keep process starts few."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mpi4py", reason="torchlite.distributed needs the 'distributed' extra (mpi4py + mpich)")

SCRIPTS = Path(__file__).parent / "distributed"
ROOT = Path(__file__).parent.parent


def launch(nproc, script, *args, extra=(), timeout=120):
    cmd = [sys.executable, "-m", "torchlite.distributed.run", *extra, "--nproc-per-node", str(nproc),
           str(SCRIPTS / script), *args]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return proc, time.monotonic() - start


def ok(proc, nproc):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for r in range(nproc):
        assert f"[rank {r}] OK" in proc.stdout, proc.stdout + proc.stderr


def test_collectives_against_numpy():
    """3 ranks here; test_two_nodes_join_through_master_port runs the same checks on 2."""
    proc, _ = launch(3, "check_collectives.py")
    ok(proc, 3)


@pytest.mark.parametrize("mode, reported", [
    ("hang", "rank 0 (local rank 0) failed with exit code 1"),  # rank 0's all_reduce times out and raises
    ("kill", "died without a report"),
])
def test_a_failing_rank_stops_the_job_within_the_timeout(mode, reported):
    proc, seconds = launch(2, "check_failures.py", mode)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "[rank 0] waiting in all_reduce" in proc.stdout and "should not have" not in proc.stdout
    assert reported in proc.stderr, proc.stderr
    if mode == "hang":
        assert "all_reduce on rank 0 timed out after 2 s" in proc.stderr
    assert seconds < 40  # the 2 s timeout plus process starts, never rank 1's 60 s sleep


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_nodes_join_through_master_port():
    """Two launchers (--nnodes 2) on this machine form one 4-rank world through MPI ports."""
    port = str(_free_port())
    cmds = [[sys.executable, "-m", "torchlite.distributed.run", "--nnodes", "2", "--node-rank", str(node),
             "--nproc-per-node", "1", "--master-port", port, str(SCRIPTS / "check_collectives.py")]
            for node in (1, 0)]
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
             for c in cmds]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert "[rank 1] OK" in outs[0] and "[rank 0] OK" in outs[1], outs


def test_launcher_flags_and_errors():
    from torchlite.distributed import run
    from torchlite.distributed.distributed_c10d import _resolve_backend

    args = run.parse_args(["--nproc_per_node", "2", "--standalone", "-m", "pkg.mod", "--lr", "1"])
    assert (args.nproc_per_node, args.standalone, args.module, args.training_script) == ("2", True, True, "pkg.mod")
    assert args.training_script_args == ["--lr", "1"]
    with pytest.raises(ValueError, match="elastic"):
        run._nnodes("1:2")
    with pytest.raises(ValueError, match="Invalid backend"):
        _resolve_backend("ucc")


def test_without_a_launcher_world_size_is_refused():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI", "MPI", "OMPI"))}
    env.update(WORLD_SIZE="2", RANK="0")
    code = "import torchlite.distributed as d; d.init_process_group()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode != 0 and "not started by an MPI launcher" in proc.stderr, proc.stderr


def test_ddp_join_sampler_and_zero_match_one_process():
    proc, _ = launch(2, "check_ddp.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[rank 0] OK ddp" in proc.stdout and "[rank 1] OK ddp" in proc.stdout, proc.stdout + proc.stderr


def test_fsdp_matches_one_process_and_shards_memory():
    proc, _ = launch(2, "check_fsdp.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[rank 0] OK fsdp" in proc.stdout and "[rank 1] OK fsdp" in proc.stdout, proc.stdout + proc.stderr
