"""torchlite.futures.Future against torch.futures.Future's behaviour."""

import pytest

import torchlite
from torchlite.futures import Future, collect_all, wait_all


def test_set_result_then_and_callbacks():
    fut = Future()
    assert not fut.done()
    chained = fut.then(lambda f: f.value() * 2)
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    fut.set_result(torchlite.tensor([1.0, 2.0]))
    assert fut.done() and chained.done() and seen[0].tolist() == [1.0, 2.0]
    assert chained.wait().tolist() == [2.0, 4.0]
    late = []
    fut.add_done_callback(lambda f: late.append(1))  # on a completed future: runs at once
    assert late == [1]
    with pytest.raises(RuntimeError, match="only be marked completed once"):
        fut.set_result(1)


def test_errors_propagate_through_then():
    fut = Future()
    chained = fut.then(lambda f: f.value() + 1)
    fut.set_exception(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        chained.wait()
    broken = Future()
    failing = broken.then(lambda f: 1 / 0)
    broken.set_result(1)
    with pytest.raises(ZeroDivisionError):
        failing.value()
    with pytest.raises(TypeError, match="expects an exception"):
        Future().set_exception("not an exception")


def test_waiting_on_a_future_nothing_completes_raises():
    with pytest.raises(RuntimeError, match="nothing will complete"):
        Future().wait()
    with pytest.raises(RuntimeError, match="not completed yet"):
        Future().value()


def test_collect_all_and_wait_all():
    a, b = Future(), Future()
    both = collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_result(2)
    assert [f.value() for f in both.wait()] == [1, 2]
    assert wait_all([a, b]) == [1, 2]
    with pytest.raises(TypeError, match="list of torchlite.futures.Future"):
        collect_all([1])
