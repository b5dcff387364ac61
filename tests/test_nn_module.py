"""nn.Module bookkeeping, Parameter, containers, state_dict and hooks (no functional ops needed)."""

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import torchlite as torch
from torchlite import nn


class Affine(nn.Module):
    """A layer built from plain tensor ops, so these tests do not depend on nn.functional."""

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in))
        if bias:
            self.bias = nn.Parameter(torch.zeros(n_out))
        else:
            self.register_parameter("bias", None)
        self.register_buffer("calls", torch.zeros(()))
        self.register_buffer("scratch", torch.ones(2), persistent=False)

    def forward(self, x):
        y = x.matmul(self.weight.t())
        return y if self.bias is None else y + self.bias


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Affine(3, 4)
        self.block = nn.Sequential(Affine(4, 4), Affine(4, 2, bias=False))
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, x):
        return self.block(self.first(x)) * self.scale


# ------------------------------------------------------------------------- Parameter
def test_parameter_basics():
    t = torch.arange(6.0).reshape(2, 3)
    p = nn.Parameter(t)
    assert isinstance(p, nn.Parameter) and isinstance(p, torch.Tensor)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p._shares_storage(t)  # aliases, no copy
    assert not nn.Parameter(t, requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    assert repr(p).startswith("Parameter containing:\ntensor([[0., 1., 2.],")
    assert repr(p).endswith("requires_grad=True)")


def test_parameter_ops_and_grad():
    p = nn.Parameter(torch.ones(3))
    y = p * 2
    assert type(y) is torch.Tensor and y.grad_fn is not None
    assert type(p.detach()) is torch.Tensor and type(p.data) is torch.Tensor
    (p * p).sum().backward()
    (p * 3).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [5.0, 5.0, 5.0])
    with torch.no_grad():
        assert p.mul_(2) is p  # in-place ops give back the Parameter object
    assert isinstance(p, nn.Parameter)
    np.testing.assert_allclose(torch.add(p, p).detach().numpy(), [4.0, 4.0, 4.0])


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(torch.ones(2, 2))
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and not q._shares_storage(p)
    np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())
    fn, args = p.__reduce_ex__(2)[:2]
    r = fn(*args)
    assert type(r) is nn.Parameter and r.requires_grad
    try:
        data = pickle.dumps(p)
    except TypeError:
        pytest.skip("Tensor pickling not available yet")
    s = pickle.loads(data)
    assert type(s) is nn.Parameter and s.requires_grad


def test_make_subclass_rejects_non_subclass():
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        torch.Tensor._make_subclass(int, torch.ones(1), False)


def test_parameter_requires_float_for_grad():
    with pytest.raises(RuntimeError):
        nn.Parameter(torch.arange(3))
    assert not nn.Parameter(torch.arange(3), requires_grad=False).requires_grad


# ------------------------------------------------------------------------- registration
def test_named_members_and_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "first.weight", "first.bias", "block.0.weight", "block.0.bias", "block.1.weight"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="model")][:2] == ["model.scale", "model.first.weight"]
    assert [n for n, _ in net.named_buffers()] == [
        "first.calls", "first.scratch", "block.0.calls", "block.0.scratch", "block.1.calls", "block.1.scratch"]
    assert [n for n, _ in net.named_children()] == ["first", "block"]
    assert [n for n, _ in net.named_modules()] == ["", "first", "block", "block.0", "block.1"]
    assert len(list(net.modules())) == 5 and len(list(net.children())) == 2
    assert all(isinstance(p, nn.Parameter) for p in net.parameters())


def test_shared_parameters_and_modules_deduplicated():
    net = nn.Module()
    shared = Affine(2, 2)
    net.a = shared
    net.b = shared
    net.c = Affine(2, 2)
    net.c.weight = shared.weight
    assert [n for n, _ in net.named_modules()] == ["", "a", "c"]
    assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "a", "b", "c"]
    assert [n for n, _ in net.named_parameters()] == ["a.weight", "a.bias", "c.bias"]
    assert len(list(net.named_parameters(remove_duplicate=False))) == 6
    assert [n for n, _ in net.named_children()] == ["a", "c"]
    # state_dict keeps every name (like PyTorch)
    assert list(net.state_dict()) == ["a.weight", "a.bias", "a.calls", "b.weight", "b.bias", "b.calls",
                                      "c.weight", "c.bias", "c.calls"]


