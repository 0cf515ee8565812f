"""Commands told as command.started / command.ended events."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any

import pytest

from runner.commands.steps import command, show_args, step_name
from runner.events import CommandEnded, CommandStarted


class Thing:
    def __init__(self) -> None:
        self.told: list[Any] = []
        self._ctx = SimpleNamespace(publish=self.told.append, command_depth=0, commands_told=0, command_parent=None,
                                    nodeid="a_spec.py::test_x", attempt=2,
                                    traced=False, pending_step=None, redactor=None, page_label=None, log=[],
                                    command_result=None)
        self._ctx.add_log = lambda name, message, at=None: self._ctx.log.insert(
            len(self._ctx.log) if at is None else at, SimpleNamespace(name=name, message=message))
        self._label = "get('#b')"

    @command("click")
    def click(self, *, force: bool = False) -> str:
        return "clicked"

    @command("dblclick")
    def dblclick(self) -> str:
        return self.click() + " twice"

    @command("should")
    def should(self, chainer: str, *args: Any) -> None:
        raise AssertionError(f"expected {chainer}\nsecond line")


def test_a_command_is_told_with_its_arguments_subject_and_the_callers_line() -> None:
    thing = Thing()
    assert thing.click(force=True) == "clicked"
    line = inspect.currentframe().f_lineno - 1  # type: ignore[union-attr] - the line of the call
    started, ended = thing.told
    assert isinstance(started, CommandStarted) and isinstance(ended, CommandEnded)
    assert (started.name, started.args, started.subject, started.id, started.attempt) == (
        "click", "force=True", "get('#b')", 1, 2)
    assert started.file == __file__ and started.line == line
    assert (ended.id, ended.state, ended.error) == (1, "passed", None) and ended.duration_ms >= 0


def test_a_popups_command_is_told_as_the_tabs() -> None:
    thing = Thing()
    thing._ctx.page_label = "tab[1]"
    thing.click()
    del thing._label  # a command of the tab's runner itself (no subject)
    thing.click()
    assert [e.subject for e in thing.told if e.kind == "command.started"] == ["tab[1].get('#b')", "tab[1]"]
    assert thing._ctx.command == "runner.tab[1].click()"


def test_a_command_another_command_calls_is_part_of_it() -> None:
    thing = Thing()
    assert thing.dblclick() == "clicked twice"
    assert [(e.kind, e.name) for e in thing.told] == [("command.started", "dblclick"), ("command.ended", "dblclick")]
    assert thing._ctx.command_depth == 0


def test_a_failing_command_is_told_failed_with_its_error_in_one_line_and_still_raises() -> None:
    thing = Thing()
    with pytest.raises(AssertionError):
        thing.should("have.text", "Hi")
    ended = thing.told[-1]
    assert ended.state == "failed" and ended.error == "AssertionError: expected have.text"
    assert thing.told[0].args == "'have.text', 'Hi'"
    assert thing._ctx.command_depth == 0
    # told in the log as a passing should is, then its failure's line ends the command log, as a
    # retried command's "failed: ... (after Nms)" does
    assert [(e.name, e.message) for e in thing._ctx.log] == [("assert", "get('#b') should have.text 'Hi'"),
                                                            ("failed", "AssertionError: expected have.text")]
    thing.click()
    assert thing.told[-1].id == 2  # numbered within the attempt


def test_a_command_that_writes_no_line_of_its_own_gets_one_where_it_began() -> None:
    """The log names every command the events tell (the terminal and the report agree)."""
    thing = Thing()
    thing.click(force=True)
    thing.dblclick()  # one line: the click it calls is part of it
    del thing._label
    thing._ctx.page_label = "tab[1]"
    thing.click()
    assert [(e.name, e.message) for e in thing._ctx.log] == [
        ("click", "get('#b') force=True"), ("dblclick", "get('#b')"), ("click", "")]


def test_without_a_bus_nothing_is_told() -> None:
    thing = Thing()
    thing._ctx.publish = None
    assert thing.click() == "clicked" and thing.told == []


def test_arguments_are_shown_short() -> None:
    def handler(req: Any) -> None:
        pass

    assert show_args(("GET", "/api/*", handler), {}) == "'GET', '/api/*', <function handler>"
    long = show_args(("x" * 500,), {})
    assert len(long) <= 200 and long.endswith("…")

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert show_args((Broken(),), {}) == "<Broken>"


@pytest.mark.parametrize(("call", "name"), [
    (("click", "get('#b')", (), {}), "get('#b').click()"),
    (("type", "get('#name')", ("Ann",), {"delay": 5}), "get('#name').type('Ann', delay=5)"),
    (("visit", None, ("/page",), {}), "visit('/page')"),
    (("should", "get('h1')", ("have.text", "Hi"), {}), "get('h1') should have.text 'Hi'"),
    (("should", "get('li')", ("have.length", 3), {}), "get('li') should have.length 3"),
    (("should", "get('p')", ("be.visible",), {}), "get('p') should be.visible"),
    (("should", "get('p')", (len,), {}), "get('p') should <callback>"),
    (("wait", None, ("@x",), {}), "wait @x"),
    (("wait", None, (["@a", "@b"],), {}), "wait @a, @b"),
    (("wait", None, (500,), {}), "wait 500ms"),
    (("wait", None, ("@x",), {"timeout": 100}), "wait('@x', timeout=100)"),
])
def test_trace_steps_are_named_as_the_command_log_names_them(call: tuple[Any, ...], name: str) -> None:
    assert step_name(*call) == name


@pytest.mark.parametrize(("row", "name"), [
    ({"method": "GET", "matcher": '{"method": "GET", "url": "/api/x"}', "stubbed": True, "handler": "static",
      "alias": "x"}, "intercept GET /api/x (stubbed) as x"),
    ({"method": "*", "matcher": '{"url": "/api/y"}', "stubbed": False, "handler": "spy", "alias": None},
     "intercept /api/y (spy)"),
    ({"method": "POST", "matcher": '{"method": "POST", "url": "**/users*"}', "stubbed": False,
      "handler": "function", "alias": "u"}, "intercept POST **/users* (handler) as u"),
    ({"method": "*", "matcher": '{"hostname": "api.test", "url": "/a"}', "stubbed": False, "handler": "spy",
      "alias": None}, 'intercept {"hostname": "api.test", "url": "/a"} (spy)'),
    ({"method": "*", "matcher": '{"url": "//a/\\\\d+/"}', "stubbed": False, "handler": "spy", "alias": None},
     "intercept //a/\\d+/ (spy)"),
])
def test_an_intercept_step_names_its_route(row: dict[str, Any], name: str) -> None:
    from runner.commands.network import intercept_step_name

    assert intercept_step_name(row) == name


class Stopped(Thing):
    @command("click")
    def click(self, *, force: bool = False) -> str:
        raise KeyboardInterrupt  # as run/interrupts.py raises it when the run is stopped


def test_a_command_the_runs_stop_cut_short_says_so_not_keyboardinterrupt() -> None:
    thing = Stopped()
    with pytest.raises(KeyboardInterrupt):
        thing.click()
    ended = thing.told[-1]
    assert ended.state == "failed" and ended.error == "Interrupted: the run was stopped while this command ran"


SECRET = "PLANTED-s3cr3t-98431"


@pytest.mark.parametrize("args", [
    # the secret straddles the 80-character cut of one argument's repr
    ("/shop/items.json", {"headers": {"X-Api-Key": "k" * 10, "Authorization": f"Bearer {SECRET}"}}),
    ("x" * 70 + SECRET,),
    # and the cut of the whole line
    tuple("y" * 60 for _ in range(3)) + (SECRET,),
])
def test_shown_args_hide_a_secret_before_they_are_cut_short(args):
    from runner.redaction import Redactor

    redactor = Redactor(values=[SECRET])
    shown = show_args(args, {}, redactor)
    # no part of the secret is left, however short: its first four characters were, before
    assert SECRET[:4] not in shown and "s3cr" not in shown
    without = show_args(args, {})  # no redactor: nothing is hidden (and the cut is where it was)
    assert "[redacted]" not in without


def test_a_secret_header_of_a_keyword_argument_is_hidden_by_its_name():
    from runner.redaction import Redactor

    shown = show_args((), {"headers": {"Authorization": "Bearer not-an-env-value"}}, Redactor())
    assert "not-an-env-value" not in shown and "[redacted]" in shown


def test_a_value_in_a_message_hides_a_secret_before_it_is_cut_short():
    from runner.commands.values import _Missing, _short, lookup_path
    from runner.redaction import Redactor

    redactor = Redactor(values=[SECRET])
    value = {"note": "n" * 45, "token": SECRET}  # its repr is cut inside the secret
    assert SECRET[:4] in _short(value)  # the cut alone leaves its first part
    assert SECRET[:4] not in _short(value, redactor) and "s3cr" not in _short(value, redactor)
    with pytest.raises(_Missing) as missing:
        lookup_path(value, "absent", redactor)
    assert SECRET[:4] not in str(missing.value) and "has no property 'absent'" in str(missing.value)
