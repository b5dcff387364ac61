"""GraphModule: a Module whose forward is the Python code generated from its Graph."""

import copy
import itertools
import linecache

import torchlite
from torchlite.fx.graph import _RESERVED_GLOBALS, Graph, _CodeGen
from torchlite.nn.modules.module import Module
from torchlite.nn.parameter import Parameter

__all__ = ["GraphModule"]

_source_keys = itertools.count()


def _forward_from_src(src, globals_):
    # registered with linecache so tracebacks through generated code show its lines
    key = f"<eval_with_key>.{next(_source_keys)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    scope = dict(globals_)
    exec(compile(src, key, "exec"), scope)
    return scope["forward"]


def _copy_attr(from_module, to_module, target):
    """Gives to_module the attribute at dotted path target of from_module; the modules on the
    way are empty Modules holding only what the graph uses."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:  # this whole submodule is already there
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    _assign_value(to_module, field, getattr(from_module, field))


def _assign_attr(from_obj, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    _assign_value(to_module, field, from_obj)


def _assign_value(to_module, field, value):
    if isinstance(value, torchlite.Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


def _rebuild_graph_module(body, src, extra_globals, class_name):
    """Unpickles a GraphModule: its attributes, and a graph traced again from its code, with
    every submodule call kept as call_module."""
    from torchlite.fx._symbolic_trace import Tracer

    class CodeOnlyModule(Module):
        def __init__(self, body):
            super().__init__()
            self.__dict__ = body
    CodeOnlyModule.forward = _forward_from_src(src, {**_CodeGen.base_globals(), **extra_globals})

    class KeepModules(Tracer):
        def is_leaf_module(self, _, __):
            return True
    com = CodeOnlyModule(body)
    return GraphModule(com, KeepModules().trace(com), class_name)


class GraphModule(Module):
    """A Module built from a root (a Module, or a dict of qualified name -> value) and a
    Graph: it keeps the submodules and attributes the graph's get_attr/call_module nodes
    name, and its forward is the code generated from the graph (see `code`).

    Each instance gets its own class, so recompiling one never changes another's forward.
    """

    def __new__(cls, *args, **kwargs):
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                           "provided in ``root``!")
                    targets.append(node.target)
            for target in sorted(targets, key=lambda t: t.count(".")):
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of forward, generated from the graph."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated: GraphModule.__init__ was not run")
        return self._code

    def recompile(self):
        """Regenerates forward from self.graph; call it after editing the graph in place."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def print_readable(self, print_output=True):
        """The generated code as a class definition (submodule GraphModules nested); printed
        unless print_output is False, and returned."""
        output = self._readable(type(self).__name__)
        if print_output:
            print(output)
        return output

    def _readable(self, class_name):
        code = self.code.strip("\n ").replace("\n", "\n    ")
        lines = [f"class {class_name}(torchlite.nn.Module):", f"    {code}"]
        for name, submod in self.named_children():
            if isinstance(submod, GraphModule):
                lines.append("    " + submod._readable(name).replace("\n", "\n    "))
        return "\n".join(lines) + "\n"

    def add_submodule(self, target, m):
        """Installs m at dotted path target, creating empty Modules on the way; False if a
        non-Module is in the way."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, field) or not isinstance(getattr(mod, field), Module):
            return False
        delattr(mod, field)
        return True

    def delete_all_unused_submodules(self):
        """Removes the submodules no call_module or get_attr node of the graph uses."""
        used = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                used.update(".".join(atoms[:i]) for i in range(1, len(atoms) + 1))
                if node.op == "call_module":  # a called module uses all of its children
                    used.update(f"{node.target}.{n}" for n, _ in self.get_submodule(node.target).named_modules()
                                if n)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake_mod = Module()
        fake_mod.__dict__ = copy.deepcopy(self.__dict__, memo)
        GraphModule.__init__(res, fake_mod, fake_mod.__dict__["_graph"], type(self).__name__)
        return res

    def __reduce__(self):
        # the graph holds arbitrary callables: pickle the generated code instead and trace it again on load
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        python_code = self._graph.python_code(root_module="self")
        extra_globals = {k: v for k, v in python_code.globals.items() if k not in _RESERVED_GLOBALS}
        return (_rebuild_graph_module, (body, python_code.src, extra_globals, type(self).__name__))

    def __copy__(self):
        return GraphModule(self, self.graph, type(self).__name__)

    def __str__(self):
        return super().__str__() + "\n" + self._code + "\n# To see more debug info, please use " \
            "`graph_module.print_readable()`"
