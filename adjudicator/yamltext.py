"""YAML that remembers where things were, so every problem names its line.

``load(text)`` returns plain dicts and lists (subclasses that carry line
numbers) built by PyYAML's safe loader. ``line_of(container, key)`` gives
the 1-based line of a mapping key or list item, or of the container itself.
"""

from __future__ import annotations

from typing import Any

import yaml


class LineDict(dict):
    """A dict from YAML; ``line`` is where it starts, ``lines[key]`` where
    each key is."""

    line: int = 0
    lines: dict[Any, int]


class LineList(list):
    """A list from YAML; ``line`` is where it starts, ``lines[i]`` where each
    item is."""

    line: int = 0
    lines: list[int]


# libyaml's parser where PyYAML has it (its wheels do): the same nodes and
# marks as the pure-Python one, read several times faster (games.yaml and
# the maps are read by every process of a server as it starts)
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    out = LineDict()
    out.line = node.start_mark.line + 1
    out.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark
            ) from None
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    out = LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.lines = [child.start_mark.line + 1 for child in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


class YamlError(ValueError):
    """The text is not YAML at all; ``line`` is where the reader gave up."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def load(text: str) -> Any:
    """Parse YAML text into LineDict/LineList/scalars. Raises YamlError."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise YamlError(exc.problem or str(exc), line) from None
    except yaml.YAMLError as exc:
        raise YamlError(str(exc), 0) from None


def line_of(container: Any, key: Any = None) -> int:
    """The line of ``container[key]`` (or of the container when key is None);
    0 when unknown."""
    if key is None:
        return getattr(container, "line", 0)
    lines = getattr(container, "lines", None)
    if isinstance(container, LineDict) and lines is not None:
        return lines.get(key, container.line)
    if isinstance(container, LineList) and lines is not None:
        if isinstance(key, int) and 0 <= key < len(lines):
            return lines[key]
        return container.line
    return 0
