"""What the schema cannot say about a configuration value: the limits that keep a bad value from
crashing a run later, far from where it was written.

* JSON text is parsed by :func:`parse_json`: a document nested deeper than :data:`MAX_DEPTH`
  (Python's parser would raise ``RecursionError`` near 1,000 levels, and copying or validating
  the values recurses again) or holding a number too long to read is a ``ValueError`` with a
  message for people.
* :func:`structure_problems` walks any value (from a file, ``--config``, the environment, the
  plugins file or a mark) without recursing: too deep, a container that contains itself, NaN or
  an infinite number (JSON has neither; Python's parser accepts ``NaN`` and ``Infinity``, and
  ``1e400`` reads as infinity).
* :func:`path_problem` says why a string cannot name a file here: a NUL character, a character
  the file system encoding cannot hold, a name or a path longer than the system allows.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from runner.config.paths import resolve_path

__all__ = [
    "MAX_DEPTH",
    "name_max",
    "parse_json",
    "path_max",
    "path_problem",
    "structure_problems",
]

#: The deepest a configuration value may nest (``{"a": [1]}`` is 2 deep). Real configurations
#: nest 3 or 4 deep; 100 keeps copying, validating and writing the values (which recurse once or
#: twice per level) far from Python's recursion limit.
MAX_DEPTH = 100

_FALLBACK_PATH_MAX = 4096  # Linux's PATH_MAX, for systems without pathconf
_FALLBACK_NAME_MAX = 255  # NAME_MAX of every common file system


def _pathconf(name: str, fallback: int) -> int:
    try:
        value = os.pathconf("/", name)
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows) or no such limit
        return fallback
    return value if value > 0 else fallback


def path_max() -> int:
    """The longest path, in bytes, the system accepts (PATH_MAX, counting the final NUL)."""
    return _pathconf("PC_PATH_MAX", _FALLBACK_PATH_MAX)


def name_max() -> int:
    """The longest file or folder name, in bytes, the system accepts (NAME_MAX)."""
    return _pathconf("PC_NAME_MAX", _FALLBACK_NAME_MAX)


def parse_json(text: str) -> Any:
    """``json.loads(text)``, with limits. Raises ``json.JSONDecodeError`` for text that is not
    JSON (it has the line and column), and ``ValueError`` with a phrase ("it is nested more than
    100 levels deep (at `a[0]`)") for a document too deep or a number too long to read."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"it is nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer longer than Python converts (4,300 digits by default)
        digits = sys.get_int_max_str_digits()
        raise ValueError(f"it holds a number of more than {digits:,} digits, too long to read") from None
    for parts, problem, _node in structure_problems(value):
        if problem == _TOO_DEEP:
            raise ValueError(f"it is {problem} (at {_path_text(parts)})")
    return value


def _path_text(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts[:6]:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    if len(parts) > 6:
        return f"`{out}...`, {len(parts)} levels down"
    return f"`{out}`" if out else "the top level"


def _children(value: Any) -> list[tuple[str | int, Any]]:
    if isinstance(value, dict):
        return [(str(key), item) for key, item in value.items()]
    return list(enumerate(value))


_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"
_ITSELF = "a value that contains itself"
_NOT_FINITE = "not a finite number (JSON has no NaN or Infinity)"

Parts = tuple[str | int, ...]


def structure_problems(value: Any, parts: Parts = ()) -> list[tuple[Parts, str, Any]]:
    """Problems of ``value``'s shape, as (path parts, phrase, the value there): nested more than
    :data:`MAX_DEPTH` levels deep, a container that contains itself, NaN or an infinite number.
    A walk with its own stack, so it never recurses whatever the value; nothing is reported
    below a container too deep or that contains itself (there is no end to it)."""
    problems: list[tuple[Parts, str, Any]] = []
    on_path: set[int] = set()  # the containers being walked (a cycle comes back to one)
    # (leaving, node, its parts, its depth): leaving marks the end of a container's children
    stack: list[tuple[bool, Any, Parts, int]] = [(False, value, parts, 1)]
    while stack:
        leaving, node, where, depth = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        if isinstance(node, float) and not math.isfinite(node):
            problems.append((where, _NOT_FINITE, node))
            continue
        if not isinstance(node, dict | list | tuple):
            continue
        if id(node) in on_path:
            problems.append((where, _ITSELF, node))
            continue
        if depth > MAX_DEPTH:
            problems.append((where, _TOO_DEEP, node))
            continue
        on_path.add(id(node))
        stack.append((True, node, where, depth))
        for key, child in reversed(_children(node)):
            stack.append((False, child, (*where, key), depth + 1))
    return problems


def path_problem(value: str, root: Path | None = None) -> str | None:
    """Why ``value`` cannot name a file or folder here (a phrase), or None. With ``root`` the
    path is checked as it will be used (resolved against ``root``, ``~`` expanded)."""
    if "\0" in value:
        return "a path without NUL characters (no file system accepts them)"
    try:
        os.fsencode(value)
    except UnicodeError:
        return "a path the file system encoding can hold (it has a lone surrogate character)"
    full = str(resolve_path(root, value)) if root is not None else value
    try:
        encoded = os.fsencode(full)
    except UnicodeError:  # the home folder or the project root cannot be encoded
        return None
    longest = name_max()
    for name in encoded.split(b"/"):
        if len(name) > longest:
            shown = os.fsdecode(name[:40])
            return (
                f"a path whose names are at most {longest} bytes long (the system's NAME_MAX); "
                f"the name starting {shown!r} is {len(name):,} bytes"
            )
    limit = path_max()
    if len(encoded) >= limit:
        what = "resolved against the project root, it" if root is not None and full != value else "it"
        return (
            f"a path shorter than {limit:,} bytes (the system's PATH_MAX); {what} is "
            f"{len(encoded):,} bytes"
        )
    return None