def test_setattr_getattr_delattr():
    m = Affine(2, 3)
    assert "weight" in m._parameters and "weight" not in m.__dict__
    m.extra = nn.Linear(2, 2)
    assert "extra" in m._modules
    m.extra = None
    assert m._modules["extra"] is None and m.extra is None
    m.calls = torch.ones(())  # re-assigning a buffer with a tensor keeps it a buffer
    assert "calls" in m._buffers
    m.bias = None
    assert m.bias is None and "bias" in m._parameters
    m.plain = 3
    assert m.__dict__["plain"] == 3
    del m.weight
    assert "weight" not in m._parameters
    del m.calls
    assert "calls" not in m._buffers
    del m.extra
    del m.plain
    with pytest.raises(AttributeError, match="'Affine' object has no attribute 'nothing'"):
        m.nothing
    # an attribute of another kind is replaced by a parameter/module assignment
    m.thing = torch.ones(1)
    m.thing = nn.Parameter(torch.ones(1))
    assert "thing" in m._parameters and "thing" not in m.__dict__


def test_setattr_type_errors():
    m = Affine(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torchlite.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.weight = torch.ones(2, 2)
    m.sub = Affine(1, 1)
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'sub' \(torch.nn.Module or None"):
        m.sub = 3
    with pytest.raises(TypeError, match=r"cannot assign 'str' as buffer 'calls' \(torch.Tensor or None expected\)"):
        m.calls = "x"


def test_register_errors():
    m = Affine(2, 2)
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        m.register_buffer("training", torch.ones(1))
    with pytest.raises(KeyError, match=r'contain "\."'):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="empty string"):
        m.register_buffer("", torch.ones(1))
    with pytest.raises(TypeError, match="buffer name should be a string. Got int"):
        m.register_buffer(1, torch.ones(1))
    with pytest.raises(TypeError, match=r"cannot assign 'list' object to buffer 'b' \(torch Tensor or None"):
        m.register_buffer("b", [1])
    with pytest.raises(TypeError, match=r"cannot assign 'torchlite.FloatTensor' object to parameter 'q'"):
        m.register_parameter("q", torch.ones(1))
    p = nn.Parameter(torch.ones(2), requires_grad=False)
    p.mul_(torch.ones(2, requires_grad=True))  # an in-place op with a grad-requiring operand: no longer a leaf
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'q'"):
        m.register_parameter("q", p)
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.add_module("x", 3)
    with pytest.raises(KeyError, match=r'contain "\.", got: a.b'):
        m.add_module("a.b", nn.Module())

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torch.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        nn.Module(foo=1)


def test_dir_contains_members():
    m = Affine(2, 2)
    d = dir(m)
    for name in ("weight", "bias", "calls", "scratch", "forward", "training"):
        assert name in d
    assert "0" not in dir(nn.Sequential(nn.Identity()))


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("block.1") is net.block[1]
    assert net.get_submodule("") is net
    assert net.get_parameter("block.0.weight") is net.block[0].weight
    assert net.get_parameter("scale") is net.scale
    assert net.get_buffer("first.calls") is net.first.calls
    with pytest.raises(AttributeError, match="Sequential has no attribute `7`"):
        net.get_submodule("block.7")
    with pytest.raises(AttributeError, match="`calls` is not an nn.Parameter"):
        net.get_parameter("first.calls")
    with pytest.raises(AttributeError, match="`scale` is not an nn.Module"):
        net.get_submodule("scale.x")


# ------------------------------------------------------------------------- modes, grads, dtype
def test_train_eval_propagate():
    net = Net()
    assert net.training and net.block[1].training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.block.train(False)
    assert net.training and not net.block[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train(1)


def test_zero_grad_and_requires_grad():
    net = Net()
    net(torch.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and float(p.grad.abs().sum()) == 0.0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())


def test_to_dtype_and_apply():
    net = Net()
    w = net.first.weight
    net(torch.randn(2, 3)).sum().backward()
    assert net.to(torch.float64) is net
    assert all(p.dtype == torch.float64 for p in net.parameters())
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())
    assert net.first.weight.grad.dtype == torch.float64
    np.testing.assert_allclose(net.first.weight.detach().numpy(), w.detach().numpy(), rtol=1e-6)
    assert net.first.calls.dtype == torch.float64
    net.float()
    assert net.first.weight.dtype == torch.float32
    w = net.first.weight
    net.to("cpu")
    net.to(torch.device("cpu"), torch.float32)
    net.to(torch.ones(1))
    net.cpu()
    assert net.first.weight is w  # no dtype change: the Parameter object is kept
    net.half().double()
    assert net.scale.dtype == torch.float64
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        net.to(torch.int64)
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Affine", "Affine", "Affine", "Sequential", "Net"]


def test_int_buffers_keep_dtype_on_float_conversion():
    m = nn.Module()
    m.register_buffer("count", torch.tensor(3))
    m.double()
    assert m.count.dtype == torch.int64
    m.to(torch.float16)
    assert m.count.dtype == torch.int64


# ------------------------------------------------------------------------- state_dict
def test_state_dict_contents():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "first.weight", "first.bias", "first.calls", "block.0.weight", "block.0.bias",
                        "block.0.calls", "block.1.weight", "block.1.calls"]
    assert not sd["first.weight"].requires_grad and type(sd["first.weight"]) is torch.Tensor
    assert sd["first.weight"]._shares_storage(net.first.weight)
    kv = net.state_dict(keep_vars=True)
    assert kv["first.weight"] is net.first.weight
    assert list(net.state_dict(prefix="m.")) [0] == "m.scale"
    assert sd._metadata[""] == {"version": 1} and "block.0" in sd._metadata


