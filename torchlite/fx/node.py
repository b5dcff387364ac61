"""Node: one operation of an fx Graph, in a doubly linked list owned by the Graph, with the
def-use edges (`users`, `all_input_nodes`) kept up to date whenever its args change."""

import builtins

import torchlite
import torchlite.nn.functional
from torchlite.fx.immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "has_side_effect", "map_aggregate", "map_arg"]

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")
_side_effectful_functions = set()


def has_side_effect(fn):
    """Marks fn so eliminate_dead_code keeps its calls even when their result is unused."""
    _side_effectful_functions.add(fn)
    return fn


def _public_namespaces():
    # the names a user writes; generated operators report torchlite._C as their module
    return (("torchlite", torchlite), ("torchlite.nn.functional", torchlite.nn.functional),
            ("torchlite.linalg", torchlite.linalg), ("torchlite.special", torchlite.special),
            ("torchlite.fft", torchlite.fft))


def _get_qualified_name(func) -> str:
    """The dotted name that reaches func from its module, as generated code writes it."""
    name = func.__name__
    if getattr(builtins, name, None) is func:
        return name
    if name == "<lambda>":
        raise RuntimeError(f"Unable to represent lambda {func} in generated code")
    for prefix, namespace in _public_namespaces():
        if getattr(namespace, name, None) is func:
            return f"{prefix}.{name}"
    module = getattr(func, "__module__", None) or "builtins"
    return f"{module}.{getattr(func, '__qualname__', name)}"


def _pretty_print_target(target) -> str:
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None)
    if module == "builtins":
        return f"builtins.{target.__name__}"
    if module == "_operator":
        return f"operator.{target.__name__}"
    return _get_qualified_name(target)


def _format_arg(arg) -> str:
    if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


def _type_repr(t) -> str:
    if isinstance(t, type) and t.__module__ != "typing":
        return t.__qualname__ if t.__module__ == "builtins" else _get_qualified_name(t)
    return repr(t)


class Node:
    """One operation: `op` is what kind (placeholder, get_attr, call_function, call_method,
    call_module, output), `target` what it calls or reads, `args`/`kwargs` its inputs, where
    other Nodes stand for the values they produce."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPS:
            raise ValueError(f"Node op must be one of {_OPS[:-1]}, got {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a Callable is expected")
        if op not in ("call_function", "root") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}  # an ordered set
        self.users = {}
        self.type = return_type
        self._prev = self._next = self
        self._erased = False
        self.meta = {}
        self._args, self._kwargs = (), {}
        self._update_args_kwargs(args, kwargs)

    # ------------------------------------------------------------------ the linked list
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x):
        """Moves x (a node of the same graph) to just before this node."""
        if x is self:
            raise ValueError("Node.prepend: a node cannot be placed before itself")
        if x.graph is not self.graph:
            raise RuntimeError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Moves x to just after this node."""
        self._next.prepend(x)

    # ------------------------------------------------------------------ args and users
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args, new_kwargs):
        def check(n):
            if n.graph is not self.graph:
                raise RuntimeError(f"Argument '{n}' of Node '{self.name}' belongs to a different Graph")
            return n
        new_args = map_arg(tuple(new_args), check)
        new_kwargs = map_arg(dict(new_kwargs), check)
        for old_use in self._input_nodes:
            old_use.users.pop(self)
        self._input_nodes = {}
        self._args, self._kwargs = new_args, new_kwargs
        map_arg(self._args, lambda n: self._input_nodes.setdefault(n))
        map_arg(self._kwargs, lambda n: self._input_nodes.setdefault(n))
        for new_use in self._input_nodes:
            new_use.users.setdefault(self)

    def replace_all_uses_with(self, replace_with, delete_user_cb=None, *, propagate_meta=False):
        """Makes every user of this node use replace_with instead (those for which
        delete_user_cb returns True, when given); returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                                     "but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        to_process = [u for u in self.users if delete_user_cb is None or delete_user_cb(u)]
        for user in to_process:
            user.replace_input_with(self, replace_with)
        return to_process

    def replace_input_with(self, old_input, new_input):
        def swap(n):
            return new_input if n is old_input else n
        self._update_args_kwargs(map_arg(self.args, swap), map_arg(self.kwargs, swap))

    def is_impure(self, impure_random=True):
        """Whether eliminate_dead_code must keep this node even when nothing uses it."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        if self.op == "call_module" and self.graph.owning_module is not None:
            return getattr(self.graph.owning_module.get_submodule(self.target), "_is_impure", False)
        return False

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    # ------------------------------------------------------------------ printing
    def __repr__(self):
        return self.name

    def format_node(self, placeholder_names=None, maybe_return_typename=None, *, include_tensor_metadata=False):
        """The node as one line of the graph's printout (`%name : [num_users=N] = op[target=...]...`)."""
        if self.op == "output":
            if self.type and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        typename = f"{_type_repr(self.type)} " if self.type else ""
        head = f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}"
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
            default = f"(default={self.args[0]})" if self.args else ""
            line = f"{head}[target={self.target}]{default}"
        elif self.op == "get_attr":
            line = f"{head}[target={_pretty_print_target(self.target)}]"
        else:
            line = (f"{head}[target={_pretty_print_target(self.target)}](args = {_format_arg(self.args)}, "
                    f"kwargs = {_format_arg(self.kwargs)})")
        # include_tensor_metadata annotates from meta["val"] (fake tensors), which torchlite never records
        return line


def map_arg(a, fn):
    """Applies fn to every Node inside the (nested) argument a."""
    if not callable(fn):
        raise TypeError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a, fn):
    """Applies fn to every leaf of the nested tuples, lists, dicts and slices in a."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        return type(a)(*t) if hasattr(a, "_fields") else t
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


