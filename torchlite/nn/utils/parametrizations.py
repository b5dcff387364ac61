"""Parametrizations built on parametrize.register_parametrization: orthogonal, spectral_norm and
weight_norm (PyTorch's torch.nn.utils.parametrizations)."""

from enum import Enum, auto

from torchlite import _C, linalg
from torchlite._C import Tensor
from torchlite._distance import norm_except_dim
from torchlite._dtype_info import finfo
from torchlite.autograd.grad_mode import no_grad
from torchlite.nn import functional as F
from torchlite.nn.modules.module import Module
from torchlite.nn.utils import parametrize
from torchlite.nn.utils.spectral_norm import _check_n_power_iterations, _default_dim, _weight_matrix
from torchlite.nn.utils.weight_norm import _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(q):
    n, k = q.size(-2), q.size(-1)
    eye = _C.eye(k, dtype=q.dtype, device=q.device)
    return _C.allclose(q.mH @ q, eye, atol=10.0 * n * finfo(q.dtype).eps)


def _make_orthogonal(a):
    """The Q of a's QR decomposition with the signs that make R's diagonal positive."""
    x, tau = _C.geqrf(a)
    q = linalg.householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _householder_product(A, tau):
    """linalg.householder_product as a composite of differentiable ops (the kernel has no derivative):
    the first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i = A's column i below a unit diagonal."""
    n, k = A.size(-2), A.size(-1)
    eye = _C.eye(n, dtype=A.dtype, device=A.device)
    V = A.tril(diagonal=-1) + eye[:, :k]
    Q = eye[:, :k].expand(*A.shape[:-2], n, k)
    for i in reversed(range(k)):
        v = V[..., i:i + 1]
        Q = Q - tau[..., i, None, None] * v @ (v.mH @ Q)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix (or batch) to one with orthonormal columns (rows, if wide)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            # the orthogonal point the map is taken around, set by right_inverse
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # the lower triangle defines a skew-symmetric (skew-Hermitian) n x n matrix A
            X = X.tril()
            if n != k:
                X = _C.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _C.matrix_exp(A)
            else:
                eye = _C.eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            # the strictly lower triangle holds Householder reflectors; the diagonal's sign flips columns
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                # householder: the reflectors of Q's QR, with +-1 on the diagonal for the column signs
                A, tau = _C.geqrf(Q)
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # complete Q to a square orthogonal base with random columns
                N = _C.randn(*tuple(Q.shape[:-2]), n, n - k, dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(_C.cat([Q, N], dim=-1))
            self.base = Q
            # with this original the map yields `base` itself (a -Id diagonal is the identity for householder)
            neg_id = _C.zeros_like(Q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrains module.<name> (a matrix or batch of matrices) to be orthogonal (or unitary)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrizes module.<name> as original0 * original1 / ||original1|| (magnitude and direction)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        _check_n_power_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = _weight_matrix(weight, self.dim)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the top singular vectors
            self._power_method(weight_mat, 15)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(_C.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(_C.mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = _weight_matrix(weight, self.dim)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        sigma = _C.vdot(self._u.clone(), _C.mv(weight_mat, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its spectral norm, estimated by power iteration (buffers _u, _v)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, _default_dim(module, dim), eps))
    return module
