"""Custom commands (``add_command``) on a real page: told as commands, their commands under them."""

from __future__ import annotations

import pytest

from runner import CommandError, UsageError, add_command
from runner.commands import custom
from runner.events import CommandEnded, CommandStarted


@pytest.fixture
def told(told: list[object], monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The commands told during the test; the custom commands it adds are gone after it."""
    monkeypatch.setattr(custom, "_commands", {})
    return told


def _greet(runner, name):
    runner.get("#name").type(name)
    runner.get("#name").should("have.value", name)
    return f"typed {name}"


def test_a_custom_command_types_into_the_page_and_its_commands_are_told_under_it(runner, told) -> None:
    add_command("greet", _greet)

    @add_command
    def greet_and_send(runner, name):
        runner.greet(name)  # a custom command in a custom command
        runner.get("#name").type("{enter}")

    runner.visit("/forms.html")
    assert runner.greet("Ada") == "typed Ada"
    runner.get("#name").clear()
    runner.greet_and_send("Grace")
    runner.get("#out").should("have.text", "sent:Grace")  # the page did what the commands said
    started = [(e.id, e.name, e.args, e.parent) for e in told if isinstance(e, CommandStarted)]
    assert started[0][:2] == (1, "visit")
    assert started[1:4] == [(2, "greet", "'Ada'", None), (3, "type", "'Ada'", 2), (4, "should", "'have.value', 'Ada'", 2)]
    outer = next(number for number, name, _, _ in started if name == "greet_and_send")
    inner = next(number for number, name, _, parent in started if name == "greet" and parent == outer)
    assert [(name, parent) for number, name, _, parent in started if number > outer][:4] == [
        ("greet", outer), ("type", inner), ("should", inner), ("type", outer)]
    ended = {e.id: e.state for e in told if isinstance(e, CommandEnded)}
    assert ended[outer] == "passed" and ended[inner] == "passed"


def test_an_error_in_a_custom_command_names_it_and_fails_its_line(runner, told) -> None:
    @add_command
    def press(runner, selector):
        runner.get(selector, timeout=100).click()

    runner.visit("/forms.html")
    with pytest.raises(CommandError) as caught:
        runner.press("#not-there")
    assert caught.value.__notes__[0].startswith("(in the custom command runner.press('#not-there'), added at ")
    assert caught.value.__notes__[0].endswith(f"test_custom_commands.py:{press.__code__.co_firstlineno})")
    line = next(e for e in told if isinstance(e, CommandStarted) and e.name == "press")
    ended = next(e for e in told if isinstance(e, CommandEnded) and e.id == line.id)
    assert ended.state == "failed" and "#not-there" in (ended.error or "")


def test_names_that_cannot_be_custom_commands_are_refused(runner, told) -> None:
    with pytest.raises(UsageError, match="'get' is a built-in command of runner") as caught:
        add_command("get", print)
    assert "runner has no Commands.overwrite" in str(caught.value)
    with pytest.raises(UsageError, match="needs a function taking runner"):
        add_command("x", "not a function")
    with pytest.raises(UsageError, match="does not start with '_'"):
        add_command("_private", print)
    with pytest.raises(AttributeError, match="runner has no command 'gett'. Did you mean runner.get"):
        runner.gett("#name")
