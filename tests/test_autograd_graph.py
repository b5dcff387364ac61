"""torchlite.autograd.graph (saved tensors hooks, Node, gradient edges, multi-grad hooks),
anomaly mode and the Function extras, each run side by side with PyTorch on the same program."""

import warnings

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


def both(fn):
    """fn(lib) run with torchlite and with PyTorch."""
    return fn(tl), fn(torch)


def values(ts):
    return [None if t is None else np.asarray(t.detach().tolist()) for t in ts]


def assert_same_values(a, b):
    assert len(a) == len(b)
    for x, y in zip(values(a), values(b)):
        if x is None or y is None:
            assert x is None and y is None
        else:
            np.testing.assert_allclose(x, y, rtol=1e-6)


# ---- saved tensors hooks --------------------------------------------------------------------

def _hooked_program(lib):
    """mul saves both inputs, exp saves its output, a custom Function saves its input."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    packed, unpacked = [], []

    def pack(t):
        packed.append(t.detach().clone())
        return ("box", t)

    def unpack(box):
        unpacked.append(box[1].detach().clone())
        return box[1]

    a = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([1.5, 0.25, -3.0], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (a * b).exp()
        z = Square.apply(y).sum()
    z.backward()
    return packed, unpacked, (a.grad, b.grad)


def sorted_values(ts):
    return sorted(t.tolist() for t in ts)


def test_saved_tensors_hooks_called_as_torch():
    (tp, tu, tg), (pp, pu, pg) = both(_hooked_program)
    assert len(tp) == len(pp) == 4 and len(tu) == len(pu) == 4
    # The same tensors (mul's two operands may be saved in another order than PyTorch's).
    np.testing.assert_allclose(sorted_values(tp), sorted_values(pp), rtol=1e-6)
    np.testing.assert_allclose(sorted_values(tu), sorted_values(pu), rtol=1e-6)
    assert_same_values(tg, pg)


def test_identity_hooks_leave_gradients_unchanged():
    def run(lib, hooked):
        x = lib.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=lib.float64, requires_grad=True)
        ctx = lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t) if hooked else _nullcontext()
        with ctx:
            y = (x.sin() * x.exp()).tanh().sum()
        return lib.autograd.grad(y, x)

    for lib in (tl, torch):
        assert_same_values(run(lib, True), run(lib, False))
    assert_same_values(run(tl, True), run(torch, True))


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_saved_tensors_hooks_nest_innermost_wins_and_retain_graph_unpacks_again():
    def run(lib):
        log = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        G = lib.autograd.graph
        with G.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
            with G.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: log.append("unpack") or t):
                y = a.exp()
            z = y.sin()
        z.sum().backward(retain_graph=True)
        z.sum().backward()
        return log, a.grad.tolist()

    assert run(tl) == run(torch)


def test_unpack_hook_must_return_a_tensor():
    for lib in (tl, torch):
        a = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda t: 1):
            y = a * a
        with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
            y.sum().backward()


def test_pack_hook_modifying_its_input_in_place_raises():
    for lib in (tl, torch):
        a = lib.ones(2, requires_grad=True) * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.add_(0), lambda t: t):
            with pytest.raises(RuntimeError, match="pack hook is modifying its input in place"):
                a.exp()


def test_packed_tensors_have_no_version_check():
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            b = a * 1
            y = b.sin()
        b.add_(1)  # the hooks own what they packed: backward uses the modified tensor
        y.sum().backward()
        return a.grad.tolist()

    np.testing.assert_allclose(run(tl), run(torch))


@pytest.mark.parametrize("lib", [tl, torch], ids=["torchlite", "torch"])
def test_pack_hook_runs_without_grad_mode(lib):
    seen = []
    a = lib.ones(2, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(lib.is_grad_enabled()) or t, lambda t: t):
        a.exp()
    assert seen == [False]


def test_disable_saved_tensors_hooks():
    for lib in (tl, torch):
        G = lib.autograd.graph
        with G.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            with G.disable_saved_tensors_hooks("inner message"):
                with pytest.raises(RuntimeError, match="inner message"):
                    G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
            with pytest.raises(RuntimeError, match="no hooks here"):  # the outer message is back
                G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
        a = lib.ones(2, requires_grad=True)
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            with pytest.raises(RuntimeError, match="hooks in force"):
                with G.disable_saved_tensors_hooks("hooks in force"):
                    pass
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):  # enabled again
            (a * a).sum().backward()


def test_save_on_cpu():
    def run(lib):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.save_on_cpu(pin_memory=True):
            y = (x.exp() * x).sum()
        return lib.autograd.grad(y, x)

    assert_same_values(*both(run))


# ---- Node, GradientEdge, hooks -------------------------------------------------------------

def test_node_surface_matches_torch():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp() * 2
        fn = y.grad_fn
        assert isinstance(fn, lib.autograd.graph.Node)
        assert not isinstance(x, lib.autograd.graph.Node)
        fn.metadata["tag"] = 7
        assert y.grad_fn.metadata == {"tag": 7}  # kept on the node, not on a wrapper object
        nexts = [(f.name() if f is not None else None, nr) for f, nr in fn.next_functions]
        return fn.name(), nexts, fn.next_functions[0][0].next_functions[0][0].name()

    assert run(tl) == run(torch)


def test_node_hooks_and_removable_handles():
    def run(lib):
        calls = []
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a.clone()
        h1 = b.grad_fn.register_prehook(lambda gO: (calls.append("pre"), (gO[0] * 2,))[1])
        h2 = b.grad_fn.register_hook(lambda gI, gO: calls.append(("post", gI[0].tolist(), gO[0].tolist())))
        b.sum().backward(retain_graph=True)
        first = a.grad.tolist()
        h1.remove()
        h2.remove()
        a.grad = None
        b.sum().backward()
        return calls, first, a.grad.tolist()

    assert run(tl) == run(torch)


def test_get_gradient_edge():
    def run(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        h = x * 3
        loss = (h.sin() * x).sum()
        G = lib.autograd.graph
        edges = (G.get_gradient_edge(x), G.get_gradient_edge(h))
        assert edges[0].node.name().endswith("AccumulateGrad") and edges[0].output_nr == 0
        return lib.autograd.grad(loss, edges, retain_graph=True) + lib.autograd.grad(loss, (x, h))

    assert_same_values(*both(run))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge for a Tensor that does not "
                                               "require gradients"):
            lib.autograd.graph.get_gradient_edge(lib.ones(2))


def test_increment_version():
    for lib in (tl, torch):
        a = lib.ones(2, requires_grad=True)
        b = a * 1
        y = b.sin()
        v = b._version
        lib.autograd.graph.increment_version(b)
        lib.autograd.graph.increment_version([b])
        assert b._version == v + 2
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def _multi_hook_program(lib, mode):
    calls = []
    a = lib.tensor([[1.0, 2.0]], requires_grad=True)
    b = lib.tensor([[3.0, 4.0]], requires_grad=True)
    c = a * b
    d = a * b

    if mode == "all":
        def fn(grads):
            calls.append([None if g is None else g.tolist() for g in grads])
    else:
        def fn(grad):
            calls.append(grad.tolist())

    handle = lib.autograd.graph.register_multi_grad_hook((a, b, c, d), fn, mode=mode)
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c + d).sum().backward(retain_graph=True)
    handle.remove()
    c.sum().backward()
    return calls


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook(mode):
    assert _multi_hook_program(tl, mode) == _multi_hook_program(torch, mode)


def test_register_multi_grad_hook_bad_mode():
    for lib in (tl, torch):
        with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got x"):
            lib.autograd.graph.register_multi_grad_hook((lib.ones(1, requires_grad=True),), print, mode="x")


def test_tensor_hooks_of_unneeded_leaves_do_not_run():
    def run(lib):
        calls = []
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        a.register_hook(lambda g: calls.append("a"))
        b.register_hook(lambda g: calls.append("b"))
        (a * b).sum().backward(inputs=(a,))
        return calls

    assert run(tl) == run(torch) == ["a"]


# ---- anomaly mode ---------------------------------------------------------------------------

def _failing_backward(lib):
    class Fails(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    x = lib.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            y = Fails.apply(x)  # the forward line the warning must point at
            with pytest.raises(ValueError, match="boom in backward"):
                y.sum().backward()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_anomaly_mode_warns_with_forward_traceback():
    ours, theirs = both(_failing_backward)
    assert ours[0] == theirs[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                                    "should only be enabled for debugging.")
    for msgs in (ours, theirs):
        assert len(msgs) == 2
        head, _, trace = msgs[1].partition("\n")
        assert head == "Error detected in FailsBackward. Traceback of forward call that caused the error:"
        assert "y = Fails.apply(x)  # the forward line the warning must point at" in trace
        assert "test_autograd_graph.py" in trace


def test_anomaly_mode_records_traceback_in_node_metadata():
    for lib in (tl, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = x.exp()
        z = x.exp()
        assert "y = x.exp()" in "".join(y.grad_fn.metadata["traceback_"])
        assert "traceback_" not in z.grad_fn.metadata


def test_anomaly_mode_without_forward_record():
    for lib in (tl, torch):
        class Fails(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                raise RuntimeError("late failure")

        y = Fails.apply(lib.ones(1, requires_grad=True))
        with pytest.warns(UserWarning, match="Error detected in FailsBackward. No forward pass information available"):
            with lib.autograd.set_detect_anomaly(True):
                with pytest.raises(RuntimeError, match="late failure"):
                    y.backward()


def test_anomaly_mode_check_nan():
    for lib in (tl, torch):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                y = (x * 0).log() * 0
                with pytest.raises(RuntimeError, match="Function 'LogBackward0' returned nan values in its 0th "
                                                       "output."):
                    y.sum().backward()
        assert str(caught[-1].message).startswith("Error detected in LogBackward0. Traceback of forward call")
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            with lib.autograd.detect_anomaly(check_nan=False):
                y = (x * 0).log() * 0
                y.sum().backward()
        assert np.isnan(x.grad.tolist()).all()
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()


def test_set_detect_anomaly_is_a_function_and_a_context_manager():
    for lib in (tl, torch):
        lib.autograd.set_detect_anomaly(True, check_nan=False)
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        with lib.autograd.set_detect_anomaly(False):
            assert not lib.is_anomaly_enabled()
        assert lib.is_anomaly_enabled()
        lib.autograd.set_detect_anomaly(False)
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()


# ---- allow_mutation_on_saved_tensors and the compile/stream switches ------------------------

def test_allow_mutation_on_saved_tensors():
    def run(lib):
        G = lib.autograd.graph
        a = lib.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        with G.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b ** 2).sum() + (b.exp() * a).sum()
            b.sin_()  # without the block this fails the backward below
            out.backward()
        with G.allow_mutation_on_saved_tensors():
            y = (a * 2).exp()
        with pytest.raises(AssertionError, match="Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                                                 "contextin which the graph was originally recorded."):
            y.sum().backward()
        with pytest.raises(RuntimeError, match="allow_mutation_on_saved_tensors contexts cannot be nested"):
            with G.allow_mutation_on_saved_tensors(), G.allow_mutation_on_saved_tensors():
                pass
        return a.grad.tolist(), b.tolist()

    ours, theirs = both(run)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


@pytest.mark.parametrize("budget, error", [(True, TypeError), (2.0, ValueError), (0.5, RuntimeError)])
def test_region_activation_memory_budget_outside_compile(budget, error):
    for lib in (tl, torch):
        with pytest.raises(error, match="region_activation_memory_budget"):
            lib.autograd.graph.region_activation_memory_budget(budget)


def test_stream_switches_accepted():
    for lib in (tl, torch):
        assert lib.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False) is None
        assert lib.autograd.graph.set_override_stale_capture_stream(False) is None


def test_raw_saved_tensor_register_hooks():
    def run(lib):
        calls = []
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        y = x.exp()
        raw = y.grad_fn._raw_saved_result
        assert isinstance(raw, lib.autograd.SavedTensor)
        raw.register_hooks(lambda t: calls.append("pack") or t * 1, lambda t: calls.append("unpack") or t)
        with pytest.raises(RuntimeError, match="whose hooks have already been set. Hint: only one pair of hooks"):
            raw.register_hooks(lambda t: t, lambda t: t)
        seen = y.grad_fn._saved_result
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor after it has been freed"):
            raw.register_hooks(lambda t: t, lambda t: t)
        z = x.sin()
        z.grad_fn._raw_saved_self.register_hooks(lambda t: 1, lambda t: 1)
        with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
            z.sum().backward()
        return calls, seen.tolist(), x.grad.tolist()

    assert run(tl) == run(torch)
