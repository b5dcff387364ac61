"""Registry entries: the multi-tensor optimizer kernels (_fused_*_) and _foreach_* helpers.

These ops update their list arguments in place and return nothing, so each entry's `op` runs the
update and returns the lists it wrote; `ref` is a NumPy reference of the same update rule
(computed on copies). They are not differentiable. The NumPy rules are shared with
tests/test_optim.py, which checks the optimizers built on these kernels.
"""

import numpy as np

from opinfo.core import OpInfo, SampleInput, positive, rand

SHAPES = [(2, 3), (5,), (3, 1)]


def _kernel(lib, name):
    fn = getattr(lib, name, None)
    return fn if fn is not None else getattr(lib._C, name)


def _copies(arrays):
    return [np.array(a, copy=True) for a in arrays]


# ---- NumPy references of the update rules ------------------------------------------------------


def np_sgd(params, grads, bufs, *, weight_decay, momentum, lr, dampening, nesterov, maximize, is_first_step):
    params, bufs = _copies(params), _copies(bufs)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = -g if maximize else g
        if weight_decay != 0:
            g = g + weight_decay * p
        if momentum != 0:
            bufs[i] = g.copy() if is_first_step else momentum * bufs[i] + (1 - dampening) * g
            g = g + momentum * bufs[i] if nesterov else bufs[i]
        params[i] = p - lr * g
    return params, bufs


def np_adam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    max_exp_avg_sqs,
    steps,
    *,
    lr,
    beta1,
    beta2,
    weight_decay,
    eps,
    amsgrad,
    maximize,
    decoupled=False,
):
    params, exp_avgs, exp_avg_sqs = _copies(params), _copies(exp_avgs), _copies(exp_avg_sqs)
    max_exp_avg_sqs = _copies(max_exp_avg_sqs)
    for i, (p, g) in enumerate(zip(params, grads)):
        step = float(steps[i])
        g = -g if maximize else g
        if weight_decay != 0:
            if decoupled:
                p = p * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * p
        exp_avgs[i] = exp_avgs[i] + (1 - beta1) * (g - exp_avgs[i])
        exp_avg_sqs[i] = beta2 * exp_avg_sqs[i] + (1 - beta2) * g * g
        second = exp_avg_sqs[i]
        if amsgrad:
            max_exp_avg_sqs[i] = np.maximum(max_exp_avg_sqs[i], exp_avg_sqs[i])
            second = max_exp_avg_sqs[i]
        denom = np.sqrt(second) / np.sqrt(1 - beta2**step) + eps
        params[i] = p - lr / (1 - beta1**step) * exp_avgs[i] / denom
    return params, exp_avgs, exp_avg_sqs, max_exp_avg_sqs


def np_adamw(*args, **kwargs):
    return np_adam(*args, **kwargs, decoupled=True)


def np_adagrad(params, grads, state_sums, steps, *, lr, lr_decay, weight_decay, eps, maximize):
    params, state_sums = _copies(params), _copies(state_sums)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = -g if maximize else g
        if weight_decay != 0:
            g = g + weight_decay * p
        clr = lr / (1 + (float(steps[i]) - 1) * lr_decay)
        state_sums[i] = state_sums[i] + g * g
        params[i] = p - clr * g / (np.sqrt(state_sums[i]) + eps)
    return params, state_sums


def np_rmsprop(
    params, grads, square_avgs, grad_avgs, bufs, *, lr, alpha, eps, weight_decay, momentum, centered, maximize
):
    params, square_avgs, grad_avgs, bufs = _copies(params), _copies(square_avgs), _copies(grad_avgs), _copies(bufs)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = -g if maximize else g
        if weight_decay != 0:
            g = g + weight_decay * p
        square_avgs[i] = alpha * square_avgs[i] + (1 - alpha) * g * g
        if centered:
            grad_avgs[i] = grad_avgs[i] + (1 - alpha) * (g - grad_avgs[i])
            avg = np.sqrt(square_avgs[i] - grad_avgs[i] ** 2) + eps
        else:
            avg = np.sqrt(square_avgs[i]) + eps
        if momentum > 0:
            bufs[i] = momentum * bufs[i] + g / avg
            params[i] = p - lr * bufs[i]
        else:
            params[i] = p - lr * g / avg
    return params, square_avgs, grad_avgs, bufs