def test_state_dict_round_trip():
    a, b = Net(), Net()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    for (na, pa), (nb, pb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert na == nb
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())
    x = torch.randn(4, 3)
    np.testing.assert_allclose(a(x).detach().numpy(), b(x).detach().numpy())
    # loading copies into the existing Parameters
    w = b.first.weight
    b.load_state_dict(Net().state_dict())
    assert b.first.weight is w


def test_load_state_dict_strict_errors():
    net = Net()
    sd = net.state_dict()
    del sd["first.bias"]
    sd["first.extra"] = torch.ones(1)
    sd["ghost.weight"] = torch.ones(1)
    with pytest.raises(RuntimeError) as e:
        Net().load_state_dict(sd)
    assert str(e.value) == ('Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "first.bias". '
                            '\n\tUnexpected key(s) in state_dict: "ghost.weight", "first.extra". ')
    res = Net().load_state_dict(sd, strict=False)
    assert res.missing_keys == ["first.bias"]
    assert res.unexpected_keys == ["ghost.weight", "first.extra"]
    assert repr(res).startswith("_IncompatibleKeys(missing_keys=['first.bias']")


def test_load_state_dict_shape_and_type_errors():
    sd = Net().state_dict()
    sd["first.weight"] = torch.ones(5, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for first.weight: copying a param with shape "
                                           r"torchlite.Size\(\[5, 3\]\) from checkpoint, the shape in current "
                                           r"model is torchlite.Size\(\[4, 3\]\)."):
        Net().load_state_dict(sd)
    with pytest.raises(RuntimeError, match="size mismatch"):  # even when not strict
        Net().load_state_dict(sd, strict=False)
    sd = Net().state_dict()
    sd["scale"] = 3.0
    with pytest.raises(RuntimeError, match='While copying the parameter named "scale", expected torch.Tensor'):
        Net().load_state_dict(sd)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        Net().load_state_dict([1])


def test_load_state_dict_casts_dtype_and_assign():
    net = Net()
    sd = {k: v.double() for k, v in Net().state_dict().items()}
    net.load_state_dict(sd)
    assert net.first.weight.dtype == torch.float32
    np.testing.assert_allclose(net.first.weight.detach().numpy(), sd["first.weight"].numpy(), rtol=1e-6)
    net.load_state_dict(sd, assign=True)
    assert net.first.weight.dtype == torch.float64 and isinstance(net.first.weight, nn.Parameter)


def test_non_persistent_buffer_excluded():
    m = Affine(2, 2)
    assert "scratch" not in m.state_dict() and "calls" in m.state_dict()
    assert "scratch" in dict(m.named_buffers())
    m.load_state_dict(m.state_dict())  # strict load does not ask for it


def test_extra_state():
    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 1

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]

    a = WithState()
    a.value = 7
    sd = a.state_dict()
    assert sd["_extra_state"] == {"value": 7}
    b = WithState()
    b.load_state_dict(sd)
    assert b.value == 7


# ------------------------------------------------------------------------- hooks and call
def test_forward_hooks_and_removal():
    m = Affine(3, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(post)
    out = m(torch.randn(4, 3))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), (m.bias.detach() + 1).expand(4, 2).numpy())
    h1.remove()
    h2.remove()
    h2.remove()  # removing twice is harmless
    calls.clear()
    m(torch.randn(4, 3))
    assert calls == []


