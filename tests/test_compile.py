"""torchlite.compile: fused pointwise regions give eager's values and gradients; guards,
graph breaks, capture failures and the on-disk kernel cache."""

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn.functional as F
from helpers import assert_close
from opinfo import REGISTRY
from torchlite._compile.fusion import Reduction
from torchlite._compile.data_files import VECTOR_MATH_TABLE
from torchlite._compile.pointwise_table import data_root, pointwise_ops, vector_math_functors

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module", autouse=True)
def kernel_cache(tmp_path_factory):
    """One cache folder for the whole module, so each generated source is compiled once."""
    path = str(tmp_path_factory.mktemp("compile_cache"))
    old = os.environ.get("TORCHLITE_CACHE_DIR")
    os.environ["TORCHLITE_CACHE_DIR"] = path
    yield path
    if old is None:
        del os.environ["TORCHLITE_CACHE_DIR"]
    else:
        os.environ["TORCHLITE_CACHE_DIR"] = old


def _entry(compiled):
    """The only compiled graph of a compiled function or module."""
    cache = getattr(compiled, "_compiled", compiled)._cache
    assert len(cache) == 1
    return next(iter(cache.values()))


def _assert_same(got, expected):
    if isinstance(expected, tl.Tensor):
        assert got.dtype == expected.dtype
        assert_close(got, expected.detach().numpy())
    else:
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_same(g, e)


# ---- the registry's pointwise operators, all in one graph (one generated source) -------------

class _Buffer:
    def __init__(self, name):
        self.name = name


def _map(obj, fn):
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return fn(obj)


class _RegistryOps(tl.nn.Module):
    """Runs one sample of each registry entry whose operator is fusible, each followed by
    `r * r` so that it forms a region of two; the samples' arrays are parameters."""

    def __init__(self):
        super().__init__()
        candidates, accepted = [], []
        fusible = pointwise_ops()
        for info in REGISTRY:
            if info.name not in fusible:
                continue
            # one dtype per op keeps the generated source (one compile) small
            for dtype in [d for d in (tl.float64, tl.int64) if d in info.dtypes][:1]:
                s = next(iter(info.sample_inputs(dtype, np.random.default_rng(0))))

                def buffer(a):
                    if not isinstance(a, np.ndarray):
                        return a
                    name = f"p{len(self._parameters)}"  # parameters: tracing records them, not their values
                    self.register_parameter(name, tl.nn.Parameter(tl.tensor(a), requires_grad=False))
                    return _Buffer(name)

                args, kwargs = _map(s.args, buffer), _map(s.kwargs, buffer)
                candidates.append((info, args, kwargs))
        for case in candidates:  # keep the samples that run eagerly and trace on their own
            self.calls = [case]
            try:
                self()
                tl.fx.symbolic_trace(self)
            except Exception:  # noqa: BLE001 (a sample the `r * r` chain or tracing does not fit)
                continue
            accepted.append(case)
        self.calls = accepted

    def _call(self, info, args, kwargs):
        fetch = lambda o: getattr(self, o.name) if isinstance(o, _Buffer) else o  # noqa: E731
        return info.call(tl, *_map(args, fetch), **_map(kwargs, fetch))

    def forward(self):
        outs = []
        for info, args, kwargs in self.calls:
            r = self._call(info, args, kwargs)
            outs.append(r * r)
        return tuple(outs)


def test_registry_pointwise_ops_match_eager():
    model = _RegistryOps()
    compiled = tl.compile(model)
    with tl.no_grad():
        expected = model()
        first = compiled()  # traces, fuses, builds; this call itself runs eagerly
        got = compiled()
    _assert_same(first, expected)
    _assert_same(got, expected)
    entry = _entry(compiled)
    fused_ops = {n.meta["fusion_op"].name for r in entry.regions for n in r.nodes}
    covered = {info.name for info, _, _ in model.calls}
    # Ops whose float loops run on the vector math layer stay eager by design (faster than a
    # fused scalar libm loop); every other registry op is expected to fuse, give or take 10%.
    table, vector_math = pointwise_ops(), vector_math_functors()
    by_vector_math = {name for name in covered if name in table and vector_math.get(table[name].functor) is False}
    assert {"exp", "tanh", "sin"} <= by_vector_math and not by_vector_math & fused_ops
    assert "sigmoid" in fused_ops  # on the vector math list, flagged fusible there
    fusible = covered - by_vector_math
    assert len(fusible) > 100 and len(fused_ops) >= 0.9 * len(fusible), sorted(fusible - fused_ops)


