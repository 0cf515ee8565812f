"""Between tests `runner run` clears cookies, local storage and session storage of every origin
the test touched (the original's testIsolation): each test here finds nothing and leaves all of
it behind on two origins, so whichever runs second fails if anything is left."""

from __future__ import annotations

from tests.cli.conftest import base_project, run_runner

SPEC = '''
import pytest

OTHER = "http://other.test/page"  # a second origin, answered by a stub


@pytest.fixture
def stubbed(runner):
    runner.intercept(OTHER, {"body": "<html><body>other</body></html>", "headers": {"content-type": "text/html"}})
    return runner


def starts_clean_and_leaves_everything_behind(runner):
    runner.visit("/index.html")
    assert runner.get_all_local_storage() == {}
    assert runner.get_all_cookies() == []
    assert runner.get_local_storage() == {} and runner.get_session_storage() == {}
    runner.set_local_storage("left", "behind")
    runner.set_session_storage("left", "behind")
    runner.set_cookie("left", "behind")
    runner.visit(OTHER)
    assert runner.get_local_storage() == {} and runner.get_session_storage() == {}
    runner.set_local_storage("left", "behind")
    runner.set_session_storage("left", "behind")
    assert len(runner.get_all_local_storage()) == 2
    runner.visit("/index.html")
    assert runner.get_session_storage() == {"left": "behind"}  # kept within the test


def test_first(stubbed):
    starts_clean_and_leaves_everything_behind(stubbed)


def test_second(stubbed):
    starts_clean_and_leaves_everything_behind(stubbed)
'''


def test_storage_of_every_origin_is_cleared_between_tests(project):
    root = project(base_project({"runner/integration/storage_spec.py": SPEC}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "2 passing" in result.out, result.out