def test_hooks_with_kwargs_prepend_and_context():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    order = []
    m.register_forward_hook(lambda mod, a, o: order.append("second"))
    m.register_forward_hook(lambda mod, a, o: order.append("first"), prepend=True)

    def pre(mod, args, kwargs):
        return args, {"factor": 3.0}

    with m.register_forward_pre_hook(pre, with_kwargs=True):
        out = m(torch.ones(2), factor=2.0)
    np.testing.assert_allclose(out.numpy(), [3.0, 3.0])
    assert order == ["first", "second"]
    np.testing.assert_allclose(m(torch.ones(2), factor=2.0).numpy(), [2.0, 2.0])
    seen = []
    m.register_forward_hook(lambda mod, a, kw, o: seen.append(kw), with_kwargs=True)
    m(torch.ones(1), factor=5.0)
    assert seen == [{"factor": 5.0}]


def test_missing_forward():
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
        nn.Module()(torch.ones(1))


# ------------------------------------------------------------------------- containers
def test_sequential():
    a, b, c = nn.Identity(), Affine(2, 2), nn.Identity()
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[1] is b and s[-1] is c
    assert list(s) == [a, b, c]
    sl = s[1:]
    assert isinstance(sl, nn.Sequential) and list(sl) == [b, c] and list(sl._modules) == ["1", "2"]
    s.append(nn.Identity())
    assert len(s) == 4
    del s[0]
    assert list(s._modules) == ["0", "1", "2"] and s[0] is b
    s[0] = a
    assert s[0] is a
    s.insert(1, b)
    assert s[1] is b
    with pytest.raises(IndexError, match="index 9 is out of range"):
        s[9]
    d = nn.Sequential(OrderedDict([("fc", b), ("act", nn.Identity())]))
    assert list(d.state_dict()) == ["fc.weight", "fc.bias", "fc.calls"]
    x = torch.randn(3, 2)
    np.testing.assert_allclose(d(x).detach().numpy(), b(x).detach().numpy())
    assert len(s + d) == len(s) + 2


def test_module_list_and_dict():
    layers = nn.ModuleList([Affine(2, 2) for _ in range(3)])
    assert len(layers) == 3
    assert [n for n, _ in layers.named_parameters()][:2] == ["0.weight", "0.bias"]
    layers.append(nn.Identity())
    layers.extend([nn.Identity()])
    layers += [nn.Identity()]
    assert len(layers) == 6
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    del layers[0]
    assert list(layers._modules) == [str(i) for i in range(5)]
    layers.insert(0, Affine(1, 1))
    assert layers[0].weight.shape == (1, 1)
    with pytest.raises(IndexError, match="index 10 is out of range"):
        layers[10]
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        layers.extend(3)
    md = nn.ModuleDict({"b": nn.Identity(), "a": Affine(1, 1)})
    assert list(md.keys()) == ["b", "a"] and "a" in md and len(md) == 2
    md["c"] = nn.Identity()
    assert md.pop("b") is not None and list(md) == ["a", "c"]
    md.update([("d", nn.Identity())])
    assert list(dict(md.items())) == ["a", "c", "d"]
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        md.update([("x",)])


def test_parameter_list_and_dict():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
    assert len(pl) == 2 and all(isinstance(p, nn.Parameter) for p in pl)
    pl.append(torch.ones(1))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [torchlite.float32 of size 2]\n"
                        "    (1): Parameter containing: [torchlite.float32 of size 3]\n"
                        "    (2): Parameter containing: [torchlite.float32 of size 1]\n)")
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()
    pd = nn.ParameterDict({"b": torch.ones(1), "a": nn.Parameter(torch.ones(2))})
    assert list(pd.keys()) == ["a", "b"]  # plain dicts are sorted, as in PyTorch
    pd["c"] = torch.zeros(2, 2)
    assert isinstance(pd["c"], nn.Parameter) and "c" in pd and len(pd) == 3
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert pd.pop("a").shape == (2,) and list(pd) == ["b", "c"]
    m = nn.Module()
    m.params = pd
    assert list(m.state_dict()) == ["params.b", "params.c"]


