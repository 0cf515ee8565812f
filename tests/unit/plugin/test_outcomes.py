"""An attempt's data from pytest's reports (plugin/outcomes.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from runner.plugin.outcomes import attempt_from_reports


def _failed(longrepr: str) -> pytest.TestReport:
    return pytest.TestReport(nodeid="a_spec.py::test_x", location=("a_spec.py", 1, "test_x"), keywords={},
                             outcome="failed", longrepr=longrepr, when="call", duration=0.01)


def test_a_workers_report_has_no_worker_line_in_its_error():
    # under --workers, pytest-xdist's report carries the worker (its `node`), and pytest writes
    # "[gw0] linux -- Python ..." first: the process that ran the test, not what failed
    report = _failed("def test_x():\n>   assert 1 == 2\nE   assert 1 == 2")
    report.node = SimpleNamespace(workerinfo={"id": "gw0", "sysplatform": "linux", "version_info": (3, 11, 7),
                                              "executable": "/venv/bin/python"})
    assert report.longreprtext.startswith("[gw0] linux -- Python 3.11.7 /venv/bin/python")
    error = attempt_from_reports([report])["error"]
    assert error == "def test_x():\n>   assert 1 == 2\nE   assert 1 == 2"


def test_a_report_of_one_process_keeps_its_text_whole():
    text = "[gw0] linux -- Python 3.11.7 in a message of the test's own\nE   boom"
    assert attempt_from_reports([_failed(text)])["error"] == text
