"""torchlite.fx against torch.fx: the same model code traced by both gives the same nodes, code
and outputs; graph editing, GraphModule, Interpreter/Transformer, replace_pattern, ShapeProp
and jit.trace, following the patterns of PyTorch's fx tutorials."""

import copy
import math
import operator
import pickle
import time
import typing

import numpy as np
import pytest

import torchlite as tl
import torchlite.fx as tfx
from torchlite.fx.passes.shape_prop import ShapeProp

torch = pytest.importorskip("torch")
TorchShapeProp = pytest.importorskip("torch.fx.passes.shape_prop").ShapeProp  # imports torch.fx too


def helper_scale(x, k):  # wrapped below: recorded as one call, never traced into
    return x * k


tfx.wrap("helper_scale")
torch.fx.wrap("helper_scale")


def _fx(lib):
    return tfx if lib is tl else torch.fx


def _to_tl(t):
    return tl.tensor(t.detach().numpy())


def _close(a, b, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def _pair(make):
    """make(lib) built in both libraries, torchlite's holding torch's parameters and buffers."""
    ref, mine = make(torch), make(tl)
    mine.load_state_dict({k: _to_tl(v) for k, v in ref.state_dict().items()})
    return mine, ref


def _target_name(node):
    t = node.target
    return t if isinstance(t, str) else t.__name__


def _signature(gm):
    return [(n.op, n.name, _target_name(n)) for n in gm.graph.nodes]


def _same_code(mine, ref):
    assert mine.code.replace("torchlite.", "torch.") == ref.code


# ---------------------------------------------------------------------------------- models
def make_block(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 5)
            self.p = lib.nn.Parameter(lib.ones(5) * 0.5)
            self.register_buffer("scale", lib.full((5,), 2.0))
            self.sub = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Linear(5, 3))

        def forward(self, x, y=3):
            a = lib.add(x, 1)
            b = self.lin(a) + self.p
            c = lib.relu(b * self.scale).sum(dim=-1, keepdim=True)
            d = self.sub(b - c)
            return {"out": d[:, 0], "rows": x.shape[0]}, (b.neg(), y)
    return Block()


def make_mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.ReLU(), lib.nn.Linear(16, 3))


def make_cnn(lib):
    F = lib.nn.functional

    class SmallCNN(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(3, 4, 3, padding=1)
            self.bn = lib.nn.BatchNorm2d(4)
            self.fc = lib.nn.Linear(4 * 4 * 4, 5)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
            return self.fc(lib.flatten(x, 1))
    return SmallCNN()


# ---------------------------------------------------------------------------------- tracing
def test_trace_matches_torch_fx():
    mine, ref = _pair(make_block)
    gm, gref = tfx.symbolic_trace(mine), torch.fx.symbolic_trace(ref)
    assert _signature(gm) == _signature(gref)
    _same_code(gm, gref)
    assert type(gm).__name__ == "Block" and isinstance(gm, tfx.GraphModule)
    assert gm.state_dict().keys() == gref.state_dict().keys()
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    (out, (neg, y)), (rout, (rneg, ry)) = gm(tl.tensor(x)), gref(torch.tensor(x))
    _close(out["out"], rout["out"])
    _close(neg, rneg)
    assert out["rows"] == rout["rows"] == 2 and y == ry == 3
    assert str(gm.graph).replace("torchlite.", "torch.") == str(gref.graph)
    # the module hierarchy is kept for the submodules the graph calls
    assert isinstance(gm.sub, tl.nn.Module) and isinstance(getattr(gm.sub, "1"), tl.nn.Linear)
    assert gm.graph.find_nodes(op="call_module")[0].meta["nn_module_stack"]


@pytest.mark.parametrize("make", [make_mlp, make_cnn], ids=["mlp", "cnn"])
def test_model_traces_like_torch(make):
    mine, ref = _pair(make)
    mine.eval(), ref.eval()
    gm, gref = tfx.symbolic_trace(mine), torch.fx.symbolic_trace(ref)
    assert _signature(gm) == _signature(gref)
    if make is make_mlp:  # torch.fx records F.* calls with every default spelled out; we record the call as made
        _same_code(gm, gref)
    shape = (2, 6) if make is make_mlp else (2, 3, 8, 8)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    _close(gm(tl.tensor(x)), gref(torch.tensor(x)))


def test_transformer_encoder_layer_traces():
    layer = tl.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
    x = tl.randn(2, 3, 8)
    gm = tfx.symbolic_trace(layer)  # the root is traced through; its torchlite.nn submodules are leaves
    assert [n.target for n in gm.graph.find_nodes(op="call_module")] == [
        "self_attn", "dropout1", "norm1", "linear1", "dropout", "linear2", "dropout2", "norm2"]
    _close(gm(x), layer(x))
    wrapper = tl.nn.Sequential(layer)
    gm = tfx.symbolic_trace(tl.nn.Sequential(tl.nn.ModuleList([layer])[0]))
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "call_module", "output"]
    _close(gm(x), wrapper(x))


