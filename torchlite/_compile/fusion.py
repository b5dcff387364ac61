"""Find the pointwise regions of a traced graph and put one fused kernel in place of each.

A region is a maximal connected group of fusible nodes (pointwise operators of the table, on
CPU tensors of a plain dtype, whose value needs no gradient) that share one iteration shape: a
node of a smaller (broadcast) shape may join only when all its users are in the region, so
every region output is dense over the region's shape. A sum or mean over the last dim of a
region's value (floating, no dtype= argument) joins it too: the loop then runs row by row and
accumulates, and only pointwise ops of the full shape that do not read a reduction's result
join it afterwards. Everything else runs eagerly between regions: those nodes are the graph
breaks.
"""

import ctypes
import operator
from dataclasses import dataclass, field

import torchlite
from torchlite._compile.cpp_kernel import CTYPES, KernelSpec, build_library, cpp_literal, element_size
from torchlite._compile.pointwise_table import pointwise_ops, vector_math_functors
from torchlite.fx.passes.shape_prop import ShapeProp

__all__ = ["DeviceShapeProp", "NEEDS_GRAD", "Region", "fuse_graph"]

# Python operators as the graph records them -> the operator they run
_OPERATORS = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div", operator.neg: "neg",
    operator.abs: "abs", operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le",
    operator.gt: "gt", operator.ge: "ge", operator.and_: "bitwise_and", operator.or_: "bitwise_or",
    operator.xor: "bitwise_xor", operator.invert: "bitwise_not",
}
_FLOATING = (torchlite.float32, torchlite.float64)
# The break of a value that needs a gradient: fused kernels have no backward (none is generated
# from the derivative formulas yet), so such values keep eager's operators and autograd graph.
NEEDS_GRAD = "needs gradients (autograd runs eagerly)"


@dataclass(frozen=True)
class Reduction:
    """A sum or mean over the last dim, fused into the region of its input (a node's
    meta["fusion_op"])."""
    name: str
    keepdim: bool


@dataclass(eq=False)  # regions are compared and hashed by identity
class Region:
    nodes: list
    shape: tuple
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)

    @property
    def closed(self):
        """Whether the region has a reduction (its shape is then fixed)."""
        return any(isinstance(n.meta["fusion_op"], Reduction) for n in self.nodes)

    def describe(self):
        ops = " -> ".join(n.meta["fusion_op"].name for n in self.nodes)
        return f"fused region of {len(self.nodes)} ops over {list(self.shape)}: {ops}"


def _op_of(node):
    table = pointwise_ops()
    if node.op == "call_method":
        name = node.target
    elif node.op == "call_function":
        name = _OPERATORS.get(node.target)
        if name is None and (getattr(node.target, "__module__", None) or "").startswith("torchlite"):
            name = getattr(node.target, "__name__", None)  # torchlite's own functions and bindings
    else:
        return None
    return table.get(name)


def _default(text):
    if text in (None, "None"):
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith('"'):
        return text.strip('"')
    try:
        return int(text)
    except ValueError:
        return float(text)


def _bind(op, node):
    """{schema argument: value} for the node's call, or None where it does not fit the schema."""
    kwargs = dict(node.kwargs)
    if kwargs.pop("inplace", False):
        return None
    if "input" in kwargs:
        kwargs["self"] = kwargs.pop("input")
    names = [a[0] for a in op.schema_args]
    if len(node.args) > len(names) or not set(kwargs) <= set(names[len(node.args):]):
        return None
    bound = dict(zip(names, node.args))
    bound.update(kwargs)
    for name, _, default in op.schema_args:
        if name not in bound:
            if default is None:
                return None
            bound[name] = _default(default)
    return bound


def _tensor_meta(value):
    meta = value.meta.get("tensor_meta") if isinstance(value, torchlite.fx.Node) else None
    return meta if isinstance(meta, tuple) and hasattr(meta, "dtype") else None


