"""Process-wide settings and constants of the torch namespace: e, pi, inf, nan, newaxis; the
determinism, anomaly-mode, warn-always and matmul-precision flags; inter-op threads; and small
predicates (is_nonzero, is_same_size, get_device, ...). The random generator's state lives in
torchlite/random.py.

torchlite keeps the flags PyTorch programs set and read, and says in each docstring what it does
with them. Its CPU kernels are deterministic whatever the flags say: reductions split work the
same way on every run and there are no atomics, so use_deterministic_algorithms changes nothing
there (and has no operator to refuse).
"""

import builtins
import math
import sys
import warnings

from torchlite import _C

__all__ = ["are_deterministic_algorithms_enabled", "e", "get_deterministic_debug_mode", "get_device",
           "get_device_module", "get_float32_matmul_precision", "get_num_interop_threads",
           "has_lapack", "has_openmp", "has_spectral", "inf", "init_num_threads", "is_anomaly_check_nan_enabled",
           "is_anomaly_enabled", "is_deterministic_algorithms_warn_only_enabled", "is_inference", "is_nonzero",
           "is_same_size", "is_storage", "is_warn_always_enabled", "nan", "newaxis", "pi",
           "set_anomaly_enabled", "set_default_tensor_type", "set_deterministic_debug_mode",
           "set_float32_matmul_precision", "set_num_interop_threads", "set_warn_always",
           "use_deterministic_algorithms"]

Tensor = _C.Tensor

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

has_openmp = True  # the CPU kernels are built with OpenMP (see set_num_threads)
has_lapack = False  # the linear algebra is torchlite's own, not LAPACK's
has_spectral = False  # no MKL/pocketfft FFT library is linked

_deterministic = False
_deterministic_warn_only = False


def use_deterministic_algorithms(mode, *, warn_only=False):
    """use_deterministic_algorithms(mode, *, warn_only=False): records whether the program asks for
    deterministic algorithms (read back by are_deterministic_algorithms_enabled).

    torchlite's CPU kernels give the same result on every run regardless, and none of its
    operators is nondeterministic-only, so the flag changes no behaviour.

    >>> torchlite.use_deterministic_algorithms(True)
    """
    global _deterministic, _deterministic_warn_only
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _deterministic, _deterministic_warn_only = mode, builtins.bool(warn_only)


