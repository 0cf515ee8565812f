"""run_guard's watching parent, with real forks: a finished child's exit status comes from the
journal's last line alone; a child that died is read back in full."""

from __future__ import annotations

import os
import threading

import pytest

from runner import run_guard
from runner.events import TestStarted

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or threading.active_count() > 1,
                                reason="run_guard forks only a single-threaded process")


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The journal reads back in full of the watching process (they still happen)."""
    calls: list[object] = []
    real = run_guard._read_journal

    def counted(file):
        calls.append(file)
        return real(file)

    monkeypatch.setattr(run_guard, "_read_journal", counted)
    return calls


def test_a_finished_run_is_not_read_back(monkeypatch, capsys):
    """Every run's end parsed its whole journal (80,000 events: 2.5 s and their memory)."""
    reads = _reads(monkeypatch)
    parent = os.getpid()

    def run(journal):
        for number in range(2000):
            journal(TestStarted(spec="a_spec.py", nodeid=f"a_spec.py::test_{number}", title=[f"test_{number}"]))
        return 3 if os.getpid() != parent else 99  # 99: it ran here, not in a child

    assert run_guard.guarded(run) == 3
    assert reads == []


def test_a_child_that_died_is_read_back_and_fails_the_run(monkeypatch, capsys):
    reads = _reads(monkeypatch)

    def run(journal):
        journal(TestStarted(spec="a_spec.py", nodeid="a_spec.py::test_dies", title=["test_dies"]))
        os._exit(0)

    assert run_guard.guarded(run) == 1
    assert len(reads) == 1
    assert "died while 'a_spec.py::test_dies' was running" in capsys.readouterr().err
