"""Proxy: the stand-in value a traced function computes with. Every operation on a Proxy
(operators, methods, attribute reads, calls of torchlite functions) records a Node in the
tracer's graph instead of computing anything."""

import collections
import copy
import dis
import inspect
import operator
from bisect import bisect_left

import torchlite
from torchlite.fx.graph import Graph
from torchlite.fx.node import Node, map_aggregate

__all__ = ["Attribute", "GraphAppendingTracer", "ParameterProxy", "Proxy", "TraceError", "TracerBase"]


class TraceError(ValueError):
    pass


class Scope:
    """The module being traced through: its qualified path and type."""

    def __init__(self, module_path, module_type):
        self.module_path = module_path
        self.module_type = module_type


class TracerBase:
    graph: Graph
    # a subclass sets these to change how attributes and asserts are traced
    proxy_buffer_attributes = False
    traced_func_name = "forward"

    def __init__(self):
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Adds a node to the graph; the hook a tracer overrides to annotate nodes."""
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        self.node_name_to_scope[node.name] = (self.scope.module_path, self.scope.module_type)
        if self.module_stack:
            node.meta["nn_module_stack"] = copy.copy(self.module_stack)
        return node

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Records the operation (its Proxy arguments become Nodes) and returns the Proxy of
        its result."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple) or not isinstance(kwargs_, dict):
            raise TypeError("create_proxy: args must be a tuple and kwargs a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """Turns a value passed to a traced operation into a graph argument: Proxies become
        their Nodes, containers are converted element-wise, constants stay as they are."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            args = tuple(self.create_arg(elem) for elem in a)
            return type(a)(*args) if hasattr(a, "_fields") else args
        if isinstance(a, list):
            return [self.create_arg(elem) for elem in a]
        if isinstance(a, dict):
            result = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}")
                result[k] = self.create_arg(v)
            return result
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, (str, int, float, bool, complex, torchlite.dtype, torchlite.Tensor, torchlite.device,
                          torchlite.memory_format, torchlite.layout, Node)) or a is None or a is ...:
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop "
                         "or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        """`**proxy` calls keys(): recorded as a `keys` method call."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made directly from a Node: it appends to that node's graph."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph


class Proxy:
    """The value of a Node during tracing. Write code as if it were a tensor; what you do to it
    is recorded. Control flow that depends on its value (`if`, `for`, `len`) cannot be recorded
    and raises TraceError; pass such inputs through concrete_args or make a leaf of the code."""

    def __init__(self, node, tracer=None):
        self.tracer = GraphAppendingTracer(node.graph) if tracer is None else tracer
        self.node = node

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("_pybind11"):
            # pybind11 probes foreign objects for this hook when converting them; a Proxy is none
            raise AttributeError(k)
        # a method call or an attribute read: decided when it is used (see Attribute)
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy` unpacks a known number of values: record one getitem per value
        calling_frame = inspect.currentframe().f_back
        instructions = list(dis.get_instructions(calling_frame.f_code))
        inst = instructions[bisect_left(instructions, calling_frame.f_lasti, key=lambda i: i.offset)]
        if inst.opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        """A torchlite function called with a Proxy among its arguments: record the call
        (as call_method when it is a Tensor method)."""
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None
        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying to trace "
                               f"operations {orig_method}")
        tracer = next(iter(tracers))
        if _is_tensor_method(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method.__name__))


def _is_tensor_method(fn) -> bool:
    name = getattr(fn, "__name__", None)
    return name is not None and getattr(torchlite.Tensor, name, None) is fn


class Attribute(Proxy):
    """`proxy.name`: becomes a call_method node when called, else a getattr node on first use."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A parameter's Proxy when the tracer has param_shapes_constant=True: its shape queries
    answer with the real parameter's values instead of being recorded."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


_MAGIC_METHODS = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_",
                  "xor", "getitem", "matmul", "eq", "ne", "lt", "gt", "le", "ge", "pos", "neg", "invert")
_REFLECTABLE_MAGIC_METHODS = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift",
                              "and_", "or_", "xor", "matmul")


def _define_magic(method):
    target = getattr(operator, method)

    def impl(*args):
        return args[0].tracer.create_proxy("call_function", target, args, {})
    impl.__name__ = f"__{method.strip('_')}__"
    setattr(Proxy, impl.__name__, impl)


def _define_reflected_magic(method):
    target = getattr(operator, method)

    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", target, (rhs, self), {})
    impl.__name__ = f"__r{method.strip('_')}__"
    setattr(Proxy, impl.__name__, impl)


for _method in _MAGIC_METHODS:  # set after the class body, so Proxy stays hashable despite __eq__
    _define_magic(_method)
for _method in _REFLECTABLE_MAGIC_METHODS:
    _define_reflected_magic(_method)
