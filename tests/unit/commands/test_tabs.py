"""A tab's context is the test's, bound to another page: one log, one count of commands, one
configuration; its own browser (the page's view) and label."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from runner.commands import context
from runner.commands.tabs import PageContext


def contexts() -> tuple[context.TestContext, PageContext, Any, Any]:
    session, view = object(), SimpleNamespace(label="tab[1]")
    test = context.TestContext(config=None, loop=None, browser_getter=lambda: session, base_url=None,  # type: ignore[arg-type]
                       title="a test")
    return test, PageContext(test, view), session, view  # type: ignore[arg-type]


def test_the_tab_reads_and_writes_the_tests_fields() -> None:
    test, tab, _, _ = contexts()
    tab.commands_told += 2
    tab.command = "runner.tab[1].click()"
    assert (test.commands_told, test.command) == (2, "runner.tab[1].click()")
    test.attempt = 3
    assert tab.attempt == 3 and tab.title == "a test" and tab.log is test.log


def test_the_tab_has_its_own_page_and_label() -> None:
    test, tab, session, view = contexts()
    assert tab.browser is view and test.browser is session
    assert (tab.page_label, test.page_label) == ("tab[1]", None)


def test_the_tabs_log_lines_are_marked_as_the_tabs() -> None:
    test, tab, _, _ = contexts()
    test.add_log("click", "get('#a')")
    tab.add_log("click", "get('#b')")
    assert [(e.name, e.message) for e in test.log] == [("click", "get('#a')"), ("tab[1] click", "get('#b')")]
