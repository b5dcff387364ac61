"""Graph: the ordered Nodes of one traced function, the editing API on them, and the
generation of the Python source that runs them (`python_code`)."""

import builtins
import copy
import enum
import inspect
import keyword
import math
import re
import types
import typing
from collections import defaultdict

import torchlite
from torchlite.fx.node import Node, _get_qualified_name, _pretty_print_target, _type_repr, map_arg

__all__ = ["Graph", "PythonCode"]

# operator functions that generated code writes as Python syntax
_MAGIC_TEMPLATES = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}",
    "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}", "eq": "{} == {}",
    "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
    "pos": "+{}", "neg": "-{}", "invert": "~{}",
}
_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")
_NAME_SUFFIX = re.compile(r"(.*)_(\d+)$")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _snake_case(s: str) -> str:
    return _CAMEL_BOUNDARY.sub(r"_\1", s).lower()


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


class _Namespace:
    """Hands out unique Python identifiers: a clash gets the next `_N` suffix, and names that
    would shadow keywords or builtins are suffixed too."""

    def __init__(self):
        self._obj_to_name = {}
        self._used_names = set()
        self._base_count = defaultdict(int)

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = _NAME_SUFFIX.match(candidate)
        base, num = (candidate, None) if match is None else (match.group(1), int(match.group(2)))
        candidate = base if num is None else f"{base}_{num}"
        num = num or self._base_count[base]
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj):
        self._obj_to_name[id(obj)] = name

    @staticmethod
    def _is_illegal_name(name, obj) -> bool:
        if keyword.iskeyword(name) or name in _RESERVED_GLOBALS:
            return True
        return name in builtins.__dict__ and obj is not builtins.__dict__[name]


# globals every generated function sees, so reprs of dtypes, devices and infinities evaluate
_RESERVED_GLOBALS = ("torchlite", "device", "inf", "nan", "NoneType")


class PythonCode:
    """What python_code returns: the source of `forward` and the globals it needs."""

    def __init__(self, src, globals):
        self.src = src
        self.globals = globals


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, type, value, tb):
        self.graph._insert = self.orig_insert


class _NodeList:
    def __init__(self, graph, reverse=False):
        self._graph = graph
        self._reverse = reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = root._prev if self._reverse else root._next
        while cur is not root:
            nxt = cur._prev if self._reverse else cur._next
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))