def _signed(p, g, maximize, weight_decay):
    g = -g if maximize else g
    return g + weight_decay * p if weight_decay != 0 else g


def np_adadelta(params, grads, square_avgs, acc_deltas, *, lr, rho, eps, weight_decay, maximize):
    params, square_avgs, acc_deltas = _copies(params), _copies(square_avgs), _copies(acc_deltas)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = _signed(p, g, maximize, weight_decay)
        square_avgs[i] = rho * square_avgs[i] + (1 - rho) * g * g
        delta = np.sqrt(acc_deltas[i] + eps) / np.sqrt(square_avgs[i] + eps) * g
        acc_deltas[i] = rho * acc_deltas[i] + (1 - rho) * delta * delta
        params[i] = p - lr * delta
    return params, square_avgs, acc_deltas


def np_adamax(params, grads, exp_avgs, exp_infs, steps, *, lr, beta1, beta2, eps, weight_decay, maximize):
    params, exp_avgs, exp_infs = _copies(params), _copies(exp_avgs), _copies(exp_infs)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = _signed(p, g, maximize, weight_decay)
        exp_avgs[i] = exp_avgs[i] + (1 - beta1) * (g - exp_avgs[i])
        exp_infs[i] = np.maximum(beta2 * exp_infs[i], np.abs(g) + eps)
        params[i] = p - lr / (1 - beta1 ** float(steps[i])) * exp_avgs[i] / exp_infs[i]
    return params, exp_avgs, exp_infs


