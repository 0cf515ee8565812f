"""The events file: a run's events as JSON Lines, one event a line, written as they happen.

``EventsFileWriter`` is a bus subscriber that writes and flushes each event as it arrives, so a
run killed at any moment leaves every event up to the kill. ``read_events`` reads a file back,
event by event, and stops at the first line that is not an event with ``EventsFileError`` naming
the line and the reason (a run killed mid-line, a hand edit, a file of another kind).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .model import Event, EventFormatError, from_json

__all__ = ["EventsFileWriter", "EventsFileError", "read_events", "dumps_event", "json_line"]


def _plain(value: Any) -> Any:
    """``json.dumps``'s fallback: paths and other objects as text, never an exception."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


#: What JSON leaves raw in a string but a line-splitting reader ends a line at: Python's
#: str.splitlines (U+0085, U+2028, U+2029) and JavaScript before ES2019 (U+2028, U+2029).
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(value: Any) -> str:
    """``value`` as one line of JSON that no line-splitting reader cuts: newlines are escaped by
    JSON, and the other characters some readers end a line at are written as ``\\uXXXX`` (they
    only occur inside strings, where the escape means the same character)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_plain, allow_nan=True)
    return text.translate(_LINE_BREAKS)


def dumps_event(event: Event) -> str:
    """One event as one line of JSON (see :func:`json_line`)."""
    return json_line(event.to_json())


class EventsFileWriter:
    """Writes every event it is given to ``path`` (the file is made, with its folder)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = path.open("w", encoding="utf-8")

    def __call__(self, event: Event) -> None:
        file = self._file
        if file is None:
            return
        file.write(dumps_event(event) + "\n")
        file.flush()  # a killed run keeps every event up to the kill

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            file.close()


class EventsFileError(Exception):
    """An events file could not be read past ``line`` (1-based); ``reason`` says why."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}, line {line}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def read_events(path: Path) -> Iterator[Event]:
    """The events of ``path`` in order. Raises ``EventsFileError`` at the first bad line (after
    yielding every event before it) and ``OSError`` when the file cannot be opened."""
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise EventsFileError(path, number, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
            if not text.endswith("\n"):
                reason = "the line is cut short (the run was stopped while writing it?)"
                try:
                    data = json.loads(text)
                except ValueError:
                    raise EventsFileError(path, number, reason) from None
            else:
                try:
                    data = json.loads(text, parse_constant=_reject_constant)
                except ValueError as err:
                    raise EventsFileError(path, number, f"not valid JSON: {err}") from None
            try:
                event = from_json(data)
            except EventFormatError as err:
                raise EventsFileError(path, number, str(err)) from None
            except TypeError as err:  # a field of the wrong shape for the dataclass
                raise EventsFileError(path, number, f"not an event: {err}") from None
            if isinstance(event.at, float) and not math.isfinite(event.at):
                raise EventsFileError(path, number, "'at' is not a finite number")
            yield event
