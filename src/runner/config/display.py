"""``format_resolved``: the resolved configuration as ``runner config`` prints it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from runner.config.model import Config

__all__ = ["format_resolved"]

_MAX_VALUE_COLUMN = 48


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def format_resolved(config: Config, values: Mapping[str, Any] | None = None) -> str:
    """Every option (alphabetically) with its value as JSON and where it came from, in aligned
    columns; each ``env`` entry is listed under ``env`` with its own source; warnings last.
    ``values``: the values to show instead of ``config``'s (its secrets hidden)."""
    rows: list[tuple[str, str, str]] = []
    shown = config.as_dict() if values is None else values
    shown_env = shown.get("env")
    env: Mapping[str, Any] = shown_env if isinstance(shown_env, dict) else config.env
    for key in sorted(config):
        rows.append((key, _json(shown.get(key)), config.source_detail(key)))
        if key == "env":
            for name in sorted(env):
                rows.append((f"  env.{name}", _json(env[name]), config.env_source_detail(name)))
    name_width = max(len(name) for name, _, _ in rows)
    value_width = min(max(len(value) for _, value, _ in rows), _MAX_VALUE_COLUMN)
    where = str(config.config_file) if config.config_file else "defaults (no configuration file)"
    lines = [
        f"Resolved configuration for {config.testing_type} tests",
        f"  file:         {where}",
        f"  project root: {config.project_root}",
        "",
        f"  {'option'.ljust(name_width)}  {'value'.ljust(value_width)}  source",
    ]
    for name, value, source in rows:
        lines.append(f"  {name.ljust(name_width)}  {value.ljust(value_width)}  {source}")
    if config.warnings:
        lines += ["", "Warnings:"] + [f"  - {warning}" for warning in config.warnings]
    return "\n".join(lines) + "\n"
