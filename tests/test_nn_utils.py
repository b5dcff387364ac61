"""torch.nn.utils against PyTorch: clipping, parametrizations, weight/spectral norm, pruning,
fusion and functional_call, on modules holding the same weights in both libraries."""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn
from torchlite.nn.utils import parametrizations, parametrize, prune, stateless

torch = pytest.importorskip("torch")
torch_prune = pytest.importorskip("torch.nn.utils.prune")


def _pair(make):
    """make(lib) built with both libraries, torchlite's holding torch's parameters and buffers."""
    ref = make(torch)
    mine = make(tl)
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return mine, ref


def _close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def _x(*shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return tl.tensor(x), torch.tensor(x)


# ----------------------------------------------------------------------------- clip_grad
@pytest.mark.parametrize("norm_type", [0.0, 1.0, 2.0, 3.5, math.inf, -math.inf])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_get_total_norm_and_clip_grads_with_norm(norm_type, foreach):
    shapes = [(3, 4), (5,), (2, 1, 3)]
    mine, ref = zip(*[_x(*s, seed=i) for i, s in enumerate(shapes)])
    total = nn.utils.get_total_norm(mine, norm_type, foreach=foreach)
    total_ref = torch.nn.utils.get_total_norm(ref, norm_type, foreach=foreach)
    np.testing.assert_allclose(float(total), float(total_ref), rtol=1e-5)
    params = [nn.Parameter(t.clone()) for t in mine]
    params_ref = [torch.nn.Parameter(t.clone()) for t in ref]
    for p, g, p_ref, g_ref in zip(params, mine, params_ref, ref):
        p.grad, p_ref.grad = g.clone(), g_ref.clone()
    nn.utils.clip_grads_with_norm_(params, 1.0, total, foreach=foreach)
    torch.nn.utils.clip_grads_with_norm_(params_ref, 1.0, total_ref, foreach=foreach)
    for p, p_ref in zip(params, params_ref):
        _close(p.grad, p_ref.grad)


def test_clip_grad_norm_warnings_and_errors():
    p = nn.Parameter(tl.ones(2))
    p.grad = tl.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order inf for gradients"):
        nn.utils.clip_grad_norm_(p, 1.0, norm_type="inf", error_if_nonfinite=True)
    with pytest.warns(UserWarning, match="empty generator"):
        nn.utils.clip_grad_norm_((q for q in []), 1.0)
    p.grad = tl.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        assert float(nn.utils.clip_grad_norm(p, 1.0)) == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)
    assert float(nn.utils.get_total_norm([])) == 0.0


# ----------------------------------------------------------------------------- parametrize
def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _scale(lib):
    class Scale(lib.nn.Module):  # no right_inverse: the original is the tensor itself
        def forward(self, X):
            return 2 * X

    return Scale()


def _split(lib):
    class Split(lib.nn.Module):  # two originals
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X / 4, 3 * X / 4

    return Split()


@pytest.mark.parametrize("stack", [[_symmetric], [_symmetric, _scale], [_split], [_split, _symmetric]])
def test_register_parametrization_matches_torch(stack):
    def make(lib):
        m = lib.nn.Linear(4, 4)
        for p in stack:
            lib.nn.utils.parametrize.register_parametrization(m, "weight", p(lib))
        return m

    mine, ref = _pair(make)
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert type(mine).__name__ == type(ref).__name__ == "ParametrizedLinear"
    assert parametrize.type_before_parametrizations(mine) is nn.Linear
    assert parametrize.is_parametrized(mine) and parametrize.is_parametrized(mine, "weight")
    assert not parametrize.is_parametrized(mine, "bias") and not parametrize.is_parametrized(nn.Linear(2, 2))
    assert isinstance(mine.parametrizations.weight, parametrize.ParametrizationList)
    _close(mine.weight, ref.weight)
    x, x_ref = _x(3, 4)
    mine(x).pow(2).sum().backward()
    ref(x_ref).pow(2).sum().backward()
    for (name, p), (name_ref, p_ref) in zip(mine.named_parameters(), ref.named_parameters()):
        assert name == name_ref
        _close(p.grad, p_ref.grad, rtol=1e-4, atol=1e-5)
    # assigning the tensor goes through right_inverse
    w, w_ref = _x(4, 4, seed=1)
    w, w_ref = w + w.mT, w_ref + w_ref.mT
    if stack[-1] is not _scale:
        mine.weight, ref.weight = w, w_ref
        _close(mine.weight, ref.weight)
    else:
        with pytest.raises(RuntimeError, match="parametrization Scale does not implement right_inverse"):
            mine.weight = w


