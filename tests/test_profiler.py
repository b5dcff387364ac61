"""torchlite.profiler (Note [Profiler hook]): operator and autograd-Node events named as PyTorch
names them, nesting under record_function, schedules stepping as PyTorch's do, the Chrome trace's
JSON, key_averages and its table, nothing recorded while no profiler runs, and the per-thread
sessions."""

import gzip
import inspect
import json
import os
import threading
import warnings

import pytest

import torchlite as tl
from torchlite import _C
from torchlite.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

try:
    import torch
except ImportError:  # the comparisons with PyTorch skip; the rest runs
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _program(lib):
    """A small model's forward (under record_function "forward") and backward."""
    lib.manual_seed(0)
    x = lib.randn(4, 3, requires_grad=True)
    w = lib.randn(3, 5, requires_grad=True)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        with lib.profiler.record_function("forward"):
            y = (x.mm(w) + 1).relu().mul(w.sum()).sum()
        y.backward()
    return prof


def _children(events, name):
    return [e.name for e in events if e.cpu_parent is not None and e.cpu_parent.name == name]


def _top(events):
    return [e.name for e in events if e.cpu_parent is None]


@needs_torch
def test_forward_and_backward_events_match_pytorch():
    ours, theirs = _program(tl).events(), _program(torch).events()
    # The operators the program calls, in order, under its record_function.
    assert _children(ours, "forward") == _children(theirs, "forward") == [
        "aten::mm", "aten::add", "aten::relu", "aten::sum", "aten::mul", "aten::sum"]
    # One evaluate_function event per Node, around the Node's own event.
    nodes = [n for n in _top(theirs) if n.startswith("autograd::engine::evaluate_function: ")]
    assert sorted(n for n in _top(ours) if n.startswith("autograd::engine::")) == sorted(nodes)
    for e in ours:  # (then the gradients flowing out are summed into the next Nodes' inputs)
        if e.name.startswith("autograd::engine::evaluate_function: "):
            assert e.cpu_children[0].name == e.name.split(": ", 1)[1]
    # The backward operators run inside their Node's event.
    assert {"aten::mm"} <= set(_children(ours, "MmBackward0"))


def test_sequence_numbers_link_forward_operators_to_their_nodes():
    events = _program(tl).events()
    forward = {e.name: e.sequence_nr for e in events if e.cpu_parent is not None and e.cpu_parent.name == "forward"}
    nodes = {e.name: e.sequence_nr for e in events if e.kind == 1 and not e.name.startswith("autograd::")}
    assert nodes["MmBackward0"] == forward["aten::mm"] >= 0
    assert nodes["ReluBackward0"] == forward["aten::relu"]
    assert nodes["torch::autograd::AccumulateGrad"] == -1
    assert nodes["MmBackward0"] < nodes["ReluBackward0"]


@needs_torch
def test_input_shapes_and_types_match_pytorch():
    def shapes(lib):
        a, b = lib.ones(2, 3), lib.ones(3, 4)
        with lib.profiler.profile(record_shapes=True) as prof:
            lib.mm(a, b)
            lib.add(a, 1.5)
            a.relu()
        return [(e.name, e.input_shapes) for e in prof.events() if e.cpu_parent is None]

    assert shapes(tl) == shapes(torch) == [
        ("aten::mm", [[2, 3], [3, 4]]), ("aten::add", [[2, 3], [], []]), ("aten::relu", [[2, 3]])]
    with profile(record_shapes=True) as prof:
        tl.add(tl.ones(2, dtype=tl.float64), 1)
        tl.cat([tl.ones(2), tl.ones(3)])
    add, cat = [e for e in prof.events() if e.name in ("aten::add", "aten::cat") and e.cpu_parent is None]
    assert add.input_types == ["double", "Scalar", "Scalar"]
    assert (cat.input_shapes, cat.input_types) == ([[[2], [3]], []], ["TensorList", "Scalar"])
    with profile() as prof:  # without record_shapes, none
        tl.mm(tl.ones(2, 2), tl.ones(2, 2))
    assert prof.events()[0].input_shapes == []


