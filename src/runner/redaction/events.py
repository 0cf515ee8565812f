"""A run event as every consumer gets it: with the run's secrets shown as ``[redacted]``.

The run session's bus calls :func:`redact_event` on each event before it reaches any subscriber
(the events file, the HTML report, the reporters, ``runner open``'s pipe, the plugins file's run
events), so no consumer can see what another does not.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from runner.events import Event, RunStarted
from runner.redaction.rules import REDACTED, Redactor

__all__ = ["redact_event", "redact_config"]

# The fields that are where a file is on disk (the spec, a screenshot, a trace, a video, the
# browser): left as they are. A secret value that is part of a path ("public" in runner.env.json
# and a spec public_spec.py) is no secret there, and a rewritten path names no file: the report
# could not copy that test's trace and screenshot, and the terminal printed paths that did not exist.
_PATHS = frozenset({"project_root", "absolute", "file", "path", "screenshots", "trace", "video"})


def redact_config(redactor: Redactor, config: dict[str, Any]) -> dict[str, Any]:
    """A configuration (``Config.as_dict()``) with the secret env entries hidden and secrets
    searched for in every other value."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key == "env" and isinstance(value, dict):
            out[key] = redactor.env(value)
        else:
            out[key] = redactor.value(value, key)
    return out


def redact_event(redactor: Redactor, event: Event) -> Event:
    """``event`` with its secrets hidden (the same event when it holds none). Never raises: a
    field that cannot be searched is hidden whole."""
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(event):
        if field.name == "at" or field.name in _PATHS:
            continue
        value = getattr(event, field.name)
        hidden: Any
        try:
            if isinstance(event, RunStarted) and field.name == "config" and isinstance(value, dict):
                hidden = redact_config(redactor, value)
            else:
                hidden = redactor.value(value, field.name)
        except Exception:  # noqa: BLE001 - a value the redactor cannot read is not shown at all
            hidden = REDACTED
        if hidden != value:
            changes[field.name] = hidden
    return dataclasses.replace(event, **changes) if changes else event
