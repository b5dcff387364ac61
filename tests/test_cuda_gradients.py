"""Gradients on CUDA against the CPU, for the operators whose backward runs CUDA code of its own
(the fused RNN cells and layer, grid sampling, embedding bags, fractional max pooling, CTC loss):
tests/test_ops.py::test_cuda_matches_cpu compares only their forward results. Each registry
sample runs forward on both devices, and the gradients of one weighted sum of its floating
outputs with respect to its floating inputs must agree. Skipped without a GPU."""

import numpy as np
import pytest
from helpers import _map_arrays, assert_close, tolerances

import torchlite as tl
from opinfo import REGISTRY

OPS = ["_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "_fused_rnn_layer", "lstm", "gru", "rnn_tanh",
       "grid_sampler_2d", "grid_sampler_3d", "embedding_bag", "fractional_max_pool2d", "fractional_max_pool3d",
       "ctc_loss"]

requires_gpu = pytest.mark.skipif(not tl.cuda.is_available(), reason="no CUDA device")


def _floating(x):
    if isinstance(x, tl.Tensor):
        return [x] if x.dtype in (tl.float32, tl.float64) else []
    if isinstance(x, (list, tuple)):
        return [t for o in x for t in _floating(o)]
    return []


def _gradients(info, sample, device):
    """(input gradients, None where unused) of sum(w_i * output_i) on `device`."""
    leaves = []

    def make(a):
        t = tl.tensor(a, device=device)
        if a.dtype.kind == "f":
            t.requires_grad_()
            leaves.append(t)
        return t

    args, kwargs = _map_arrays(sample.args, make), _map_arrays(sample.kwargs, make)
    outputs = [o for o in _floating(info.call(tl, *args, **kwargs)) if o.requires_grad]
    if not outputs:
        return []
    rng = np.random.default_rng(1)
    loss = sum((o * tl.tensor(rng.uniform(0.5, 1.5, tuple(o.shape)), dtype=o.dtype, device=device)).sum()
               for o in outputs)
    return tl.autograd.grad(loss, leaves, allow_unused=True)


@requires_gpu
@pytest.mark.parametrize("name", OPS)
def test_cuda_gradients_match_cpu(name):
    info = next(i for i in REGISTRY if i.name == name)
    compared = 0
    for dtype in [d for d in info.dtypes if d in (tl.float32, tl.float64)]:
        for sample in info.sample_inputs(dtype, np.random.default_rng(0)):
            try:
                expected = _gradients(info, sample, "cpu")
            except Exception:  # error samples are tests/test_errors.py's
                continue
            got = _gradients(info, sample, "cuda")
            assert len(got) == len(expected)
            rtol, atol = tolerances(info, dtype)
            for g, e in zip(got, expected):
                assert (g is None) == (e is None)
                if e is not None:
                    assert g.is_cuda
                    assert_close(g.cpu(), e.detach().numpy(), rtol=rtol, atol=atol)
                    compared += 1
    assert compared > 0, f"{name}: no sample had a gradient to compare"
