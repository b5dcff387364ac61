"""The whole side-by-side table in one command: torchlite, PyTorch and NumPy at 1 and 2 threads.

    python benchmarks/run_all.py [--repeats 5] [--threads 1 2] [--quick] [--only TEXT ...] [--busy]
                                 [--spincounts N ...] [--no-table] [--output benchmarks/RESULTS.md]

Each row is one case (a kernel or a full training step) timed for every library in alternation,
in this one process, after a warm-up call: the cell is the median time per call over the repeats
and "ratio" is torchlite / PyTorch (below 1: torchlite is faster). Rows run at 1 thread, then at
2, with the thread count set for both libraries before every row (they may share one OpenMP
runtime). NumPy is a 1-thread reference (OPENBLAS_NUM_THREADS=1 is set before it loads), so it
has a 1-thread column only. "load" is how many cores other processes kept busy while the row ran
(from /proc/stat); rows with a load above ~0.5 are not worth much. The table, the geometric mean
of the ratios and the machine are printed and written to --output.

--busy adds the busy-machine section: training steps of the MLP and the small CNN, each library
in its own worker process (so each runs with its own OpenMP settings), timed with the machine
idle and with two CPU-bound busy loops started by this script, in alternation; it reports each
library's degradation busy/idle and the busy times' ratio. "torchlite spinning" is torchlite with
libgomp's default spin count (GOMP_SPINCOUNT=300000) instead of its bounded default (Note [OpenMP
wait policy]); --spincounts adds a torchlite column per candidate spin count (0: passive). "Idle"
only means the busy loops are paused: what else runs on the machine shows in the load averages.
--quick shrinks every case and the repeats, for a smoke run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # NumPy's GEMM as a 1-thread reference
# The environment before torchlite's import adds its OpenMP default: the busy section's workers
# start from it, so each library runs with its own default settings.
BASE_ENV = dict(os.environ)

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import bench_autograd  # noqa: E402
import bench_conv  # noqa: E402
import bench_indexing  # noqa: E402
import bench_nn_ops  # noqa: E402
import bench_ops  # noqa: E402
import bench_sequence  # noqa: E402
import bench_vecmath  # noqa: E402
import models  # noqa: E402
from libraries import bind, load_torch, measure, set_threads, timeit, warm_malloc  # noqa: E402


class Cases:
    """Builds the rows' callables. The bench_* builders make many cases at once; only the latest
    builder's result is kept, so its large arrays are freed once the rows using it are done."""

    def __init__(self, tl, torch, quick):
        self.tl, self.torch, self.quick = tl, torch, quick
        self._key, self._value = None, None

    def libs(self):
        return {"torchlite": self.tl, "torch": self.torch}

    def _cached(self, key, build):
        if self._key != key:
            self._key, self._value = None, None  # drop the previous builder's arrays first
            self._key, self._value = key, build()
        return self._value

    def ops_throughput(self, name):
        n = (1 << 18) if self.quick else (16 << 20)
        cases = self._cached("ops", lambda: bench_ops.throughput_cases(self.tl, self.torch, n))
        return next(fns for case, _, fns in cases if case == name)

    def overhead(self, name):
        return self._cached("overhead", lambda: dict(bench_ops.overhead_cases(self.tl, self.torch)))[name]

    def per_lib(self, key, build, name):
        """A case from a builder called once per library: build(lib) -> {name: callable}."""
        cases = self._cached(key, lambda: {lib: build(mod) for lib, mod in self.libs().items()})
        return {lib: c[name] for lib, c in cases.items()}

    def nn_op(self, name):
        return self.per_lib("nn_ops", lambda m: bench_nn_ops.lib_cases(m, self.tl), name)

    def sequence(self, name):
        return self.per_lib("sequence", lambda m: bench_sequence.lib_cases(m, self.tl), name)

    def autograd(self, name):
        return self.per_lib("autograd", bench_autograd.cases, name)

    def indexing(self, name):
        rows, cols = (256, 64) if self.quick else (4096, 512)
        cases = self._cached("indexing", lambda: dict(bench_indexing.cases(self.tl, self.torch, rows, cols)))
        return cases[name]

    def conv(self, prefix, backward):
        for name, arrays, fn, bwd in bench_conv.cases(self.quick):
            if name.startswith(prefix) and bwd == backward:
                return {lib: bench_conv._runner(mod, fn, arrays, backward) for lib, mod in self.libs().items()}
        raise KeyError(prefix)

    def unary(self, name):
        """bench_vecmath's op on 1M float32 inputs in its range (64K quick)."""
        call, np_call, scale = bench_vecmath.UNARY[name]
        u = np.random.default_rng(0).uniform(-1, 1, (1 << 16) if self.quick else (1 << 20))
        x = (u * scale).astype(np.float32)
        fns = {lib: bind(call, m, m.from_numpy(x.copy())) for lib, m in self.libs().items()}
        if np_call is not None:
            fns["numpy"] = lambda: np_call(x)
        return fns

    def half_add(self, dtype):
        u = np.random.default_rng(0).standard_normal((1 << 16) if self.quick else (1 << 20)).astype(np.float32)
        fns = {}
        for lib, m in self.libs().items():
            a = m.from_numpy(u).to(getattr(m, dtype))
            b = a.flip(0).contiguous()
            fns[lib] = lambda a=a, b=b: a + b
        if dtype == "float16":
            h = u.astype(np.float16)
            hr = h[::-1].copy()
            fns["numpy"] = lambda: h + hr
        return fns

    def matmul(self, m, k, n):
        if self.quick:
            m, k, n = min(m, 64), 64, 64
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
        fns = {lib: bind(mod.matmul, mod.from_numpy(a.copy()), mod.from_numpy(b.copy()))
               for lib, mod in self.libs().items()}
        fns["numpy"] = lambda: a @ b
        return fns

    def reduce_dim(self, dim):
        side = 256 if self.quick else 2048
        x = np.random.default_rng(0).standard_normal((side, side), dtype=np.float32)
        fns = {lib: bind(mod.sum, mod.from_numpy(x.copy()), dim) for lib, mod in self.libs().items()}
        fns["numpy"] = lambda: x.sum(dim)
        return fns

    def train_step(self, model):
        return {lib: models.STEPS[model](mod, self.quick) for lib, mod in self.libs().items()}


