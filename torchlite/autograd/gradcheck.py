"""gradcheck / gradgradcheck: compare autograd's Jacobians with central finite differences.

Inputs should be float64 (or complex128) tensors with requires_grad=True (on CPU: they are
perturbed in place through a NumPy view of their memory and restored). Complex inputs and
outputs are checked through their real views (view_as_real): under PyTorch's convention the
gradient of a complex input is dL/d(re) + i dL/d(im), which is exactly the gradient of its
real view, so real finite differences check it.
"""

import numpy as np

from torchlite import _C

Tensor = _C.Tensor


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in _as_tuple(outputs) if isinstance(o, Tensor) and (o.is_floating_point() or o.is_complex())]


def _outputs(func, inputs):
    return [_C.view_as_real(o) if o.is_complex() else o for o in _differentiable_outputs(func(*inputs))]


def _realify_inputs(func, inputs):
    """(func, inputs) with each complex input replaced by a real (..., 2) leaf it is viewed from."""
    cplx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.is_complex()]
    if not cplx:
        return func, inputs
    inputs = tuple(_C.view_as_real(x.detach()).clone().requires_grad_(x.requires_grad) if i in cplx else x
                   for i, x in enumerate(inputs))

    def real_func(*xs):
        return func(*[_C.view_as_complex(x) if i in cplx else x for i, x in enumerate(xs)])

    return real_func, inputs


def _numerical_jacobians(func, inputs, diff_idx, n_out, eps):
    jac = {}
    for i in diff_idx:
        x = inputs[i]
        arr = x.detach().numpy()
        cols = []
        for idx in np.ndindex(arr.shape):
            orig = arr[idx].copy()
            arr[idx] = orig + eps
            plus = [o.detach().numpy().astype(np.float64).ravel().copy() for o in _outputs(func, inputs)[:n_out]]
            arr[idx] = orig - eps
            minus = [o.detach().numpy().astype(np.float64).ravel().copy() for o in _outputs(func, inputs)[:n_out]]
            arr[idx] = orig
            cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
        for k in range(n_out):
            size_out = cols[0][k].size if cols else _outputs(func, inputs)[k].numel()
            jac[(k, i)] = np.stack([c[k] for c in cols], axis=1) if cols else np.zeros((size_out, 0))
    return jac


def _analytical_jacobians(outputs, inputs, diff_idx):
    from torchlite.autograd import grad

    jac = {}
    diff_inputs = [inputs[i] for i in diff_idx]
    for k, o in enumerate(outputs):
        n = o.numel()
        rows = {i: np.zeros((n, inputs[i].numel())) for i in diff_idx}
        if o.requires_grad:
            for j in range(n):
                onehot = np.zeros(n, dtype=np.float64)
                onehot[j] = 1.0
                go = _C.tensor(onehot.reshape(tuple(o.shape)), dtype=o.dtype)
                gs = grad(o, diff_inputs, go, retain_graph=True, allow_unused=True)
                for i, g in zip(diff_idx, gs):
                    if g is not None:
                        if tuple(g.shape) != tuple(inputs[i].shape):
                            raise GradcheckError(f"Gradient has incorrect shape for input {i}: got {tuple(g.shape)}, "
                                                 f"expected {tuple(inputs[i].shape)}")
                        rows[i][j] = g.detach().numpy().astype(np.float64).ravel()
        for i in diff_idx:
            jac[(k, i)] = rows[i]
    return jac


def _forward_jacobians(func, inputs, diff_idx, n_out):
    """The Jacobians forward-mode AD gives: one jvp per input element, with a one-hot tangent."""
    from torchlite.autograd import forward_ad as fwAD
    from torchlite.autograd.grad_mode import no_grad

    jac = {}
    with no_grad(), fwAD.dual_level():
        for i in diff_idx:
            x = inputs[i].detach()
            cols = []
            for j in range(x.numel()):
                onehot = _C.zeros(x.numel(), dtype=x.dtype).index_fill(0, _C.tensor([j]), 1.0).view(x.shape)
                args = list(inputs)
                args[i] = fwAD.make_dual(x, onehot)
                col = []
                for o in _outputs(func, args)[:n_out]:
                    t = fwAD.unpack_dual(o).tangent
                    col.append(np.zeros(o.numel()) if t is None else t.numpy().astype(np.float64).ravel())
                cols.append(col)
            for k in range(n_out):
                jac[(k, i)] = np.stack([c[k] for c in cols], axis=1) if cols else np.zeros((0, 0))
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True if the analytical Jacobian of func matches finite differences at `inputs`: the one
    backward AD gives (check_backward_ad) and the one forward AD gives (check_forward_ad)."""
    func, inputs = _realify_inputs(func, _as_tuple(inputs))
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    outputs = _outputs(func, inputs)
    numerical = _numerical_jacobians(func, inputs, diff_idx, len(outputs), eps)
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical_jacobians(outputs, inputs, diff_idx)))
    if check_forward_ad:
        checks.append((" (forward AD)", _forward_jacobians(func, inputs, diff_idx, len(outputs))))
    for mode, analytical in checks:
        for (k, i), a in analytical.items():
            n = numerical[(k, i)]
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {k} with respect to input {i}{mode},\n"
                                     f"numerical:{n}\nanalytical:{a}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the backward pass itself (second derivatives via create_graph=True)."""
    from torchlite.autograd import grad

    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)

        def random_like(o):
            v = rng.standard_normal(tuple(o.shape))
            return v + 1j * rng.standard_normal(tuple(o.shape)) if o.is_complex() else v

        grad_outputs = tuple(_C.tensor(random_like(o), dtype=o.dtype, requires_grad=True) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(func(*ins))
        diff_ins = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        pairs = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        if not pairs:
            return ()
        gs = grad([o for o, _ in pairs], diff_ins, [g for _, g in pairs], create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
