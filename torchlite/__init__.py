"""torchlite: a compact, PyTorch-compatible tensor library.

Operators come from native_functions.yaml through the code generator into torchlite._C;
this package re-exports them under PyTorch's names and adds the Python-level pieces.
"""

import importlib.metadata as _metadata
import os as _os
import typing as _typing

# Note [OpenMP wait policy]: a libgomp thread that finishes its share of a parallel region (or
# waits at a barrier inside one) spins before it sleeps: 300000 checks by default, milliseconds.
# On a machine whose cores are busy (other processes, DataLoader workers) that spinning takes the
# core from the thread it waits for, and 2-thread training steps ran many times slower than on 1
# thread. Sleeping at once (OMP_WAIT_POLICY=PASSIVE) fixed that but made every region and barrier
# pay a wake-up: the idle 2-thread MLP step took 4.0 ms instead of 1.8. A bounded spin of
# _GOMP_SPINCOUNT checks (tens of microseconds, about what a wake-up costs) aims at both: with the
# machine loaded by others (load 15-20) the 2-thread MLP step took, idle / beside two busy loops,
# 3.2 / 6.1 ms at 1000 against 2.3 / 9.6 passive, 17 / 116 at 10000 and 726 / 1330 at 300000
# (benchmarks/run_all.py --busy --spincounts). libgomp reads its settings once, when _C loads it
# below: a user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT is kept (and a libgomp loaded earlier, by
# PyTorch imported first, keeps its own). Ours is set for that load only and removed from
# os.environ afterwards, so child processes (subprocess, DataLoader workers) start from the
# user's environment.
_GOMP_SPINCOUNT = "1000"
_omp_env_ours = "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ
if _omp_env_ours:
    _os.environ["GOMP_SPINCOUNT"] = _GOMP_SPINCOUNT
try:
    from torchlite import _C
finally:
    if _omp_env_ours:
        del _os.environ["GOMP_SPINCOUNT"]

try:
    __version__ = _metadata.version("torchlite")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

from torchlite import (  # noqa: E402
    _tensor,  # noqa: F401  (installs Python-level Tensor methods)
    cuda,  # noqa: F401
)
from torchlite._C import (  # noqa: F401, E402  (types and runtime services)
    AcceleratorError,
    Generator,
    OutOfMemoryError,
    Tensor,
    channels_last,
    channels_last_3d,
    contiguous_format,
    default_generator,
    device,
    dtype,
    from_numpy,
    get_default_dtype,
    get_num_threads,
    initial_seed,
    layout,
    legacy_contiguous_format,
    manual_seed,
    memory_format,
    preserve_format,
    promote_types,
    result_type,
    set_default_dtype,
    set_num_threads,
    strided,
    tensor,
)
from torchlite._size import Size  # noqa: F401, E402

for _enum in (layout, memory_format):  # printed as PyTorch prints them (torch.strided), under our name
    _enum.__repr__ = _enum.__str__ = lambda self: f"torchlite.{self.name}"