# (row name, how Cases builds it)
ROWS = [
    ("per-op overhead: a + b, 4 floats", lambda c: c.overhead("a + b")),
    ("autograd chain: 100 adds + backward", lambda c: c.autograd("fwd+bwd chain / op")),
    ("GEMM 1024x1024x1024", lambda c: c.matmul(1024, 1024, 1024)),
    ("GEMM small M: 16x1024 @ 1024x1024", lambda c: c.matmul(16, 1024, 1024)),
    ("add allocating, 16M", lambda c: c.ops_throughput("add allocating (a+b)")),
    ("add out=, 16M", lambda c: c.ops_throughput("add out= (a+b -> o)")),
    ("mul allocating, 16M", lambda c: c.ops_throughput("mul allocating (a*b)")),
    ("mul out=, 16M", lambda c: c.ops_throughput("mul out=")),
    ("exp, 1M", lambda c: c.unary("exp")),
    ("tanh, 1M", lambda c: c.unary("tanh")),
    ("sin, 1M", lambda c: c.unary("sin")),
    ("sigmoid, 1M", lambda c: c.unary("sigmoid")),
    ("gelu (tanh), 1M", lambda c: c.unary("gelu tanh")),
    ("float16 add, 1M", lambda c: c.half_add("float16")),
    ("bfloat16 add, 1M", lambda c: c.half_add("bfloat16")),
    ("sum over inner dim, 2048x2048", lambda c: c.reduce_dim(1)),
    ("sum over outer dim, 2048x2048", lambda c: c.reduce_dim(0)),
    ("softmax, 256x1024", lambda c: c.nn_op("softmax fwd [256x1024]")),
    ("layer_norm, 256x1024", lambda c: c.nn_op("layer_norm fwd [256x1024]")),
    ("cross_entropy fwd+bwd, 512x1000", lambda c: c.nn_op("cross_entropy fwd+bwd")),
    ("max_pool2d k2, 32x32x32x32", lambda c: c.conv("max_pool2d", False)),
    ("conv2d 3x3 fwd, 32x16x32x32 -> 32", lambda c: c.conv("conv2d ", False)),
    ("conv2d 3x3 fwd+bwd, 32x16x32x32 -> 32", lambda c: c.conv("conv2d ", True)),
    ("embedding fwd+bwd, 64x128 of 4096x512", lambda c: c.indexing("embedding fwd+bwd")),
    ("index: x[idx], 2048 of 4096x512", lambda c: c.indexing("x[idx]")),
    ("gather(x, 1, idx), 4096x512", lambda c: c.indexing("gather(x, 1, gidx)")),
    ("LSTM fwd+bwd, seq 50 x 32 x 256", lambda c: c.sequence("LSTM fwd+bwd [seq 50, batch 32, hidden 256]")),
    ("train step: MLP 784-256-256-10, b128", lambda c: c.train_step("MLP")),
    ("train step: small CNN, CIFAR b64", lambda c: c.train_step("small CNN")),
    ("train step: ResNet-18, CIFAR b8", lambda c: c.train_step("ResNet-18")),
    ("train step: transformer 2x d128, 16x64", lambda c: c.train_step("transformer")),
    ("train step: LSTM LM, 35x32", lambda c: c.train_step("LSTM LM")),
]