def test_record_function_nests_operators_and_scopes():
    @record_function("decorated")
    def step(t):
        return t * 2

    a = tl.ones(3)
    with profile() as prof:
        with record_function("outer"):
            with record_function("inner"):
                a.neg()
            step(a)
        a.exp()
    events = prof.events()
    assert [e.name for e in events if e.name != "aten::mul" or e.cpu_parent.name == "decorated"] == [
        "outer", "inner", "aten::neg", "decorated", "aten::mul", "aten::exp"]
    assert _children(events, "outer") == ["inner", "decorated"]
    assert _children(events, "inner") == ["aten::neg"] and _children(events, "decorated") == ["aten::mul"]
    assert all(e.is_user_annotation == (e.name in ("outer", "inner", "decorated")) for e in events)
    for e in events:  # a child's time lies within its parent's
        if e.cpu_parent is not None:
            assert e.cpu_parent.time_range.start <= e.time_range.start <= e.time_range.end <= e.cpu_parent.time_range.end


def test_custom_operators_are_events():
    """A torchlite.library operator's call is an event enclosing the operators its kernel runs
    (Note [Operator call hook]), and the hook is only installed while a session records."""
    from torchlite import library

    @library.custom_op("tlproftest::twice", mutates_args=())
    def twice(x: tl.Tensor) -> tl.Tensor:
        return x * 2

    a = tl.ones(3)
    assert not library._op_call_hooks
    with profile() as prof:
        tl.ops.tlproftest.twice(a)
    assert not library._op_call_hooks
    events = prof.events()
    assert events[0].name == "tlproftest::twice" and events[0].cpu_parent is None
    assert _children(events, "tlproftest::twice") == ["aten::mul"]


def test_operators_called_by_operators_nest():
    with profile() as prof:
        tl.nn.functional.linear(tl.ones(2, 3), tl.ones(4, 3), tl.ones(4))
    linear = [e for e in prof.events() if e.name == "aten::linear"]
    assert len(linear) == 1 and linear[0].cpu_parent is None and linear[0].cpu_children
    assert all(c.cpu_parent is linear[0] for c in linear[0].cpu_children)


def _scheduled_run(lib, sched, steps, path):
    """Which step numbers on_trace_ready saw, the steps each trace held and the step events."""
    seen = []

    def ready(p):
        p.export_chrome_trace(str(path))
        with open(path) as f:
            steps = sorted(e["name"] for e in json.load(f)["traceEvents"] if e["name"].startswith("ProfilerStep#"))
        seen.append((p.step_num, steps, sorted(e.name for e in p.events() if e.name.startswith("ProfilerStep"))))

    a = lib.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(schedule=sched, on_trace_ready=ready) as p:
            for _ in range(steps):
                a.add(1)
                p.step()
    return seen


@needs_torch
@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                                  dict(wait=0, warmup=1, active=1, repeat=0),
                                  dict(wait=2, warmup=1, active=3, repeat=1, skip_first_wait=1)])
