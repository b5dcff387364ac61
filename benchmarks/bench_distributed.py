"""all_reduce latency and bandwidth (1 KB to 64 MB) and a DistributedDataParallel training step,
torchlite (MPI) beside PyTorch's gloo backend with the same number of ranks, in the same run.

    python benchmarks/bench_distributed.py [--nproc 2] [--threads 1]

Each library runs as its own job of --nproc processes on this machine (torchlite through its
launcher, PyTorch with the RANK/WORLD_SIZE environment torchrun would set); rank 0 reports.
Bandwidth is the algorithm bandwidth: message bytes / time per all_reduce.
"""

import argparse
import importlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

SIZES = [2**k for k in range(10, 27, 2)]  # 1 KB .. 64 MB


def _time(fn, iters):
    """Mean seconds per call over iters calls after a warm-up call (the same count on every rank:
    each call is a collective)."""
    fn()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - start) / iters


def worker(lib_name, out_path, threads):
    torch = importlib.import_module(lib_name)
    dist = torch.distributed
    torch.set_num_threads(threads)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    results = {"all_reduce": {}}
    for nbytes in SIZES:
        x = torch.ones(nbytes // 4)
        dist.barrier()
        results["all_reduce"][nbytes] = _time(lambda x=x: dist.all_reduce(x), iters=max(5, min(200, 2**28 // nbytes)))

    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))  # 2.4 M parameters
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))

    def step(net, opt):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()

    # the same step without DDP, every rank at once: what DDP adds is the difference
    local_opt = torch.optim.SGD(model.parameters(), lr=0.01)
    dist.barrier()
    results["local_step"] = _time(lambda: step(model, local_opt), iters=20)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    dist.barrier()
    results["ddp_step"] = _time(lambda: step(ddp, opt), iters=20)
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(results, f)
    dist.destroy_process_group()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_torchlite(nproc, out, threads):
    cmd = [sys.executable, "-m", "torchlite.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
           __file__, "--worker", "torchlite", "--out", out, "--threads", str(threads)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def run_torch(nproc, out, threads):
    port = str(_free_port())
    procs = []
    for r in range(nproc):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=port)
        procs.append(subprocess.Popen([sys.executable, __file__, "--worker", "torch", "--out", out,
                                       "--threads", str(threads)], env=env))
    if any(p.wait() for p in procs):
        raise SystemExit("the PyTorch gloo job failed")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="intra-op threads per rank")
    p.add_argument("--worker", choices=["torchlite", "torch"])
    p.add_argument("--out")
    args = p.parse_args()
    if args.worker:
        return worker(args.worker, args.out, args.threads)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, run in (("torchlite", run_torchlite), ("torch", run_torch)):
            if name == "torch" and importlib.util.find_spec("torch") is None:
                continue
            out = os.path.join(tmp, f"{name}.json")
            run(args.nproc, out, args.threads)
            with open(out) as f:
                results[name] = json.load(f)
    tl, th = results["torchlite"], results.get("torch")
    print(f"all_reduce (float32 SUM), {args.nproc} ranks, this machine; bandwidth = bytes / time")
    print(f"{'size':>8} | {'torchlite us':>12} {'GB/s':>7} | {'gloo us':>10} {'GB/s':>7} | {'tl/gloo time':>12}")
    for nbytes in SIZES:
        t = tl["all_reduce"][str(nbytes)]
        row = f"{_human(nbytes):>8} | {t * 1e6:12.1f} {nbytes / t / 1e9:7.3f} |"
        if th:
            g = th["all_reduce"][str(nbytes)]
            row += f" {g * 1e6:10.1f} {nbytes / g / 1e9:7.3f} | {t / g:12.2f}"
        print(row)
    print("\nSGD step of an MLP (2.4 M parameters, batch 64 per rank), ms: with DDP, without, and what DDP adds")
    for name, r in results.items():
        print(f"{name:>10}: DDP {r['ddp_step'] * 1e3:7.1f}   local {r['local_step'] * 1e3:7.1f}   "
              f"added {(r['ddp_step'] - r['local_step']) * 1e3:7.1f}")
    if th:
        print(f"torchlite / PyTorch gloo: DDP step {tl['ddp_step'] / th['ddp_step']:.2f}, "
              f"added by DDP {(tl['ddp_step'] - tl['local_step']) / (th['ddp_step'] - th['local_step']):.2f}")


def _human(n):
    return f"{n >> 20} MB" if n >= 2**20 else f"{n >> 10} KB"


if __name__ == "__main__":
    main()