def np_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, steps, *, lr, beta1, beta2, eps, weight_decay,
             momentum_decay, decoupled_weight_decay, maximize):
    params, exp_avgs, exp_avg_sqs, mu_products = (_copies(a) for a in (params, exp_avgs, exp_avg_sqs, mu_products))
    for i, (p, g) in enumerate(zip(params, grads)):
        step = float(steps[i])
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
            g = _signed(p, g, maximize, 0.0)
        else:
            g = _signed(p, g, maximize, weight_decay)
        mu = beta1 * (1 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_products[i] = (mu_products[i] * mu).astype(mu_products[i].dtype)
        prod = float(mu_products[i])
        exp_avgs[i] = exp_avgs[i] + (1 - beta1) * (g - exp_avgs[i])
        exp_avg_sqs[i] = beta2 * exp_avg_sqs[i] + (1 - beta2) * g * g
        denom = np.sqrt(exp_avg_sqs[i] / (1 - beta2**step)) + eps
        params[i] = p - lr * (1 - mu) / (1 - prod) * g / denom - lr * mu_next / (1 - prod * mu_next) * exp_avgs[i] / denom
    return params, exp_avgs, exp_avg_sqs, mu_products


def np_radam(params, grads, exp_avgs, exp_avg_sqs, steps, *, lr, beta1, beta2, eps, weight_decay,
             decoupled_weight_decay, maximize):
    params, exp_avgs, exp_avg_sqs = _copies(params), _copies(exp_avgs), _copies(exp_avg_sqs)
    rho_inf = 2 / (1 - beta2) - 1
    for i, (p, g) in enumerate(zip(params, grads)):
        step = float(steps[i])
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
            g = _signed(p, g, maximize, 0.0)
        else:
            g = _signed(p, g, maximize, weight_decay)
        exp_avgs[i] = exp_avgs[i] + (1 - beta1) * (g - exp_avgs[i])
        exp_avg_sqs[i] = beta2 * exp_avg_sqs[i] + (1 - beta2) * g * g
        update = exp_avgs[i] / (1 - beta1**step) * lr
        rho_t = rho_inf - 2 * step * beta2**step / (1 - beta2**step)
        if rho_t > 5:
            rect = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            update = update * np.sqrt(1 - beta2**step) / (np.sqrt(exp_avg_sqs[i]) + eps) * rect
        params[i] = p - update
    return params, exp_avgs, exp_avg_sqs


def np_asgd(params, grads, axs, mus, etas, *, lambd, weight_decay, maximize):
    params, axs = _copies(params), _copies(axs)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = _signed(p, g, maximize, weight_decay)
        eta, mu = float(etas[i]), float(mus[i])
        params[i] = p * (1 - lambd * eta) - eta * g
        axs[i] = axs[i] + (params[i] - axs[i]) * mu if mu != 1 else params[i].copy()
    return params, axs


def np_rprop(params, grads, prevs, step_sizes, *, etaminus, etaplus, step_size_min, step_size_max, maximize):
    params, prevs, step_sizes = _copies(params), _copies(prevs), _copies(step_sizes)
    for i, (p, g) in enumerate(zip(params, grads)):
        g = -g if maximize else g
        agreement = np.sign(g * prevs[i])
        factor = np.where(agreement > 0, etaplus, np.where(agreement < 0, etaminus, 1.0))
        step_sizes[i] = np.clip(step_sizes[i] * factor, step_size_min, step_size_max).astype(p.dtype)
        g = np.where(agreement < 0, 0, g).astype(p.dtype)
        params[i] = p - np.sign(g) * step_sizes[i]
        prevs[i] = g
    return params, prevs, step_sizes


# ---- ops: run the kernel, return what it wrote -------------------------------------------------


def _op(name, n_lists):
    def run(lib, *lists, **kwargs):
        _kernel(lib, name)(*lists, **kwargs)
        return tuple(list(lists[k]) for k in n_lists)

    return run


def _steps(n, value, rng):
    # Step counters are float32 0-dim tensors, as PyTorch keeps them.
    return [np.array(value + k, dtype=np.float32) for k in range(n)]


def _sgd_samples(dtype, rng):
    for kw in (
        dict(
            weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False
        ),
        dict(weight_decay=0.1, momentum=0.9, lr=0.05, dampening=0.0, nesterov=True, maximize=True, is_first_step=False),
        dict(weight_decay=0.0, momentum=0.5, lr=0.1, dampening=0.3, nesterov=False, maximize=False, is_first_step=True),
    ):
        params = [rand(s, dtype, rng) for s in SHAPES]
        grads = [rand(s, dtype, rng) for s in SHAPES]
        bufs = [rand(s, dtype, rng) for s in SHAPES] if kw["momentum"] != 0 else []
        yield SampleInput((params, grads, bufs), kw, grad=False)


def _adam_samples(dtype, rng):
    for kw in (
        dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False),
        dict(lr=0.01, beta1=0.8, beta2=0.99, weight_decay=0.1, eps=1e-6, amsgrad=True, maximize=True),
        dict(lr=np.array(0.05), beta1=0.9, beta2=0.999, weight_decay=0.1, eps=1e-8, amsgrad=False, maximize=False),
    ):
        n = len(SHAPES)
        params = [rand(s, dtype, rng) for s in SHAPES]
        grads = [rand(s, dtype, rng) for s in SHAPES]
        exp_avgs = [rand(s, dtype, rng, -0.5, 0.5) for s in SHAPES]
        exp_avg_sqs = [positive(s, dtype, rng, 0.1, 1.0) for s in SHAPES]
        maxes = [positive(s, dtype, rng, 0.1, 1.0) for s in SHAPES] if kw["amsgrad"] else []
        yield SampleInput((params, grads, exp_avgs, exp_avg_sqs, maxes, _steps(n, 1.0, rng)), kw, grad=False)


def _adagrad_samples(dtype, rng):
    for kw in (
        dict(lr=0.1, lr_decay=0.0, weight_decay=0.0, eps=1e-10, maximize=False),
        dict(lr=0.05, lr_decay=0.1, weight_decay=0.2, eps=1e-6, maximize=True),
        dict(lr=np.array(0.05), lr_decay=0.1, weight_decay=0.0, eps=1e-10, maximize=False),
    ):
        params = [rand(s, dtype, rng) for s in SHAPES]
        grads = [rand(s, dtype, rng) for s in SHAPES]
        sums = [positive(s, dtype, rng, 0.0, 1.0) for s in SHAPES]
        yield SampleInput((params, grads, sums, _steps(len(SHAPES), 1.0, rng)), kw, grad=False)


