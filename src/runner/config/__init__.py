"""The configuration layer: ``runner.json``, ``runner.env.json``, ``RUNNER_*`` variables and CLI
values resolved into one validated, immutable :class:`Config` that remembers every value's source.

``runner.schema.json`` (draft-04, in the package root) is the one source of truth; see docs/configuration.md.
"""

from __future__ import annotations

from runner.config.coerce import coerce_value, parse_cli_values
from runner.config.display import format_resolved
from runner.config.load import load_config
from runner.config.model import SOURCE_LABELS, Config
from runner.config.reference import render_reference
from runner.config.schema import defaults, option_names, override_level, schema, schema_text
from runner.config.validate import suggest

__all__ = [
    "SOURCE_LABELS",
    "Config",
    "coerce_value",
    "defaults",
    "format_resolved",
    "load_config",
    "option_names",
    "override_level",
    "parse_cli_values",
    "render_reference",
    "schema",
    "schema_text",
    "suggest",
]