# ---- workloads ----------------------------------------------------------------------------------

def _pointwise_chain(x, y):
    a = tl.sigmoid(x * 2.0 + y)
    b = (a - y).relu() * x.exp()
    return tl.clamp(b, min=0.1) / 3 + tl.tanh(a)


class _GeluMLP(tl.nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.fc1, self.fc2 = tl.nn.Linear(d, 4 * d), tl.nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.fc1(x)
        h = 0.5 * h * (1 + tl.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))  # GELU, tanh form
        return x + self.fc2(h)


class _ResidualNorm(tl.nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.fc, self.norm = tl.nn.Linear(d, d), tl.nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + F.silu(self.fc(x)) * 0.5)


@pytest.mark.parametrize("make,shapes", [
    (lambda: _pointwise_chain, [(64, 33), (33,)]),
    (_GeluMLP, [(8, 16)]),
    (_ResidualNorm, [(8, 16)]),
])
def test_workloads_match_eager(make, shapes):
    model = make()
    inputs = [tl.randn(*s) for s in shapes]
    compiled = tl.compile(model)
    with tl.no_grad():
        expected = model(*inputs)
        compiled(*inputs)
        _assert_same(compiled(*inputs), expected)
    assert _entry(compiled).regions, "the workload has a pointwise chain to fuse"


@pytest.mark.parametrize("make", [_GeluMLP, _ResidualNorm])
def test_gradients_match_eager(make):
    tl.manual_seed(0)
    model = make()
    x = tl.randn(4, 16, requires_grad=True)
    compiled = tl.compile(model)
    eager_out = model(x)
    eager_out.sum().backward()
    expected = [x.grad.clone()] + [p.grad.clone() for p in model.parameters()]
    x.grad = None
    model.zero_grad()
    for _ in range(2):  # the first call captures, the second runs the compiled graph
        x.grad = None
        model.zero_grad()
        out = compiled(x)
        out.sum().backward()
    _assert_same(out, eager_out)
    _assert_same([x.grad] + [p.grad for p in model.parameters()], expected)
    report = compiled.explain()
    assert "needs gradients" in report and "run eagerly, forward and backward" in report


def test_transformer_training_step_matches_eager():
    tl.manual_seed(0)
    layer = tl.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    x = tl.randn(2, 5, 16)
    compiled = tl.compile(layer)
    eager = layer(x)
    eager.square().mean().backward()
    expected = [p.grad.clone() for p in layer.parameters()]
    for _ in range(2):
        layer.zero_grad()
        out = compiled(x)
        out.square().mean().backward()
    _assert_same(out, eager)
    _assert_same([p.grad for p in layer.parameters()], expected)


def test_gelu_loop_chosen_by_approximate():
    """gelu's stubs are chosen by `approximate` (gelu: "none", gelu_tanh: "tanh"): each call fuses
    the functor its value selects, in one region, and matches eager and PyTorch."""
    def f(x):
        return F.gelu(x * 2, approximate="tanh") + F.gelu(x - 1) * tl.nn.functional.gelu(x, approximate="none")

    x = tl.randn(6, 5, dtype=tl.float64)
    compiled = tl.compile(f)
    compiled(x)
    _assert_same(compiled(x), f(x))
    torch = pytest.importorskip("torch")
    tx = torch.from_numpy(x.numpy())
    ref = torch.nn.functional.gelu(tx * 2, approximate="tanh") + torch.nn.functional.gelu(tx - 1) * \
        torch.nn.functional.gelu(tx)
    assert_close(compiled(x), ref.numpy())
    (region,) = _entry(compiled).regions
    functors = [n.meta["fusion_op"].functor for n in region.nodes if n.meta["fusion_op"].name == "gelu"]
    assert functors == ["GeluTanhFunctor", "GeluFunctor", "GeluFunctor"]


