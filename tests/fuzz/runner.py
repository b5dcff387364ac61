"""Batches of cases in child processes (tests/fuzz/worker.py), several at a time. When a child
dies (a signal, an abort) or hangs, the call it was running — the first one without a result —
is run again alone in a fresh child: if that crashes too it is reported with its reproducer,
else as a crash that needs the batch's earlier calls. The rest of the batch then runs in a
new child."""

import json
import os
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    case: dict
    outcome: str  # matched / returned / raised / wrong / crash
    detail: str = ""


def _child(args, timeout):
    """Run the worker; None when it exited normally, else what stopped it."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"}
    try:
        proc = subprocess.run([sys.executable, "-m", "tests.fuzz.worker", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"hang (over {timeout} s)"
    if proc.returncode == 0:
        return None
    if proc.returncode < 0:
        return f"signal {signal.Signals(-proc.returncode).name}"
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return f"exit {proc.returncode}: {last[:200]}"


def _read(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run_batch(seed, calls, kinds=None, families=None, timeout_per_call=1.0):
    """Generate and run one batch; a list of Result."""
    with tempfile.TemporaryDirectory(prefix="tlfuzz") as tmp:
        directory = Path(tmp)
        options = [f"--{name}={','.join(values)}" for name, values in (("kinds", kinds), ("families", families))
                   if values]
        timeout = 120 + timeout_per_call * calls
        stopped = _child(["generate", str(seed), str(calls), tmp, *options], timeout)
        cases = _read(directory / "cases.jsonl")
        if not cases:
            raise RuntimeError(f"the fuzz worker made no cases (seed {seed}): {stopped}")
        crashes = {}
        while stopped:
            done = {r["i"] for r in _read(directory / "results.jsonl")}
            first = min(set(range(len(cases))) - done - set(crashes), default=None)
            if first is None:
                break
            with tempfile.TemporaryDirectory(prefix="tlfuzz") as alone:
                (Path(alone) / "cases.jsonl").write_text(json.dumps(cases[first]) + "\n")
                again = _child(["run", alone, "0"], 120)
            crashes[first] = stopped if again else f"{stopped}, but not when run alone"
            stopped = _child(["run", tmp, str(first + 1)], timeout) if first + 1 < len(cases) else None
        results = {r["i"]: r for r in _read(directory / "results.jsonl")}
    out = []
    for i, case in enumerate(cases):
        if i in crashes:
            out.append(Result(case, "crash", crashes[i]))
        elif i in results:
            out.append(Result(case, results[i]["outcome"], results[i]["detail"]))
    return out


def run_campaign(calls, seed=0, batch=200, jobs=None, kinds=None, families=None, progress=None):
    """`calls` calls in batches of `batch`, `jobs` children at a time; a list of Result."""
    jobs = jobs or os.cpu_count() or 1
    sizes = [min(batch, calls - start) for start in range(0, calls, batch)]
    results = []
    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_batch, seed * 1_000_003 + k, n, kinds, families) for k, n in enumerate(sizes)]
        for future in futures:
            results += future.result()
            if progress:
                progress(results)
    return results
