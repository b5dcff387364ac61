"""YAML loading that remembers the line of every mapping, for file:line error messages."""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line > 0 else self.file


class CodegenError(Exception):
    """An error in an input file; printed as `file:line: message`."""

    def __init__(self, loc: Location, msg: str):
        super().__init__(f"{loc}: {msg}")
        self.loc = loc
        self.msg = msg


class _LineLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    key_lines: dict[object, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in key_lines:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (first at line {key_lines[key]})", key_node.start_mark
            )
        key_lines[key] = key_node.start_mark.line + 1
    mapping = loader.construct_mapping(node, deep=True)
    mapping["__line__"] = node.start_mark.line + 1
    # Line of each key, so an error in one key's value points at that line.
    mapping["__key_lines__"] = key_lines
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_entries(path: str, display_name: str) -> list[tuple[dict, Location]]:
    """The top-level list of mappings in a YAML file, each with its location."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise CodegenError(Location(display_name, 0), f"cannot read: {e.strerror or e}") from None
    loader = _LineLoader(text)  # a SafeLoader: builds no arbitrary objects
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(e, "problem", None) or str(e)
        raise CodegenError(Location(display_name, line), f"invalid YAML: {problem}") from None
    finally:
        loader.dispose()
    if data is None:
        return []
    if not isinstance(data, list):
        raise CodegenError(Location(display_name, 1), "expected a list of entries")
    assert root is not None
    out = []
    for entry, node in zip(data, root.value):
        loc = Location(display_name, node.start_mark.line + 1)
        if not isinstance(entry, dict):
            raise CodegenError(loc, f"expected a mapping per entry, got {entry!r}")
        entry.pop("__line__")
        out.append((entry, loc))
    return out


def key_location(entry: dict, key: object, default: Location) -> Location:
    """Where `key` is written in a mapping loaded by load_entries (its own or a nested one)."""
    line = entry.get("__key_lines__", {}).get(key)
    return Location(default.file, line) if line else default


def user_items(mapping: dict) -> list[tuple[object, object]]:
    """The mapping's entries without the loader's bookkeeping keys."""
    return [(k, v) for k, v in mapping.items() if k not in ("__line__", "__key_lines__")]
