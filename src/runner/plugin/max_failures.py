"""``runner run --max-failures N``: the run stops after its Nth failed test, across all workers.

The process that tells the run (the one pytest process, or pytest-xdist's controller) counts the
tests whose final outcome is failed, from the run's ``test.ended`` events: a retried test counts
once, after its last attempt; a quarantined test's failure does not count (it does not fail the
run either). At the Nth, :class:`MaxFailures` stops the run cleanly: no test
starts after it. In one process the tests left are passed over as pytest reaches them (this
plugin's ``pytest_runtest_protocol`` returns before any of their hooks). With workers, they share
a stop folder (:class:`WorkerStop`): each worker writes a file there for each test that failed in
it, the controller writes ``stop`` at the Nth failure it counts (a test that killed its worker
counts there only), and a worker looks at the folder as each of its tests ends and before each
spec it starts: at N files, or ``stop``, it starts no test, so the scheduler's remaining specs go
through the workers without running. A worker does not wait for the controller to hear of its
own failure: the test after it in the same worker never starts. A test already running in
another worker finishes normally, its reports and artifacts kept (a test is bounded by its own
timeouts; stopping it would leave a failure the run did not have). pytest's own stop
(``session.shouldfail``, pytest-xdist's ``shouldstop``) is not used: pytest-xdist's ends the run
as interrupted (exit status 130).

The recorder then tells every test that never started as ``not_run``
(:meth:`runner.plugin.tests_ledger.TestsLedger.end_not_run`), with :attr:`MaxFailures.reason`.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from runner.events import Event, TestEnded
from runner.plugin.outcomes import QUARANTINE_ATTR

__all__ = ["STOP_FILE_KEY", "MaxFailures", "WorkerStop", "run_stopped", "stop_reason"]

#: The stop folder and the limit, in a pytest-xdist worker's ``workerinput``.
STOP_FILE_KEY = "runner_stop_folder"
_LIMIT_KEY = "runner_max_failures"


def stop_reason(limit: int) -> str:
    """Why the run stopped, as every report says it."""
    return f"stopped after {limit} failure{'s' if limit != 1 else ''} (--max-failures {limit})"


def run_stopped(config: pytest.Config) -> bool:
    """Whether ``--max-failures`` stopped the run (in this process): no test starts any more."""
    return any(isinstance(p, MaxFailures) and p.reason is not None for p in config.pluginmanager.get_plugins())


class MaxFailures:
    """The controller's count: subscribed to the run's bus (``test.ended``) and registered as a
    pytest plugin; ``reason`` is None until the run stops."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.failed = 0
        self.reason: str | None = None
        self._folder: Path | None = None  # the stop file's, made when a worker is started

    def __call__(self, event: Event) -> None:
        """A test ended: a failed one counts (the test's final outcome, once)."""
        if not isinstance(event, TestEnded) or event.state != "failed" or self.reason is not None:
            return
        if event.quarantine is not None:  # its failure does not fail the run: nor does it stop it
            return
        self.failed += 1
        if self.failed >= self.limit:
            self.reason = stop_reason(self.limit)
            if self._folder is not None:
                (self._folder / "stop").write_text(self.reason, encoding="utf-8")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        return True if self.reason is not None else None  # True: pytest runs none of its hooks

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """pytest-xdist's controller, as it starts a worker: the stop folder and the limit."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="runner-stop-"))
        node.workerinput[STOP_FILE_KEY] = str(self._folder)
        node.workerinput[_LIMIT_KEY] = self.limit

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)


class WorkerStop:
    """In a pytest-xdist worker: its failed tests told to the stop folder, and no test started
    once the run has had its failures (see the module).

    A worker looks at the folder as each test ends (its teardown report, before the relay sends
    it: a spec cut short there has its video finished and sent with that report) and before the
    first test of each spec; between the tests of one spec the answer of the last end holds, so a
    spec's video is never left unfinished."""

    def __init__(self, workerinput: dict[str, Any]) -> None:
        self._folder = Path(workerinput[STOP_FILE_KEY])
        self._limit = int(workerinput[_LIMIT_KEY])
        self._name = str(workerinput.get("workerid", "gw"))
        self._failed: set[str] = set()
        self._last_path: Path | None = None  # the spec file of the last test this worker ran
        self.stopped = False

    def check(self) -> bool:
        """Whether the run stops (once it does, it stays stopped)."""
        if not self.stopped:
            try:
                names = [p.name for p in self._folder.iterdir()]
            except OSError:
                names = []
            self.stopped = "stop" in names or len(names) >= self._limit
        return self.stopped

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # the reports of a test's last attempt (runner's retries run before they are told)
        quarantined = getattr(report, QUARANTINE_ATTR, None) is not None  # not a failure of the run
        if report.failed and not quarantined and report.nodeid not in self._failed:
            self._failed.add(report.nodeid)
            (self._folder / f"{self._name}-{len(self._failed)}").write_text(report.nodeid, encoding="utf-8")
        if report.when == "teardown":
            self.check()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        if self.stopped or (item.path != self._last_path and self.check()):
            return True  # pytest runs none of its hooks
        self._last_path = item.path
        return None
