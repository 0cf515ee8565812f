"""Between tests `runner run` clears cookies, local storage and session storage of every origin
the test touched (the original's testIsolation): each test here finds nothing and leaves all of
it behind on two origins, so whichever runs second fails if anything is left."""

from __future__ import annotations

import json

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


KEEPING_SPEC = '''
import json
from pathlib import Path

SEEN = Path(__file__).parent / "seen.jsonl"


def leave_something(runner, name):
    # What this test found when it started; the outer test reads both (in either order).
    found = {"test": name, "url": runner.url()}
    if runner.url().startswith("http"):
        found.update(local=runner.get_local_storage(), session=runner.get_session_storage(),
                     cookies=[c.name for c in runner.get_all_cookies()])
    with SEEN.open("a") as out:
        out.write(json.dumps(found) + "\\n")
    runner.visit("/index.html")
    runner.set_local_storage("left_by", name)
    runner.set_session_storage("left_by", name)
    runner.set_cookie("left_by", name)


def test_first(runner):
    leave_something(runner, "first")


def test_second(runner):
    leave_something(runner, "second")
'''


def test_with_test_isolation_off_the_next_test_finds_the_page_and_its_storage(project):
    root = project(base_project({"runner/integration/keep_spec.py": KEEPING_SPEC}, {"testIsolation": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    first, second = (json.loads(line) for line in
                     (root / "runner" / "integration" / "seen.jsonl").read_text().splitlines())
    assert first == {"test": first["test"], "url": "about:blank"}
    assert second["url"].endswith("/index.html")
    assert second["local"] == second["session"] == {"left_by": first["test"]}
    assert second["cookies"] == ["left_by"]