def test_parametrized_buffer_matches_torch():
    def make(lib):
        return lib.nn.utils.parametrize.register_parametrization(lib.nn.BatchNorm1d(3), "running_var", _scale(lib))

    mine, ref = _pair(make)
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert list(dict(mine.parametrizations.running_var.named_buffers())) == ["original"]
    _close(mine.running_var, ref.running_var)
    parametrize.remove_parametrizations(mine, "running_var")
    torch.nn.utils.parametrize.remove_parametrizations(ref, "running_var")
    assert "running_var" in mine._buffers and list(mine.state_dict()) == list(ref.state_dict())
    _close(mine.running_var, ref.running_var)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations_matches_torch(leave_parametrized):
    def make(lib):
        m = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
        return m

    mine, ref = _pair(make)
    weight = mine.parametrizations.weight.original
    parametrize.remove_parametrizations(mine, "weight", leave_parametrized=leave_parametrized)
    torch.nn.utils.parametrize.remove_parametrizations(ref, "weight", leave_parametrized=leave_parametrized)
    assert type(mine) is nn.Linear and not hasattr(mine, "parametrizations")
    assert mine.weight is weight  # the same Parameter object, optimizers stay valid
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["bias", "weight"]
    _close(mine.weight, ref.weight)


def test_parametrize_cached_and_copies():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with parametrize.cached():
        assert m.weight is m.weight
    assert len(calls) == 1
    m.weight, m.weight
    assert len(calls) == 3
    m2 = copy.deepcopy(m)
    assert type(m2).__name__ == "ParametrizedLinear" and m2.weight is not m.weight
    np.testing.assert_array_equal(m2.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through"):
        pickle.dumps(m)


def test_transfer_parametrizations_and_params():
    src = nn.Linear(3, 3)
    parametrize.register_parametrization(src, "weight", _symmetric(tl))
    dst = parametrize.transfer_parametrizations_and_params(src, nn.Linear(3, 3))
    assert type(dst).__name__ == "ParametrizedLinear"
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())


def _error(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, str(info.value).replace("torchlite.", "torch.")


@pytest.mark.parametrize("stacked", [False, True])
@pytest.mark.parametrize("change", ["shape", "dtype"])
def test_parametrization_changing_the_tensor_errors_as_torch(stacked, change):
    def register(lib):
        class Change(lib.nn.Module):
            def forward(self, X):
                return X.reshape(-1) if change == "shape" else X.double()

        m = lib.nn.Linear(2, 2)
        if stacked:
            lib.nn.utils.parametrize.register_parametrization(m, "weight", lib.nn.Identity())
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Change())

    assert _error(register, tl) == _error(register, torch)


def test_parametrize_errors_like_torch():
    class Flatten(nn.Module):
        def forward(self, X):
            return X.reshape(-1)

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Flatten(), unsafe=True)
    assert m.weight.shape == (4,)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name"):
        parametrize.register_parametrization(m, "nope", Flatten())
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        parametrize.remove_parametrizations(m, "bias")
    with pytest.raises(ValueError, match="requires one or more modules"):
        parametrize.ParametrizationList([], tl.ones(2))
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", _split(tl))
    with pytest.raises(ValueError, match=r"Cannot leave unparametrized \(`leave_parametrized=False`\)"):
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)


