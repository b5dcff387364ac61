"""torch.autograd.profiler: the profiler's recording session (`profile`) and user scopes
(`record_function`). torchlite.profiler builds its scheduled profiler on this one.

Events come from the C++ profiler (Note [Profiler hook], torchlite/csrc/profiler/profiler.h):
every operator call, every autograd Node a backward pass applies, every record_function block,
on the thread that started the profiler."""

from __future__ import annotations

import contextlib
import os
import threading
import warnings

from torchlite import _C, library
from torchlite.autograd.profiler_util import EventList, FunctionEvent

__all__ = ["EventList", "FunctionEvent", "profile", "record_function"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_frames(stack):
    """The frames of a Python stack (innermost first) outside torchlite's own package: where the
    user's code called the operator."""
    return [f for f in stack if not f.startswith(_PACKAGE_DIR)]


def _warn_unsupported(**options):
    on = [name for name, value in options.items() if value]
    if on:
        warnings.warn(f"torchlite's profiler records CPU operator events only; ignoring {', '.join(on)}",
                      stacklevel=3)


_profiling_threads: set[int] = set()  # threads with a recording session open


def _custom_op_event(qualname, args, kwargs):
    """A torchlite.library operator's call as an event (Note [Operator call hook]); hooked in only
    while a session records, so unprofiled custom-op calls stay on their fast path."""
    return record_function(qualname)


class profile:
    """Records the operators, autograd Nodes and record_function scopes run on this thread
    between __enter__ and __exit__ (PyTorch's torch.autograd.profiler.profile)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.acc_events = acc_events
        if enabled:
            _warn_unsupported(use_cuda=use_cuda, use_device=use_device, use_cpu=not use_cpu, with_flops=with_flops,
                              profile_memory=profile_memory, with_modules=with_modules,
                              experimental_config=experimental_config, activity_filters=activity_filters)
        self.function_events = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start_trace()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop_trace()
        self.entered = False

    def _start_trace(self):
        _C._profiler_enable(self.record_shapes, self.with_stack)
        _profiling_threads.add(threading.get_ident())
        if _custom_op_event not in library._op_call_hooks:
            library._op_call_hooks.append(_custom_op_event)

    def _stop_trace(self):
        raw = _C._profiler_disable()
        _profiling_threads.discard(threading.get_ident())
        if not _profiling_threads and _custom_op_event in library._op_call_hooks:
            library._op_call_hooks.remove(_custom_op_event)
        if self.function_events is None or not self.acc_events:
            self.function_events = EventList()
        first_id = len(self.function_events) + 1
        added = []
        for i, (name, kind, start, end, tid, seq, parent, shapes, types, stack) in enumerate(raw):
            e = FunctionEvent(first_id + i, name, tid, start / 1e3, end / 1e3, kind=kind, sequence_nr=seq,
                              input_shapes=shapes, input_types=types, stack=_user_frames(stack))
            if parent >= 0:
                e.cpu_parent = added[parent]
                added[parent].cpu_children.append(e)
            added.append(e)
        self.function_events.extend(added)

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        self._check_finished()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_src_column_width=max_src_column_width,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    def export_chrome_trace(self, path):
        self._check_finished()
        self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table()


class record_function(contextlib.ContextDecorator):
    """An event named `name` around a block (`with record_function("fwd"):`) or each call of a
    decorated function; the operators run inside nest under it. Records nothing while no
    profiler runs on this thread. `args` is accepted for PyTorch's signature and not recorded."""

    def __init__(self, name: str, args: str | None = None):
        if not isinstance(name, str):
            raise TypeError(f"record_function(): name must be a str, got {type(name).__name__}")
        self.name = name
        self.args = args
        self._handles: list[int] = []  # one per open block: a decorated function may recurse

    def __enter__(self):
        self._handles.append(_C._record_function_enter(self.name))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _C._record_function_exit(self._handles.pop())
