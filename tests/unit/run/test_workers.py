"""--workers: the value, what auto means, the order specs are handed out in (no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.errors import UsageError
from runner.run.workers import auto_workers, longest_first, parse_workers, xdist_args


def test_a_number_or_auto() -> None:
    assert parse_workers("3") == 3 and parse_workers(" 1 ") == 1
    assert parse_workers("auto") == parse_workers("AUTO") == auto_workers()


def test_auto_fits_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    import runner.run.workers as module

    monkeypatch.setattr(module.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(module, "_available_mib", lambda: 8000)
    assert auto_workers() == 4  # one for every two cores
    monkeypatch.setattr(module, "_available_mib", lambda: 1300)
    assert auto_workers() == 2  # memory for two browsers
    monkeypatch.setattr(module, "_available_mib", lambda: 100)
    assert auto_workers() == 1  # never fewer than one
    monkeypatch.setattr(module.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(module, "_available_mib", lambda: 8000)
    assert auto_workers() == 1  # one core still runs


@pytest.mark.parametrize(("text", "says"), [
    ("0", "expected at least 1 worker"), ("-2", "expected a number"), ("two", "expected a number"), ("", "expected"),
])
def test_a_bad_count_says_what_is_expected(text: str, says: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_workers(text)
    assert says in str(caught.value) and f"--workers {text!r}" in str(caught.value)


def test_xdist_gives_out_whole_specs() -> None:
    assert xdist_args(1) == []
    assert xdist_args(3) == ["-n", "3", "--dist", "loadfile"]


def test_specs_go_out_heaviest_first(tmp_path: Path) -> None:
    specs = []
    for name, tests in (("a.py", 1), ("b.py", 5), ("c.py", 2)):
        path = tmp_path / name
        path.write_text("".join(f"def test_{i}(): pass\n" for i in range(tests)))
        specs.append(path)
    assert [p.name for p in longest_first(specs, tmp_path, None)] == ["b.py", "c.py", "a.py"]
    by_time = longest_first(specs, tmp_path, {"a.py": 9000.0, "b.py": 10.0, "c.py": 20.0})
    assert [p.name for p in by_time] == ["a.py", "c.py", "b.py"]
