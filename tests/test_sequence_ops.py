"""embedding_bag and ctc_loss beyond the registry (tests/opinfo/sequence.py): the by-product
outputs of torch.embedding_bag, nn.EmbeddingBag and nn.CTCLoss, max_norm, the log-alpha table,
the gradient with respect to raw log_probs, and the errors PyTorch does not raise."""

import numpy as np
import pytest

import torchlite as tl
from helpers import assert_close

try:
    import torch
except ImportError:  # the PyTorch comparisons skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

IDX = [1, 2, 4, 5, 4, 3, 2, 0]
OFFSETS = [0, 2, 2, 5]


def _weight(lib, rows=6, cols=3, seed=0):
    w = np.random.default_rng(seed).standard_normal((rows, cols))
    return tl.tensor(w) if lib is tl else torch.from_numpy(w)


@needs_torch
@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_by_products_match_torch(mode, padding_idx):
    ours = tl.embedding_bag(_weight(tl), tl.tensor(IDX), tl.tensor(OFFSETS), False, mode, False, None, False,
                            padding_idx)
    theirs = torch.embedding_bag(_weight(torch), torch.tensor(IDX), torch.tensor(OFFSETS), False, mode, False, None,
                                 False, padding_idx)
    assert len(ours) == 4
    for o, t in zip(ours, theirs):
        assert o.dtype == getattr(tl, str(t.dtype)[6:])
        assert_close(o, t.numpy())


def test_embedding_bag_int32_indices_and_sum_mode():
    out, offset2bag, bag_size, max_indices = tl.embedding_bag(
        _weight(tl), tl.tensor(IDX, dtype=tl.int32), tl.tensor(OFFSETS, dtype=tl.int32))
    assert offset2bag.dtype == tl.int32 and offset2bag.tolist() == [0, 0, 2, 2, 2, 3, 3, 3]
    assert bag_size.tolist() == [0, 0, 0, 0] and max_indices.tolist() == [0, 0, 0, 0]  # PyTorch's sum-mode values
    w = _weight(tl).numpy()
    assert_close(out, np.stack([w[[1, 2]].sum(0), np.zeros(3), w[[4, 5, 4]].sum(0), w[[3, 2, 0]].sum(0)]))


@needs_torch
def test_embedding_bag_max_norm_renormalises_like_torch():
    ours, theirs = _weight(tl) * 3, _weight(torch) * 3
    out = tl.nn.functional.embedding_bag(tl.tensor([[0, 2], [2, 5]]), ours, max_norm=1.5)
    ref = torch.nn.functional.embedding_bag(torch.tensor([[0, 2], [2, 5]]), theirs, max_norm=1.5)
    assert_close(out, ref.numpy())
    assert_close(ours, theirs.numpy())  # the looked-up rows were rescaled in place


@needs_torch
def test_embedding_bag_module_matches_torch():
    tl.manual_seed(0)
    bag = tl.nn.EmbeddingBag.from_pretrained(_weight(tl), mode="max", padding_idx=1)
    ref = torch.nn.EmbeddingBag.from_pretrained(_weight(torch), mode="max", padding_idx=1)
    assert not bag.weight.requires_grad and repr(bag) == repr(ref)
    assert_close(bag(tl.tensor(IDX), tl.tensor(OFFSETS)), ref(torch.tensor(IDX), torch.tensor(OFFSETS)).numpy())
    fresh = tl.nn.EmbeddingBag(5, 4, mode="sum", padding_idx=-1)
    assert fresh.padding_idx == 4 and fresh.weight[4].tolist() == [0.0] * 4 and fresh.weight.requires_grad
    psw = tl.tensor([[0.5, 2.0]], requires_grad=True)
    fresh(tl.tensor([[0, 3]]), per_sample_weights=psw).sum().backward()
    assert_close(psw.grad, fresh.weight[[0, 3]].sum(1).detach().view(1, 2).numpy())


def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count():
    """Each row's gradient is divided by how often its index occurs in the batch. PyTorch 2.13's CPU
    kernel divides index 4 below by index 1's count (pytorch/pytorch#190063, fixed after 2.13)."""
    w = tl.ones(6, 1, dtype=tl.float64, requires_grad=True)
    out = tl.nn.functional.embedding_bag(tl.tensor([1, 1, 4, 1, 0]), w, tl.tensor([0, 3]), mode="sum",
                                         scale_grad_by_freq=True)
    out.backward(tl.tensor([[1.0], [10.0]], dtype=tl.float64))
    assert_close(w.grad.flatten(), np.array([10.0, (1 + 1 + 10) / 3, 0, 0, 1.0, 0]))


def test_embedding_bag_errors_torch_does_not_raise():
    w = _weight(tl)
    with pytest.raises(RuntimeError, match="offsets must be non-decreasing"):
        tl.embedding_bag(w, tl.tensor(IDX), tl.tensor([0, 4, 2]))
    with pytest.raises(RuntimeError, match="sparse=True"):
        tl.embedding_bag(w, tl.tensor(IDX), tl.tensor(OFFSETS), False, 0, True)


# ---- ctc_loss -----------------------------------------------------------------------------------

def _ctc_inputs(lib, T=6, N=2, C=4, seed=0):
    lp = np.log(np.random.default_rng(seed).dirichlet(np.ones(C), size=(T, N)))
    t = tl.tensor if lib is tl else torch.tensor
    return t(lp), t([[1, 2, 2], [3, 1, 0]]), t([6, 5]), t([3, 2])