from torchlite import autograd  # noqa: F401, E402
from torchlite.autograd.grad_mode import (  # noqa: F401, E402
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from torchlite.serialization import load, save  # noqa: F401, E402
from torchlite import utils  # noqa: F401, E402
from torchlite.utils.dlpack import from_dlpack  # noqa: F401, E402

bool = _C.bool
uint8 = _C.uint8
int8 = _C.int8
int16 = _C.int16
int32 = _C.int32
int64 = _C.int64
float16 = _C.float16
bfloat16 = _C.bfloat16
float32 = _C.float32
float64 = _C.float64
complex64 = _C.complex64
complex128 = _C.complex128
# PyTorch's aliases
half = float16
float = float32
double = float64
short = int16
int = int32
long = int64
cfloat = complex64
cdouble = complex128


def _export_generated_ops() -> None:
    """Every generated module-level operator of _C becomes torchlite.<name>."""
    g = globals()
    for name in dir(_C):
        if name.startswith("_") or name in g:
            continue
        obj = getattr(_C, name)
        if callable(obj) and type(obj).__name__ == "builtin_function_or_method":
            g[name] = obj


_export_generated_ops()
# the samplers torch.distributions calls, public under their underscored names as in PyTorch
from torchlite._C import _dirichlet_grad, _sample_dirichlet, _standard_gamma, _standard_gamma_grad  # noqa: F401, E402

if _typing.TYPE_CHECKING:  # what _export_generated_ops adds at run time, as type checkers read it from _C.pyi
    from torchlite._C import *  # noqa: F403

from torchlite import nn  # noqa: F401, E402


def is_tensor(obj) -> "bool":
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> "int":
    return input.numel()


from torchlite import optim  # noqa: F401, E402  (torch.optim is reachable after `import torch`)

from torchlite._indexing import nonzero  # noqa: F401, E402  (as_tuple=)
from torchlite.functional import *  # noqa: F401, F403, E402  (variadic einsum, meshgrid, ...)
from torchlite import fft  # noqa: F401, E402
from torchlite import linalg  # noqa: F401, E402
from torchlite import special  # noqa: F401, E402
from torchlite._dtype_info import *  # noqa: F401, F403, E402  (finfo, iinfo, can_cast, ...)
from torchlite._tensor_type import LEGACY_TYPES as _LEGACY_TYPES  # noqa: E402  (Tensor.type, casts, Tensor(...))
from torchlite._device import *  # noqa: F401, F403, E402  (set_default_device, `with device(...)`)
from torchlite._tensor_str import set_printoptions  # noqa: F401, E402
from torchlite._shape_functions import *  # noqa: F401, F403, E402  (hstack, tensor_split, kron, ...)
from torchlite._creation import *  # noqa: F401, F403, E402  (as_tensor, logspace, windows, ...)
from torchlite._unique import *  # noqa: F401, F403, E402  (unique, unique_consecutive: tuple rules)

globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor, ...

# Python-level compositions and settings of the torch namespace (and the Tensor methods they install)
from torchlite import cpu  # noqa: F401, E402  (the device module get_device_module returns)
from torchlite._global_state import *  # noqa: F401, F403, E402  (e, pi, flags, ...)
from torchlite import random  # noqa: F401, E402
from torchlite.random import get_rng_state, seed, set_rng_state  # noqa: F401, E402
from torchlite import testing  # noqa: F401, E402
from torchlite import backends  # noqa: F401, E402
from torchlite._shape_compositions import *  # noqa: F401, F403, E402  (tensordot, isin, Tensor.unfold, ...)
from torchlite._scatter_ops import *  # noqa: F401, F403, E402  (*_scatter, index_fill, put, ...)
from torchlite._inplace_views import *  # noqa: F401, F403, E402  (t_, unsqueeze_, resize_, ...)
from torchlite._distance import *  # noqa: F401, F403, E402  (cdist, pdist, dist, renorm, ...)
from torchlite._nn_compositions import *  # noqa: F401, F403, E402  (prelu, rrelu, dropouts, losses, ...)
from torchlite._numerical import *  # noqa: F401, F403, E402  (gradient, histogram, trapz)
from torchlite._tensor_compat import *  # noqa: F401, F403, E402  (range, scalar_tensor, Tensor.new, ...)
from torchlite._rnn import *  # noqa: F401, F403, E402  (lstm, gru, rnn_tanh, *_cell)
from torchlite import amp  # noqa: F401, E402
from torchlite.amp import GradScaler, autocast  # noqa: F401, E402
from torchlite.amp.autocast_mode import (  # noqa: F401, E402  (is_autocast_enabled, set_autocast_dtype, ...)
    is_autocast_cpu_enabled, set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype,
    get_autocast_gpu_dtype, set_autocast_gpu_dtype, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,
    set_autocast_dtype)
from torchlite._lowrank import *  # noqa: F401, F403, E402  (svd_lowrank, pca_lowrank)
from torchlite._stft import *  # noqa: F401, F403, E402  (stft, istft, Tensor.stft/istft)
from torchlite._random_fill import *  # noqa: F401, F403, E402  (normal, Tensor.exponential_, cauchy_, ...)
from torchlite._function_transforms import *  # noqa: F401, F403, E402  (compile, vmap)
from torchlite import func  # noqa: F401, E402  (torch.func is reachable after `import torch`)
from torchlite import _storage  # noqa: F401, E402  (Tensor.untyped_storage, Tensor.storage)
from torchlite import multiprocessing  # noqa: F401, E402  (registers the shared-memory reduction of tensors)
from torchlite import library  # noqa: F401, E402
from torchlite._ops import ops  # noqa: F401, E402  (torchlite.ops.<namespace>.<op>)
from torchlite import distributions  # noqa: F401, E402  (torch.distributions is reachable after `import torch`)
from torchlite import fx, jit  # noqa: F401, E402  (graph capture: torch.fx, torch.jit.trace)
from torchlite import distributed  # noqa: F401, E402  (imports MPI only at init_process_group)
from torchlite import futures  # noqa: F401, E402  (torch.futures: what Work.get_future and DDP comm hooks return)
from torchlite import profiler  # noqa: F401, E402

from torchlite import overrides  # noqa: E402
from torchlite import (  # noqa: E402
    _distance, _nn_compositions, _numerical, _rnn, _scatter_ops, _shape_compositions, _shape_functions, _stft, _unique,
    functional)

# The compositions written in Python honour __torch_function__ as the generated operators do.
# So do those of other modules whose PyTorch counterparts dispatch (factories too: PyTorch's bindings
# hand a Scalar or SymInt argument that overrides the protocol to it); settings, dtype queries and
# the factories that convert data (as_tensor, frombuffer) do not.
overrides._make_overridable(globals(), [functional, _shape_functions, _shape_compositions, _distance, _unique, _stft,
                                        _numerical, _nn_compositions, _scatter_ops, _rnn],
                            names=("as_strided_", "bartlett_window", "blackman_window", "cosine_similarity", "detach_",
                                   "get_device", "hamming_window", "hann_window", "is_complex", "is_conj",
                                   "is_distributed", "is_floating_point", "is_inference", "is_neg", "is_nonzero",
                                   "is_same_size", "is_signed", "kaiser_window", "logspace", "lu", "narrow_copy",
                                   "nonzero", "nonzero_static", "normal", "numel", "pairwise_distance", "pca_lowrank",
                                   "poisson", "resize_as_", "scalar_tensor", "svd_lowrank", "tril_indices",
                                   "triu_indices"))

__all__ = [n for n in dir() if not n.startswith("_")]
