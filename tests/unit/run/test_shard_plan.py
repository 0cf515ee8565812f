"""Shards: the --shard value, the durations file, test counts and the packing (no browser)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.events import RunStarted, SpecEnded, SpecStarted
from runner.run.shard_plan import (
    ShardError,
    count_tests,
    durations_from_events,
    pack,
    parse_shard,
    plan_shards,
    read_durations,
    record_durations,
    write_durations,
)


@pytest.mark.parametrize(("text", "index", "total"), [("1/4", 1, 4), (" 2 / 2 ", 2, 2), ("1/1", 1, 1)])
def test_a_shard_is_i_of_n(text: str, index: int, total: int) -> None:
    shard = parse_shard(text)
    assert (shard.index, shard.total, str(shard)) == (index, total, f"{index}/{total}")


@pytest.mark.parametrize(("text", "says"), [
    ("3/2", "the shard must be from 1 to 2, found 3"),
    ("0/2", "the shard must be from 1 to 2, found 0"),
    ("1/0", "the number of shards must be at least 1, found 0"),
    ("2", "expected i/n"),
    ("a/b", "expected i/n"),
    ("-1/2", "expected i/n"),
    ("", "expected i/n"),
])
def test_a_bad_shard_says_what_is_expected(text: str, says: str) -> None:
    with pytest.raises(ShardError) as caught:
        parse_shard(text)
    assert says in str(caught.value) and f"--shard {text!r}" in str(caught.value)


def test_durations_round_trip_sorted_and_rounded(tmp_path: Path) -> None:
    path = tmp_path / "runner" / "durations.json"
    write_durations(path, {"b.py": 10.4, "a.py": 2000.6})
    assert read_durations(path) == {"a.py": 2001.0, "b.py": 10.0}
    assert path.read_text().index('"a.py"') < path.read_text().index('"b.py"')
    assert not list(path.parent.glob("*.partial"))


@pytest.mark.parametrize(("content", "says"), [
    ("{not json", "is not JSON"),
    ("[1, 2]", "found a JSON list"),
    ('{"version": 2, "specs": {}}', "found version 2"),
    ('{"durations": {}}', "found the keys ['durations']"),
    ('{"version": 1, "specs": {"a.py": "fast"}}', "the duration of 'a.py' must be a number of milliseconds >= 0, "
                                                  'found "fast"'),
    ('{"version": 1, "specs": {"a.py": -5}}', "found -5"),
    ('{"version": 1, "specs": {"a.py": true}}', "found true"),
])
def test_a_bad_durations_file_is_one_clear_error(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "durations.json"
    path.write_text(content)
    with pytest.raises(ShardError) as caught:
        read_durations(path)
    assert says in str(caught.value) and str(path) in str(caught.value)


def test_tests_are_counted_from_the_source(tmp_path: Path) -> None:
    spec = tmp_path / "spec.py"
    spec.write_text(
        "import pytest\n"
        "def helper(): pass\n"
        "def test_a(runner): pass\n"
        "async def test_b(runner): pass\n"
        "@pytest.mark.parametrize('x', [1, 2, 3])\n"
        "@pytest.mark.parametrize('y', (1, 2))\n"
        "def test_c(x, y): pass\n"
        "@pytest.mark.parametrize('x', CASES)\n"  # not a literal: counted once
        "def test_d(x): pass\n"
        "class TestGroup:\n"
        "    def test_e(self): pass\n"
        "    def test_f(self): pass\n"
        "class Helper:\n"
        "    def test_g(self): pass\n")
    assert count_tests(spec) == 1 + 1 + 6 + 1 + 2
    broken = tmp_path / "broken.py"
    broken.write_text("def test_(:\n")
    assert count_tests(broken) == 1


def test_packing_is_longest_first_onto_the_lightest_shard_and_stable() -> None:
    weights = {"a": 5.0, "b": 4.0, "c": 3.0, "d": 3.0, "e": 2.0, "f": 2.0, "g": 1.0}
    shards = pack(weights, 3)
    assert shards == [["a", "f"], ["b", "e", "g"], ["c", "d"]]  # loads 7, 7, 6
    assert sorted(s for shard in shards for s in shard) == sorted(weights)  # each spec exactly once
    assert pack(dict(reversed(list(weights.items()))), 3) == shards  # the input's order does not matter
    assert pack({"a": 1.0}, 3) == [["a"], [], []]


def _specs(root: Path, tests: dict[str, int]) -> list[Path]:
    out = []
    for name, count in tests.items():
        path = root / "runner" / "integration" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"def test_{i}(): pass\n" for i in range(count)))
        out.append(path)
    return out


def test_without_durations_specs_weigh_their_test_counts(tmp_path: Path) -> None:
    specs = _specs(tmp_path, {"a.py": 6, "b.py": 3, "c.py": 3, "d.py": 1})
    plan = plan_shards(specs, tmp_path, 2, None)
    assert plan.basis == "test counts"
    assert [plan.load(1), plan.load(2)] == [7.0, 6.0]


def test_durations_balance_and_unknown_specs_are_estimated_per_test(tmp_path: Path) -> None:
    specs = _specs(tmp_path, {"slow.py": 1, "a.py": 2, "b.py": 2, "new.py": 4})
    durations = {"runner/integration/slow.py": 9000.0, "runner/integration/a.py": 1000.0,
                 "runner/integration/b.py": 1000.0, "runner/integration/gone.py": 50.0}
    plan = plan_shards(specs, tmp_path, 2, durations)
    assert plan.basis == "recorded durations"
    assert plan.estimated == ["runner/integration/new.py"] and plan.stale == ["runner/integration/gone.py"]
    # 11000 ms over 5 recorded tests: 2200 ms a test, so new.py (4 tests) weighs 8800
    assert plan.weights["runner/integration/new.py"] == pytest.approx(8800.0)
    assert plan.shards == [["runner/integration/slow.py", "runner/integration/b.py"],
                           ["runner/integration/new.py", "runner/integration/a.py"]]


def test_durations_come_from_a_runs_events_relative_to_its_project(tmp_path: Path) -> None:
    root = tmp_path / "project"
    events = [
        RunStarted(run_id="r", runner_version="0", browser="b", specs=["a.py"], project_root=str(root)),
        SpecStarted(spec="a.py", absolute=str(root / "runner/integration/a.py")),
        SpecEnded(spec="a.py", duration_ms=1234.5),
        SpecStarted(spec="empty.py", absolute=str(root / "runner/integration/empty.py")),
        SpecEnded(spec="empty.py", duration_ms=1.0, empty=True),
    ]
    assert durations_from_events(events) == {"runner/integration/a.py": 1234.5}


def test_recording_keeps_other_specs_and_drops_those_that_are_gone(tmp_path: Path) -> None:
    _specs(tmp_path, {"a.py": 1, "b.py": 1})
    path = tmp_path / "runner" / "durations.json"
    path.write_text(json.dumps({"version": 1, "specs": {"runner/integration/a.py": 10, "runner/integration/b.py": 20,
                                                        "runner/integration/gone.py": 30}}))
    written = record_durations(path, {"runner/integration/a.py": 99.0}, tmp_path)
    assert written == {"runner/integration/a.py": 99.0, "runner/integration/b.py": 20.0}
    path.write_text("garbage")  # an unreadable older file is replaced, the new times kept
    assert record_durations(path, {"runner/integration/a.py": 5.0}, tmp_path) == {"runner/integration/a.py": 5.0}
