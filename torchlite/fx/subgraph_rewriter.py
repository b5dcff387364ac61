"""replace_pattern: find every occurrence of a pattern graph in a GraphModule and put a
replacement graph in its place."""

from typing import NamedTuple

from torchlite.fx._symbolic_trace import symbolic_trace

from torchlite.fx.graph_module import GraphModule
from torchlite.fx.node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node  # the pattern's (first) output node, from which the match was found
    nodes_map: dict  # pattern node -> graph node


def _as_graph(fn_or_gm):
    if isinstance(fn_or_gm, GraphModule):
        return fn_or_gm.graph
    return symbolic_trace(fn_or_gm).graph


class _SubgraphMatcher:
    """Matches the pattern backwards from its outputs: each pattern node must have a graph node
    with the same op and target whose arguments match in turn; pattern placeholders match any
    graph node (the same one wherever the placeholder is used)."""

    def __init__(self, pattern, owning_module):
        self.pattern = pattern
        self.owning_module = owning_module
        self.pattern_module = pattern.owning_module
        output = next(n for n in reversed(pattern.nodes) if n.op == "output")
        returned = output.args[0]
        self.returning = list(returned) if isinstance(returned, (tuple, list)) else [returned]
        if not all(isinstance(n, Node) for n in self.returning):
            raise ValueError("replace_pattern: the pattern must return Nodes computed from its inputs")
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]

    def _nodes_equal(self, pn, gn) -> bool:
        if pn.op != gn.op:
            return False
        if pn.op in ("call_function", "call_method"):
            return pn.target == gn.target
        # get_attr / call_module: the attributes read must be of the same kind
        pattern_value = self.pattern_module.get_submodule(pn.target) if pn.op == "call_module" else None
        graph_value = self.owning_module.get_submodule(gn.target) if gn.op == "call_module" else None
        return type(pattern_value) is type(graph_value) and (pn.op == "call_module" or pn.target == gn.target)

    def _match_nodes(self, pn, gn, nodes_map) -> bool:
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if pn.op == "placeholder":
            nodes_map[pn] = gn
            return True
        if not self._nodes_equal(pn, gn) or gn in nodes_map.values():
            return False
        nodes_map[pn] = gn
        return self._match_args(pn.args, gn.args, nodes_map) and self._match_args(pn.kwargs, gn.kwargs, nodes_map)

    def _match_args(self, pa, ga, nodes_map) -> bool:
        if isinstance(pa, Node) or isinstance(ga, Node):
            return isinstance(pa, Node) and isinstance(ga, Node) and self._match_nodes(pa, ga, nodes_map)
        if isinstance(pa, (list, tuple)) and isinstance(ga, (list, tuple)):
            return len(pa) == len(ga) and all(self._match_args(p, g, nodes_map) for p, g in zip(pa, ga))
        if isinstance(pa, dict) and isinstance(ga, dict):
            return pa.keys() == ga.keys() and all(self._match_args(pa[k], ga[k], nodes_map) for k in pa)
        return type(pa) is type(ga) and pa == ga

    def _match_from(self, idx, graph_nodes, nodes_map):
        """Extends nodes_map to match returning nodes idx..; the completed map, or None."""
        if idx == len(self.returning):
            return nodes_map
        for gn in graph_nodes:
            candidate = dict(nodes_map)
            if self._match_nodes(self.returning[idx], gn, candidate):
                full = self._match_from(idx + 1, graph_nodes, candidate)
                if full is not None:
                    return full
        return None

    def _self_contained(self, nodes_map) -> bool:
        # values computed inside the match may only be used outside it through the outputs
        inside = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        returning = {nodes_map[pn] for pn in self.returning}
        if any(gn in returning for pn, gn in nodes_map.items() if pn.op == "placeholder"):
            return False
        return all(set(gn.users) <= inside for gn in inside - returning)

    def match(self, graph):
        graph_nodes = [n for n in graph.nodes if n.op not in ("placeholder", "output")]
        matches, claimed = [], set()
        for anchor in graph_nodes:
            nodes_map = {}
            if not self._match_nodes(self.returning[0], anchor, nodes_map):
                continue
            nodes_map = self._match_from(1, graph_nodes, nodes_map)
            if nodes_map is None or not self._self_contained(nodes_map):
                continue
            inside = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
            if inside & claimed:  # overlaps an earlier match
                continue
            claimed |= inside
            matches.append(Match(anchor=self.returning[0], nodes_map=nodes_map))
        return matches


def replace_pattern(gm, pattern, replacement):
    """Replaces every non-overlapping occurrence of pattern (a function or GraphModule) in gm's
    graph by replacement (same inputs, same number of outputs); returns the Matches and
    recompiles gm.

    >>> def pattern(x, w): return torchlite.relu(torchlite.add(x, w))
    >>> def replacement(x, w): return torchlite.clamp_min(x + w, 0)
    >>> replace_pattern(gm, pattern, replacement)
    """
    pattern_graph, replacement_graph = _as_graph(pattern), _as_graph(replacement)
    graph = gm.graph
    matcher = _SubgraphMatcher(pattern_graph, gm)
    matches = matcher.match(graph)
    replacement_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    if len(replacement_placeholders) != len(matcher.placeholders):
        raise ValueError(f"replace_pattern: the pattern takes {len(matcher.placeholders)} inputs but the "
                         f"replacement takes {len(replacement_placeholders)}")
    replaced = {}  # graph node replaced by an earlier match -> its replacement
    for match in matches:
        val_map = {}
        for rn, pn in zip(replacement_placeholders, matcher.placeholders):
            gn = match.nodes_map[pn]
            while gn in replaced:
                gn = replaced[gn]
            val_map[rn] = gn
        returning = [match.nodes_map[pn] for pn in matcher.returning]
        users = {u for n in returning for u in n.users}
        first_user = next(n for n in graph.nodes if n in users)
        with graph.inserting_before(first_user):
            copied = graph.graph_copy(replacement_graph, val_map)
        copied = list(copied) if isinstance(copied, (tuple, list)) else [copied]
        if len(copied) != len(returning):
            raise ValueError(f"replace_pattern: the pattern returns {len(returning)} values but the replacement "
                             f"returns {len(copied)}")
        for old, new in zip(returning, copied):
            old.replace_all_uses_with(new)
            replaced[old] = new
        for pn in reversed(pattern_graph.nodes):
            if pn.op not in ("placeholder", "output") and pn in match.nodes_map:
                graph.erase_node(match.nodes_map[pn])
    gm.recompile()
    return matches