# ------------------------------------------------------------------------- repr, deepcopy
def test_repr_nesting():
    net = Net()
    net.first.extra_repr = lambda: "3, 4"
    assert repr(net) == ("Net(\n"
                         "  (first): Affine(3, 4)\n"
                         "  (block): Sequential(\n"
                         "    (0): Affine()\n"
                         "    (1): Affine()\n"
                         "  )\n"
                         ")")
    layers = nn.ModuleList([nn.Identity(), nn.Identity(), Affine(1, 1), nn.Identity()])
    assert repr(layers) == ("ModuleList(\n  (0-1): 2 x Identity()\n  (2): Affine()\n  (3): Identity()\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"

    class Multi(nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"

    assert repr(Multi()) == "Multi(\n  a=1\n  b=2\n)"


def test_deepcopy_module():
    net = Net()
    net(torch.randn(2, 3)).sum().backward()
    twin = copy.deepcopy(net)
    assert twin.first.weight is not net.first.weight and isinstance(twin.first.weight, nn.Parameter)
    assert not twin.first.weight._shares_storage(net.first.weight)
    assert twin.first.calls is not net.first.calls
    x = torch.randn(2, 3)
    np.testing.assert_allclose(twin(x).detach().numpy(), net(x).detach().numpy())
    with torch.no_grad():
        twin.scale.fill_(5.0)
    assert float(net.scale) == 1.0


def test_full_backward_hooks():
    m = Affine(3, 2)
    x = torch.randn(4, 3).requires_grad_()
    seen = {}

    def pre(mod, grad_output):
        seen["pre"] = grad_output[0].numpy().copy()
        return (grad_output[0] * 2,)

    def post(mod, grad_input, grad_output):
        seen["grad_input"] = grad_input[0].numpy().copy()
        seen["grad_output"] = grad_output[0].numpy().copy()
        return (grad_input[0] * 0 + 1,)

    h1 = m.register_full_backward_pre_hook(pre)
    h2 = m.register_full_backward_hook(post)
    m(x).sum().backward()
    np.testing.assert_allclose(seen["pre"], np.ones((4, 2)))
    np.testing.assert_allclose(seen["grad_output"], 2 * np.ones((4, 2)))  # modified by the pre-hook
    w = m.weight.detach().numpy()
    np.testing.assert_allclose(seen["grad_input"], 2 * np.ones((4, 2)) @ w, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.ones((4, 3)))  # replaced by the hook
    np.testing.assert_allclose(m.weight.grad.numpy(), 2 * np.ones((2, 4)) @ x.detach().numpy(), rtol=1e-6)
    h1.remove()
    h2.remove()
    seen.clear()
    m(x).sum().backward()
    assert seen == {}


def test_full_backward_hook_input_without_grad():
    m = Affine(3, 2)
    calls = []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append((gi, tuple(go[0].shape))))
    m(torch.randn(4, 3)).sum().backward()
    assert calls == [((None,), (4, 2))]
    assert m.weight.grad is not None


def test_state_dict_post_hooks_like_torch():
    real_torch = pytest.importorskip("torch")

    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
        seen = []

        def post(module, sd, prefix, local_metadata):
            seen.append((type(module).__name__, prefix, sorted(sd), local_metadata["version"]))
            sd[prefix + "extra"] = 1

        net[1].register_state_dict_post_hook(post)
        handle = net.register_state_dict_post_hook(post)
        keys = sorted(net.state_dict())
        handle.remove()
        net._register_state_dict_hook(lambda m, sd, prefix, meta: {"replaced": 0})
        replaced = list(net.state_dict())
        net.register_state_dict_post_hook(lambda m, sd, prefix, meta: {"x": 1})
        with pytest.raises(RuntimeError, match="must return None"):
            net.state_dict()
        return seen, keys, replaced

    assert run(torch) == run(real_torch)


def test_set_submodule_and_to_empty():
    net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU()))
    net.set_submodule("1.0", nn.Tanh())
    assert isinstance(net[1][0], nn.Tanh)
    net.set_submodule("1.extra", nn.ReLU())
    assert isinstance(net[1].extra, nn.ReLU)
    with pytest.raises(AttributeError, match="has no attribute `missing`"):
        net.set_submodule("1.missing", nn.ReLU(), strict=True)
    with pytest.raises(ValueError, match="not an nn.Module"):
        net.set_submodule("0", 3)
    with pytest.raises(ValueError, match="without a target name"):
        net.set_submodule("", nn.ReLU())
    with pytest.raises(AttributeError, match="is not an nn.Module"):
        net.set_submodule("0.weight", nn.ReLU())
    weight, storage = net[0].weight, net[0].weight.data_ptr()
    assert net.to_empty(device="cpu") is net
    # as in PyTorch, the Parameter object stays and its data is replaced
    assert net[0].weight is weight and weight.data_ptr() != storage and weight.shape == (3, 2)