@needs_torch
def test_ctc_log_alpha_and_overloads_match_torch():
    lp, tg, il, tgl = _ctc_inputs(tl)
    nll, log_alpha = tl._C._ctc_loss(lp, tg, [6, 5], [3, 2])
    t_nll, t_alpha = torch._ctc_loss(*_ctc_inputs(torch)[:2], [6, 5], [3, 2])
    assert_close(nll, t_nll.numpy())
    assert tuple(log_alpha.shape) == tuple(t_alpha.shape) == (2, 6, 7)
    # PyTorch leaves the states no alignment reaches unset; compare where both are finite
    ours, theirs = log_alpha.numpy(), t_alpha.numpy()
    reach = np.isfinite(theirs) & np.isfinite(ours)
    np.testing.assert_allclose(ours[reach], theirs[reach], rtol=1e-10)
    by_tensor = tl.ctc_loss(lp, tg, il, tgl, reduction=0)
    by_list = tl.ctc_loss(lp, tg, (6, 5), (3, 2), reduction=0)
    assert_close(by_tensor, by_list.numpy())


@needs_torch
def test_ctc_gradient_on_raw_log_probs_is_torchs():
    """Without log_softmax in front, the gradient is PyTorch's (exp(lp) - occupancy / exp(lp))."""
    lp, tg, il, tgl = _ctc_inputs(tl, T=8, N=2, C=5, seed=3)
    lp.requires_grad_()
    tl.nn.CTCLoss(reduction="sum")(lp, tg, il, tgl).backward()
    t_lp, t_tg, t_il, t_tgl = _ctc_inputs(torch, T=8, N=2, C=5, seed=3)
    t_lp.requires_grad_()
    torch.nn.CTCLoss(reduction="sum")(t_lp, t_tg, t_il, t_tgl).backward()
    assert_close(lp.grad, t_lp.grad.numpy())


@needs_torch
def test_ctc_larger_float32_case_matches_torch():
    rng = np.random.default_rng(5)
    T, N, C = 40, 5, 12
    logits = rng.standard_normal((T, N, C)).astype(np.float32)
    tg_lens = rng.integers(0, 15, N)
    targets = rng.integers(1, C, (N, 15))
    in_lens = rng.integers(30, T + 1, N)
    results = []
    for lib in (tl, torch):
        x = (tl.tensor if lib is tl else torch.tensor)(logits).requires_grad_()
        t = tl.tensor if lib is tl else torch.tensor
        loss = lib.nn.functional.ctc_loss(x.log_softmax(2), t(targets), t(in_lens), t(tg_lens), zero_infinity=True)
        loss.backward()
        results.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-4, atol=1e-6)


def test_ctc_zero_infinity_zeroes_value_and_gradient():
    lp = tl.zeros(2, 1, 3, requires_grad=True)
    loss = tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 1]]), [2], [2], reduction="sum")
    assert loss.item() == float("inf")
    loss = tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 1]]), [2], [2], reduction="sum", zero_infinity=True)
    loss.backward()
    assert loss.item() == 0.0 and lp.grad.abs().sum().item() == 0.0


def test_ctc_errors_torch_does_not_raise():
    lp, tg, il, tgl = _ctc_inputs(tl)
    with pytest.raises(IndexError, match="target label 7"):
        tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 2, 7], [3, 1, 0]]), il, tgl)
    with pytest.raises(RuntimeError, match="log_probs must be"):
        tl.nn.functional.ctc_loss(lp.view(6, 2, 2, 2), tg, il, tgl)
    with pytest.raises(RuntimeError, match="not implemented for"):
        tl.nn.functional.ctc_loss(lp.long(), tg, il, tgl)


# ---- conv_tbc and AdaptiveLogSoftmaxWithLoss ------------------------------------------------------

@needs_torch
def test_conv_tbc_gradients_match_torch():
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in ((7, 2, 3), (3, 3, 4), (4,))]
    grads = []
    for lib in (tl, torch):
        x, w, b = [(tl.tensor if lib is tl else torch.tensor)(a).requires_grad_() for a in arrays]
        out = lib.conv_tbc(x, w, b, 1)
        (out * out).sum().backward()
        grads.append([out.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def _adaptive_pair(head_bias):
    tmod = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], div_value=2.0, head_bias=head_bias).double()
    ours = tl.nn.AdaptiveLogSoftmaxWithLoss(8, 20, (4, 10, 15), div_value=2.0, head_bias=head_bias, dtype=tl.float64)
    assert sorted(ours.state_dict()) == sorted(tmod.state_dict())
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})
    return ours, tmod


@needs_torch
@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_torch(head_bias):
    ours, tmod = _adaptive_pair(head_bias)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 8))
    target = np.array([0, 3, 5, 12, 19, 9])
    xl, xt = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, tout = ours(xl, tl.tensor(target)), tmod(xt, torch.tensor(target))
    assert_close(out.output, tout.output.detach().numpy())
    assert_close(out.loss, tout.loss.detach().numpy())
    out.loss.backward()
    tout.loss.backward()
    assert_close(xl.grad, xt.grad.numpy())
    for p, tp in zip(ours.parameters(), tmod.parameters()):
        assert_close(p.grad, tp.grad.numpy())
    assert_close(ours.log_prob(tl.tensor(x)), tmod.log_prob(torch.tensor(x)).detach().numpy())
    assert ours.predict(tl.tensor(x)).tolist() == tmod.predict(torch.tensor(x)).tolist()
    single = ours(tl.tensor(x[1]), tl.tensor(target[1]))
    assert tuple(single.output.shape) == () and abs(single.output.item() - tout.output[1].item()) < 1e-12


def test_adaptive_log_softmax_errors():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [10, 4])
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [])
    asm = tl.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 19\]"):
        asm(tl.zeros(2, 8), tl.tensor([0, 20]))
    with pytest.raises(RuntimeError, match="Input and target should have the same size"):
        asm(tl.zeros(2, 8), tl.tensor([0]))