def test_custom_tracer_leaf_modules():
    mine, ref = _pair(make_block)

    def trace_with(lib, leaf):
        class MyTracer(_fx(lib).Tracer):
            def is_leaf_module(self, m, module_qualified_name):
                return leaf(m, module_qualified_name)
        m = mine if lib is tl else ref
        return _fx(lib).GraphModule(m, MyTracer().trace(m))
    # no leaves at all: Linear is traced into F.linear on its parameters, ReLU into relu
    gm, gref = trace_with(tl, lambda m, n: False), trace_with(torch, lambda m, n: False)
    assert _signature(gm) == _signature(gref)
    assert not gm.graph.find_nodes(op="call_module")
    assert {n.target for n in gm.graph.find_nodes(op="get_attr")} >= {"lin.weight", "lin.bias", "sub.1.weight"}
    # the whole Sequential as one leaf
    gm = trace_with(tl, lambda m, n: n == "sub" or n == "lin")
    assert [n.target for n in gm.graph.find_nodes(op="call_module")] == ["lin", "sub"]
    x = tl.randn(2, 4)
    _close(gm(x)[0]["out"], mine(x)[0]["out"])


def test_concrete_args_and_specialisation():
    def f(lib):
        def fn(x, flag, y=None):
            if flag:
                x = x + 1
            return x if y is None else x * y
        return fn
    for concrete in ({"flag": True, "y": None}, {"flag": False}):
        gm, gref = tfx.symbolic_trace(f(tl), concrete), torch.fx.symbolic_trace(f(torch), concrete)
        assert gm.code.replace("torchlite.fx._symbolic_trace._assert(", "torch._assert(").replace(
            "torchlite.", "torch.") == gref.code
    gm = tfx.symbolic_trace(f(tl), {"flag": True, "y": None})
    np.testing.assert_array_equal(gm(tl.zeros(2), True).numpy(), [1, 1])
    with pytest.raises(AssertionError, match="flag has been specialized to have value True"):
        gm(tl.zeros(2), False)
    with pytest.raises(AssertionError, match="y has been specialized to have value None"):
        gm(tl.zeros(2), True, tl.ones(2))
    with pytest.raises(RuntimeError, match="Tracing expected 3 arguments but got 1"):
        tfx.symbolic_trace(f(tl), (True,))


def test_control_flow_errors_match_torch():
    def branch(x):
        return x if x.sum() > 0 else -x

    def loop(x):
        return [v for v in x]

    def length(x):
        return len(x)

    def errors(fx):
        seen = []
        for fn in (branch, loop, length):
            with pytest.raises((fx.proxy.TraceError, RuntimeError)) as info:
                fx.symbolic_trace(fn)
            seen.append((type(info.value).__name__, str(info.value)))
        return seen
    mine = errors(tfx)
    assert mine[0] == ("TraceError", "symbolically traced variables cannot be used as inputs to control flow")
    assert mine[1][0] == "TraceError" and mine[1][1].startswith("Proxy object cannot be iterated.")
    assert mine[2][0] == "RuntimeError" and "'len' is not supported in symbolic tracing" in mine[2][1]
    assert mine == errors(torch.fx)


def test_proxy_operators_methods_and_unpacking():
    def f(lib):
        def fn(x, y):
            a, b = x.split(1)
            z = (-a) @ y.t() + 2 / (b.abs() + 1) - y.shape[0] ** 2
            return z[0] > 0.5, abs(z), 1 - z, x.T, helper_scale(z, 3), math.sqrt(y.size(1))
        return fn
    gm, gref = tfx.symbolic_trace(f(tl)), torch.fx.symbolic_trace(f(torch))
    assert _signature(gm) == _signature(gref)
    _same_code(gm, gref)  # helper_scale and math.sqrt recorded as calls, re-wrapped by the code
    x, y = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32), np.ones((3, 3), np.float32)
    got, want = gm(tl.tensor(x), tl.tensor(y)), f(tl)(tl.tensor(x), tl.tensor(y))
    for g, w in zip(got, want):
        if isinstance(g, tl.Tensor):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
        else:
            assert g == w
    node = next(n for n in gm.graph.nodes if n.name == "helper_scale")
    assert node.op == "call_function" and node.target is helper_scale


