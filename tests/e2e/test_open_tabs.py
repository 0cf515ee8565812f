"""``runner open``'s page over the real server, in runner's own browser: a spec run again
replaces its tests' tabs (no "run 2", "run 3" ... piling up), numTestsKeptInMemory bounds them,
a spec's name runs it, and the status bar tells each way a run ends in words."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.support.open_ui import write_sample
from tests.support.procs import pid_in
from tests.support.show_trace import start_serving, stop_serving

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RUN_DONE_MS = 60000  # a child starts Python, pytest and a browser: bounded, generously

TWO_TESTS = """
def test_one(runner):
    runner.visit("/")


def test_two(runner):
    runner.visit("/")
    runner.get("#h").should("have.text", "Hi")
"""

ONE_TEST = """
def test_other(runner):
    runner.visit("/")
    runner.log("other ran")
"""

# every outcome a test can have, in one run (retries.openMode is 1: the flaky one passes second)
OUTCOMES = """
import pathlib

import pytest


def test_passes(runner):
    runner.visit("/")


def test_fails(runner):
    assert 1 == 2


def test_flaky(runner):
    counter = pathlib.Path("flaky.count")
    seen = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(seen + 1))
    assert seen % 2 == 1


def test_skipped_in_its_body(runner):
    pytest.skip("not today")


@pytest.mark.skip(reason="later")
def test_marked_skip(runner):
    pass
"""

DIES = """
import os


def test_dies(runner):
    os._exit(3)
"""

# a test that says it runs (its log line), then waits to be stopped; it writes its process's id
SLOW = """
import os
import pathlib
import time


def test_slow(runner):
    pathlib.Path("child.pid").write_text(str(os.getpid()))
    runner.log("waiting")
    time.sleep(60)
"""

SPECS = {"a_spec.py": TWO_TESTS, "b_spec.py": ONE_TEST, "sub/c_spec.py": ONE_TEST, "outcomes_spec.py": OUTCOMES,
         "broken_spec.py": "def test_x(runner):\n    runner.visit('/'\n", "dies_spec.py": DIES,
         "empty_spec.py": "# no tests yet\n", "slow_spec.py": SLOW, "gone_spec.py": ONE_TEST,
         "shrinks_spec.py": TWO_TESTS}

CONFIG = {"watchForFileChanges": False, "retries": {"runMode": 0, "openMode": 1}}


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_sample(tmp_path_factory.mktemp("open-tabs"), CONFIG)
    for name, text in SPECS.items():
        path = root / "runner" / "integration" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def open_url(sample: Path) -> Iterator[str]:
    proc, url = start_serving(["open", "--no-open"], sample)
    try:
        yield url
    finally:
        err = stop_serving(proc)
        assert proc.returncode == 0 and "Traceback" not in err, err


def visit(runner, url: str) -> None:
    runner.visit(url)
    runner.get("#connection").should("have.attr", "data-state", "open")


def run_and_wait(runner, start: Callable[[], None], state: str = "done") -> None:
    """``start`` a run and wait for its end (the status bar tells this run's number: the last
    run's "done" is not this one's)."""
    before = runner.get("#run-state").attr("data-run") or "0"
    start()
    runner.get("#run-state").should("not.have.attr", "data-run", before)
    runner.get("#run-state").should("have.attr", "data-state", state, timeout=RUN_DONE_MS)


def run_spec(runner, spec: str, state: str = "done") -> None:
    run_and_wait(runner, lambda: runner.get(f".spec[data-spec='{spec}'] .run-spec").click(), state)


def tab(nodeid_end: str) -> str:
    return f".test-tab[data-nodeid$='{nodeid_end}']"


def test_re_runs_replace_a_specs_tabs_and_keep_the_other_specs_tests_marked(runner, open_url: str) -> None:
    """Each ▶ of a spec added a tab per test: three runs of a two-test spec left six tabs, "run 1"
    and "run 2" beside the last run's."""
    visit(runner, open_url)
    run_spec(runner, "b_spec.py")
    for _ in range(3):
        run_spec(runner, "a_spec.py")
        runner.get("#run-state").should("have.text", "done: a_spec.py · 2 passed")
        runner.get(tab("a_spec.py::test_one")).should("have.length", 1).find(".run-number").should("not.exist")
        runner.get(tab("a_spec.py::test_two")).should("have.length", 1).find(".run-number").should("not.exist")
        # b_spec's test stays, marked as kept from an earlier run
        runner.get(tab("b_spec.py::test_other")).should("have.length", 1).find(".run-number").should(
            "contain", "run ")
    # one test run alone replaces that test only; the spec's other test stays, now from an earlier run
    run_and_wait(runner, lambda: runner.get(".test-row[data-nodeid$='a_spec.py::test_two'] .run-test").click())
    runner.get("#run-state").should("have.text", "done: a_spec.py › test_two · 1 passed")
    runner.get(tab("a_spec.py::test_two")).should("have.length", 1).find(".run-number").should("not.exist")
    runner.get(tab("a_spec.py::test_one")).should("have.length", 1).find(".run-number").should("exist")


