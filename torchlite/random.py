"""torchlite.random: the default CPU generator's seed and state, and fork_rng.

torchlite's generator is an mt19937_64, so a state from get_rng_state differs from PyTorch's in
size and content: states move between torchlite runs, not between the two libraries.
"""

import contextlib
import random as _py_random

import numpy as np

from torchlite import _C
from torchlite._C import initial_seed, manual_seed

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state",
           "thread_safe_generator"]


def _generator_get_state(self):
    """g.get_state(): the generator's state as a uint8 tensor, for set_state."""
    return _C.tensor(np.frombuffer(self._get_state_bytes(), dtype=np.uint8).copy(), dtype=_C.uint8)


def _generator_set_state(self, new_state):
    """g.set_state(new_state): restores a state get_state returned; returns g."""
    if not isinstance(new_state, _C.Tensor) or new_state.dtype != _C.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    self._set_state_bytes(new_state.contiguous().numpy(force=True).tobytes())
    return self


def _generator_seed(self):
    """g.seed(): seeds the generator from a nondeterministic source; returns the seed."""
    s = _py_random.SystemRandom().getrandbits(63)
    self.manual_seed(s)
    return s


_C.Generator.get_state = _generator_get_state
_C.Generator.set_state = _generator_set_state
_C.Generator.seed = _generator_seed


def get_rng_state():
    """get_rng_state(): the default CPU generator's state, as a uint8 tensor.

    >>> s = torchlite.get_rng_state(); a = torchlite.rand(2); torchlite.set_rng_state(s)
    >>> bool((torchlite.rand(2) == a).all())
    True
    """
    return _C.default_generator().get_state()


def set_rng_state(new_state):
    """set_rng_state(new_state): restores the default CPU generator to a state get_rng_state returned."""
    _C.default_generator().set_state(new_state)


def seed():
    """seed(): seeds the default generator from a nondeterministic source; returns the seed.

    >>> isinstance(torchlite.seed(), int)
    True
    """
    return _C.default_generator().seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """fork_rng(devices=None, enabled=True, device_type=None): a context in which random draws
    leave no trace: on exit the CPU generator (and each listed device's, where the device module
    keeps generator state) is back in the state it had on entry. device_type defaults to "cuda";
    enabled=False makes it a no-op. (_caller and _devices_kw only name the caller in PyTorch's
    many-devices warning, which cannot arise with torchlite's device modules.)

    >>> with torchlite.random.fork_rng():
    ...     _ = torchlite.rand(3)
    """
    if device_type == "meta" or not enabled:
        yield
        return
    from torchlite._global_state import get_device_module

    device_mod = get_device_module(device_type or "cuda")
    get_state = getattr(device_mod, "get_rng_state", None)
    if devices is None:
        devices = range(device_mod.device_count()) if get_state else ()
    devices = list(devices)  # a generator would be exhausted after saving
    cpu_state = get_rng_state()
    device_states = [get_state(d) for d in devices] if get_state else []
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states):
            device_mod.set_rng_state(state, d)


def thread_safe_generator():
    """thread_safe_generator(): the generator a DataLoader thread worker should draw from, or None
    to use the default generator. torchlite's DataLoader workers are processes, each with its own
    seeded default generator, so this is always None."""
    return None