def _rmsprop_samples(dtype, rng):
    for kw in (
        dict(lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False, maximize=False),
        dict(lr=0.02, alpha=0.9, eps=1e-6, weight_decay=0.1, momentum=0.5, centered=True, maximize=True),
    ):
        params = [rand(s, dtype, rng) for s in SHAPES]
        grads = [rand(s, dtype, rng, -1.0, 1.0) for s in SHAPES]
        square_avgs = [positive(s, dtype, rng, 2.0, 3.0) for s in SHAPES]
        grad_avgs = [rand(s, dtype, rng, -0.5, 0.5) for s in SHAPES] if kw["centered"] else []
        bufs = [rand(s, dtype, rng) for s in SHAPES] if kw["momentum"] > 0 else []
        yield SampleInput((params, grads, square_avgs, grad_avgs, bufs), kw, grad=False)


def _state(dtype, rng, low=0.1, high=1.0):
    return [positive(s, dtype, rng, low, high) for s in SHAPES]


def _params_grads(dtype, rng):
    return [rand(s, dtype, rng) for s in SHAPES], [rand(s, dtype, rng) for s in SHAPES]


def _adadelta_samples(dtype, rng):
    for kw in (
        dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False),
        dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True),
    ):
        yield SampleInput((*_params_grads(dtype, rng), _state(dtype, rng), _state(dtype, rng)), kw, grad=False)


def _adamax_samples(dtype, rng):
    for kw in (
        dict(lr=0.002, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, maximize=False),
        dict(lr=0.02, beta1=0.8, beta2=0.9, eps=1e-6, weight_decay=0.1, maximize=True),
    ):
        args = (*_params_grads(dtype, rng), [rand(s, dtype, rng, -0.5, 0.5) for s in SHAPES], _state(dtype, rng))
        yield SampleInput((*args, _steps(len(SHAPES), 1.0, rng)), kw, grad=False)


def _nadam_samples(dtype, rng):
    for kw in (
        dict(lr=0.002, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, momentum_decay=0.004,
             decoupled_weight_decay=False, maximize=False),
        dict(lr=0.01, beta1=0.8, beta2=0.99, eps=1e-6, weight_decay=0.1, momentum_decay=0.01,
             decoupled_weight_decay=False, maximize=True),
        dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.1, momentum_decay=0.004,
             decoupled_weight_decay=True, maximize=False),
    ):
        n = len(SHAPES)
        mu_products = [np.array(0.5 + 0.1 * k, dtype=np.float32) for k in range(n)]
        args = (*_params_grads(dtype, rng), [rand(s, dtype, rng, -0.5, 0.5) for s in SHAPES], _state(dtype, rng))
        yield SampleInput((*args, mu_products, _steps(n, 1.0, rng)), kw, grad=False)


def _radam_samples(dtype, rng):
    for kw, first_step in (
        (dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, decoupled_weight_decay=False,
              maximize=False), 1.0),  # early steps: no adaptive term
        (dict(lr=0.01, beta1=0.8, beta2=0.9, eps=1e-6, weight_decay=0.1, decoupled_weight_decay=False,
              maximize=True), 9.0),  # rho_t > 5 from step 7 on with beta2=0.9
        (dict(lr=0.01, beta1=0.9, beta2=0.9, eps=1e-8, weight_decay=0.1, decoupled_weight_decay=True,
              maximize=False), 5.0),
    ):
        args = (*_params_grads(dtype, rng), [rand(s, dtype, rng, -0.5, 0.5) for s in SHAPES], _state(dtype, rng))
        yield SampleInput((*args, _steps(len(SHAPES), first_step, rng)), kw, grad=False)


def _asgd_samples(dtype, rng):
    for kw, mu0 in ((dict(lambd=1e-4, weight_decay=0.0, maximize=False), 1.0),
                    (dict(lambd=0.01, weight_decay=0.1, maximize=True), 0.5)):
        n = len(SHAPES)
        mus = [np.array(mu0 if k else 1.0, dtype=np.float32) for k in range(n)]
        etas = [np.array(0.01 * (k + 1), dtype=np.float32) for k in range(n)]
        yield SampleInput((*_params_grads(dtype, rng), [rand(s, dtype, rng) for s in SHAPES], mus, etas), kw,
                          grad=False)


def _rprop_samples(dtype, rng):
    for kw in (
        dict(etaminus=0.5, etaplus=1.2, step_size_min=1e-6, step_size_max=50.0, maximize=False),
        dict(etaminus=0.3, etaplus=1.5, step_size_min=0.05, step_size_max=0.2, maximize=True),
    ):
        params, grads = _params_grads(dtype, rng)
        prevs = [rand(s, dtype, rng) for s in SHAPES]
        prevs[1][0] = 0  # no previous gradient: the step size stays
        yield SampleInput((params, grads, prevs, _state(dtype, rng, 0.01, 0.3)), kw, grad=False)


