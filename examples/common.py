"""What the example training scripts share: picking the library, the output folder, the
progress bar and the loss-curve plot.

Each script runs on torchlite by default and on PyTorch with --torch: the training code is
the same, only the module bound to the name `torch` differs.
"""

import argparse
import importlib
import pathlib
import time

import matplotlib

matplotlib.use("Agg")  # write PNGs; no display needed
import matplotlib.pyplot as plt  # noqa: E402
from tqdm import tqdm  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parent / "data"


def parse_args(description, **defaults):
    """Common flags (--torch, --threads, --out, --seed) plus the script's own (name=default; a bool
    default makes an on/off flag)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--torch", action="store_true", help="run on PyTorch instead of torchlite")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs", help="folder for the checkpoint and the loss plot")
    for name, value in defaults.items():
        if isinstance(value, bool):
            p.add_argument(f"--{name.replace('_', '-')}", action="store_true", default=value)
        else:
            p.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    return p.parse_args()


def load_library(args):
    """The `torch` module the script trains with: torchlite, or PyTorch with --torch."""
    torch = importlib.import_module("torch" if args.torch else "torchlite")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    return torch


def output_dir(args, name):
    out = pathlib.Path(args.out) / f"{name}-{'torch' if args.torch else 'torchlite'}"
    out.mkdir(parents=True, exist_ok=True)
    return out


class Progress:
    """A tqdm bar showing the running loss and throughput (items per second)."""

    def __init__(self, total, unit, desc, show=True):
        self.bar = tqdm(total=total, unit="step", desc=desc, dynamic_ncols=True, disable=not show)
        self.unit = unit
        self.items = 0
        self.start = time.perf_counter()

    def step(self, loss, items):
        self.items += items
        elapsed = time.perf_counter() - self.start
        self.bar.set_postfix(loss=f"{loss:.3f}", **{f"{self.unit}/s": f"{self.items / elapsed:.0f}"})
        self.bar.update(1)

    def close(self):
        self.bar.close()
        return time.perf_counter() - self.start


def plot_losses(path, series, title):
    """series: {label: (steps, values)}; writes a PNG."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, (x, y) in series.items():
        ax.plot(x, y, label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