def test_clicking_a_specs_name_runs_it_with_the_filter_and_in_a_folder(runner, open_url: str) -> None:
    visit(runner, open_url)
    runner.get(".spec[data-spec='b_spec.py'] button.spec-name").should("have.length", 1)  # a real button
    run_and_wait(runner, lambda: runner.get(".spec[data-spec='b_spec.py'] .spec-name").click())
    runner.get("#run-state").should("have.text", "done: b_spec.py · 1 passed")
    runner.get(tab("b_spec.py::test_other")).click()
    runner.get("#commands .command").should("have.length", 1).and_("contain", "visit")
    runner.get("#commands .log").should("contain", "other ran")
    # a spec in a folder, found with the filter: its name runs it, as does the keyboard's Enter
    runner.get("#filter").type("c_sp")
    runner.get(".spec").should("have.length", 1)
    runner.get(".folder").should("have.text", "sub/")
    run_and_wait(runner, lambda: runner.get(".spec[data-spec='sub/c_spec.py'] .spec-name").should(
        "have.text", "c_spec.py").focus().type("{enter}"))
    runner.get("#run-state").should("have.text", "done: sub/c_spec.py · 1 passed")
    runner.get(tab("sub/c_spec.py::test_other")).should("have.class", "selected")
    runner.get("#commands .command").should("contain", "visit")


def test_the_number_kept_bounds_the_tabs(runner, tmp_path: Path) -> None:
    project = write_sample(tmp_path, {**CONFIG, "numTestsKeptInMemory": 2}, spec=TWO_TESTS)
    (project / "runner" / "integration" / "b_spec.py").write_text(ONE_TEST, encoding="utf-8")
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        visit(runner, url)
        run_spec(runner, "b_spec.py")
        run_spec(runner, "a_spec.py")
        runner.get(".test-tab").should("have.length", 2)
        runner.get(tab("a_spec.py::test_one")).should("exist")
        runner.get(tab("a_spec.py::test_two")).should("exist")
        run_and_wait(runner, lambda: runner.get(".test-row[data-nodeid$='b_spec.py::test_other'] .run-test").click())
        runner.get(".test-tab").should("have.length", 2)
        runner.get(tab("a_spec.py::test_two")).find(".run-number").should("exist")
        runner.get(tab("b_spec.py::test_other")).should("exist")
        runner.get(tab("a_spec.py::test_one")).should("not.exist")
        runner.reload()  # what the server kept, not only what the page held
        runner.get("#connection").should("have.attr", "data-state", "open")
        runner.get(".test-tab").should("have.length", 2)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


@pytest.mark.parametrize(("spec", "words"), [
    ("outcomes_spec.py", "done: outcomes_spec.py · 1 passed, 1 failed, 1 flaky, 1 pending, 1 skipped"),
    ("broken_spec.py", "done: broken_spec.py · 1 spec could not be loaded"),
    ("dies_spec.py", "done: dies_spec.py · the process running the tests died: 1 failed"),
    ("empty_spec.py", "done: empty_spec.py · no tests ran"),
])
def test_a_runs_end_in_words(runner, open_url: str, spec: str, words: str) -> None:
    visit(runner, open_url)
    run_spec(runner, spec)
    runner.get("#run-state").should("have.text", words)


def test_a_run_stopped_on_the_page_or_by_a_signal_says_so(runner, open_url: str, sample: Path) -> None:
    visit(runner, open_url)
    pid_file = sample / "child.pid"
    pid_file.unlink(missing_ok=True)

    def stop_from_the_page() -> None:
        runner.get(".spec[data-spec='slow_spec.py'] .run-spec").click()
        runner.get("#commands .log").should("contain", "waiting", timeout=RUN_DONE_MS)
        runner.get("#stop").click()

    run_and_wait(runner, stop_from_the_page, "stopped")
    runner.get("#run-state").should("have.text", "stopped: slow_spec.py · 1 failed")
    # the stopped test's error names who stopped it in words, not the signal runner open sent
    runner.get(".test-error .message").should(
        "contain", "the run was stopped by runner open (Stop, a save, another run, or its own end)")
    pid_file.unlink()

    def a_signal() -> None:
        runner.get(".spec[data-spec='slow_spec.py'] .run-spec").click()
        runner.get("#commands .log").should("contain", "waiting", timeout=RUN_DONE_MS)
        os.kill(pid_in(pid_file), signal.SIGTERM)

    run_and_wait(runner, a_signal)
    runner.get("#run-state").should("have.text", "done: slow_spec.py · interrupted: 1 failed")
    runner.get(".test-error .message").should("contain", "the run was stopped by SIGTERM")


