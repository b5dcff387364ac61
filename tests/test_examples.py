"""The example training scripts run end to end on torchlite (tiny settings: a smoke test of
the whole stack — Module, DataLoader, optimizer, scheduler, save/load — not of quality)."""

import math
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def run_example(script, tmp_path, *args):
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), "--out", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.slow
def test_digits_cnn_learns(tmp_path):
    out = run_example("train_digits_cnn.py", tmp_path, "--epochs", "2")
    accuracy = float(re.search(r"held-out accuracy: ([0-9.]+)", out).group(1))
    assert accuracy > 0.5, out  # chance is 0.1; two epochs reach about 0.9
    run_dir = tmp_path / "digits_cnn-torchlite"
    assert (run_dir / "checkpoint.pt").stat().st_size > 0
    assert (run_dir / "loss.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_char_transformer_trains_and_samples(tmp_path):
    out = run_example("train_char_transformer.py", tmp_path, "--steps", "30", "--d-model", "32", "--layers", "1",
                      "--context", "32", "--sample-chars", "40")
    loss = float(re.search(r"held-out loss: ([0-9.]+)", out).group(1))
    vocab = len(set((EXAMPLES / "data" / "shakespeare.txt").read_text()))
    assert loss < math.log(vocab), out  # below the loss of a uniform guess
    assert out.split("sample:\n", 1)[1].startswith("MACBETH.\n")
    assert (tmp_path / "char_transformer-torchlite" / "loss.png").exists()