class ForeignLoad:
    """Cores kept busy by other processes (and the hypervisor's steal) over a stretch of time:
    all CPU time from /proc/stat minus this process's own, per second of wall time."""

    def __enter__(self):
        self._start = self._sample()
        return self

    def __exit__(self, *exc):
        wall, busy, own = (b - a for a, b in zip(self._start, self._sample()))
        self.cores = max(0.0, (busy - own) / wall) if wall > 0 else 0.0
        return False

    @staticmethod
    def _sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        busy = (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
        t = os.times()
        return time.perf_counter(), busy, t.user + t.system


def fmt_time(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            return f"{seconds / scale:.3g} {unit}"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def run_row(fns, repeats, target):
    """Median seconds per call for each library: a calibration call sets how many calls make one
    repeat (about `target` seconds of torchlite), then libraries alternate within each repeat."""
    number = max(1, int(target / max(timeit(fns["torchlite"], 1), 1e-9)))
    return measure(fns, number, repeats)


def table(tl, torch, args):
    cases = Cases(tl, torch, args.quick)
    header = ["case"] + [f"{col} {t}t" for t in args.threads for col in
                         (("torchlite", "torch", "numpy", "ratio", "load") if t == 1
                          else ("torchlite", "torch", "ratio", "load"))]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    print("\n".join(lines), flush=True)
    ratios = {t: [] for t in args.threads}
    for name, build in ROWS:
        if args.only and not any(s in name for s in args.only):
            continue
        fns = build(cases)
        cells = [name]
        for t in args.threads:
            set_threads([tl, torch], t)
            row_fns = fns if t == 1 else {k: v for k, v in fns.items() if k != "numpy"}
            with ForeignLoad() as load:
                res = run_row(row_fns, args.repeats, args.target)
            ratio = res["torchlite"] / res["torch"]
            ratios[t].append(ratio)
            cells += [fmt_time(res["torchlite"]), fmt_time(res["torch"])]
            if t == 1:
                cells.append(fmt_time(res.get("numpy")))
            cells += [f"**{ratio:.2f}**", f"{load.cores:.2f}"]
        line = "| " + " | ".join(cells) + " |"
        lines.append(line)
        print(line, flush=True)
    summary = [f"Geometric mean of torchlite / PyTorch over {len(lines) - 2} rows: "
               + ", ".join(f"{t} thread{'s' if t > 1 else ''} **{geomean(ratios[t]):.2f}**" for t in args.threads)
               + f"; all {sum(len(v) for v in ratios.values())} ratios **{geomean(sum(ratios.values(), [])):.2f}**."]
    print("\n" + summary[0])
    return lines + [""] + summary


# --- busy machine -------------------------------------------------------------------------------

BUSY_MODELS = ("MLP", "small CNN")
# Column label -> (library, environment added for its worker). The third is torchlite with
# libgomp's default spin count instead of Note [OpenMP wait policy]'s, set explicitly.
BUSY_VARIANTS = {"torchlite": ("torchlite", {}), "torch": ("torch", {}),
                 "torchlite spinning": ("torchlite", {"GOMP_SPINCOUNT": "300000"})}


def busy_variants(spincounts):
    return {**BUSY_VARIANTS, **{f"torchlite spin {n}": ("torchlite", {"GOMP_SPINCOUNT": str(n)}) for n in spincounts}}


def worker(lib_name, quick):
    """Serve step timings over stdin/stdout: one JSON request per line {"model", "threads", "budget"},
    answered with the median seconds of the steps run in about `budget` seconds (at least 3)."""
    import importlib

    lib = importlib.import_module(lib_name)
    warm_malloc()
    steps = {}
    for line in sys.stdin:
        req = json.loads(line)
        lib.set_num_threads(req["threads"])
        if req["model"] not in steps:
            steps[req["model"]] = models.STEPS[req["model"]](lib, quick)
            steps[req["model"]]()
        step, times = steps[req["model"]], []
        start = time.perf_counter()
        while len(times) < 3 or time.perf_counter() - start < req["budget"]:
            times.append(timeit(step, 1))
        print(json.dumps({"seconds": statistics.median(times)}), flush=True)


class Worker:
    def __init__(self, lib_name, quick, env):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", lib_name] + (["--quick"] if quick else [])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env={**BASE_ENV, **env})

    def time_step(self, model, threads, budget):
        self.proc.stdin.write(json.dumps({"model": model, "threads": threads, "budget": budget}) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"benchmark worker exited with {self.proc.wait()}")
        return json.loads(answer)["seconds"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def busy_section(args):
    """Median step times idle and beside two busy loops, alternating the two states and the libraries;
    the busy loops are started once and paused (SIGSTOP) while the machine should be idle."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    workers = {}
    try:
        for h in hogs:
            os.kill(h.pid, signal.SIGSTOP)
        workers = {label: Worker(lib, args.quick, env) for label, (lib, env) in busy_variants(args.spincounts).items()}
        libs = list(workers)
        budget = 0.05 if args.quick else 0.5
        cols = " | ".join(f"{lib} idle | {lib} busy | {lib} busy/idle" for lib in libs)
        lines = [f"| training step | threads | {cols} | degradation torchlite / torch | busy time torchlite / torch |",
                 "|" + "---|" * (4 + 3 * len(libs))]
        print("\n" + "\n".join(lines), flush=True)
        for model in BUSY_MODELS:
            for threads in args.threads:
                samples = {(lib, state): [] for lib in libs for state in ("idle", "busy")}
                for _ in range(args.repeats):
                    for state in ("idle", "busy"):
                        for h in hogs:
                            os.kill(h.pid, signal.SIGCONT if state == "busy" else signal.SIGSTOP)
                        time.sleep(0.1)
                        for lib, w in workers.items():
                            samples[lib, state].append(w.time_step(model, threads, budget))
                med = {k: statistics.median(v) for k, v in samples.items()}
                degr = {lib: med[lib, "busy"] / med[lib, "idle"] for lib in libs}
                cells = [model, str(threads)]
                for lib in libs:
                    cells += [fmt_time(med[lib, "idle"]), fmt_time(med[lib, "busy"]), f"**{degr[lib]:.2f}**"]
                cells += [f"{degr['torchlite'] / degr['torch']:.2f}",
                          f"{med['torchlite', 'busy'] / med['torch', 'busy']:.2f}"]
                lines.append("| " + " | ".join(cells) + " |")
                print(lines[-1], flush=True)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        for w in workers.values():
            w.close()
    return lines


def machine_lines(tl, torch):
    model = platform.processor() or "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0))
    caps = f"torchlite {tl._C._cpu_capability()}"
    if torch is not None:
        caps += f", PyTorch {torch.backends.cpu.get_cpu_capability()}"
    # torchlite's default applies only to its own libgomp load and leaves os.environ as it was.
    policy = ", ".join(f"{k}={BASE_ENV[k]}" for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT") if k in BASE_ENV)
    policy = policy or f"torchlite's default GOMP_SPINCOUNT={tl._GOMP_SPINCOUNT}"
    return [
        f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {model}, {cores} cores usable (os.cpu_count() = {os.cpu_count()}); CPU capability: {caps}",
        f"- Libraries: torchlite {tl.__version__}, PyTorch {torch.__version__ if torch else 'not installed'}, "
        f"NumPy {np.__version__}; Python {platform.python_version()}",
        f"- Load average (1, 5, 15 min) at the start: {', '.join(f'{v:.1f}' for v in os.getloadavg())}",
        f"- OpenMP environment of the table: {policy} (torchlite and PyTorch share one OpenMP"
        " runtime in a process, so both ran with it)",
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=None, help="repeats per row (default 5, quick 2)")
    p.add_argument("--target", type=float, default=None,
                   help="seconds of torchlite calls per repeat (default 0.05, quick 0.002)")
    p.add_argument("--quick", action="store_true", help="small cases and few repeats: a smoke run")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts (default 1 2)")
    p.add_argument("--only", nargs="+", default=None, help="only the rows whose name contains one of these")
    p.add_argument("--busy", action="store_true", help="add the busy-machine section")
    p.add_argument("--spincounts", type=int, nargs="*", default=[],
                   help="with --busy: also time torchlite at these GOMP_SPINCOUNT values")
    p.add_argument("--no-table", action="store_true", help="skip the table (with --busy)")
    p.add_argument("--output", default=os.path.join(HERE, "RESULTS.md"))
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker, args.quick)
        return
    args.repeats = args.repeats or (2 if args.quick else 5)
    args.target = args.target or (0.002 if args.quick else 0.05)
    import torchlite as tl

    torch = load_torch()
    if torch is None:
        sys.exit("run_all.py compares torchlite with PyTorch, which is not installed")
    warm_malloc()
    out = ["# torchlite vs PyTorch and NumPy: benchmarks/run_all.py", ""] + machine_lines(tl, torch)
    print("\n".join(out), flush=True)
    if not args.no_table:
        out += ["", "## Kernels and training steps", "",
                "Median time per call; ratio = torchlite / PyTorch (below 1: torchlite is faster); load = cores"
                " used by other processes meanwhile.", ""]
        out += table(tl, torch, args)
    if args.busy:
        out += ["", "## Busy machine: two CPU-bound processes beside the training step", "",
                "Each library in its own worker process; median step time idle and busy, alternating.", ""]
        out += busy_section(args)
    out.append(f"\nLoad average (1, 5, 15 min) at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())}.")
    with open(args.output, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
