"""torch.futures: Future, the value of an asynchronous operation (a collective started with
async_op=True hands one out through Work.get_future(); DDP communication hooks return one).

A Future is completed by set_result/set_exception, or, for a communication's Future, by the
communication finishing: done() and wait() drive it (MPI progresses a request only when asked).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """A value that becomes available later; then() chains a callback onto it."""

    def __init__(self, *, devices=None):
        self._state = None  # ("value", result) or ("error", exception) once completed
        self._callbacks = []
        self._poll = None  # completes self without blocking when the operation is done
        self._block = None  # completes self, waiting for the operation

    def done(self) -> bool:
        if self._state is None and self._poll is not None:
            self._poll()
        return self._state is not None

    def _run_until_done(self):
        if self._state is None:
            if self._block is None:
                raise RuntimeError("Future.wait: nothing will complete this future (call set_result first)")
            self._block()

    def wait(self) -> T:
        self._run_until_done()
        return self.value()

    def value(self) -> T:
        if self._state is None:
            raise RuntimeError("Future.value: the future is not completed yet")
        kind, result = self._state
        if kind == "error":
            raise result
        return result

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A Future of callback(self), run once self completes."""
        child = Future()
        child._poll, child._block = self.done, self._run_until_done

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001  (the chained future carries the error)
                child.set_exception(e)
            else:
                child.set_result(result)
        self.add_done_callback(run)
        return child

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        if self._state is not None:
            callback(self)
        else:
            self._callbacks.append(callback)

    def set_result(self, result: T) -> None:
        self._complete(("value", result))

    def set_exception(self, result: Any) -> None:
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, got {type(result).__name__}")
        self._complete(("error", result))

    def _complete(self, state):
        if self._state is not None:
            raise RuntimeError("Future can only be marked completed once.")
        self._state = state
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)


def collect_all(futures: list[Future]) -> Future[list[Future]]:
    """A Future of the list of futures, completed when all of them are."""
    if not isinstance(futures, (list, tuple)) or not all(isinstance(f, Future) for f in futures):
        raise TypeError("collect_all expects a list of torchlite.futures.Future")
    futures = list(futures)
    combined = Future()

    def poll():
        if all(f.done() for f in futures) and combined._state is None:
            combined.set_result(futures)

    def block():
        for f in futures:
            f._run_until_done()
        poll()
    combined._poll, combined._block = poll, block
    return combined


def wait_all(futures: list[Future]) -> list:
    """Waits for every future and returns their values (raising the first error)."""
    return [fut.wait() for fut in collect_all(futures).wait()]
