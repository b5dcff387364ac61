"""Test-session setup: which PyTorch the comparisons may use.

The PyTorch comparisons are written against PyTorch 2.13 (what CI installs). Another version
differs in error messages and module layout (a GPU machine's image had 2.11: 33 false failures),
so it counts as absent: `import torch` raises ImportError there and those tests skip.
"""

import importlib.metadata
import sys

REFERENCE = "2.13."

try:
    TORCH_VERSION = importlib.metadata.version("torch")
except importlib.metadata.PackageNotFoundError:
    TORCH_VERSION = None

if TORCH_VERSION is not None and not TORCH_VERSION.startswith(REFERENCE):
    sys.modules["torch"] = None  # makes `import torch` raise ImportError


def pytest_report_header(config):
    if TORCH_VERSION is None:
        return "PyTorch: not installed; comparisons with it skip"
    if not TORCH_VERSION.startswith(REFERENCE):
        return f"PyTorch {TORCH_VERSION}: not the {REFERENCE}x the comparisons are written for; they skip"
    return f"PyTorch {TORCH_VERSION}: comparisons run"
