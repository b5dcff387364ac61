"""spawn / start_processes: run fn(i, *args) in nprocs processes and report the first failure."""

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import traceback
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessRaisedException", "ProcessExitedException", "spawn",
           "start_processes"]


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process ended with an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process ended with a non-zero exit code or by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _run(fn, i, args, error_file):
    """The entry point of process i: the traceback of an exception goes to error_file for the parent."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping us
    except Exception:
        with open(error_file, "w") as fh:
            fh.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes start_processes started; join() waits for them and raises on the first failure."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        for p in self.processes:
            p.join(timeout)

    def join(self, timeout=None, grace_period=None):
        """Waits (up to `timeout` seconds) for a process to end. True once all have ended well;
        False while some still run. When one failed, stops the others (after `grace_period`)
        and raises ProcessRaisedException (with its traceback) or ProcessExitedException."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()
        return self._raise_failure(failed)

    def _raise_failure(self, index):
        process, error_file = self.processes[index], self.error_files[index]
        if os.path.exists(error_file):
            with open(error_file) as fh:
                trace = fh.read()
            os.unlink(error_file)
            raise ProcessRaisedException(f"\n\n-- Process {index:d} terminated with the following error:\n{trace}",
                                         index, process.pid)
        code = process.exitcode
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            raise ProcessExitedException(f"process {index:d} terminated with signal {name}", index, process.pid,
                                         code, name)
        raise ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", index, process.pid, code)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts nprocs processes running fn(i, *args) with the given start method; with join=True
    waits for all of them (raising on the first failure), else returns their ProcessContext."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        # a path for the traceback, created by the child only when it fails
        error_file = os.path.join(tempfile.gettempdir(), f"torchlite-errorfile-{os.getpid()}-{id(processes)}-{i}")
        process = ctx.Process(target=_run, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """start_processes with the "spawn" start method (another start_method warns and is ignored)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
