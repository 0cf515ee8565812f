"""A run event as every consumer gets it: with the run's secrets shown as ``[redacted]``.

The run session's bus calls :func:`redact_event` on each event before it reaches any subscriber
(the events file, the HTML report, the reporters, ``runner open``'s pipe, the plugins file's run
events), so no consumer can see what another does not.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from runner.events import Event, RequestIntercepted, RunStarted
from runner.redaction.rules import PLAIN_TYPES, REDACTED, Redactor

__all__ = ["redact_event", "redact_config"]

# The fields that are where a file is on disk (the spec, a screenshot, a trace, a video, the
# browser): left as they are. A secret value that is part of a path ("public" in runner.env.json
# and a spec public_spec.py) is no secret there, and a rewritten path names no file: the report
# could not copy that test's trace and screenshot, and the terminal printed paths that did not exist.
_PATHS = frozenset({"project_root", "absolute", "file", "path", "screenshots", "trace", "video"})

# Values the redactor gives back as they are (PLAIN_TYPES) are never searched: an intercepted
# request's event has a dozen of them, and every request of a spied page publishes one.

# The fields of each event class that are searched, in order (``dataclasses.fields`` builds a
# tuple each call: once per class is enough).
_SEARCHED: dict[type[Event], tuple[str, ...]] = {}


def _searched(cls: type[Event]) -> tuple[str, ...]:
    names = _SEARCHED.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "at" and f.name not in _PATHS)
        _SEARCHED[cls] = names
    return names


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


# A request.intercepted event's fields by what the redactor does with them (every request a
# route matches publishes one): texts, lists of texts, header maps, never searched (numbers,
# flags), and the bodies and everything else, searched as any event's fields are.
# tests/unit/redaction proves the groups name every field and that the short way (below) gives
# what the long way gives.
REQUEST_TEXTS = ("nodeid", "id", "method", "url", "state", "error", "resource_type")
REQUEST_TEXT_LISTS = ("route_ids", "aliases")
REQUEST_HEADERS = ("request_headers", "response_headers")
REQUEST_PLAIN = ("stubbed", "status", "request_body_size", "response_body_size", "attempt", "log", "open", "late",
                 "server")
REQUEST_SEARCHED = ("timings", "request_body", "response_body")


def _request_texts(redactor: Redactor, event: RequestIntercepted) -> list[str] | None:
    """Every text of ``event`` outside :data:`REQUEST_SEARCHED` that the redactor searches, or
    None when some field is not of the shape its group says, or a header is a secret one (the
    long way then decides)."""
    texts: list[str] = []
    for name in REQUEST_TEXTS:
        value = getattr(event, name)
        if type(value) is str:
            texts.append(value)
        elif value is not None:
            return None
    for name in REQUEST_TEXT_LISTS:
        values = getattr(event, name)
        if type(values) is not list or any(type(v) is not str for v in values):
            return None
        texts += values
    secret = redactor.headers
    for name in REQUEST_HEADERS:
        headers = getattr(event, name)
        if type(headers) is not dict:
            return None
        for key, value in headers.items():
            if type(key) is not str or type(value) is not str or key.lower() in secret:
                return None
            texts.append(value)
    if any(type(getattr(event, name)) not in PLAIN_TYPES for name in REQUEST_PLAIN):
        return None
    return texts


def _request_searched(redactor: Redactor, event: RequestIntercepted) -> tuple[str, ...]:
    """The fields of a request.intercepted event that need the long way: all of them, unless one
    search shows that its texts, headers and flags hold no secret (:func:`_request_texts`); then
    only those of :data:`REQUEST_SEARCHED` that can hold one (timings are numbers)."""
    texts = _request_texts(redactor, event)
    if texts is None or not redactor.leaves_alone(texts):
        return _searched(RequestIntercepted)
    timings = event.timings
    plain_timings = type(timings) is dict and all(type(v) in PLAIN_TYPES for v in timings.values())
    return tuple(name for name in REQUEST_SEARCHED
                 if getattr(event, name) is not None and not (name == "timings" and plain_timings))


def redact_event(redactor: Redactor, event: Event) -> Event:
    """``event`` with its secrets hidden (the same event when it holds none). Never raises: a
    field that cannot be searched is hidden whole."""
    changes: dict[str, Any] = {}
    names = (_request_searched(redactor, event) if type(event) is RequestIntercepted
             else _searched(type(event)))
    for name in names:
        value = getattr(event, name)
        if type(value) in PLAIN_TYPES:
            continue
        hidden: Any
        try:
            if isinstance(event, RunStarted) and name == "config" and isinstance(value, dict):
                hidden = redact_config(redactor, value)
            else:
                hidden = redactor.value(value, name)
        except Exception:  # noqa: BLE001 - a value the redactor cannot read is not shown at all
            hidden = REDACTED
        if hidden != value:
            changes[name] = hidden
    return dataclasses.replace(event, **changes) if changes else event
