"""torchlite.func: composable function transforms, as torch.func names them.

torchlite builds them on its two autograd engines rather than on functorch's level-tagged
tensors: grad, grad_and_value, vjp and jacrev run the reverse-mode engine on the arguments they
differentiate (with create_graph=True, so they nest: grad(grad(f)) works and their results
keep a graph); jvp, jacfwd and linearize run forward-mode AD (torchlite.autograd.forward_ad)
on dual tensors; hessian is jacfwd(jacrev(f)) (forward over reverse), as in PyTorch.
Arguments may be tensors or tuples, lists and dicts of them.

Where torchlite differs: forward AD has a single dual level, so jvp, jacfwd and linearize do
not nest inside one another (they raise), though reverse transforms nest inside them; results
of the reverse transforms require grad whenever the arguments they differentiate do (or are
fresh leaves made for the call); vmap runs the function once per batch element (see vmap).
"""

import functools

from torchlite import _C
from torchlite._function_transforms import vmap
from torchlite.autograd import forward_ad as fwAD
from torchlite.autograd import grad as _autograd_grad
from torchlite.autograd.grad_mode import enable_grad
from torchlite.nn.utils.stateless import _functional_call

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize", "functional_call",
           "vmap"]

Tensor = _C.Tensor


# ---- argument trees: tensors nested in tuples, lists and dicts -----------------------------

def _flatten(tree):
    """(leaves, rebuild): rebuild(new_leaves) puts new leaves where the old ones were."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(x) for x in tree]
        leaves = [leaf for p in parts for leaf in p[0]]

        def rebuild(new):
            out, i = [], 0
            for p in parts:
                out.append(p[1](new[i:i + len(p[0])]))
                i += len(p[0])
            return type(tree)(*out) if hasattr(tree, "_fields") else type(tree)(out)  # namedtuple or not
        return leaves, rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, rebuild_values = _flatten([tree[k] for k in keys])
        return leaves, lambda new: dict(zip(keys, rebuild_values(new)))
    return [tree], lambda new: new[0]


def _structure(tree):
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, tuple(_structure(x) for x in tree))
    if isinstance(tree, dict):
        return ("dict", tuple((k, _structure(v)) for k, v in tree.items()))
    return "*"


def _tensors_only(leaves, api, what):
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{api}: Expected {what} to only contain Tensors, got {type(x)}")
    return leaves


# ---- argnums ---------------------------------------------------------------------------------

def _argnums(argnums, num_args):
    """The positions argnums selects, validated as PyTorch validates them."""
    if isinstance(argnums, int):
        picked = (argnums,)
    elif isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        picked = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    out = []
    for a in picked:
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if not -num_args <= a < num_args:
            raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")
        out.append(a % num_args)
    return out


def _differentiable_input(x):
    """x as an input the reverse engine can differentiate with respect to: x itself where an
    enclosing transform already tracks it, else a fresh leaf that keeps x's tangent."""
    return x if x.requires_grad else fwAD._fresh_leaf(x, x.is_floating_point() or x.is_complex())


def _prepare_args(args, positions):
    """(args with the selected ones replaced by differentiable inputs, (leaves, rebuild) of each)."""
    args = list(args)
    trees = []
    for i in positions:
        leaves, rebuild = _flatten(args[i])
        _tensors_only(leaves, "grad", "inputs")
        leaves = [_differentiable_input(x) for x in leaves]
        args[i] = rebuild(leaves)
        trees.append((leaves, rebuild))
    return args, trees


def _grads(outputs, inputs, grad_outputs):
    """d outputs / d inputs (zeros where an input is unused), keeping the graph for nesting."""
    gs = _autograd_grad(outputs, inputs, grad_outputs, retain_graph=True, create_graph=True, allow_unused=True)
    return [_C.zeros_like(x) if g is None else g for g, x in zip(gs, inputs)]


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def _detach_aux(aux):
    leaves, rebuild = _flatten(aux)
    return rebuild([x.detach() if isinstance(x, Tensor) else x for x in leaves])