def test_schedule_steps_match_pytorch(args, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = schedule(**args), torch.profiler.schedule(**args)
    assert [ours(i).name for i in range(14)] == [theirs(i).name for i in range(14)]
    assert _scheduled_run(tl, ours, 12, tmp_path / "a.json") == _scheduled_run(torch, theirs, 12, tmp_path / "b.json")


def test_schedule_records_only_active_steps(tmp_path):
    seen = _scheduled_run(tl, schedule(wait=1, warmup=1, active=2, repeat=1), 6, tmp_path / "t.json")
    assert seen == [(4, ["ProfilerStep#2", "ProfilerStep#3"], ["ProfilerStep*", "ProfilerStep*"])]
    assert schedule(wait=0, warmup=1, active=1)(1) == ProfilerAction.RECORD_AND_SAVE


def test_chrome_trace_json(tmp_path):
    prof = _program(tl)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.events())
    for e in complete:
        assert {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"} <= set(e)
        assert isinstance(e["ts"], float) and e["dur"] >= 0 and e["pid"] == os.getpid()
        assert e["tid"] == threading.get_native_id()
    by_name = {}
    for e in complete:  # the first of each name: the forward aten::mm
        by_name.setdefault(e["name"], e)
    assert by_name["forward"]["cat"] == "user_annotation" and by_name["aten::mm"]["cat"] == "cpu_op"
    assert by_name["aten::mm"]["args"]["Input Dims"] == [[4, 3], [3, 5]]
    assert by_name["aten::mm"]["args"]["Input type"] == ["float", "float"]
    assert by_name["MmBackward0"]["args"]["Sequence number"] == by_name["aten::mm"]["args"]["Sequence number"]
    fwd = by_name["forward"]
    assert fwd["ts"] <= by_name["aten::mm"]["ts"] and by_name["aten::mm"]["ts"] + by_name["aten::mm"]["dur"] <= (
        fwd["ts"] + fwd["dur"])
    assert {e["name"] for e in trace["traceEvents"] if e["ph"] == "M"} >= {"process_name", "thread_name"}


def test_tensorboard_trace_handler_writes_one_file_per_trace(tmp_path):
    handler = tl.profiler.tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w0", use_gzip=True)
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as p:
        for _ in range(5):
            tl.ones(2).neg()
            p.step()
    files = sorted(os.listdir(tmp_path / "tb"))
    assert len(files) == 2 and all(f.startswith("w0.") and f.endswith(".pt.trace.json.gz") for f in files)
    with gzip.open(tmp_path / "tb" / files[0], "rt") as f:
        names = {e["name"] for e in json.load(f)["traceEvents"]}
    assert {"aten::neg", "ProfilerStep#1"} <= names


def _averages_program(lib):
    a, b = lib.ones(2, 2), lib.ones(3)
    with lib.profiler.profile(record_shapes=True) as prof:
        for _ in range(3):
            a.add(a)
        b.add(b)
        a.mul(a)
        a.mul(a)
    return prof


@needs_torch
def test_key_averages_counts_match_pytorch():
    def counts(lib, by_shape):
        return sorted((e.key, str(e.input_shapes) if by_shape else "", e.count)
                      for e in _averages_program(lib).key_averages(group_by_input_shape=by_shape))

    assert counts(tl, False) == counts(torch, False) == [("aten::add", "", 4), ("aten::mul", "", 2)]
    assert counts(tl, True) == counts(torch, True)
    avg = {e.key: e for e in _averages_program(tl).key_averages()}
    assert avg["aten::add"].cpu_time == pytest.approx(avg["aten::add"].cpu_time_total / 4)


def test_table_format():
    prof = _averages_program(tl)
    table = prof.key_averages().table(sort_by="count", row_limit=1)
    lines = table.splitlines()
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
                                "CPU", "time", "avg", "#", "of", "Calls"]
    assert len(lines) == 6 and lines[3].split()[0] == "aten::add" and lines[3].split()[-1] == "4"
    assert lines[-1].startswith("Self CPU time total: ") and lines[-1].endswith("s")
    shaped = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    assert "Input Shapes" in shaped and "[[2, 2], [2, 2], []]" in shaped and "[[3], [3], []]" in shaped
    rows = prof.key_averages().table(time_unit="us").splitlines()[3:-2]
    assert sum(float(r.split()[1].rstrip("%")) for r in rows) == pytest.approx(100, abs=0.02)
    assert all(r.split()[2].endswith("us") for r in rows)
    top = _program(tl).events().table(top_level_events_only=True)
    assert "forward" in top and "aten::mm" not in top
    assert tl.autograd.profiler_util.EventList().table() == ""
    with pytest.raises(AttributeError, match="cannot sort by 'no_such'"):
        prof.key_averages().table(sort_by="no_such")