def are_deterministic_algorithms_enabled():
    """are_deterministic_algorithms_enabled(): the flag use_deterministic_algorithms set.

    >>> torchlite.are_deterministic_algorithms_enabled()
    False
    """
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled():
    """is_deterministic_algorithms_warn_only_enabled(): the warn_only use_deterministic_algorithms set.

    >>> torchlite.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _deterministic_warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """set_deterministic_debug_mode(debug_mode): use_deterministic_algorithms by level: "default"
    or 0 (off), "warn" or 1 (on, warn only), "error" or 2 (on). A flag only, as there.

    >>> torchlite.set_deterministic_debug_mode("default")
    """
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """get_deterministic_debug_mode(): 0 (off), 1 (warn only) or 2 (on); see set_deterministic_debug_mode.

    >>> torchlite.get_deterministic_debug_mode()
    0
    """
    if not _deterministic:
        return 0
    return 1 if _deterministic_warn_only else 2


def set_anomaly_enabled(enabled, check_nan=True):
    """set_anomaly_enabled(enabled, check_nan=True): switches autograd's anomaly mode (see
    torchlite.autograd.detect_anomaly).

    >>> torchlite.set_anomaly_enabled(False)
    """
    _C._autograd._set_anomaly_enabled(enabled, check_nan)


def is_anomaly_enabled():
    """is_anomaly_enabled(): whether autograd's anomaly mode is on.

    >>> torchlite.is_anomaly_enabled()
    False
    """
    return _C._autograd.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """is_anomaly_check_nan_enabled(): the check_nan setting of autograd's anomaly mode.

    >>> torchlite.is_anomaly_check_nan_enabled()
    True
    """
    return _C._autograd.is_anomaly_check_nan_enabled()


_warn_always = False


def set_warn_always(b, /):
    """set_warn_always(b, /): records PyTorch's warn-always flag. torchlite's warnings go through
    Python's warnings module, whose filters decide how often each one shows.

    >>> torchlite.set_warn_always(False)
    """
    global _warn_always
    _warn_always = builtins.bool(b)


def is_warn_always_enabled():
    """is_warn_always_enabled(): the flag set_warn_always set.

    >>> torchlite.is_warn_always_enabled()
    False
    """
    return _warn_always


_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = "highest"


def set_float32_matmul_precision(precision):
    """set_float32_matmul_precision(precision): "highest", "high" or "medium". "high" and "medium"
    let float32 matrix products on CUDA (cuBLAS) round their inputs to TF32 on tensor cores; the
    CPU always computes in full float32, which every setting allows.

    >>> torchlite.set_float32_matmul_precision("highest")
    """
    global _matmul_precision
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _MATMUL_PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      f"set_float32_matmul_precision call has no effect.", UserWarning, stacklevel=2)
        return
    _matmul_precision = precision
    _C._cuda._set_matmul_allow_tf32(precision != "highest")


def get_float32_matmul_precision():
    """get_float32_matmul_precision(): the setting of set_float32_matmul_precision.

    >>> torchlite.get_float32_matmul_precision()
    'highest'
    """
    return _matmul_precision


_interop_threads = None  # None: not set; the first call of set_num_interop_threads fixes it


def set_num_interop_threads(int):  # noqa: A002  (PyTorch's parameter name)
    """set_num_interop_threads(int): the size of the inter-op thread pool, which may be set once.
    torchlite runs operators one after another on the calling thread (parallelism is within an
    operator: set_num_threads), so the number is recorded only.

    >>> torchlite.get_num_interop_threads() > 0
    True
    """
    global _interop_threads
    if not isinstance(int, builtins.int) or isinstance(int, builtins.bool) or int <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop_threads = int


def get_num_interop_threads():
    """get_num_interop_threads(): the number set_num_interop_threads set, else the intra-op default.

    >>> torchlite.get_num_interop_threads() > 0
    True
    """
    return _interop_threads if _interop_threads is not None else _C.get_num_threads()


def init_num_threads():
    """init_num_threads(): sets up the calling thread's parallel settings; torchlite's OpenMP
    settings are process-wide, so there is nothing to do.

    >>> torchlite.init_num_threads()
    """


# ---- predicates ---------------------------------------------------------------------------------

def is_inference(input):
    """is_inference(input): whether input is an inference tensor. torchlite's inference_mode is
    no_grad without the extra bookkeeping, so no tensor is one and this is always False.

    >>> torchlite.is_inference(torchlite.ones(1))
    False
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return False


def is_nonzero(input):
    """is_nonzero(input): whether the single element of input is nonzero (as bool(input)).

    >>> torchlite.is_nonzero(torchlite.tensor([1.5]))
    True
    """
    return builtins.bool(input)


def is_same_size(input, other):
    """is_same_size(input, other): whether the two tensors have the same shape.

    >>> torchlite.is_same_size(torchlite.ones(2), torchlite.zeros(2))
    True
    """
    return input.shape == other.shape


def is_storage(obj, /):
    """is_storage(obj, /): whether obj is a storage (what Tensor.untyped_storage() and
    Tensor.storage() return).

    >>> torchlite.is_storage(torchlite.ones(1).untyped_storage())
    True
    """
    from torchlite._storage import TypedStorage, UntypedStorage

    return isinstance(obj, (TypedStorage, UntypedStorage))


def get_device(input):
    """get_device(input): the CUDA device index of input, -1 for a CPU tensor.

    >>> torchlite.get_device(torchlite.ones(1))
    -1
    """
    return input.get_device()


def get_device_module(device=None):
    """get_device_module(device=None): the module of a device type (torchlite.cuda,
    torchlite.cpu); with no device, that of the current accelerator (CUDA if available, else CPU).

    >>> torchlite.get_device_module('cpu').__name__
    'torchlite.cpu'
    """
    if device is None:
        kind = "cuda" if _C._cuda.is_available() else "cpu"
    elif isinstance(device, str):
        kind = _C.device(device).type
    elif isinstance(device, _C.device):
        kind = device.type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if kind not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'.")
    return sys.modules[f"torchlite.{kind}"]


def set_default_tensor_type(t, /):
    """set_default_tensor_type(t, /): deprecated; sets the default floating dtype (and, for a
    'torch.cuda.*' type, the default device) from a tensor type or its name.

    >>> torchlite.set_default_tensor_type('torch.FloatTensor')
    """
    from torchlite._device import set_default_device
    from torchlite._tensor_type import _LegacyTensorType, _parse_type_string

    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        dtype, device = _parse_type_string(t)
    elif isinstance(t, _LegacyTensorType):
        dtype, device = t.dtype, t._device_type
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(dtype)
    set_default_device("cuda" if device == "cuda" else None)
