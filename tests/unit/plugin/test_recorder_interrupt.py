"""An interrupted run, as the recorder tells it: the test that was running ends as failed by the
interruption, the run's error says what stopped it, and the reporters say so (no browser)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from runner.events import Event, RunEnded, RunStarted
from runner.plugin.recorder import RunRecorder
from runner.reporters.feed import ReporterFeed
from runner.reporters.spec import SpecReporter


def _recorder(root: Path, published: list[Event], signal_name: str | None) -> RunRecorder:
    return RunRecorder(
        publish=published.append, project_root=root, spec_root=root,
        describe_run=lambda specs: RunStarted(run_id="r", runner_version="0", browser="b", specs=specs),
        slow_ms=10_000, interrupted_by=lambda: signal_name)


def _interrupt(recorder: RunRecorder, root: Path, error: BaseException) -> None:
    spec = root / "a_spec.py"
    spec.write_text("")
    first, second = f"{spec}::test_done", f"{spec}::test_cut_short"
    recorder._specs.count([str(spec)] * 3)
    recorder.pytest_runtest_logstart(first, (str(spec), 1, "test_done"))
    recorder.pytest_runtest_logreport(pytest.TestReport(
        nodeid=first, location=(str(spec), 1, "test_done"), keywords={}, outcome="passed",
        longrepr=None, when="call", duration=0.01))
    recorder.pytest_runtest_logfinish(first, (str(spec), 1, "test_done"))
    recorder.pytest_runtest_logstart(second, (str(spec), 5, "test_cut_short"))
    try:
        raise error
    except BaseException:  # noqa: BLE001 - what pytest hands the hook
        recorder.pytest_keyboard_interrupt(pytest.ExceptionInfo.from_current())
    recorder.pytest_sessionfinish(None, pytest.ExitCode.INTERRUPTED)  # type: ignore[arg-type]


@pytest.mark.parametrize(("signal_name", "error", "reason"), [
    ("SIGTERM", KeyboardInterrupt(), "SIGTERM"),
    ("SIGINT", KeyboardInterrupt(), "SIGINT"),
    (None, KeyboardInterrupt(), "KeyboardInterrupt (Ctrl-C)"),  # plain pytest: no handler of runner's
    (None, pytest.exit.Exception("enough"), "pytest.exit('enough')"),
])
def test_the_running_test_ends_failed_by_the_interruption(tmp_path, signal_name, error, reason):
    published: list[Event] = []
    _interrupt(_recorder(tmp_path, published, signal_name), tmp_path, error)
    kinds = [e.kind for e in published]
    assert kinds.count("test.started") == 2 and kinds.count("test.ended") == 2  # test_never never started
    attempt = [e for e in published if e.kind == "attempt.ended"][-1]
    assert attempt.nodeid.endswith("test_cut_short")
    assert (attempt.state, attempt.error_type) == ("failed", "Interrupted")
    assert attempt.message == f"Interrupted: the run was stopped by {reason} while this test was running."
    ended = published[-1]
    assert isinstance(ended, RunEnded)
    assert (ended.interrupted, ended.error) == (True, f"interrupted by {reason}")
    assert (ended.tests, ended.passed, ended.failed) == (2, 1, 1)


def test_the_spec_reporter_does_not_say_that_all_passed(tmp_path):
    # a signal between two tests: every test that ran passed, and still the run was cut short
    published: list[Event] = []
    recorder = _recorder(tmp_path, published, "SIGINT")
    spec = tmp_path / "a_spec.py"
    spec.write_text("")
    nodeid = f"{spec}::test_done"
    recorder._specs.count([str(spec)] * 2)
    recorder.pytest_runtest_logstart(nodeid, (str(spec), 1, "test_done"))
    recorder.pytest_runtest_logreport(pytest.TestReport(
        nodeid=nodeid, location=(str(spec), 1, "test_done"), keywords={}, outcome="passed",
        longrepr=None, when="call", duration=0.01))
    recorder.pytest_runtest_logfinish(nodeid, (str(spec), 1, "test_done"))
    recorder.pytest_sessionfinish(None, pytest.ExitCode.INTERRUPTED)  # type: ignore[arg-type]
    out = io.StringIO()
    feed = ReporterFeed([SpecReporter({}, stream=out)])
    for event in published:
        feed(event)
    text = out.getvalue()
    assert "All specs passed!" not in text
    assert "Interrupted by SIGINT" in text