def test_variadic_and_keyword_only_parameters():
    def fn(x, *args, scale=2, **kwargs):
        return x * scale + args[0] + kwargs["bias"]
    gm = tfx.symbolic_trace(fn)
    assert [n.target for n in gm.graph.find_nodes(op="placeholder")] == ["x", "scale", "*args", "**kwargs"]
    assert gm.code == torch.fx.symbolic_trace(fn).code
    out = gm(tl.ones(2), 3, tl.ones(2), bias=tl.ones(2))
    np.testing.assert_array_equal(out.numpy(), [5, 5])


def test_tensor_attributes_and_constants():
    class M(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = tl.arange(3.0)  # a plain tensor attribute

        def forward(self, x):
            # tl.ones(3) runs during tracing: a constant; a tensor on the left hands the operator to the Proxy
            return tl.ones(3) * 2 + (x + self.table)
    m = M()
    gm = tfx.symbolic_trace(m)
    assert [n.target for n in gm.graph.find_nodes(op="get_attr")] == ["table", "_tensor_constant0"]
    np.testing.assert_array_equal(gm(tl.zeros(3)).numpy(), [2, 3, 4])


def unwrapped_double(x):
    return x * 2


def test_tracer_options_param_shapes_and_autowrap():
    class M(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = tl.nn.Parameter(tl.ones(3))

        def forward(self, x):
            return unwrapped_double(x.reshape(-1, self.w.shape[0]) * self.w)
    m = M()
    gm = tfx.GraphModule(m, tfx.Tracer(param_shapes_constant=True, autowrap_functions=(unwrapped_double,)).trace(m))
    assert "reshape(-1, 3)" in gm.code  # the parameter's shape is read, not recorded
    assert [n.target for n in gm.graph.find_nodes(op="call_function")][-1] is unwrapped_double
    gm2 = tfx.symbolic_trace(m)  # by default both are recorded / traced into
    assert "getattr_1 = w.shape" in gm2.code and "unwrapped_double" not in gm2.code
    x = tl.randn(2, 3)
    _close(gm(x), m(x))
    _close(gm2(x), m(x))


def test_proxy_torch_function_protocol():
    """Proxy.__torch_function__ records calls handed to it by bindings that honour the protocol."""
    graph = tfx.Graph()
    proxy = tfx.Proxy(graph.placeholder("x"))
    out = tfx.Proxy.__torch_function__(tl.add, (tfx.Proxy,), (proxy, 2), {"alpha": 3})
    meth = tfx.Proxy.__torch_function__(tl.Tensor.relu, (tfx.Proxy,), (out,))
    assert (out.node.op, out.node.target, out.node.args, out.node.kwargs) == \
        ("call_function", tl.add, (proxy.node, 2), {"alpha": 3})
    assert (meth.node.op, meth.node.target) == ("call_method", "relu")
    graph.output(meth.node)
    gm = tfx.GraphModule(tl.nn.Module(), graph)
    np.testing.assert_array_equal(gm(tl.tensor([-10.0, 1.0])).numpy(), [0, 7])


def test_python_level_functions_recorded_through_the_protocol():
    """Functions written in Python (special.ndtr, linalg.norm, numel, the window factories) are
    recorded by their own __torch_function__ check, with the public function as target, as
    torch.fx records its bindings; nothing in the namespaces is replaced during a trace."""
    def f(lib):
        def fn(x):
            n = lib.numel(x)
            return lib.special.ndtr(x) + lib.linalg.norm(x) + lib.cosine_similarity(x, x, dim=0) + \
                lib.hann_window(x.size(0)) * n
        return fn

    targets = {}
    for lib in (tl, torch):
        gm = _fx(lib).symbolic_trace(f(lib))
        calls = [n.target for n in gm.graph.nodes if n.op == "call_function"]
        targets[lib] = [getattr(c, "__name__", None) for c in calls]
        if lib is tl:
            assert tl.special.ndtr in calls and tl.linalg.norm in calls and tl.hann_window in calls
            assert tl.special.ndtr is vars(tl.special)["ndtr"]  # the namespace was left as it was
            x = tl.tensor([0.5, -1.0, 2.0])
            np.testing.assert_allclose(gm(x).numpy(), f(tl)(x).numpy(), rtol=1e-6)
    # PyTorch's bindings are named special_ndtr, linalg_norm
    assert len(targets[tl]) == len(targets[torch]) and all(
        theirs.endswith(ours) for ours, theirs in zip(targets[tl], targets[torch]))


def test_tracing_error_paths():
    with pytest.raises(NotImplementedError, match="wrap must be called at the top level of a module"):
        tfx.wrap("helper_scale")
    with pytest.raises(NotImplementedError, match="Cannot wrap a lambda function"):
        exec("import torchlite.fx\ntorchlite.fx.wrap(lambda x: x)", {})
    with pytest.raises(RuntimeError, match="Keys for dictionaries used as an argument cannot contain a Node"):
        tfx.symbolic_trace(lambda x: x.add({x: 1}))
    with pytest.raises(NotImplementedError, match="argument of type: <class 'object'>"):
        tfx.symbolic_trace(lambda x: x + object())

    class Stranger(tl.nn.Module):  # calls a module that is not one of its submodules
        def __init__(self):
            super().__init__()
            self.__dict__["other"] = tl.nn.ReLU()

        def forward(self, x):
            return self.other(x)
    with pytest.raises(NameError, match="module is not installed as a submodule"):
        tfx.symbolic_trace(Stranger())
    g1, g2 = tfx.Graph(), tfx.Graph()
    p1, p2 = tfx.Proxy(g1.placeholder("a")), tfx.Proxy(g2.placeholder("b"))
    with pytest.raises(RuntimeError, match="Found multiple different tracers"):
        tfx.Proxy.__torch_function__(tl.add, (tfx.Proxy,), (p1, p2))


# ---------------------------------------------------------------------------------- Graph and Node
def test_graph_building_printing_and_code(capsys):
    g = tfx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y", default_value=2.0)
    add = g.call_function(operator.add, (x, y))
    relu = g.call_method("relu", (add,))
    s = g.call_function(tl.sum, (relu,), {"dim": 0})
    g.output((s, [relu]))
    assert [n.name for n in g.nodes] == ["x", "y", "add", "relu", "sum_1", "output"]
    assert len(g.nodes) == 6 and list(reversed(g.nodes))[0].op == "output"
    assert s.format_node() == "%sum_1 : [num_users=1] = call_function[target=torchlite.sum](args = (%relu,), " \
        "kwargs = {dim: 0})"
    assert y.format_node() == "%y : [num_users=1] = placeholder[target=y](default=2.0)"
    assert list(add.users) == [relu] and relu.all_input_nodes == [add]
    assert g.python_code("self").src == (
        "\n\n\ndef forward(self, x, y = 2.0):\n"
        "    add = x + y;  x = y = None\n"
        "    relu = add.relu();  add = None\n"
        "    sum_1 = torchlite.sum(relu, dim = 0)\n"
        "    return (sum_1, [relu])\n    ")
    g.print_tabular()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert lines[4].split() == ["call_function", "add", "operator.add", "(x,", "y)", "{}"]
    assert lines[6].split() == ["call_function", "sum_1", "torchlite.sum", "(relu,)", "{'dim':", "0}"]
    assert len(lines) == 8
    gm = tfx.GraphModule(tl.nn.Module(), g)
    out, (r,) = gm(tl.tensor([[-1.0, 2.0]]))
    np.testing.assert_array_equal(out.numpy(), [1, 4])
    with pytest.raises(TypeError, match="does not support mutation"):
        list(g.nodes)[-1].args[0][1].append(x)


def test_type_annotations_like_torch():
    def build(lib):
        g = _fx(lib).Graph()
        x = g.placeholder("x", type_expr=lib.Tensor)
        n = g.call_function(operator.add, (x, 1), type_expr=int)
        m = g.call_method("relu", (x,), type_expr=typing.List[int])  # noqa: UP006  (a typing alias on purpose)
        g.call_method("neg", (x,), type_expr=dict[str, list[int]])
        g.call_method("cos", (x,), type_expr=typing.Optional[typing.Dict[str, int]])  # noqa: UP006, UP045
        g.output((n, m), type_expr=tuple)
        return g
    g, gref = build(tl), build(torch)
    assert g.python_code("self").src.replace("torchlite.", "torch.") == gref.python_code("self").src
    assert str(g).replace("torchlite.", "torch.") == str(gref)
    assert tfx.GraphModule(tl.nn.Module(), g)(tl.ones(1))[0].item() == 2


def test_graph_editing_insert_replace_erase_dce():
    gm = tfx.symbolic_trace(lambda x: tl.relu(x + 1) * 2)
    g = gm.graph
    add = next(n for n in g.nodes if n.target is operator.add)
    # replace add -> mul, as in the "replace one op" tutorial
    with g.inserting_after(add):
        new = g.call_function(operator.mul, add.args, add.kwargs)
    assert add.replace_all_uses_with(new) == [next(iter(new.users))]
    g.erase_node(add)
    with g.inserting_before(new):
        dead = g.call_function(tl.neg, (new.args[0],))
    g.lint()
    assert dead.next is new and new.prev is dead
    assert g.eliminate_dead_code() and dead not in list(g.nodes)
    gm.recompile()
    assert "mul_1 = x * 1" in gm.code and "neg" not in gm.code
    np.testing.assert_array_equal(gm(tl.tensor([3.0])).numpy(), [6])
    # errors
    relu = next(n for n in g.nodes if n.name == "relu")
    with pytest.raises(RuntimeError, match="Tried to erase Node relu but it still had 1 users"):
        g.erase_node(relu)
    relu.prepend(relu.next)  # move mul_1 before its input
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        g.lint()
    with pytest.raises(ValueError, match="a Callable is expected"):
        g.create_node("call_function", "relu")
    with pytest.raises(TypeError, match="args must be a tuple"):
        g.create_node("call_method", "relu", [relu])
    with pytest.raises(ValueError, match="Node to insert before is not in graph"):
        tfx.Graph().inserting_before(relu)
    with pytest.raises(TypeError, match="Expected a Graph instance"):
        gm.graph = None


def test_node_copy_graph_copy_and_update_arg():
    gm = tfx.symbolic_trace(lambda x, y: (x + y).sin())
    g2 = tfx.Graph()
    val_map = {}
    out = g2.graph_copy(gm.graph, val_map)
    g2.output(out)
    assert [n.name for n in g2.nodes] == [n.name for n in gm.graph.nodes]
    assert all(val_map[n].graph is g2 for n in val_map)
    add = next(n for n in g2.nodes if n.name == "add")
    add.update_arg(1, 5.0)
    add.update_kwarg("alpha", 2)  # not valid for operator.add: only checks the bookkeeping
    assert add.args[1] == 5.0 and add.kwargs == {"alpha": 2}
    assert [n.name for n in add.all_input_nodes] == ["x"] and not next(n for n in g2.nodes if n.name == "y").users
    x = next(iter(g2.nodes))
    g3 = tfx.Graph()
    with pytest.raises(RuntimeError, match="different Graph"):
        g3.call_function(tl.sin, (x,))


# ---------------------------------------------------------------------------------- GraphModule
def test_graphmodule_recompile_state_dict_copy(tmp_path):
    mine = make_block(tl)
    gm = tfx.symbolic_trace(mine)
    x = tl.randn(2, 4)
    expected = gm(x)[0]["out"]
    path = tmp_path / "gm.pt"
    tl.save(gm.state_dict(), path)
    other = tfx.symbolic_trace(make_block(tl))
    other.load_state_dict(tl.load(path))
    _close(other(x)[0]["out"], expected)
    dup = copy.deepcopy(gm)
    assert dup.code == gm.code and dup.graph is not gm.graph
    _close(dup(x)[0]["out"], expected)
    # pickled as its code, traced again on load (wrapped helpers and all)
    restored = pickle.loads(pickle.dumps(gm))
    assert restored.code == gm.code and type(restored).__name__ == "Block"
    _close(restored(x)[0]["out"], expected)
    wrapped = tfx.symbolic_trace(lambda a: helper_scale(a, 2) + abs(a))
    assert pickle.loads(pickle.dumps(wrapped)).code == wrapped.code
    assert tfx.symbolic_trace(gm).code == gm.code  # generated code traces back to itself
    # a new graph set on the module regenerates forward, for this instance only
    g = tfx.Graph()
    g.output(g.call_method("neg", (g.placeholder("x"),)))
    dup.graph = g
    np.testing.assert_array_equal(dup(tl.ones(1)).numpy(), [-1])
    _close(gm(x)[0]["out"], expected)
    text = gm.print_readable(print_output=False)
    assert text.startswith("class Block(torchlite.nn.Module):\n    def forward(self, x, y = 3):")
    assert "To see more debug info" in str(gm)


def test_graphmodule_from_dict_root():
    g = tfx.Graph()
    x = g.placeholder("x")
    w = g.get_attr("layer.weight")
    g.output(g.call_module("act", (g.call_function(operator.mul, (x, w)),)))
    gm = tfx.GraphModule({"layer.weight": tl.full((2,), 3.0), "act": tl.nn.ReLU()}, g, "Custom")
    assert type(gm).__name__ == "Custom" and "layer.weight" in gm.state_dict()
    np.testing.assert_array_equal(gm(tl.tensor([1.0, -1.0])).numpy(), [3, 0])
    with pytest.raises(RuntimeError, match="referenced target act but that target was not provided"):
        tfx.GraphModule({"layer.weight": tl.ones(2)}, g)
    with pytest.warns(UserWarning, match="no underlying reference"):
        gm.graph.get_attr("missing")


# ---------------------------------------------------------------------------------- Interpreter / Transformer
class ProfilingInterpreter(tfx.Interpreter):
    """The profiling interpreter of the fx tutorial: time spent per node."""

    def __init__(self, mod):
        super().__init__(tfx.symbolic_trace(mod))
        self.runtimes = {}

    def run_node(self, n):
        start = time.perf_counter()
        result = super().run_node(n)
        self.runtimes.setdefault(n, []).append(time.perf_counter() - start)
        return result


def test_profiling_interpreter():
    mine = make_cnn(tl).eval()
    x = tl.randn(2, 3, 8, 8)
    interp = ProfilingInterpreter(mine)
    _close(interp.run(x), mine(x))
    assert {n.name for n in interp.runtimes} == {n.name for n in interp.graph.nodes}
    assert all(t >= 0 for ts in interp.runtimes.values() for t in ts)
    assert list(interp.env) == [interp.graph.find_nodes(op="output")[0]]  # the rest was dropped after last use


def test_interpreter_overrides_and_errors():
    gm = tfx.symbolic_trace(lambda x: tl.sigmoid(x).neg())

    class NegSigmSwapInterpreter(tfx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target is tl.sigmoid:
                return tl.neg(*args, **kwargs)
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                call_self, *args_tail = args
                return call_self.sigmoid(*args_tail, **kwargs)
            return super().call_method(target, args, kwargs)
    x = tl.randn(4)
    _close(NegSigmSwapInterpreter(gm).run(x), tl.sigmoid(-x))
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter x"):
        tfx.Interpreter(gm).run()
    bad = tfx.symbolic_trace(lambda x: x.reshape(5))
    with pytest.raises(RuntimeError, match="While executing %reshape"):
        tfx.Interpreter(bad).run(tl.ones(3))


@pytest.mark.parametrize("lib", [tl, torch], ids=["torchlite", "torch"])
def test_transformer_swaps_ops_like_torch(lib):
    fx = _fx(lib)

    class NegSigmSwapXformer(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == lib.sigmoid:
                return lib.neg(*args, **kwargs)
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "neg":
                call_self, *args_tail = args
                return call_self.sigmoid(*args_tail, **kwargs)
            return super().call_method(target, args, kwargs)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 3)

        def forward(self, x):
            return lib.sigmoid(self.lin(x)).neg()
    net = Net()
    transformed = NegSigmSwapXformer(fx.symbolic_trace(net)).transform()
    assert [(n.op, _target_name(n)) for n in transformed.graph.nodes] == [
        ("placeholder", "x"), ("call_module", "lin"), ("call_function", "neg"), ("call_method", "sigmoid"),
        ("output", "output")]
    x = lib.randn(2, 3)
    _close(transformed(x), lib.neg(net.lin(x)).sigmoid())


def test_transformer_wraps_outputs():
    """Wrapping every output of a model (here: scaling it) by rewriting the output node."""
    mine = make_mlp(tl)

    class ScaleOutputs(tfx.Transformer):
        def output(self, target, args, kwargs):
            return args[0] * 10
    gm = ScaleOutputs(tfx.symbolic_trace(mine)).transform()
    x = tl.randn(2, 6)
    _close(gm(x), mine(x) * 10)
    assert "mul = " in gm.code and gm.code.rstrip().endswith("return mul")


# ---------------------------------------------------------------------------------- tutorial rewrites
def test_replace_target_in_place_like_the_docs():
    """torch.fx's docs: walk the nodes and swap torch.add for torch.mul by setting node.target."""
    def transform(lib, m):
        graph = _fx(lib).Tracer().trace(m)
        for node in graph.nodes:
            if node.op == "call_function" and node.target == lib.add:
                node.target = lib.mul
        graph.lint()
        return _fx(lib).GraphModule(m, graph)

    def make(lib):
        class M(lib.nn.Module):
            def forward(self, x, y):
                return lib.add(x, y) + lib.add(y, y)
        return M()
    gm, gref = transform(tl, make(tl)), transform(torch, make(torch))
    _same_code(gm, gref)
    np.testing.assert_array_equal(gm(tl.full((2,), 3.0), tl.full((2,), 2.0)).numpy(), [10, 10])


def test_conv_bn_fuser_tutorial():
    """The "Building a Convolution/Batch Norm fuser in FX" tutorial, unchanged but for the import."""
    from torchlite.nn.utils.fusion import fuse_conv_bn_eval

    def _parent_name(target):
        *parent, name = target.rsplit(".", 1)
        return parent[0] if parent else "", name

    def replace_node_module(node, modules, new_module):
        parent_name, name = _parent_name(node.target)
        modules[node.target] = new_module
        setattr(modules[parent_name], name, new_module)

    def fuse(model):
        model = copy.deepcopy(model)
        fx_model = tfx.symbolic_trace(model)
        modules = dict(fx_model.named_modules())
        for node in fx_model.graph.nodes:
            if node.op != "call_module":
                continue
            if type(modules[node.target]) is tl.nn.BatchNorm2d and type(modules[node.args[0].target]) is tl.nn.Conv2d:
                if len(node.args[0].users) > 1:  # the conv output is used elsewhere
                    continue
                conv, bn = modules[node.args[0].target], modules[node.target]
                replace_node_module(node.args[0], modules, fuse_conv_bn_eval(conv, bn))
                node.replace_all_uses_with(node.args[0])
                fx_model.graph.erase_node(node)
        fx_model.graph.lint()
        fx_model.delete_all_unused_submodules()
        fx_model.recompile()
        return fx_model
    model = make_cnn(tl)
    model.bn.running_mean.copy_(tl.randn(4))
    model.bn.running_var.copy_(tl.rand(4) + 0.5)
    model.eval()
    fused = fuse(model)
    assert [n.target for n in fused.graph.find_nodes(op="call_module")] == ["conv", "fc"]
    assert not hasattr(fused, "bn")
    x = tl.randn(2, 3, 8, 8)
    _close(fused(x), model(x), rtol=1e-4, atol=1e-5)


def test_invert_function_by_graph_construction():
    invert_mapping = {tl.exp: tl.log, tl.log: tl.exp, tl.tan: tl.atan, tl.atan: tl.tan}

    def invert(model):
        fx_model = tfx.symbolic_trace(model)
        new_graph = tfx.Graph()
        env = {}
        for node in reversed(fx_model.graph.nodes):
            if node.op == "call_function":
                new_node = new_graph.call_function(invert_mapping[node.target], (env[node.name],))
                env[node.args[0].name] = new_node
            elif node.op == "output":
                new_node = new_graph.placeholder(node.name)
                env[node.args[0].name] = new_node
            elif node.op == "placeholder":
                new_graph.output(env[node.name])
        return tfx.GraphModule(fx_model, new_graph)

    def f(x):
        return tl.exp(tl.tan(x))
    inverse = invert(f)
    x = tl.tensor([0.1, 0.5, -0.3])
    _close(inverse(f(x)), x)
    assert "torchlite.atan(log)" in inverse.code


def test_inline_decomposition_with_proxies():
    """The retracing tutorial: replace calls by their decomposition, traced through Proxies."""
    def relu_decomposition(x):
        return (x > 0) * x
    decomposition_rules = {tl.nn.functional.relu: relu_decomposition}

    class M(tl.nn.Module):
        def forward(self, x):
            return tl.nn.functional.relu(x) + 1

    def decompose(model):
        graph = tfx.Tracer().trace(model)
        new_graph = tfx.Graph()
        env = {}
        tracer = tfx.proxy.GraphAppendingTracer(new_graph)
        for node in graph.nodes:
            if node.op == "call_function" and node.target in decomposition_rules:
                proxy_args = [tfx.Proxy(env[a.name], tracer) if isinstance(a, tfx.Node) else a for a in node.args]
                env[node.name] = decomposition_rules[node.target](*proxy_args).node
            else:
                env[node.name] = new_graph.node_copy(node, lambda a: env[a.name])
        return tfx.GraphModule(model, new_graph)
    gm = decompose(M())
    assert [n.target for n in gm.graph.find_nodes(op="call_function")] == [operator.gt, operator.mul, operator.add]
    np.testing.assert_array_equal(gm(tl.tensor([-2.0, 3.0])).numpy(), [1, 4])


def test_replace_pattern_like_torch():
    def rewrite(lib):
        fx = _fx(lib)

        class M(lib.nn.Module):
            def forward(self, x, w1, w2):
                m1 = lib.cat([w1, w2]).sum()
                m2 = lib.cat([w1, w2]).sum()
                return x + lib.max(m1) + lib.max(m2)

        def pattern(w1, w2):
            return lib.cat([w1, w2]).sum()

        def replacement(w1, w2):
            return lib.stack([w1, w2])
        gm = fx.symbolic_trace(M())
        matches = fx.replace_pattern(gm, pattern, replacement)
        assert [m.nodes_map[m.anchor].name for m in matches] == ["sum_1", "sum_2"]
        x, w = lib.ones(2), lib.arange(3.0)
        np.testing.assert_array_equal(gm(x, w, w).numpy(), [5, 5])
        return gm
    gm, gref = rewrite(tl), rewrite(torch)
    assert "stack" in gm.code and "cat" not in gm.code
    _same_code(gm, gref)


def test_replace_pattern_respects_outside_users():
    def f(x):
        a = tl.relu(x)
        b = a.sin()
        return b, a + 1  # `a` is used outside relu->sin: no match

    def g(x):
        return tl.relu(x).sin()
    gm = tfx.symbolic_trace(f)
    assert tfx.replace_pattern(gm, lambda x: tl.relu(x).sin(), lambda x: x.cos()) == []
    gm = tfx.symbolic_trace(g)
    assert len(tfx.replace_pattern(gm, lambda x: tl.relu(x).sin(), lambda x: x.cos())) == 1
    np.testing.assert_allclose(gm(tl.tensor([0.5])).numpy(), [math.cos(0.5)], rtol=1e-6)


# ---------------------------------------------------------------------------------- ShapeProp
def test_shape_prop_matches_torch():
    mine, ref = _pair(make_cnn)
    gm, gref = tfx.symbolic_trace(mine), torch.fx.symbolic_trace(ref)
    x = np.random.default_rng(3).standard_normal((2, 3, 8, 8)).astype(np.float32)
    ShapeProp(gm).propagate(tl.tensor(x))
    TorchShapeProp(gref).propagate(torch.tensor(x))
    for n, r in zip(gm.graph.nodes, gref.graph.nodes):
        meta, rmeta = n.meta["tensor_meta"], r.meta["tensor_meta"]
        assert (tuple(meta.shape), tuple(meta.stride), meta.requires_grad) == \
            (tuple(rmeta.shape), tuple(rmeta.stride), rmeta.requires_grad), n.name
        assert str(meta.dtype).split(".")[-1] == str(rmeta.dtype).split(".")[-1]
        assert str(meta.memory_format).split(".")[-1] == str(rmeta.memory_format).split(".")[-1]
        assert n.meta["type"] is tl.Tensor
    with pytest.raises(NotImplementedError, match="fake tensors"):
        ShapeProp(gm, fake_mode=object())


# ---------------------------------------------------------------------------------- jit
def test_jit_trace_and_script():
    mine = make_mlp(tl)
    x = tl.randn(3, 6)
    traced = tl.jit.trace(mine, x)
    assert isinstance(traced, tfx.GraphModule)
    _close(traced(x), mine(x))
    fn = tl.jit.trace(lambda a, b: a * b + 1, (x, x))
    _close(fn(x, x), x * x + 1)
    with pytest.raises(tl.jit.TracingCheckError):
        tl.jit.trace(lambda a: a + tl.randn(3), tl.zeros(3))  # the random draw is frozen into the trace
    with pytest.raises(RuntimeError, match="example_kwarg_inputs and example_inputs shouldn't both be None"):
        tl.jit.trace(mine)
    with pytest.raises(NotImplementedError, match="torchlite.jit.script is not supported"):
        tl.jit.script(mine)