def _fusible(node, cpu_values):
    """Why node cannot be fused, or None after storing what the kernel needs in node.meta."""
    op = _op_of(node)
    if op is None:
        return "not a fusible pointwise operator"
    bound = _bind(op, node)
    if bound is None:
        return "arguments the fused kernel does not take"
    if op.selected_by:
        op = op.for_value(bound[op.selected_by[0]])
        if op is None:
            return "an argument value with no fused loop"
    meta = _tensor_meta(node)
    if meta is None or meta.dtype not in CTYPES or node not in cpu_values:
        return "output is not a CPU tensor of a fused dtype"
    if meta.requires_grad:
        return NEEDS_GRAD
    operands, probes = [], []
    for name, typ, _ in op.schema_args:
        value = bound[name]
        if typ.startswith("Tensor"):
            m = _tensor_meta(value)
            if m is not None:
                if m.dtype not in CTYPES or value not in cpu_values:
                    return "an input is not a CPU tensor of a fused dtype"
                operands.append(value)
                probes.append(torchlite.empty((0,) if len(m.shape) else (), dtype=m.dtype))
            elif isinstance(value, (bool, int, float)):
                operands.append(("const", value))
                probes.append(value)
            else:
                return "an argument is neither a tensor nor a number"
        elif isinstance(value, torchlite.fx.Node):
            return "a scalar argument computed in the graph"
    compute = meta.dtype
    if compute == torchlite.bool:  # comparisons and tests: the functor runs on the promoted inputs
        compute = torchlite.result_type(*probes) if len(probes) > 1 else probes[0].dtype
    if compute not in CTYPES:
        return "compute dtype the fused kernel does not take"
    if compute in _FLOATING and vector_math_functors().get(op.functor) is False:
        return "eager runs it on the vector math layer, faster than a fused scalar loop"
    if not op.structured and compute not in _FLOATING:
        return "hand-written kernel on an integer type (it may check the data)"
    fargs = [_functor_arg(typ, bound[name]) for name, typ, _ in op.schema_args if name in op.functor_args]
    if None in fargs:
        return "a functor argument of an unsupported type"
    node.meta["fusion_op"] = op
    node.meta["fusion"] = (operands, compute, meta.dtype, fargs, tuple(meta.shape))
    return None


def _functor_arg(typ, value):
    """A functor argument as a C++ expression, as the eager stub would receive it."""
    if value is not None and not isinstance(value, (bool, int, float)):
        return None
    base = typ.rstrip("?")
    if value is None:
        return {"Scalar": "std::optional<Scalar>()", "float": "std::optional<double>()"}.get(base) \
            if typ.endswith("?") else None
    expr = {"Scalar": f"Scalar({cpp_literal(value)})", "float": f"double({cpp_literal(value)})",
            "int": f"int64_t({cpp_literal(value)})", "bool": cpp_literal(bool(value))}.get(base)
    if expr is not None and typ.endswith("?"):
        expr = f"std::optional<{'Scalar' if base == 'Scalar' else 'double' if base == 'float' else 'int64_t'}>({expr})"
    return expr


def _reduction(node, region_of, cpu_values):
    """A Reduction when node sums or averages, over the last dim, a pointwise value of a region
    that spans the region's shape (floating, no dtype=); else None."""
    if node.op == "call_method":
        name = node.target
    elif node.op == "call_function" and node.target in (torchlite.sum, torchlite.mean):
        name = node.target.__name__
    else:
        return None
    if name not in ("sum", "mean") or not node.args or node.args[0] not in region_of:
        return None
    region = region_of[node.args[0]]
    bound = dict(zip(("input", "dim", "keepdim"), node.args))
    if set(node.kwargs) - {"dim", "keepdim", "dtype"} or node.kwargs.get("dtype") is not None or \
            len(node.args) > 3:
        return None
    bound.update(node.kwargs)
    dim, keepdim = bound.get("dim"), bound.get("keepdim", False)
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    src, out = _tensor_meta(node.args[0]), _tensor_meta(node)
    nd = len(region.shape)
    if isinstance(node.args[0].meta["fusion_op"], Reduction) or type(dim) is not int or dim not in (-1, nd - 1) or \
            type(keepdim) is not bool or out is None or node not in cpu_values or out.requires_grad or \
            src.dtype not in _FLOATING or out.dtype != src.dtype or tuple(src.shape) != region.shape or \
            region.shape[-1] < 2:
        return None
    return Reduction(name, keepdim)


def _partition(gm, cpu_values):
    regions, breaks, region_of = [], [], {}
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    mutations = sorted(order[n] for n in gm.graph.nodes if _mutates(gm, n))
    for node in gm.graph.nodes:
        if node.op in ("placeholder", "output", "get_attr"):
            continue
        reduction = _reduction(node, region_of, cpu_values)
        if reduction is not None:
            region = region_of[node.args[0]]
            if _can_merge([region], node, order, mutations, region.shape):
                node.meta["fusion_op"] = reduction
                region.nodes.append(node)
                region_of[node] = region
                continue
        why = _fusible(node, cpu_values)
        if why is not None:
            breaks.append((node, why))
            continue
        # a region that ends in reductions takes more of its shape's pointwise ops, but not one
        # that reads a reduction's result (that needs the finished rows)
        shape = node.meta["fusion"][4]
        reduced = {region_of[a] for a in node.all_input_nodes if isinstance(a.meta.get("fusion_op"), Reduction)}
        producers = [r for r in dict.fromkeys(region_of[a] for a in node.all_input_nodes if a in region_of)
                     if r not in reduced and (not r.closed or r.shape == shape)]
        if producers and _can_merge(producers, node, order, mutations, shape):
            region = producers[0]
            for other in producers[1:]:
                region.nodes += other.nodes
                regions.remove(other)
                for m in other.nodes:
                    region_of[m] = region
            region.nodes.sort(key=order.__getitem__)
        else:
            region = Region([], node.meta["fusion"][4])
            regions.append(region)
        region.nodes.append(node)
        region.shape = node.meta["fusion"][4]
        region_of[node] = region
    for r in regions:
        if len(r.nodes) == 1:
            breaks.append((r.nodes[0], "a single pointwise op (nothing to fuse it with)"))
    breaks.sort(key=lambda b: order[b[0]])
    return [r for r in regions if len(r.nodes) > 1], breaks


