"""The HTML report's command log: commands of a custom command are indented under it (``depth``)."""

from __future__ import annotations

from runner.events import CommandEnded, CommandStarted, LogLine
from runner.reporters.html.details import _commands


def _started(number: int, name: str, parent: int | None = None) -> CommandStarted:
    return CommandStarted(nodeid="a_spec.py::test_x", id=number, name=name, args="", parent=parent)


def test_a_custom_commands_commands_are_one_level_deeper_and_nested_ones_deeper_still() -> None:
    events: list[CommandStarted | CommandEnded | LogLine] = [_started(1, "visit"), _started(2, "sign_in"), _started(3, "visit", parent=2),
              _started(4, "fill", parent=2), _started(5, "type", parent=4),
              CommandEnded(nodeid="a_spec.py::test_x", id=5, name="type", state="passed", duration_ms=1.0),
              _started(6, "should")]
    rows = _commands(events, start=events[0].at, root=None)
    assert [(r["name"], r["depth"]) for r in rows] == [
        ("visit", 0), ("sign_in", 0), ("visit", 1), ("fill", 1), ("type", 2), ("should", 0)]
