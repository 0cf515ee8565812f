"""runner.session(): cookies and local storage cached in one test, restored in the next."""

from __future__ import annotations

import pytest

from runner import UsageError

calls: list[str] = []


def _login(runner):
    def setup():
        calls.append("setup")
        runner.visit("/storage.html")
        runner.get("#seen").should("contain", "local=none")

    return setup


def test_session_is_created_once(runner):
    runner.session("user", _login(runner))
    assert calls == ["setup"]
    runner.visit("/storage.html")
    runner.get("#seen").should("have.text", "local=set session=none cookie=k=set")


def test_session_is_restored_in_the_next_test(runner):
    runner.session("user", _login(runner))
    assert calls == ["setup"]  # not called again
    runner.visit("/storage.html")
    runner.get("#seen").should("have.text", "local=set session=none cookie=k=set")


def test_failed_validation_builds_the_session_again(runner):
    def validate():
        raise AssertionError("expired")

    runner.session("user", _login(runner), validate)
    assert calls == ["setup", "setup"]


def test_session_needs_the_experimental_flag(runner):
    runner._ctx.config = runner._ctx.config.merged(
        {"experimentalSessionSupport": False}, source="plugin", origin="this test")
    with pytest.raises(UsageError, match="experimentalSessionSupport"):
        runner.session("user", lambda: None)
