"""Autograd anomaly mode: while it is on, every graph Node records the Python traceback of the
forward call that created it (in its metadata, under "traceback_"); when a Node's backward
fails the engine warns with that traceback, and with check_nan a gradient holding NaN raises
RuntimeError naming the Node. The switch is process-wide and lives in C++
(torchlite/csrc/autograd/anomaly_mode.h).
"""

import warnings

from torchlite._C import _autograd as _ag

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly:
    """Context manager that turns anomaly mode on (check_nan: also fail on NaN gradients)."""

    def __init__(self, check_nan=True) -> None:
        self.prev = _ag.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _ag.is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        _ag._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        _ag._set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly mode on or off at once; as a context manager, restores it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _ag.is_anomaly_enabled()
        self.prev_check_nan = _ag.is_anomaly_check_nan_enabled()
        _ag._set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _ag._set_anomaly_enabled(self.prev, self.prev_check_nan)