# ----------------------------------------------------------------------------- parametrizations
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal(orthogonal_map, shape, use_trivialization):
    def make(lib):
        return lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(shape[1], shape[0]), "weight", orthogonal_map,
                                                        use_trivialization=use_trivialization)

    mine, ref = _pair(make)
    assert list(mine.state_dict()) == list(ref.state_dict())
    W = mine.weight
    gram = W.mT @ W if shape[0] >= shape[1] else W @ W.mT
    np.testing.assert_allclose(gram.detach().numpy(), np.eye(min(shape)), atol=1e-5)
    if shape[0] == shape[1] or not use_trivialization:  # no random completion of the base: same matrix
        _close(mine.weight, ref.weight, atol=1e-5)
    x, _ = _x(2, shape[1])
    mine(x).sum().backward()
    assert mine.parametrizations.weight.original.grad.abs().sum() > 0


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions"):
        parametrizations.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        parametrizations.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
        parametrizations.orthogonal(nn.Linear(2, 2), "w")
    m = parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential or the Cayley"):
        m.weight = tl.eye(3)


def test_parametrized_weight_norm_matches_torch():
    mine, ref = _pair(lambda lib: lib.nn.utils.parametrizations.weight_norm(lib.nn.Conv1d(2, 3, 3), dim=1))
    assert list(mine.state_dict()) == list(ref.state_dict())
    _close(mine.weight, ref.weight)
    x, x_ref = _x(2, 2, 5)
    mine(x).pow(2).sum().backward()
    ref(x_ref).pow(2).sum().backward()
    for name in ("original0", "original1"):
        _close(getattr(mine.parametrizations.weight, name).grad, getattr(ref.parametrizations.weight, name).grad,
               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [lambda lib: lib.nn.Linear(5, 4), lambda lib: lib.nn.ConvTranspose2d(3, 2, 3)])
def test_parametrized_spectral_norm_matches_torch(make):
    mine, ref = _pair(lambda lib: lib.nn.utils.parametrizations.spectral_norm(make(lib)))
    assert list(mine.state_dict()) == list(ref.state_dict())  # _u, _v copied from torch
    mine.eval(), ref.eval()
    _close(mine.weight, ref.weight)
    mine.train()
    for _ in range(30):
        w = mine.weight
    dim = 1 if isinstance(mine, nn.ConvTranspose2d) else 0
    mat = w.detach().movedim(dim, 0).reshape(w.shape[dim], -1)
    assert float(tl.linalg.matrix_norm(mat, 2)) == pytest.approx(1.0, rel=1e-3)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)"):
        parametrizations.spectral_norm(nn.Linear(2, 2), dim=2)


# ----------------------------------------------------------------------------- hook-based norms
def test_weight_norm_hook_matches_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        mine, ref = _pair(lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(4, 3), dim=None))
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["bias", "weight_g", "weight_v"]
    x, x_ref = _x(2, 4)
    _close(mine(x), ref(x_ref))
    mine(x).sum().backward()
    ref(x_ref).sum().backward()
    _close(mine.weight_g.grad, ref.weight_g.grad, rtol=1e-4)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"), \
            pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        nn.utils.weight_norm(mine)
    nn.utils.remove_weight_norm(mine)
    torch.nn.utils.remove_weight_norm(ref)
    assert list(mine.state_dict()) == ["bias", "weight"] and isinstance(mine.weight, nn.Parameter)
    _close(mine.weight, ref.weight)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(mine)