def _reductions(x, y):
    h = (x * 2 + y).sigmoid()
    centred = (h - h.mean(-1, keepdim=True)).abs()  # reads a reduction's result: another region
    return h.sum(-1), tl.mean(h * h, dim=[-1], keepdim=True), tl.sum(h, dim=(-1,)), centred, h


@pytest.mark.parametrize("shape,dtype", [((6, 4, 33), tl.float32), ((40,), tl.float64)])
def test_reductions_over_the_last_dim_join_the_chain(shape, dtype):
    x, y = tl.randn(*shape, dtype=dtype), tl.randn(shape[-1], dtype=dtype)
    compiled = tl.compile(_reductions)
    compiled(x, y)
    _assert_same(compiled(x, y), _reductions(x, y))
    first, second = _entry(compiled).regions
    assert "sigmoid -> mean -> sum -> mul -> mean -> sum" in first.describe() and "sub -> abs" in second.describe()
    if len(shape) > 1:  # a transposed input: rows are not contiguous
        xt = tl.randn(*reversed(shape), dtype=dtype).transpose(0, -1)
        _assert_same(compiled(xt, y), _reductions(xt, y))


def test_reductions_left_eager():
    def f(x, i):
        h = x * 2 + 1
        return h.sum(0), h.exp().sum(-1, dtype=tl.float64), (i * 3).sum(-1)

    x, i = tl.randn(5, 7), tl.arange(35).reshape(5, 7)
    compiled = tl.compile(f)
    compiled(x, i)
    _assert_same(compiled(x, i), f(x, i))
    assert not any(isinstance(n.meta["fusion_op"], Reduction) for r in _entry(compiled).regions for n in r.nodes)
    assert compiled.explain().count("break: %sum") == 3


# ---- broadcasting, layouts, dtypes ---------------------------------------------------------------

def test_broadcast_and_strided_inputs():
    def f(a, b, c):
        return (a * b + c).sigmoid() - a, (b - 1).abs()

    a = tl.randn(7, 1)                       # broadcast along columns (stride 0 in the inner dim)
    b = tl.randn(9, 7).t()                   # transposed: not contiguous
    c = tl.randn(9)                          # broadcast along rows
    compiled = tl.compile(f)
    compiled(a, b, c)
    _assert_same(compiled(a, b, c), f(a, b, c))
    b2 = tl.randn(7, 9)                      # same shape, other strides: no re-trace
    _assert_same(compiled(a, b2, c), f(a, b2, c))
    assert len(compiled._cache) == 1
    b3 = tl.randn(9, 7).t()                  # the first strides again, on new data
    _assert_same(compiled(a, b3, c), f(a, b3, c))
    kernel = next(n.target for n in _entry(compiled).gm.graph.nodes if n.op == "call_function"
                  and n.target.__module__ == "compiled")
    assert len(kernel._launches) == 2  # one set of launch arguments per input stride pattern


@pytest.mark.parametrize("threads", [1, 3])
def test_threads_split_rows_of_large_inputs(threads):
    # above the loop's grain size the rows are split among threads, a thread's first and last rows
    # partial (3 threads: the splits fall mid-row and mid-dim), and each thread steps from row to row
    def f(x, y, z):
        return (x * y - z).abs() + tl.where(x > 0, y, z)

    y, z = tl.randn(41, 1), tl.randn(401)
    old = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        compiled = tl.compile(f)
        for x in (tl.randn(41, 401, 2).permute(2, 0, 1),  # (2, 41, 401), not contiguous
                  tl.randn(41, 401, 2).permute(2, 0, 1), tl.randn(2, 41, 401)):
            # new data each call: an element the loop skipped would keep the last call's value
            _assert_same(compiled(x, y, z), f(x, y, z))
    finally:
        tl.set_num_threads(old)


def test_arithmetic_rounds_as_eager():
    # no FMA contraction across fused operators: every product is rounded as the eager mul rounds it
    def f(x, y, z):
        return x * y + z, (x - y) * z - x * 0.1

    x, y, z = (tl.randn(1000) for _ in range(3))
    compiled = tl.compile(f)
    compiled(x, y, z)
    for got, expected in zip(compiled(x, y, z), f(x, y, z)):
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_mixed_dtypes_and_comparisons():
    def f(i, x):
        m = (i > 2) & (x < 0.5)
        return tl.where(m, x * 2, i + 0.5), (i * 3 - 1) // 1

    i = tl.arange(12).reshape(3, 4)
    x = tl.rand(3, 4, dtype=tl.float64)
    compiled = tl.compile(f)
    compiled(i, x)
    _assert_same(compiled(i, x), f(i, x))