# ---- reverse mode ------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of func with respect to the arguments at argnums, the value
    of func). func must return a scalar tensor (and aux when has_aux: ((grad, (value, aux))))."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _argnums(argnums, len(args))
        with enable_grad():
            args, trees = _prepare_args(args, positions)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            flat = [x for leaves, _ in trees for x in leaves]
            gs = _grads([output], flat, None) if output.requires_grad else [_C.zeros_like(x) for x in flat]
        per_arg, i = [], 0
        for leaves, rebuild in trees:
            per_arg.append(rebuild(gs[i:i + len(leaves)]))
            i += len(leaves)
        g = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        return (g, (output, _detach_aux(aux))) if has_aux else (g, output)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function func with respect to the arguments at argnums (a
    function of the same arguments); with has_aux, func returns (output, aux) and the gradient
    function returns (gradient, aux). grad(lambda x: x.sin().sum())(x) is x.cos().
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the vector-Jacobian products, one per
    primal (cotangents shaped as func's output)."""
    with enable_grad():
        args, trees = _prepare_args(primals, range(len(primals)))
        output, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
    out_leaves, _ = _flatten(output)
    _tensors_only(out_leaves, "vjp(f, *primals)", "outputs")
    out_structure = _structure(output)
    flat_in = [x for leaves, _ in trees for x in leaves]

    def vjp_fn(cotangents):
        if _structure(cotangents) != out_structure:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {_structure(cotangents)}, primal output: "
                               f"{out_structure}")
        cot, _ = _flatten(cotangents)
        for o, c in zip(out_leaves, cot):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {tuple(c.shape)} and output[0] "
                                   f"has a shape of {tuple(o.shape)}.")
        with enable_grad():
            pairs = [(o, c) for o, c in zip(out_leaves, cot) if o.requires_grad]
            gs = (_grads([o for o, _ in pairs], flat_in, [c for _, c in pairs]) if pairs
                  else [_C.zeros_like(x) for x in flat_in])
        out, i = [], 0
        for leaves, rebuild in trees:
            out.append(rebuild(gs[i:i + len(leaves)]))
            i += len(leaves)
        return tuple(out)

    return (output, vjp_fn, _detach_aux(aux)) if has_aux else (output, vjp_fn)


def _check_chunk_size(chunk_size):
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")