def test_with_stack_names_the_user_frame():
    with profile(with_stack=True) as prof:
        tl.ones(2).neg(); line = inspect.currentframe().f_lineno  # noqa: E702
    (neg,) = [e for e in prof.events() if e.name == "aten::neg"]
    assert neg.stack[0].startswith(f"{__file__}({line}): test_with_stack_names_the_user_frame")
    table = prof.key_averages(group_by_stack_n=2).table()
    assert "Source Location" in table and f"{os.path.basename(__file__)}({line})" in table


def test_nothing_recorded_while_inactive():
    a = tl.ones(3, requires_grad=True)
    with record_function("outside"):
        (a * 2).sum().backward()
    assert not _C._profiler_enabled_on_this_thread()
    with profile() as prof:
        pass
    assert len(prof.events()) == 0
    with profile() as prof:
        tl.ones(1)
    with record_function("after"):
        a.neg()
    assert _top(prof.events()) == ["aten::ones"] and "aten::neg" not in {e.name for e in prof.events()}


def test_sessions_are_per_thread():
    barrier = threading.Barrier(3)
    results = {}

    def worker(name, op):
        barrier.wait()
        with profile() as prof:
            barrier.wait()
            for _ in range(50):
                op(tl.ones(4))
            barrier.wait()
        results[name] = set(_top(prof.events())) - {"aten::ones"}

    def bystander():  # runs operators while the others record, with no profiler of its own
        barrier.wait()
        barrier.wait()
        for _ in range(50):
            tl.ones(4).exp()
        barrier.wait()

    threads = [threading.Thread(target=worker, args=("neg", tl.neg)),
               threading.Thread(target=worker, args=("abs", tl.abs)), threading.Thread(target=bystander)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"neg": {"aten::neg"}, "abs": {"aten::abs"}}


def test_bad_uses_raise():
    with profile():
        with pytest.raises(RuntimeError, match="already profiling"):
            with profile():
                pass
    with pytest.raises(ValueError, match="active=0"):
        schedule(wait=1, warmup=1, active=0)
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profile(activities=["cpu"])
    with pytest.raises(TypeError, match="name must be a str"):
        record_function(3)
    with pytest.raises(RuntimeError, match="no trace recorded"):
        profile().events()
    with pytest.warns(UserWarning, match="ignoring profile_memory"):
        profile(profile_memory=True)


def test_autograd_profiler_alias():
    from torchlite.autograd import profiler as legacy

    assert legacy.record_function is record_function
    with legacy.profile(record_shapes=True) as prof:
        tl.ones(2).neg()
    assert _top(prof.function_events) == ["aten::ones", "aten::neg"]
    assert "aten::neg" in prof.table() and prof.self_cpu_time_total > 0
    with legacy.profile(enabled=False) as off:
        tl.ones(2)
    assert off.function_events is None
    assert ProfilerActivity.CPU in tl.profiler.supported_activities()


def _params(obj, dotted):
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return [(p.name, p.kind, p.default) for p in inspect.signature(obj).parameters.values()]


@needs_torch
@pytest.mark.parametrize("name", ["profile.__init__", "schedule", "tensorboard_trace_handler",
                                  "record_function.__init__", "profile.key_averages", "profile.export_chrome_trace"])
def test_signatures_match_pytorch(name):
    assert _params(tl.profiler, name) == _params(torch.profiler, name)


@needs_torch
@pytest.mark.parametrize("name", ["profile.__init__", "profile.key_averages", "profile.table",
                                  "EventList.table", "EventList.key_averages"])
def test_autograd_profiler_signatures_match_pytorch(name):
    assert _params(tl.autograd.profiler, name) == _params(torch.autograd.profiler, name)
