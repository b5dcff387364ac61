"""What a profiler run recorded: events, their averages by key, the summary table and the Chrome
trace (the event model of torch.autograd.profiler_util). Times are microseconds."""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]

# Kinds of event, as the C++ profiler numbers them (Note [Profiler hook]).
_OPERATOR, _AUTOGRAD_NODE, _USER_SCOPE = 0, 1, 2
_STEP_PREFIX = "ProfilerStep#"


class Interval:
    """A time range in microseconds."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start}, end={self.end})"


class FunctionEvent:
    """One recorded operator call, autograd Node or record_function scope."""

    def __init__(self, id, name, thread, start_us, end_us, *, kind=_OPERATOR, sequence_nr=-1,
                 input_shapes=None, input_types=None, stack=None):
        self.id = id
        # Every step of a scheduled profiler is "ProfilerStep*" here, as in PyTorch; the trace
        # keeps each step's own name ("ProfilerStep#3").
        self.trace_name = name
        self.name = _STEP_PREFIX[:-1] + "*" if name.startswith(_STEP_PREFIX) else name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.kind = kind
        self.sequence_nr = sequence_nr
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_types = input_types if input_types is not None else []
        self.stack = stack if stack is not None else []
        self.cpu_parent = None
        self.cpu_children = []
        self.count = 1

    @property
    def key(self):
        return self.name

    @property
    def is_user_annotation(self):
        return self.kind == _USER_SCOPE

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time_total={self.cpu_time_total:.3f}us sequence_nr={self.sequence_nr} "
                f"input_shapes={self.input_shapes} cpu_parent={getattr(self.cpu_parent, 'name', None)}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes or stack when grouped by them) summed."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.cpu_parent = None
        self.is_user_annotation = False

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.cpu_parent = other.cpu_parent
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg) with the profiler's reports."""

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One FunctionEventAvg per operator name (and input shapes, and the innermost
        `group_by_stack_n` stack frames, when asked), in order of first appearance."""
        groups: dict[tuple, FunctionEventAvg] = defaultdict(FunctionEventAvg)
        for e in self:
            key = (e.key,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            groups[key].add(e)
        averages = EventList(groups.values())
        for avg in averages:  # what the key does not hold is not shown
            avg.input_shapes = avg.input_shapes if group_by_input_shapes else []
            avg.stack = avg.stack[:group_by_stack_n]
        return averages

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The summary table PyTorch prints: one row per event (per key, for key_averages()),
        sorted by the named attribute (largest first), at most `row_limit` rows."""
        return _build_table(self, sort_by, row_limit, max_src_column_width, max_name_column_width,
                            max_shapes_column_width, header, top_level_events_only, time_unit)

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (JSON object format): complete ("X") events with
        ts/dur in microseconds, one track per thread; opens in Perfetto and chrome://tracing.
        A path ending in .gz is written gzip-compressed."""
        _write_chrome_trace(self, path)


def _format_time(us, unit=None):
    if unit == "s" or (unit is None and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _build_table(events, sort_by, row_limit, max_src_column_width, max_name_column_width,
                 max_shapes_column_width, header, top_level_events_only, time_unit):
    if time_unit not in (None, "s", "ms", "us"):
        raise ValueError(f"table: time_unit must be one of 's', 'ms', 'us' or None, got {time_unit!r}")
    rows = list(events)
    if top_level_events_only:
        rows = [e for e in rows if e.cpu_parent is None]
    if not rows:
        return ""
    if sort_by is not None:
        if not hasattr(rows[0], sort_by):
            raise AttributeError(f"table: cannot sort by {sort_by!r}: events have no such attribute "
                                 "(try cpu_time_total, self_cpu_time_total, cpu_time or count)")
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if row_limit > 0:
        rows = rows[:row_limit]
    self_total = sum(e.self_cpu_time_total for e in events)  # of all events, shown or not

    name_width = max(len(e.key) for e in rows) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    has_shapes = any(e.input_shapes for e in rows)
    has_stack = any(e.stack for e in rows) and isinstance(rows[0], FunctionEventAvg)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * 6
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(min(max(len(str(e.input_shapes)) for e in rows) + 4, max_shapes_column_width))
    if has_stack:
        headers.append("Source Location")
        widths.append(max_src_column_width)

    def line(cells):
        return "".join(f"{_clip(str(c), w):>{w}}  " for c, w in zip(cells, widths))

    rule = "".join("-" * w + "  " for w in widths)
    out = [header] if header else []
    out += [rule, line(headers), rule]
    for e in rows:
        total_pct = e.cpu_time_total / self_total * 100 if self_total else 0.0
        self_pct = e.self_cpu_time_total / self_total * 100 if self_total else 0.0
        cells = [e.key, f"{self_pct:.2f}%", _format_time(e.self_cpu_time_total, time_unit), f"{total_pct:.2f}%",
                 _format_time(e.cpu_time_total, time_unit), _format_time(e.cpu_time_total / e.count, time_unit),
                 e.count]
        if has_shapes:
            cells.append(e.input_shapes)
        stack = list(e.stack or []) if has_stack else []
        if has_stack:
            cells.append(stack[0] if stack else "")
        out.append(line(cells))
        for frame in stack[1:]:  # further frames of the source location, one per line
            out.append(line([""] * (len(widths) - 1) + [frame]))
    out.append(rule)
    out.append(f"Self CPU time total: {_format_time(self_total, time_unit)}")
    return "\n".join(out) + "\n"


def _clip(text, width):
    return text if len(text) <= width else text[: width - 3] + "..."


_CATEGORIES = {_OPERATOR: "cpu_op", _AUTOGRAD_NODE: "cpu_op", _USER_SCOPE: "user_annotation"}


def _write_chrome_trace(events, path):
    pid = os.getpid()
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
             {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}}]
    for tid in sorted({e.thread for e in events}):
        trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": f"thread {tid}"}})
    for e in events:
        args = {"External id": e.id}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = e.input_types
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        trace.append({"ph": "X", "cat": _CATEGORIES[e.kind], "name": e.trace_name, "pid": pid, "tid": e.thread,
                      "ts": e.time_range.start, "dur": e.cpu_time_total, "args": args})
    with (gzip.open(path, "wt") if str(path).endswith(".gz") else open(path, "w")) as f:
        json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace, "traceName": str(path)}, f)