# ---- guards ----------------------------------------------------------------------------------------

def test_guards_recompile_on_dtype_and_shape():
    def f(x):
        return (x * 3 + 1).tanh()

    compiled = tl.compile(f)
    x = tl.randn(4, 5)
    compiled(x)
    compiled(x)
    assert len(compiled._cache) == 1
    xd = x.double()
    compiled(xd)
    assert len(compiled._cache) == 2  # new dtype: new graph and new kernel
    _assert_same(compiled(xd), f(xd))
    y = tl.randn(3, 2, 6)
    compiled(y)
    assert len(compiled._cache) == 3
    assert list(compiled._cache.values())[-1].cached  # new shape, same chain: the library is reused
    _assert_same(compiled(y), f(y))
    assert "3 graph(s)" in compiled.explain()


# ---- graph breaks, capture failures, options --------------------------------------------------------

def test_explain_lists_regions_and_breaks():
    def f(x, w):
        h = (x * 2 + 1).relu()
        h = h @ w                              # not pointwise: a graph break
        return (h - 1).sigmoid() * 0.5

    compiled = tl.compile(f)
    x, w = tl.randn(4, 3), tl.randn(3, 5)
    compiled(x, w)
    _assert_same(compiled(x, w), f(x, w))
    report = compiled.explain()
    assert "2 fused region(s)" in report
    assert "mul -> add -> relu" in report and "sub -> sigmoid -> mul" in report
    assert "break: %matmul" in report and "not a fusible pointwise operator" in report


def test_vector_math_ops_stay_eager():
    """exp on float runs eagerly on the vector math layer and splits the chain around it."""
    def f(x):
        return ((x * 2 + 1).exp() - 1) * 3

    compiled = tl.compile(f)
    x = tl.randn(64, 33)
    compiled(x)
    _assert_same(compiled(x), f(x))
    report = compiled.explain()
    assert "break: %exp" in report and "vector math layer" in report and "2 fused region(s)" in report


def test_vector_math_list_flags_every_row():
    """Every row of the vector math list carries the fusible column that compile reads (a row
    without it would be missed, and its functor fused into a scalar libm loop)."""
    with open(os.path.join(data_root(), VECTOR_MATH_TABLE), encoding="utf-8") as fh:
        rows = re.findall(r"^TL_VECMATH_(?:UNARY|BINARY)\(", fh.read(), re.M)
    flags = vector_math_functors()
    assert len(flags) == len(rows) > 20
    assert flags["SigmoidFunctor"] is True and flags["ExpFunctor"] is False and flags["PowFunctor"] is False