def test_a_spec_run_again_lists_only_the_tests_it_ran(runner, open_url: str, sample: Path) -> None:
    """A spec that no longer loaded kept its tests' old green dots, and a renamed test stayed
    listed under its old name."""
    visit(runner, open_url)
    spec = sample / "runner" / "integration" / "shrinks_spec.py"
    rows = ".spec[data-spec='shrinks_spec.py'] .test-row"
    try:
        run_spec(runner, "b_spec.py")
        run_spec(runner, "shrinks_spec.py")
        runner.get(rows).should("have.length", 2)
        spec.write_text("def test_one(runner):\n    runner.visit('/'\n", encoding="utf-8")
        run_spec(runner, "shrinks_spec.py")
        runner.get("#run-state").should("have.text", "done: shrinks_spec.py · 1 spec could not be loaded")
        runner.get(".spec[data-spec='shrinks_spec.py'] .spec-error").should("contain", "SyntaxError")
        runner.get(".spec[data-spec='shrinks_spec.py'] .test-row").should("not.exist")
        spec.write_text("def test_renamed(runner):\n    runner.visit('/')\n", encoding="utf-8")
        run_spec(runner, "shrinks_spec.py")
        runner.get(rows).should("have.length", 1).and_("contain", "test_renamed")
        # another spec's tests keep theirs
        runner.get(".spec[data-spec='b_spec.py'] .test-row").should("have.length", 1)
    finally:
        spec.write_text(TWO_TESTS, encoding="utf-8")


def test_a_run_that_could_not_begin_says_why(runner, open_url: str, sample: Path) -> None:
    """The bar said "the run ended before any test (see the Output tab)", or nothing at all (it
    still read "idle") when the server could not read the configuration."""
    visit(runner, open_url)
    gone = sample / "runner" / "integration" / "gone_spec.py"
    gone.unlink()  # after the page listed it: the run finds no such spec
    run_spec(runner, "gone_spec.py", "not-run")
    runner.get("#run-state").should("contain", "not run: gone_spec.py · no spec file matches ").and_(
        "contain", "gone_spec.py in ")
    config = sample / "runner.json"
    good = config.read_text(encoding="utf-8")
    try:
        # the child reads a configuration the server read before (no watcher here)
        config.write_text(json.dumps({**json.loads(good), "defaultCommandTimeout": "x"}), encoding="utf-8")
        run_spec(runner, "b_spec.py", "not-run")
        runner.get("#run-state").should("contain", "not run: b_spec.py · Your configuration file ").and_(
            "contain", "runner.json is invalid (1 problem) (see the Output tab)")
        runner.get("#output").should("contain", "defaultCommandTimeout")  # the Output tab has it whole
        # not JSON: the page (reloaded) shows the problem and lists no spec; "Run all specs" says why
        config.write_text("{", encoding="utf-8")
        visit(runner, open_url)
        runner.get("#problem").should("contain", "not valid JSON")
        # the specs are there, the configuration is not: no "no specs found" under the problem
        runner.get("#spec-tree").should("not.contain", "no specs found")
        run_and_wait(runner, lambda: runner.get("#run-all").click(), "not-run")
        runner.get("#run-state").should("contain", "not run: all specs · Your configuration file ").and_(
            "contain", "is not valid JSON")
    finally:
        config.write_text(good, encoding="utf-8")
        gone.write_text(ONE_TEST, encoding="utf-8")


def test_a_project_never_configured_runs_nothing_and_says_why(runner, tmp_path: Path) -> None:
    """A runner.json that was never read: the server starts no run at all (it has no
    configuration to give one); the bar said "idle"."""
    project = write_sample(tmp_path, CONFIG)
    (project / "runner.json").write_text("{", encoding="utf-8")
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        visit(runner, url)
        runner.get("#run-all").click()
        runner.get("#run-state").should("have.attr", "data-state", "not-run").and_(
            "contain", "not run: all specs · Your configuration file ").and_("contain", "is not valid JSON")
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