_INPLACE_OPERATORS = {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
                      operator.imod, operator.ipow, operator.iand, operator.ior, operator.ixor, operator.ilshift,
                      operator.irshift, operator.setitem}


def _mutates(gm, node):
    """Whether node may write into a tensor: in-place methods and functions, out=, inplace=True
    (also on a module)."""
    if node.op == "call_module":
        return getattr(gm.get_submodule(node.target), "inplace", False) is True
    if node.op not in ("call_method", "call_function"):
        return False
    name = node.target if node.op == "call_method" else getattr(node.target, "__name__", "")
    return node.target in _INPLACE_OPERATORS or (name.endswith("_") and not name.endswith("__")) or \
        node.kwargs.get("inplace") is True or "out" in node.kwargs


def _can_merge(producers, node, order, mutations, shape):
    """Whether node and the regions of its inputs can become one region over `shape`, run as one
    call placed at max(first member, last outside input): pointwise members of another shape
    must have no users outside (region outputs are dense over the shape, or reductions of it);
    the call must come before every outside user of a member (which also rules out cycles); and
    no write may happen between the first and the last member (the fused loop reads everything
    at once)."""
    members = {node}.union(*(r.nodes for r in producers))
    if any("fusion" in m.meta and m.meta["fusion"][4] != shape and not set(m.users) <= members for m in members):
        return False
    first, last = min(order[m] for m in members), max(order[m] for m in members)
    inputs = [order[a] for m in members for a in m.all_input_nodes if a not in members]
    users = [order[u] for m in members for u in m.users if u not in members]
    if max([first, *inputs]) >= min(users, default=len(order)):
        return False
    return not any(first < k < last for k in mutations)


class FusedKernel:
    """The callable that stands for one region in the rewritten graph. `outputs` are (dtype,
    shape) of its results: its pointwise outputs span the region's shape, its reductions that
    shape less the last dim (kept as 1 with keepdim)."""

    def __init__(self, name, region, outputs):
        self.__name__ = self.__qualname__ = name
        self.__module__ = "compiled"  # not torchlite.*: generated code keeps it as a global
        self.shape = tuple(region.shape)
        self.outputs = outputs
        self.region = region
        self.fn = None  # set once the library is built
        # the outputs are fresh and contiguous; a reduction's result is seen over the region's
        # shape with stride 0 along the reduced dim (its size-1 last dim broadcasts)
        self._out_layouts = [_layout(s if s == self.shape else self.shape[:-1] + (1,), d) for d, s in outputs]
        # the guards fix the inputs' shapes but not their strides: the launch arguments (sizes
        # and strides as ctypes arrays) are worked out once per tuple of input strides
        self._launches = {}

    def __call__(self, *inputs):
        outs = [torchlite.empty(s, dtype=d) for d, s in self.outputs]
        strides = tuple(t.stride() for t in inputs)
        launch = self._launches.get(strides)
        if launch is None:
            launch = self._launch(inputs)
            if len(self._launches) >= _MAX_LAUNCHES:
                self._launches.clear()
            self._launches[strides] = launch
        nd, sizes, byte_strides, numel, ptr_array = launch
        self.fn(nd, sizes, ptr_array(*[t.data_ptr() for t in outs], *[t.data_ptr() for t in inputs]),
                byte_strides, numel)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _launch(self, inputs):
        layouts = self._out_layouts + [(t.shape, t.stride(), t.element_size()) for t in inputs]
        sizes, strides = _coalesce(self.shape, layouts)
        nd = len(sizes)
        return (nd, (ctypes.c_int64 * nd)(*sizes), (ctypes.c_int64 * len(strides))(*strides), _numel(sizes),
                ctypes.c_void_p * len(layouts))