class Graph:
    """The data structure of torchlite.fx: a list of Nodes in execution order.

    >>> g = Graph(); x = g.placeholder("x")
    >>> g.output(g.call_function(torchlite.relu, (x,)))
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        """The nodes in order; supports len() and reversed()."""
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        # nodes are always kept in graph order here, so `sort` has nothing to reorder
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ------------------------------------------------------------------ building
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Creates a Node at the current insertion point (the end, unless inside an
        inserting_before/after block) and returns it."""
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise TypeError(f"args must be a tuple, got {type(args).__name__}")
        if not isinstance(kwargs, dict):
            raise TypeError(f"kwargs must be a dict, got {type(kwargs).__name__}")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """An input of the graph; default_value makes it optional in the generated signature."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Reads a parameter, buffer or other attribute of the owning module by dotted path."""
        mod = self.owning_module
        if mod is not None and _fetch_attr(mod, qualified_name) is _MISSING:
            import warnings
            warnings.warn(f"Attempted to insert a get_attr Node with no underlying reference in the owning "
                          f"GraphModule! Call GraphModule.add_submodule to add the necessary submodule, "
                          f"GraphModule.add_parameter to add the necessary Parameter, or nn.Module.register_buffer "
                          f"to add the necessary buffer (target {qualified_name})", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        mod = self.owning_module
        if mod is not None and _fetch_attr(mod, module_name) is _MISSING:
            import warnings
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in the owning "
                          "GraphModule! Call GraphModule.add_submodule to add the necessary submodule "
                          f"(target {module_name})", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None, name=None):
        return self.create_node("call_function", the_function, args, kwargs, name=name, type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The graph's return value (any nesting of Nodes and constants)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copies a node of another graph into this one; arg_transform maps its input Nodes to
        this graph's Nodes."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copies every node of g except its output into this graph, recording old -> new in
        val_map; returns what g's output refers to, mapped."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map={}, return_output_node=True)
        if output_vals is not None:
            rv, old_output = output_vals
            g.output(rv, type_expr=old_output.type)
        return g

    def _target_to_str(self, target) -> str:
        op = target if isinstance(target, str) else target.__name__
        if _is_magic(op):
            op = op[2:-2]
        return _snake_case(op)

    # ------------------------------------------------------------------ editing
    def erase_node(self, to_erase):
        """Removes a node that nothing uses any more."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            import warnings
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def inserting_before(self, n=None):
        """`with graph.inserting_before(n):` new nodes go just before n (the start when n is None)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise ValueError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """`with graph.inserting_after(n):` new nodes go just after n, each after the previous
        one (the end when n is None)."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise ValueError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def eliminate_dead_code(self, is_impure_node=None):
        """Erases the nodes whose values are never used and that have no side effect; returns
        whether anything changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Checks the graph is well formed: every node belongs here, names are unique, inputs
        are defined before use, and (with an owning module) targets exist."""
        seen_names, seen_values = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Arg {arg} in Node {node} does not belong to this Graph")
                if arg not in seen_values:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       f"Please check that Nodes in the graph are topologically ordered\n{self}")
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            seen_values.add(node)
            if node.op in ("get_attr", "call_module", "call_method") and not isinstance(node.target, str):
                raise RuntimeError(f"Node {node} target {node.target} has type {type(node.target).__name__} "
                                   "but a str is expected")
            if self.owning_module is not None and node.op in ("get_attr", "call_module"):
                if _fetch_attr(self.owning_module, node.target) is _MISSING:
                    raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute "
                                       f"{node.target} of {self.owning_module._get_name()}")

    # ------------------------------------------------------------------ printing
    def __str__(self):
        lines = ["graph():"]
        lines += ["    " + n.format_node() for n in self.nodes]
        return "\n".join(lines)

    def print_tabular(self):
        """Prints the nodes as a table (opcode, name, target, args, kwargs); with the `tabulate`
        package installed, laid out by it as torch.fx does."""
        # targets by qualified name: the reprs of generated operators name pybind11 internals
        rows = [[n.op, n.name, _pretty_print_target(n.target), n.args, n.kwargs] for n in self.nodes]
        headers = ["opcode", "name", "target", "args", "kwargs"]
        try:
            from tabulate import tabulate
        except ImportError:
            widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
            lines = [headers, ["-" * w for w in widths], *rows]
            print("\n".join("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines))
        else:
            print(tabulate(rows, headers=headers))

    # ------------------------------------------------------------------ code generation
    def python_code(self, root_module):
        """The Python source of a `forward(self, ...)` that runs this graph, with root_module
        the name through which it reaches submodules and attributes (generated code always
        says `self`), and the globals it needs."""
        return _CodeGen(self, root_module).generate()


_MISSING = object()


def _fetch_attr(mod, qualified_name):
    for atom in qualified_name.split("."):
        if not hasattr(mod, atom):
            return _MISSING
        mod = getattr(mod, atom)
    return mod


def _format_target(base: str, target: str) -> str:
    for atom in target.split("."):
        base = f"{base}.{atom}" if atom.isidentifier() else f'getattr({base}, "{atom}")'
    return base


class _CodeGen:
    """Writes a graph as a Python function, one statement per node, freeing every value
    (`x = None`) after its last use so memory is released as eagerly as in the original code."""

    def __init__(self, graph, root_module):
        self.graph = graph
        self.root_module = root_module
        self.namespace = _Namespace()
        self.globals = self.base_globals()
        for name in self.globals:
            self.namespace._used_names.add(name)
        for node in graph.nodes:  # node names are locals: globals must not shadow them
            self.namespace._used_names.add(node.name)
        self.wrapped_fns = {}  # global names of fx.wrap-ed functions, re-registered by the generated code

    @staticmethod
    def base_globals():
        return {"torchlite": torchlite, "device": torchlite.device, "inf": math.inf, "nan": math.nan,
                "NoneType": type(None)}

    def add_global(self, name_hint, obj) -> str:
        if _is_from_torchlite(obj):
            return _get_qualified_name(obj)
        name = self.namespace.create_name(name_hint, obj)
        self.globals[name] = obj
        return name

    def repr_arg(self, arg) -> str:
        if isinstance(arg, Node):
            return arg.name
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            cls_name = self.add_global(type(arg).__name__, type(arg))
            return f"{cls_name}({', '.join(self.repr_arg(a) for a in arg)})"
        if isinstance(arg, tuple):
            items = ", ".join(self.repr_arg(a) for a in arg)
            return f"({items},)" if len(arg) == 1 else f"({items})"
        if isinstance(arg, list):
            return "[" + ", ".join(self.repr_arg(a) for a in arg) + "]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{self.repr_arg(k)}: {self.repr_arg(v)}" for k, v in arg.items()) + "}"
        if isinstance(arg, slice):
            return f"slice({self.repr_arg(arg.start)}, {self.repr_arg(arg.stop)}, {self.repr_arg(arg.step)})"
        if isinstance(arg, enum.Enum):
            return f"{self.add_global(type(arg).__name__, type(arg))}.{arg.name}"
        if isinstance(arg, type) or inspect.isroutine(arg):
            return self.add_global(getattr(arg, "__name__", "fn"), arg)
        return repr(arg)

    def format_args(self, args, kwargs) -> str:
        parts = [self.repr_arg(a) for a in args] + [f"{k} = {self.repr_arg(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def generate(self):
        nodes = list(self.graph.nodes)
        last_uses = defaultdict(list)
        seen = set()
        for node in reversed(nodes):
            def register(n, user=node):
                if n not in seen:
                    seen.add(n)
                    last_uses[user].append(n)
            map_arg(node.args, register)
            map_arg(node.kwargs, register)
        free_vars, body = [], []
        return_annotation = ""
        for node in nodes:
            if node.op == "placeholder":
                default = f" = {self.repr_arg(node.args[0])}" if node.args else ""
                free_vars.append(f"{node.target}{self.annotation(node.type)}{default}")
                raw_name = node.target.replace("*", "")
                if raw_name != node.name:
                    body.append(f"{node.name} = {raw_name}\n")
                continue
            if node.op == "output":
                if node.type is not None:
                    return_annotation = f" -> {self.type_annotation(node.type)}"
                body.append(f"return {self.repr_arg(node.args[0])}\n")
                continue
            body.append(f"{node.name}{self.annotation(node.type)} = {self.expression(node)}")
            to_delete = list(last_uses.get(node, []))
            if not node.users:
                to_delete.append(node)
            body[-1] += f";  {' = '.join([n.name for n in to_delete] + ['None'])}\n" if to_delete else "\n"
        if not body:
            body = ["pass\n"]
        if not free_vars or free_vars[0] != "self":
            free_vars.insert(0, "self")
        code = "".join("    " + line for line in body)
        wrap_stmts = "\n".join(f'torchlite.fx._symbolic_trace.wrap("{name}")' for name in self.wrapped_fns)
        src = f"\n{wrap_stmts}\n\ndef forward({', '.join(free_vars)}){return_annotation}:\n{code}    "
        return PythonCode(src, dict(self.globals))

    def annotation(self, t) -> str:
        return "" if t is None else f" : {self.type_annotation(t)}"

    def type_annotation(self, t) -> str:
        args = getattr(t, "__args__", ())
        if isinstance(t, types.GenericAlias):  # dict[str, int]
            return f"{self.type_annotation(t.__origin__)}[{','.join(self.type_annotation(a) for a in args)}]"
        if isinstance(t, type):
            return t.__qualname__ if t.__module__ == "builtins" else self.add_global(_get_qualified_name(t), t)
        alias = "Union" if getattr(t, "__origin__", None) is typing.Union else getattr(t, "_name", None)
        if getattr(t, "__module__", None) == "typing" and alias:  # typing.List[int] -> typing_List[int]
            base = self.add_global(f"typing.{alias}", getattr(typing, alias))
            return f"{base}[{','.join(self.type_annotation(a) for a in args)}]" if args else base
        return repr(_type_repr(t))

    def expression(self, node) -> str:
        """The right-hand side of the statement that computes node."""
        args, kwargs = node.args, node.kwargs
        if node.op == "call_method":
            return f"{_format_target(self.repr_arg(args[0]), node.target)}({self.format_args(args[1:], kwargs)})"
        if node.op == "call_module":
            return f"{_format_target(self.root_module, node.target)}({self.format_args(args, kwargs)})"
        if node.op == "get_attr":
            return _format_target(self.root_module, node.target)
        target = node.target
        module = getattr(target, "__module__", None)
        template = _MAGIC_TEMPLATES.get(getattr(target, "__name__", None))
        if module == "_operator" and template is not None and not kwargs and len(args) == template.count("{}"):
            return template.format(*(self.repr_arg(a) for a in args))
        if (target is builtins.getattr and len(args) == 2 and not kwargs and isinstance(args[1], str)
                and args[1].isidentifier()):
            return _format_target(self.repr_arg(args[0]), args[1])
        fn_name = self.add_global(_get_qualified_name(target), target)
        if node.meta.get("is_wrapped", False) and fn_name in self.globals:
            self.wrapped_fns.setdefault(fn_name)
        return f"{fn_name}({self.format_args(args, kwargs)})"


def _is_from_torchlite(obj) -> bool:
    """Objects reachable as torchlite.<...> are written by their qualified name."""
    try:
        name = _get_qualified_name(obj)
    except (AttributeError, RuntimeError):
        return False
    return name.startswith("torchlite.") and "<" not in name
