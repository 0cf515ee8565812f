"""docs/commands.md makes every command findable: the index at the top of "The `runner` fixture"
names every public command of the fixture, and the paragraphs "A DOM subject offers: ..." and
"A value subject ... offers" every public method of those subjects. A command added without its
line there fails here."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from runner.commands.api import RunnerCommands
from runner.commands.page_js import PageValue
from runner.commands.subject import Subject
from runner.commands.values import Value

DOC = Path(__file__).resolve().parents[3] / "docs" / "commands.md"


def _public(cls: type) -> set[str]:
    return {name for name, member in inspect.getmembers(cls) if not name.startswith("_") and callable(member)}


def _named(text: str) -> set[str]:
    """The identifiers a text names in code spans: `visit`, `scroll_to(...)`, `get_cookie(name)`."""
    return {m.group(1) for span in re.findall(r"`([^`]+)`", text) for m in re.finditer(r"^(\w+)", span)}


def _between(start: str, end: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    begin = text.index(start)
    return text[begin : text.index(end, begin)]


def test_the_index_names_every_command_of_the_runner_fixture() -> None:
    index = _between("Every command of the fixture, by the section", "### Navigation and page")
    assert sorted(_public(RunnerCommands) - _named(index)) == []


def test_the_dom_subject_paragraph_names_every_method_of_a_subject() -> None:
    paragraph = _between("A DOM subject offers:", "\n\n")
    assert sorted(_public(Subject) - _named(paragraph)) == []


def test_the_value_subject_paragraph_names_every_method_of_a_value() -> None:
    paragraph = _between("A value subject (from", "\n\n")
    for cls in (Value, PageValue):
        assert sorted(_public(cls) - {"wrapping"} - _named(paragraph)) == []  # (wrapping: runner's constructor)