def test_spectral_norm_hook_matches_torch():
    mine, ref = _pair(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Conv2d(2, 3, 2), n_power_iterations=2))
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    x, x_ref = _x(1, 2, 4, 4)
    out = mine(x)
    _close(out, ref(x_ref), rtol=1e-4, atol=1e-5)  # one training step of power iteration on the same u, v
    _close(mine.weight_u, ref.weight_u, rtol=1e-4, atol=1e-5)
    out.sum().backward()
    assert mine.weight_orig.grad is not None
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(mine)
    mine.eval(), ref.eval()
    nn.utils.remove_spectral_norm(mine)
    torch.nn.utils.remove_spectral_norm(ref)
    assert list(mine.state_dict()) == ["bias", "weight"]
    _close(mine.weight, ref.weight, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nn.utils.remove_spectral_norm(mine)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


# ----------------------------------------------------------------------------- functional_call
def test_functional_call():
    m = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 2))
    w = tl.ones(2, 3, requires_grad=True)
    x = tl.ones(4, 3)
    before = m[0].weight.detach().clone()
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = stateless.functional_call(m, {"0.weight": w}, x)
    expected = m[2](tl.relu(x @ w.mT + m[0].bias))
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-6)
    out.sum().backward()
    assert w.grad is not None and m[0].weight.grad is None
    np.testing.assert_array_equal(m[0].weight.detach().numpy(), before.numpy())
    assert isinstance(m[0].weight, nn.Parameter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(RuntimeError, match=r"Error\(s\) in reparametrizing for Sequential:\n\tMissing key\(s\): "
                                               r"'0.bias', '2.bias', '2.weight'."):
            stateless.functional_call(m, {"0.weight": w}, x, strict=True)
        with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'nope'."):
            stateless.functional_call(m, {**dict(m.named_parameters()), "nope": w}, x, strict=True)


def test_functional_call_tie_weights():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m, x = Tied(), tl.ones(1, 2)
    w = tl.eye(2) * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        np.testing.assert_allclose(stateless.functional_call(m, {"a.weight": w}, (x,)).numpy(), [[4.0, 4.0]])
        untied = stateless.functional_call(m, {"a.weight": w}, (x,), tie_weights=False)
        np.testing.assert_allclose(untied.detach().numpy(), (x @ w @ m.a.weight.mT).detach().numpy(), rtol=1e-6)
        with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', "
                                             r"'b.weight'\], which are tied"):
            stateless.functional_call(m, {"a.weight": w, "b.weight": w * 2}, (x,))


# ----------------------------------------------------------------------------- fusion, memory format, skip_init
def _randomize_bn(bn):
    """Non-trivial running statistics and affine parameters for a torch BatchNorm."""
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 2)
        bn.bias.uniform_(-1, 1)


