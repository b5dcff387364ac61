"""torch.profiler.profile: the scheduled profiler (wait, warm up, record, hand the trace over)
on top of torchlite.autograd.profiler's recording sessions."""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings

from torchlite.autograd import profiler as _autograd_profiler

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """Activity groups PyTorch can trace. torchlite records the CPU side (operators, autograd
    Nodes, record_function scopes) whichever are asked for; GPU kernels are not traced."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a scheduled profiler does during a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    import torchlite

    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if torchlite.cuda.is_available() else set())


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """A schedule for `profile(schedule=...)`: after `skip_first` steps, cycles of `wait` idle
    steps, `warmup` steps and `active` recorded steps, the last of which hands the trace to
    on_trace_ready; `repeat` cycles (0: no limit). With `skip_first_wait`, the first cycle does
    not wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
                         f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
                         f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False,
                              use_python_export: bool = False):
    """An on_trace_ready handler that writes each trace to `dir_name` as
    `<worker_name>.<time ns>.pt.trace.json[.gz]` (worker_name: host_pid by default), the layout
    TensorBoard's profiler plugin reads."""

    def handler_fn(prof) -> None:
        try:
            os.makedirs(dir_name, exist_ok=True)
        except OSError as e:
            raise RuntimeError(f"Can't create directory: {dir_name}") from e
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


_STEP_NAME = "ProfilerStep#"


class profile:
    """Profiler context manager (PyTorch's torch.profiler.profile). Without a schedule it records
    everything between start and stop; with one, `step()` marks step boundaries, each step is a
    "ProfilerStep#<n>" event, and the schedule decides which steps are recorded and when the
    trace is handed to `on_trace_ready(prof)`. Events come from the thread that started it."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        if not self.activities:
            raise ValueError("profile: no profiler activities given (use ProfilerActivity.CPU)")
        for a in self.activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile: activities must be ProfilerActivity values, got {a!r}")
        _autograd_profiler._warn_unsupported(profile_memory=profile_memory, with_flops=with_flops,
                                             with_modules=with_modules, experimental_config=experimental_config,
                                             execution_trace_observer=execution_trace_observer)
        self.schedule = schedule if schedule is not None else _always_record
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.profiler = None
        self.step_rec_fn = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self) -> None:
        self._close_step()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """Ends the current step and starts the next one."""
        self._close_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._open_step()

    def _open_step(self):
        if self.record_steps:
            self.step_rec_fn = _autograd_profiler.record_function(_STEP_NAME + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _close_step(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    # What each change of action does (PyTorch's table); `None`: the profiler stops.
    def _transit(self, prev, current):
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev == ProfilerAction.RECORD_AND_SAVE and current is not None:
            self._stop_trace()
            self._trace_ready()
            if current != ProfilerAction.NONE:
                self._prepare_trace()
            if current in recording:
                self._start_trace()
        elif prev in recording and current in (None, ProfilerAction.NONE, ProfilerAction.WARMUP):
            if current is not None:
                warnings.warn(f"Incorrect schedule: RECORD followed by {current.name}", stacklevel=3)
            self._stop_trace()
            if current is None:
                self._trace_ready()
        elif prev in (ProfilerAction.NONE, ProfilerAction.WARMUP) and current in recording:
            if prev == ProfilerAction.NONE:
                self._prepare_trace()
            self._start_trace()
        elif prev == ProfilerAction.NONE and current == ProfilerAction.WARMUP:
            self._prepare_trace()
        elif prev == ProfilerAction.WARMUP and current in (None, ProfilerAction.NONE):
            if current is not None:
                warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
            self._start_trace()
            self._stop_trace()

    def _prepare_trace(self):
        if self.profiler is None or not self.acc_events:
            self.profiler = _autograd_profiler.profile(record_shapes=self.record_shapes, with_stack=self.with_stack,
                                                       acc_events=self.acc_events)

    def _start_trace(self):
        self.profiler._start_trace()

    def _stop_trace(self):
        self.profiler._stop_trace()

    def _trace_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _finished(self):
        if self.profiler is None or self.profiler.function_events is None:
            raise RuntimeError("profile: no trace recorded yet (the profiler has not stopped a recording)")
        return self.profiler

    def events(self):
        """The recorded events (an EventList of FunctionEvent), in order of start."""
        return self._finished().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):
        return self._finished().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False):
        self._finished().export_chrome_trace(path)