class _InplaceReLU(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = tl.nn.ReLU(inplace=True)

    def forward(self, x):
        h = x * 2 - 1
        self.act(h)                            # writes h between its producer and its next reader
        return (h + 1) * 3


def _outside_user_first(x, w):
    a = x * 2
    b = a @ w                                  # reads a before a's other pointwise user
    return b, (a + 1).exp()


def _inplace_method(x):
    h = x * 2
    h.relu_()
    return (h + 1).sigmoid()


@pytest.mark.parametrize("fn,n_regions", [(_InplaceReLU, 2), (lambda: _outside_user_first, 1),
                                          (lambda: _inplace_method, 1)])
def test_regions_respect_writes_and_outside_users(fn, n_regions):
    model = fn()
    args = (tl.randn(3, 4), tl.randn(4, 2))[:2 if model is _outside_user_first else 1]
    compiled = tl.compile(model)
    compiled(*args)
    _assert_same(compiled(*args), model(*args))
    assert len(_entry(compiled).regions) == n_regions


def test_untraceable_function_runs_eagerly_with_a_warning():
    def f(x):
        if x.sum() > 0:                        # data-dependent control flow cannot be traced
            return x + 1
        return x - 1

    compiled = tl.compile(f)
    x = tl.ones(3)
    with pytest.warns(UserWarning, match="runs eagerly"):
        out = compiled(x)
    _assert_same(out, f(x))
    assert "capture failed" in compiled.explain()
    with pytest.raises(RuntimeError, match="fullgraph=True"):
        tl.compile(f, fullgraph=True)(x)


def test_options_and_bad_arguments():
    model = tl.nn.Linear(2, 1)
    compiled = tl.compile(model, mode="max-autotune", dynamic=False)
    assert compiled._orig_mod is model and "_orig_mod.weight" in compiled.state_dict()
    assert tl.compile(model, disable=True) is model
    seen = []

    def backend(gm, example_inputs):
        seen.append(len(example_inputs))
        return gm.forward

    f = tl.compile(lambda x: x * 2 + 1, backend=backend)
    x = tl.ones(2)
    f(x)
    _assert_same(f(x), x * 2 + 1)
    assert seen == [1]
    with pytest.raises(RuntimeError, match="callables"):
        tl.compile(3)
    with pytest.raises(RuntimeError, match="Invalid backend"):
        tl.compile(model, backend="no-such-backend")
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        tl.compile(model, mode="fastest")

    @tl.compile(fullgraph=True)
    def g(x):
        return x * 2

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _assert_same(g(tl.ones(2)), tl.ones(2) * 2)


# ---- the on-disk kernel cache --------------------------------------------------------------------------

_SECOND_PROCESS = """
import sys
import torchlite as tl
f = tl.compile(lambda x: (x * 3 + 1).tanh())
f(tl.ones(4, 5))
tl.library.define("tf19::scale", "(Tensor x, float k) -> Tensor")  # parses with torchlite._codegen
print("codegen" in sys.modules, next(iter(f._cache.values())).cached)
"""


def test_second_process_reuses_the_built_library(kernel_cache, tmp_path):
    """Run outside the repository, so that only the package is importable: the runtime needs no
    top-level `codegen` (the generator ships as torchlite._codegen)."""
    f = tl.compile(lambda x: (x * 3 + 1).tanh())
    f(tl.ones(4, 5))
    env = dict(os.environ, TORCHLITE_CACHE_DIR=kernel_cache)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-c", _SECOND_PROCESS], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-2:] == ["False", "True"]


def test_wheel_data_files_suffice(tmp_path, monkeypatch):
    """An installed wheel has no repository beside it: CMakeLists.txt installs the files that
    data_files lists into torchlite/_data. From those alone the operator table is derived and a
    fused loop compiles (the compiler's include path is that folder only)."""
    from torchlite._compile import cpp_kernel, data_files, pointwise_table

    package = tmp_path / "torchlite"
    for rel in data_files.data_files(REPO):
        (package / "_data" / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / "_data" / rel).write_bytes(open(os.path.join(REPO, rel), "rb").read())
    expected = pointwise_ops()
    monkeypatch.setattr(pointwise_table, "_PACKAGE", str(package))
    monkeypatch.setenv("TORCHLITE_CACHE_DIR", str(tmp_path / "cache"))  # no table or library cached
    caches = (pointwise_table.pointwise_ops, cpp_kernel._headers_digest)
    for c in caches:
        c.cache_clear()
    try:
        assert pointwise_table.data_root() == str(package / "_data")
        assert pointwise_ops() == expected
        f = lambda x: F.gelu(x * 3 + 1, approximate="tanh")  # noqa: E731
        compiled = tl.compile(f)
        x = tl.randn(4, 5)
        compiled(x)
        _assert_same(compiled(x), f(x))
        assert _entry(compiled).regions and not _entry(compiled).cached
        assert f"-I{package / '_data'}" in cpp_kernel.compiler_command()
    finally:
        for c in caches:
            c.cache_clear()


def test_missing_compiler_runs_the_graph_eagerly(monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler-for-torchlite")
    f = lambda x: (x * 3 + 1).tanh()  # noqa: E731
    compiled = tl.compile(f)
    x = tl.randn(4)
    with pytest.warns(UserWarning, match="fused kernels unavailable"):
        compiled(x)
    _assert_same(compiled(x), f(x))
    assert not _entry(compiled).regions