def _list_samples(dtype, rng):
    yield SampleInput(([rand(s, dtype, rng) for s in SHAPES], 1.5), grad=False)
    yield SampleInput(([rand((2, 3), dtype, rng)], -2), grad=False)


def _zero_samples(dtype, rng):
    yield SampleInput(([rand(s, dtype, rng) for s in SHAPES],), grad=False)


def _norm_samples(dtype, rng):
    yield SampleInput(([rand(s, dtype, rng) for s in SHAPES],), grad=False)
    yield SampleInput(([rand(s, dtype, rng) for s in SHAPES], 1), grad=False)
    yield SampleInput(([rand(s, dtype, rng) for s in SHAPES], float("inf")), grad=False)
    yield SampleInput(([rand(s, dtype, rng) for s in SHAPES], 3.0), grad=False)


def _foreach(name):
    def run(lib, tensors, *args):
        _kernel(lib, name)(tensors, *args)
        return list(tensors)

    return run


def _np_norm(arrays, ord=2):
    return [np.linalg.norm(a.ravel(), ord) for a in arrays]


OPS = [
    OpInfo("_fused_sgd", _sgd_samples, ref=np_sgd, op=_op("_fused_sgd_", (0, 2)), differentiable=False),
    OpInfo("_fused_adam", _adam_samples, ref=np_adam, op=_op("_fused_adam_", (0, 2, 3, 4)), differentiable=False),
    OpInfo("_fused_adamw", _adam_samples, ref=np_adamw, op=_op("_fused_adamw_", (0, 2, 3, 4)), differentiable=False),
    OpInfo("_fused_adagrad", _adagrad_samples, ref=np_adagrad, op=_op("_fused_adagrad_", (0, 2)), differentiable=False),
    # Not a PyTorch operator (PyTorch's RMSprop has no fused kernel).
    OpInfo(
        "_fused_rmsprop",
        _rmsprop_samples,
        ref=np_rmsprop,
        op=_op("_fused_rmsprop_", (0, 2, 3, 4)),
        differentiable=False,
        torch=False,
    ),
    # Not PyTorch operators (PyTorch's foreach paths chain _foreach_* ops).
    OpInfo("_fused_adadelta", _adadelta_samples, ref=np_adadelta, op=_op("_fused_adadelta_", (0, 2, 3)),
           differentiable=False, torch=False),
    OpInfo("_fused_adamax", _adamax_samples, ref=np_adamax, op=_op("_fused_adamax_", (0, 2, 3)),
           differentiable=False, torch=False),
    OpInfo("_fused_nadam", _nadam_samples, ref=np_nadam, op=_op("_fused_nadam_", (0, 2, 3, 4)),
           differentiable=False, torch=False),
    OpInfo("_fused_radam", _radam_samples, ref=np_radam, op=_op("_fused_radam_", (0, 2, 3)),
           differentiable=False, torch=False),
    OpInfo("_fused_asgd", _asgd_samples, ref=np_asgd, op=_op("_fused_asgd_", (0, 2)),
           differentiable=False, torch=False),
    OpInfo("_fused_rprop", _rprop_samples, ref=np_rprop, op=_op("_fused_rprop_", (0, 2, 3)),
           differentiable=False, torch=False),
    OpInfo(
        "_foreach_add",
        _list_samples,
        ref=lambda ts, s: [t + s for t in ts],
        op=_foreach("_foreach_add_"),
        differentiable=False,
    ),
    OpInfo(
        "_foreach_mul",
        _list_samples,
        ref=lambda ts, s: [t * s for t in ts],
        op=_foreach("_foreach_mul_"),
        differentiable=False,
    ),
    OpInfo(
        "_foreach_zero",
        _zero_samples,
        ref=lambda ts: [np.zeros_like(t) for t in ts],
        op=_foreach("_foreach_zero_"),
        differentiable=False,
    ),
    OpInfo(
        "_foreach_norm",
        _norm_samples,
        ref=_np_norm,
        op=lambda lib, ts, *a: list(_kernel(lib, "_foreach_norm")(ts, *a)),
        differentiable=False,
    ),
]