def _conv_bn(lib, transpose=False):
    conv = lib.nn.ConvTranspose2d(2, 3, 3) if transpose else lib.nn.Conv2d(2, 3, 3, bias=False)
    bn = lib.nn.BatchNorm2d(3)
    return lib.nn.Sequential(conv, bn)


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_matches_torch(transpose):
    mine, ref = _pair(lambda lib: _conv_bn(lib, transpose))
    _randomize_bn(ref[1])
    mine.load_state_dict({k: tl.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    mine.eval(), ref.eval()
    fused = nn.utils.fuse_conv_bn_eval(mine[0], mine[1], transpose=transpose)
    fused_ref = torch.nn.utils.fuse_conv_bn_eval(ref[0], ref[1], transpose=transpose)
    _close(fused.weight, fused_ref.weight)
    _close(fused.bias, fused_ref.bias)
    x, _ = _x(1, 2, 5, 5)
    _close(fused(x), mine(x), rtol=1e-4, atol=1e-5)
    mine.train()
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(mine[0], mine[1])


def test_fuse_linear_bn_eval_matches_torch():
    mine, ref = _pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4)))
    _randomize_bn(ref[1])
    mine.load_state_dict({k: tl.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    mine.eval(), ref.eval()
    fused = nn.utils.fuse_linear_bn_eval(mine[0], mine[1])
    fused_ref = torch.nn.utils.fuse_linear_bn_eval(ref[0], ref[1])
    _close(fused.weight, fused_ref.weight)
    _close(fused.bias, fused_ref.bias)
    w, b = nn.utils.fuse_linear_bn_weights(mine[0].weight, None, mine[1].running_mean, mine[1].running_var,
                                           mine[1].eps, mine[1].weight, mine[1].bias)
    w_ref, b_ref = torch.nn.utils.fuse_linear_bn_weights(ref[0].weight, None, ref[1].running_mean,
                                                         ref[1].running_var, ref[1].eps, ref[1].weight, ref[1].bias)
    assert isinstance(w, nn.Parameter) and isinstance(b, nn.Parameter)
    _close(b, b_ref)
    with pytest.raises(AssertionError, match="To fuse, linear.out_features == bn.num_features"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(), nn.BatchNorm1d(2).eval())


def test_convert_weight_memory_format_and_skip_init():
    m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Sequential(nn.ConvTranspose2d(3, 2, 2)), nn.Conv3d(1, 1, 1))
    ref = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.Sequential(torch.nn.ConvTranspose2d(3, 2, 2)),
                              torch.nn.Conv3d(1, 1, 1))
    weight = m[0].weight
    assert nn.utils.convert_conv2d_weight_memory_format(m, tl.channels_last) is m
    torch.nn.utils.convert_conv2d_weight_memory_format(ref, torch.channels_last)
    assert m[0].weight is weight
    for a, b in zip(m.parameters(), ref.parameters()):
        assert a.stride() == b.stride()
    nn.utils.convert_conv3d_weight_memory_format(m, tl.channels_last_3d)
    assert m[2].weight.is_contiguous(memory_format=tl.channels_last_3d)
    assert nn.utils.skip_init(nn.Linear, 3, 4, bias=False).weight.shape == (4, 3)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module; got"):
        nn.utils.skip_init(int)


# ----------------------------------------------------------------------------- prune
def _pruned_pair(prune_fn):
    mine, ref = _pair(lambda lib: lib.nn.Conv2d(3, 4, 2))
    prune_fn(prune, mine)
    prune_fn(torch_prune, ref)
    return mine, ref


@pytest.mark.parametrize("prune_fn", [
    lambda p, m: p.l1_unstructured(m, "weight", amount=0.3),
    lambda p, m: p.l1_unstructured(m, "bias", amount=2),
    lambda p, m: p.ln_structured(m, "weight", amount=2, n=1, dim=0),
    lambda p, m: p.ln_structured(m, "weight", amount=0.5, n=math.inf, dim=-1),
    lambda p, m: (p.l1_unstructured(m, "weight", amount=10), p.ln_structured(m, "weight", amount=1, n=2, dim=1)),
    lambda p, m: (p.ln_structured(m, "weight", amount=1, n=2, dim=0), p.l1_unstructured(m, "weight", amount=0.5)),
    lambda p, m: p.identity(m, "weight"),
    lambda p, m: p.custom_from_mask(m, "bias", mask=m.bias.detach() > 0),
])
def test_deterministic_pruning_matches_torch(prune_fn):
    mine, ref = _pruned_pair(prune_fn)
    assert list(mine.state_dict()) == list(ref.state_dict())
    for name, buf in ref.named_buffers():
        np.testing.assert_array_equal(getattr(mine, name).numpy(), buf.numpy())
    x, x_ref = _x(1, 3, 3, 3)
    _close(mine(x), ref(x_ref))
    mine(x).sum().backward()
    ref(x_ref).sum().backward()
    _close(mine.weight_orig.grad if hasattr(mine, "weight_orig") else mine.weight.grad,
           ref.weight_orig.grad if hasattr(ref, "weight_orig") else ref.weight.grad, rtol=1e-4)
    assert prune.is_pruned(nn.Sequential(mine))
    for name in ("weight", "bias"):
        if hasattr(mine, name + "_orig"):
            prune.remove(mine, name)
            torch_prune.remove(ref, name)
    assert not prune.is_pruned(mine)
    assert list(mine.state_dict()) == list(ref.state_dict())
    _close(mine.weight, ref.weight)