def _jacobian_tree(output, per_output_blocks, argnums, trees):
    """Nests the Jacobian blocks as PyTorch does: output structure outside, argnums inside."""
    out_leaves, out_rebuild = _flatten(output)
    nested = []
    for blocks in per_output_blocks:
        per_arg, i = [], 0
        for leaves, rebuild in trees:
            per_arg.append(rebuild(blocks[i:i + len(leaves)]))
            i += len(leaves)
        nested.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
    return out_rebuild(nested)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to the arguments at argnums, one vjp per output element
    (blocks shaped output.shape + input.shape). chunk_size is accepted for compatibility: the
    rows are computed one at a time."""
    _check_chunk_size(chunk_size)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _argnums(argnums, len(args))
        with enable_grad():
            args, trees = _prepare_args(args, positions)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "jacrev(f)(*args)")
            out_leaves, _ = _flatten(output)
            _tensors_only(out_leaves, "jacrev(f, ...)(*args)", "outputs")
            flat_in = [x for leaves, _ in trees for x in leaves]
            blocks = []
            for o in out_leaves:
                rows = []
                flat_o = o.reshape(-1)
                for j in range(o.numel()):
                    rows.append(_grads([flat_o[j]], flat_in, None) if o.requires_grad
                                else [_C.zeros_like(x) for x in flat_in])
                blocks.append([_C.stack([r[k] for r in rows], 0).reshape(tuple(o.shape) + tuple(x.shape))
                               if rows else _C.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                               for k, x in enumerate(flat_in)])
        jac = _jacobian_tree(output, blocks, argnums, trees)
        return (jac, _detach_aux(aux)) if has_aux else jac

    return wrapper


# ---- forward mode ------------------------------------------------------------------------------

def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian of func at primals applied to tangents): one forward pass
    with dual tensors. primals and tangents are tuples of the same structure."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    if _structure(primals) != _structure(tangents):
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, if "
                           "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{_structure(primals)} and tangents with structure {_structure(tangents)}")
    if strict:
        raise RuntimeError(f"{api}: strict=True is not implemented")
    p_leaves, rebuild = _flatten(primals)
    t_leaves, _ = _flatten(tangents)
    _tensors_only(p_leaves, api, "primals")
    _tensors_only(t_leaves, api, "tangents")
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"{api}: Expected primals and tangents to have the same shape, got {tuple(p.shape)} "
                               f"and {tuple(t.shape)}")
    with fwAD.dual_level():
        duals = rebuild([fwAD.make_dual(p, t) for p, t in zip(p_leaves, t_leaves)])
        output, aux = _split_aux(func(*duals), has_aux, api)
        out_leaves, out_rebuild = _flatten(output)
        _tensors_only(out_leaves, api, "outputs")
        unpacked = [fwAD.unpack_dual(o) for o in out_leaves]
        primals_out = out_rebuild([u.primal for u in unpacked])
        tangents_out = out_rebuild([_C.zeros_like(o) if u.tangent is None else u.tangent
                                    for o, u in zip(out_leaves, unpacked)])
    return (primals_out, tangents_out, _detach_aux(aux)) if has_aux else (primals_out, tangents_out)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to the arguments at argnums, one jvp per input element
    (blocks shaped output.shape + input.shape)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _argnums(argnums, len(args))
        trees = [_flatten(args[i]) for i in positions]
        for leaves, _ in trees:
            _tensors_only(leaves, "jacfwd(f, ...)(*args)", "inputs")
        flat_in = [x for leaves, _ in trees for x in leaves]
        columns = [[] for _ in flat_in]  # per input leaf: per element, the output tangents
        out = aux = None
        with fwAD.dual_level():
            for k, x in enumerate(flat_in):
                for j in range(x.numel()):
                    onehot = _C.zeros(x.numel(), dtype=x.dtype, device=x.device)
                    onehot[j] = 1
                    leaves = [fwAD.make_dual(y, onehot.view(x.shape)) if m == k else y for m, y in enumerate(flat_in)]
                    new_args, i = list(args), 0
                    for p, (arg_leaves, rebuild) in zip(positions, trees):
                        new_args[p] = rebuild(leaves[i:i + len(arg_leaves)])
                        i += len(arg_leaves)
                    out, aux = _split_aux(func(*new_args, **kwargs), has_aux, "jacfwd(f, ...)(*args)")
                    outs = _flatten(out)[0]
                    tangents = [fwAD.unpack_dual(o).tangent for o in outs]
                    columns[k].append([_C.zeros_like(o) if t is None else t for o, t in zip(outs, tangents)])
        if out is None:  # no input element: evaluate once for the output's shape
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "jacfwd(f, ...)(*args)")
        out_leaves, _ = _flatten(out)
        blocks = []
        for n, o in enumerate(out_leaves):
            blocks.append([_C.stack([col[n] for col in columns[k]], -1).reshape(tuple(o.shape) + tuple(x.shape))
                           if columns[k] else _C.zeros(tuple(o.shape) + tuple(x.shape), dtype=o.dtype)
                           for k, x in enumerate(flat_in)])
        jac = _jacobian_tree(out, blocks, argnums, trees)
        return (jac, _detach_aux(aux)) if has_aux else jac

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function: jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the Jacobian of func at primals applied to
    tangents. torchlite runs func again for each call of jvp_fn (PyTorch traces it once)."""
    output = func(*primals)
    structure = _structure(primals)

    def jvp_fn(*tangents):
        if _structure(tangents) != structure:
            raise RuntimeError(f"Expected the tangents {_structure(tangents)} to have the same argspec as the "
                               f"primals {structure}")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with its parameters and buffers replaced by the given tensors for
    the call (one dict, or several with disjoint keys)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        merged = {}
        for d in parameter_and_buffer_dicts:
            repeated = sorted(k for k in d if k in merged)
            if repeated:
                raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            merged.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)
