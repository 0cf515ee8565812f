"""Which attempts are traced, which traces are kept, and where they go."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.artifacts.traces import claim_trace_path, keeps_trace, records_trace

FOLDER = Path("/project/runner/traces")

# mode, attempt, recorded, kept when it failed, kept when it passed
TABLE = [
    ("off", 1, False, False, False),
    ("off", 2, False, False, False),
    ("on", 1, True, True, True),
    ("on", 2, True, True, True),
    ("on", 3, True, True, True),
    ("retain-on-failure", 1, True, True, False),
    ("retain-on-failure", 2, True, True, False),
    ("on-first-retry", 1, False, False, False),
    ("on-first-retry", 2, True, True, True),
    ("on-first-retry", 3, False, False, False),
]


@pytest.mark.parametrize(("mode", "attempt", "recorded", "kept_failed", "kept_passed"), TABLE)
def test_the_decision_table(mode: str, attempt: int, recorded: bool, kept_failed: bool, kept_passed: bool) -> None:
    assert records_trace(mode, attempt) is recorded
    assert keeps_trace(mode, attempt, failed=True) is kept_failed
    assert keeps_trace(mode, attempt, failed=False) is kept_passed


def test_a_trace_goes_under_its_spec_named_by_the_test() -> None:
    taken: set[Path] = set()
    path = claim_trace_path(FOLDER, "login/a_spec.py", "Suite -- test_x", attempt=1, taken=taken)
    assert path == FOLDER / "login" / "a_spec.py" / "Suite -- test_x.zip"
    assert taken == {path}


def test_later_attempts_say_which_and_names_are_made_safe_and_unique() -> None:
    taken: set[Path] = set()
    retry = claim_trace_path(FOLDER, "a_spec.py", "test_x", attempt=2, taken=taken)
    assert retry.name == "test_x (attempt 2).zip"
    first = claim_trace_path(FOLDER, "a_spec.py", "test_p[a/b]", attempt=1, taken=taken)
    second = claim_trace_path(FOLDER, "a_spec.py", "test_p[a:b]", attempt=1, taken=taken)
    assert first.name == "test_p[a_b].zip" and second.name == "test_p[a_b] (2).zip"
    assert first.parent == second.parent == FOLDER / "a_spec.py"  # a "/" in a title makes no folder
    long = claim_trace_path(FOLDER, "a_spec.py", "x" * 400, attempt=3, taken=taken)
    assert long.name.endswith("x (attempt 3).zip") and len(long.stem.encode()) <= 200