def test_random_pruning_invariants():
    m = nn.Conv2d(3, 4, 2)
    prune.random_unstructured(m, "weight", amount=0.25)
    assert int((m.weight_mask == 0).sum()) == round(0.25 * 48)
    prune.random_unstructured(m, "weight", amount=5)  # five more among the entries still unpruned
    assert int((m.weight_mask == 0).sum()) == 12 + 5
    assert isinstance(m._forward_pre_hooks[next(iter(m._forward_pre_hooks))], prune.PruningContainer)
    np.testing.assert_array_equal((m.weight == 0).numpy(), (m.weight_mask == 0).numpy())
    m = nn.Conv2d(3, 4, 2)
    prune.random_structured(m, "weight", amount=2, dim=1)
    channel_kept = m.weight_mask.sum(dim=(0, 2, 3)) != 0
    assert int(channel_kept.sum()) == 1
    np.testing.assert_array_equal(m.weight_mask.sum(dim=(0, 2, 3)).numpy(), channel_kept.float().numpy() * 16)


def test_global_unstructured_matches_torch():
    mine, ref = _pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Linear(3, 2)))
    for p, m in ((prune, mine), (torch_prune, ref)):
        p.l1_unstructured(m[1], "weight", amount=2)
        p.global_unstructured([(m[0], "weight"), (m[1], "weight"), (m[0], "bias")], p.L1Unstructured, amount=7)
    assert list(mine.state_dict()) == list(ref.state_dict())
    for name, buf in ref.named_buffers():
        np.testing.assert_array_equal(mine.get_buffer(name).numpy(), buf.numpy())
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        prune.global_unstructured([(mine[0], "weight")], prune.LnStructured, amount=1, n=2, dim=0)


def test_prune_errors_like_torch():
    m = nn.Linear(3, 2)
    with pytest.raises(ValueError, match=r"amount=-1 should either be a float in the range \[0, 1\] or a non-negative"):
        prune.l1_unstructured(m, "weight", amount=-1)
    with pytest.raises(ValueError, match="amount=1.5 should either be a float"):
        prune.random_unstructured(m, "weight", amount=1.5)
    with pytest.raises(TypeError, match="Invalid type for amount: a. Must be int or float."):
        prune.l1_unstructured(m, "weight", amount="a")
    ref = torch.nn.Linear(3, 2)
    for p, module in ((prune, m), (torch_prune, ref)):
        with pytest.raises(ValueError, match="amount=7 should be smaller than the number of parameters to prune=6"):
            p.l1_unstructured(module, "weight", amount=7)
    assert list(m.state_dict()) == list(ref.state_dict())  # the failed pruning is undone
    assert not prune.is_pruned(m) and isinstance(m.weight, nn.Parameter)
    with pytest.raises(ValueError, match="Structured pruning can only be applied to multidimensional tensors"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    with pytest.raises(IndexError, match="Invalid index 2 for tensor of size"):
        prune.random_structured(m, "weight", amount=1, dim=2)
    with pytest.raises(ValueError, match="Parameter 'weight' of module .* has to be pruned before pruning can be"):
        prune.remove(m, "weight")
    with pytest.raises(AssertionError, match="importance_scores should have the same shape as parameter weight"):
        prune.l1_unstructured(m, "weight", amount=1, importance_scores=tl.ones(2))
    with pytest.raises(TypeError, match="global_unstructured\\(\\): importance_scores must be of type dict"):
        prune.global_unstructured([(m, "weight")], prune.L1Unstructured, importance_scores=[], amount=1)
    container = prune.PruningContainer(prune.Identity())
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        container.add_pruning_method(object())
