"""Grad mode switches: no_grad, enable_grad, set_grad_enabled, inference_mode, and the engine
settings set_multithreading_enabled and enforce_grad_layout_policy.

Each is a context manager and a decorator, as in PyTorch. The grad mode state is thread-local
and lives in C++ (torchlite/csrc/autograd/grad_mode.h).
"""

import functools
import inspect
import threading

from torchlite._C import _autograd as _ag

is_grad_enabled = _ag.is_grad_enabled
is_inference_mode_enabled = _ag.is_inference_mode_enabled


class _DecoratorContextManager:
    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError("grad mode decorators cannot decorate classes")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    with self.clone():
                        response = gen.send(request)
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: @no_grad as well as @no_grad()."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disables gradient recording inside the block (or decorated function)."""

    def __enter__(self):
        self.prev = _ag.is_grad_enabled()
        _ag._set_grad_enabled(False)

    def __exit__(self, *exc):
        _ag._set_grad_enabled(self.prev)
        return False


class enable_grad(_NoParamDecoratorContextManager):
    """Enables gradient recording inside the block (e.g. within no_grad)."""

    def __enter__(self):
        self.prev = _ag.is_grad_enabled()
        _ag._set_grad_enabled(True)

    def __exit__(self, *exc):
        _ag._set_grad_enabled(self.prev)
        return False


class _ImmediateSwitch(_DecoratorContextManager):
    """A setting that takes effect when constructed (so it also works as a plain function call)
    and is undone on leaving the block; as a decorator it applies only inside each call.
    Subclasses give the setting's _get and _set."""

    def __init__(self, mode):
        self.prev = self._get()
        self.mode = mode
        self._set(mode)

    @staticmethod
    def _get():
        raise NotImplementedError

    @staticmethod
    def _set(mode):
        raise NotImplementedError

    def __call__(self, orig_func):
        self._set(self.prev)
        return super().__call__(orig_func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        self._set(self.prev)
        return False

    def clone(self):
        return self.__class__(self.mode)


class set_grad_enabled(_ImmediateSwitch):
    """Sets grad mode to `mode`; takes effect immediately (also usable as a function)."""

    def __init__(self, mode: bool):
        super().__init__(bool(mode))

    _get = staticmethod(_ag.is_grad_enabled)
    _set = staticmethod(_ag._set_grad_enabled)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and marks the thread as in inference mode (torch.is_inference_mode_enabled).

    Differs from PyTorch: tensors created inside are ordinary tensors (no "inference tensor"
    restrictions).
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev_grad = _ag.is_grad_enabled()
        self.prev_inf = _ag.is_inference_mode_enabled()
        _ag._set_inference_mode(self.mode)
        _ag._set_grad_enabled(not self.mode and self.prev_grad)

    def __exit__(self, *exc):
        _ag._set_inference_mode(self.prev_inf)
        _ag._set_grad_enabled(self.prev_grad)
        return False

    def clone(self):
        return self.__class__(self.mode)


_multithreading = threading.local()


def is_multithreading_enabled() -> bool:
    """Whether set_multithreading_enabled last allowed a multithreaded backward on this thread."""
    return getattr(_multithreading, "enabled", True)


class set_multithreading_enabled(_ImmediateSwitch):
    """Allows (True) or forbids a multithreaded backward on this thread; takes effect at once and,
    used as a context manager or decorator, is undone on exit. torchlite's engine always runs the
    backward pass on the calling thread, which is what mode=False asks for."""

    def __init__(self, mode: bool) -> None:
        super().__init__(bool(mode))

    _get = staticmethod(is_multithreading_enabled)

    @staticmethod
    def _set(mode):
        _multithreading.enabled = mode


class enforce_grad_layout_policy(_ImmediateSwitch):
    """Whether a .grad that AccumulateGrad creates is given its parameter's strides (enable=True,
    the default) or may keep the incoming gradient's layout; takes effect at once."""

    def __init__(self, enable: bool = True) -> None:
        super().__init__(bool(enable))

    _get = staticmethod(_ag._is_grad_layout_enforcement_enabled)
    _set = staticmethod(_ag._set_grad_layout_enforcement_enabled)
