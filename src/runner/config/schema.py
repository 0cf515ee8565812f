"""The packaged draft-04 schema of ``runner.json`` and what is derived from it.

``runner.schema.json`` (in the package root) is the one source of truth: the option names, their defaults,
the override levels (``x-override``), the phrase used in validation messages (``x-expected``),
which options are paths (``x-path``) and the generated docs all come from it.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "BLOCK_KEYS",
    "defaults",
    "option_names",
    "option_schema",
    "override_level",
    "schema",
    "schema_text",
]

BLOCK_KEYS: tuple[str, ...] = ("e2e", "component")
"""Top-level properties holding per-testing-type overrides; they are not options themselves."""

_NOT_OPTIONS = frozenset({"$schema", *BLOCK_KEYS})


@cache
def _text() -> str:
    return resources.files("runner").joinpath("runner.schema.json").read_text(encoding="utf-8")


@cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_text())
    return loaded


def schema() -> dict[str, Any]:
    """The JSON schema of ``runner.json`` (a fresh deep copy: mutating it changes nothing)."""
    return copy.deepcopy(_schema())


def schema_text() -> str:
    """The schema as pretty-printed JSON, exactly as shipped (what ``runner schema`` prints)."""
    return _text()


@cache
def _option_names() -> tuple[str, ...]:
    return tuple(name for name in _schema()["properties"] if name not in _NOT_OPTIONS)


def option_names() -> list[str]:
    """Every configuration option, in schema order (without ``$schema``, ``e2e``, ``component``)."""
    return list(_option_names())


def option_schema(name: str) -> dict[str, Any]:
    """The schema of one option or block (shared, do not mutate). ``KeyError`` if unknown."""
    prop: dict[str, Any] = _schema()["properties"][name]
    return prop


@cache
def _defaults() -> dict[str, Any]:
    return {name: option_schema(name)["default"] for name in _option_names()}


def defaults() -> dict[str, Any]:
    """Every option with its default value (a fresh deep copy)."""
    return copy.deepcopy(_defaults())


def override_level(name: str) -> str:
    """``"any"`` when the ``runner`` mark may change the option per suite or test, else ``"never"``."""
    level: str = option_schema(name).get("x-override", "never")
    return level


@cache
def flat_schema() -> dict[str, Any]:
    """A schema of one flat configuration (options only, no ``e2e``/``component``/``$schema``)."""
    root = copy.deepcopy(_schema())
    root["$ref"] = "#/definitions/testingTypeOptions"
    return root
