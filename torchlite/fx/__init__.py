"""torchlite.fx: capture a Module or function as a Graph of operations, edit the graph, and run
it again as Python (GraphModule), as torch.fx does.

>>> gm = torchlite.fx.symbolic_trace(model)
>>> for node in gm.graph.nodes: ...   # edit, then gm.recompile()
"""

from torchlite.fx import passes  # noqa: F401
from torchlite.fx._symbolic_trace import PH, Tracer, symbolic_trace, wrap  # noqa: F401
from torchlite.fx.graph import Graph
from torchlite.fx.graph_module import GraphModule
from torchlite.fx.interpreter import Interpreter, Transformer
from torchlite.fx.node import Node, has_side_effect, map_arg
from torchlite.fx.proxy import Proxy
from torchlite.fx.subgraph_rewriter import replace_pattern

__all__ = ["Graph", "GraphModule", "Interpreter", "Node", "Proxy", "Tracer", "Transformer", "has_side_effect",
           "map_arg", "replace_pattern", "symbolic_trace", "wrap"]
