"""torchlite.autograd.functional: derivatives of a whole function of tensors (vjp, jvp,
jacobian, hessian, vhp, hvp), built on autograd.grad.

torchlite has no batched gradients: jvp and hvp use the double-backward trick (as PyTorch's
do), jacobian computes one row per output element, or with strategy="forward-mode" one column
per input element by forward AD (torchlite.func.jacfwd), whatever `vectorize` says (the results
are the same; PyTorch's argument checks are kept).
"""

from torchlite import _C, autograd
from torchlite.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from torchlite.autograd import forward_ad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

Tensor = _C.Tensor


def _as_tensors(x, arg_name, fn_name):
    """(whether x was a tuple, x as a tuple), checking that it holds only tensors."""
    was_tuple = isinstance(x, tuple)
    items = x if was_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if was_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(el)}.")
    return was_tuple, items


def _unpack(res, was_tuple):
    """Undoes _as_tensors on a result: `was_tuple` is a bool, or a pair of them for a result
    indexed by (output, input)."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if was_tuple else res[0]


def _prepare(inputs, create_graph, need_graph):
    # With create_graph the result must stay connected to the caller's tensors (a view keeps
    # them in the graph); otherwise work on fresh leaves.
    return tuple(t.view_as(t) if create_graph and t.requires_grad else forward_ad._fresh_leaf(t, need_graph)
                 for t in inputs)


def _finish(res, create_graph):
    if isinstance(res, Tensor):
        return res if create_graph else res.detach()
    return tuple(_finish(r, create_graph) for r in res)


def _check_v(v, other, other_was_tuple):
    if len(v) != len(other):
        if other_was_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            entry = f"Entry {i} in " if other_was_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_NO_GRAD_MESSAGES = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed in "
               "a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
               "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
               "and that the hessian depends on the inputs.",
}


def _check_requires_grad(tensors, kind, strict):
    """strict mode: every tensor must exist and depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD_MESSAGES[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None for an input nothing reaches."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, grads = zip(*pairs)
    return autograd.grad(outs, inputs, grads, allow_unused=True, create_graph=create_graph,
                              retain_graph=retain_graph)


_INDEPENDENT_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros (shaped as refs) for missing gradients; strict mode refuses them instead."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT_MESSAGES[stage].format(i=i))
            g = _C.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _prepare_v(v, create_graph, fn_name, other, other_was_tuple, none_message):
    if v is None:
        if len(other) != 1 or other[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tensors(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, other, other_was_tuple)
    return v


def _call(func, inputs, fn_name, strict):
    was_tuple, outputs = _as_tensors(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return was_tuple, outputs


def _single_output(fn_name, outputs_was_tuple, outputs):
    if outputs_was_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product of func at inputs."""
    with enable_grad():
        inputs_was_tuple, inputs = _as_tensors(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_was_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, create_graph, "vjp", outputs, outputs_was_tuple,
                       "The vector v can only be None if the user-provided function returns a single Tensor with a "
                       "single element.")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill_in_zeros(_grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_was_tuple),
            _unpack(_finish(res, create_graph), inputs_was_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick (the
    vjp with respect to a dummy cotangent u is linear in u; differentiating it gives J v)."""
    with enable_grad():
        inputs_was_tuple, inputs = _as_tensors(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, create_graph, "jvp", inputs, inputs_was_tuple,
                       "The vector v can only be None if the input to the user-provided function is a single Tensor "
                       "with a single element.")
        outputs_was_tuple, outputs = _call(func, inputs, "jvp", strict)
        dummies = tuple(_C.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill_in_zeros(_grad(grad_inputs, dummies, v, create_graph), outputs, strict, create_graph,
                             "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_was_tuple),
            _unpack(_finish(res, create_graph), outputs_was_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: a tensor of shape output.shape + input.shape per
    (output, input) pair, nested as the outputs and inputs are (tuples or single tensors)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                           "together. Please either set `strict=False` or `vectorize=False`.")
    if strategy == "forward-mode":  # one jvp per input element (forward AD)
        from torchlite.func import jacfwd

        inputs_was_tuple, inputs = _as_tensors(inputs, "inputs", "jacobian")
        outputs_was_tuple = []

        def tuple_func(*xs):
            was_tuple, outputs = _call(func, xs, "jacobian", strict)
            outputs_was_tuple.append(was_tuple)
            return outputs

        jac = jacfwd(tuple_func, tuple(range(len(inputs))))(*inputs)
        return _unpack(jac, (outputs_was_tuple[0], inputs_was_tuple))
    with enable_grad():
        inputs_was_tuple, inputs = _as_tensors(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_was_tuple, outputs = _call(func, inputs, "jacobian", strict)
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]  # per input: d out[j] / d input, for each element j
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                grads = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{k}. This is not allowed in strict mode.")
                        g = _C.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                           "This is not allowed in strict mode when create_graph=True.")
                    rows[k].append(g)
            jac.append(tuple(_C.stack(r, 0).view(out.size() + inp.size()) if r else
                             _C.zeros(out.size() + inp.size(), dtype=inp.dtype)
                             for r, inp in zip(rows, inputs)))
    return _unpack(_finish(tuple(jac), create_graph), (outputs_was_tuple, inputs_was_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function at inputs (one block per pair of inputs)."""
    inputs_was_tuple, inputs = _as_tensors(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        was_tuple, outs = _call(func, inp, "hessian", strict)
        _single_output("hessian", was_tuple, outs)
        return outs[0].squeeze()

    def jac_func(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (inputs_was_tuple, inputs_was_tuple))


def _scalar_and_gradient(func, inputs, v, create_graph, strict, fn_name):
    """Shared start of vhp/hvp: prepared inputs and v, the single output, its gradient."""
    inputs_was_tuple, inputs = _as_tensors(inputs, "inputs", fn_name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _prepare_v(v, create_graph, fn_name, inputs, inputs_was_tuple,
                   "The vector v can only be None if the input to the user-provided function is a single Tensor with "
                   "a single element.")
    outputs_was_tuple, outputs = _call(func, inputs, fn_name, strict)
    _single_output(fn_name, outputs_was_tuple, outputs)
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_was_tuple, inputs, v, outputs_was_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the vector-Hessian product of a scalar function."""
    with enable_grad():
        inputs_was_tuple, inputs, v, outputs_was_tuple, outputs, jac = _scalar_and_gradient(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill_in_zeros(_grad(jac, inputs, v, create_graph), inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_was_tuple),
            _unpack(_finish(res, create_graph), inputs_was_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the Hessian-vector product of a scalar function (double-backward
    trick on the vhp, as jvp does on the vjp)."""
    with enable_grad():
        inputs_was_tuple, inputs, v, outputs_was_tuple, outputs, jac = _scalar_and_gradient(
            func, inputs, v, create_graph, strict, "hvp")
        dummies = tuple(_C.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _fill_in_zeros(_grad(double_back, dummies, v, create_graph), inputs, strict, create_graph,
                             "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_was_tuple),
            _unpack(_finish(res, create_graph), inputs_was_tuple))