_MAX_LAUNCHES = 16  # input stride patterns kept per kernel


def _layout(shape, dtype):
    """(shape, strides, element size) of a fresh contiguous tensor."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(shape), tuple(reversed(strides)), element_size(dtype)


def _numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def _coalesce(shape, layouts):
    """(sizes, byte strides per tensor, flattened) over shape, for tensors given as (shape,
    strides, element size): broadcast dims at stride 0 and dims that are contiguous across all
    tensors merged into one."""
    nd = len(shape)
    per = []
    for tshape, tstride, item in layouts:
        off = nd - len(tshape)
        per.append([0 if d < off or tshape[d - off] == 1 else tstride[d - off] * item for d in range(nd)])
    dims = [d for d in range(nd) if shape[d] != 1]
    sizes, cols = [], []
    for d in dims:
        if sizes and all(p[cols[-1]] == p[d] * shape[d] for p in per):
            sizes[-1] *= shape[d]
            cols[-1] = d
        else:
            sizes.append(shape[d])
            cols.append(d)
    if not sizes:
        return [1], [0] * len(layouts)
    # after a merge the surviving column holds the inner (smallest) stride of the merged run
    return sizes, [p[c] for p in per for c in cols]


def fuse_graph(gm):
    """Rewrite gm in place, after ShapeProp ran on it: every region becomes one FusedKernel call.
    Returns (regions, breaks, whether the library came from the disk cache)."""
    cpu_values = {n for n in gm.graph.nodes if _is_cpu(n)}
    regions, breaks = _partition(gm, cpu_values)
    specs, kernels = [], []
    for i, region in enumerate(regions):
        members = set(region.nodes)
        pointwise = [n for n in region.nodes if not isinstance(n.meta["fusion_op"], Reduction)]
        reductions = [n for n in region.nodes if n not in pointwise]
        index = {n: k for k, n in enumerate(pointwise)}
        for n in pointwise:
            for a in n.meta["fusion"][0]:
                if isinstance(a, torchlite.fx.Node) and a not in members and a not in region.inputs:
                    region.inputs.append(a)
        region.outputs = [n for n in pointwise if any(u not in members for u in n.users)] + reductions
        nodes = []
        for n in pointwise:
            operands, compute, out, fargs, _ = n.meta["fusion"]
            refs = [("node", index[a]) if a in members else ("in", region.inputs.index(a))
                    if isinstance(a, torchlite.fx.Node) else a for a in operands]
            op = n.meta["fusion_op"]
            nodes.append((op.functor, op.header, compute, out, refs, fargs))
        name = f"fused_{i}"  # names depend only on the graph, so equal graphs share a library
        specs.append(KernelSpec(name, [_tensor_meta(a).dtype for a in region.inputs], nodes,
                                [index[o] for o in region.outputs if o in index],
                                [(index[r.args[0]], r.meta["fusion_op"].name) for r in reductions]))
        kernels.append(FusedKernel(name, region, [(_tensor_meta(o).dtype, tuple(_tensor_meta(o).shape))
                                                  for o in region.outputs]))
    if not specs:
        return regions, breaks, None
    fns, cached = build_library(specs)
    replaced = {}  # region output -> the node that now stands for it
    for kernel in kernels:
        kernel.fn = fns[kernel.__name__]
        _replace_region(gm, kernel, replaced)
    gm.graph.lint()
    gm.recompile()
    return regions, breaks, cached


def _is_cpu(node):
    return _tensor_meta(node) is not None and node.meta.get("device_type") == "cpu"


class DeviceShapeProp(ShapeProp):
    """ShapeProp that also records the device type of tensor values."""

    def run_node(self, n):
        result = super().run_node(n)
        if isinstance(result, torchlite.Tensor):
            n.meta["device_type"] = result.device.type
        return result


def _replace_region(gm, kernel, replaced):
    region, graph = kernel.region, gm.graph
    inputs = tuple(replaced.get(a, a) for a in region.inputs)
    order = {n: i for i, n in enumerate(graph.nodes)}
    where = max([region.nodes[0], *inputs], key=order.__getitem__)  # see _can_merge
    with graph.inserting_after(where):
        call = graph.call_function(kernel, inputs)
    results = [call]
    if len(region.outputs) > 1:
        results = []
        for k in range(len(region.outputs)):
            with graph.inserting_after(results[-1] if results else call):
                results.append(graph.call_function(operator.getitem, (call, k)))
    members = set(region.nodes)
    for out, res in zip(region.outputs, results):
        out.replace_all_uses_with(res, delete_user_cb=lambda user: user not in members)
        replaced[out] = res
    for n in reversed(region.nodes):
        graph.erase_node(n)
