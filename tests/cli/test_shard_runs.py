"""`runner run --shard i/n`, `--record-durations`, `runner durations` and `runner merge`: real runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project

# Five specs of uneven size: alpha holds 4 tests (one fails), the others 1 or 2.
SPECS = {
    "runner/integration/alpha_spec.py": """
        import pytest

        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_counts(n):
            assert n

        def test_fails():
            assert 1 == 2, "alpha fails on purpose"
        """,
    "runner/integration/beta_spec.py": "def test_b(runner):\n    runner.visit('/')\n    runner.screenshot('beta')\n",
    "runner/integration/gamma_spec.py": "def test_g1():\n    pass\n\ndef test_g2():\n    pass\n",
    "runner/integration/delta_spec.py": "def test_d():\n    pass\n",
    "runner/integration/epsilon_spec.py": "def test_e():\n    pass\n",
}
CONFIG = {"video": False, "trashAssetsBeforeRuns": False, "reportFolder": False}


def _project(root: Path) -> Path:
    return write_project(root, base_project(SPECS, CONFIG))


def _shard(root: Path, shard: str, *extra: str, folder: str = "runner/results"):
    events = f"{folder}/shard-{shard.replace('/', '-of-')}.jsonl"
    result = run_runner("run", "--shard", shard, "--config", f"eventsFile={events}", "-r", "json",
                        "-o", f"output=runner/results/{shard.replace('/', '-of-')}.json", *extra, cwd=root)
    return result, root / events


def _ran(root: Path, shard: str) -> list[str]:
    data = json.loads((root / "runner/results" / f"{shard.replace('/', '-of-')}.json").read_text())
    return sorted({test["spec"] for test in data["tests"]}) if "tests" in data else data


@pytest.mark.slow
def test_shards_split_the_specs_and_merge_into_one_run(tmp_path: Path) -> None:
    root = _project(tmp_path)
    outcomes = {shard: _shard(root, shard) for shard in ("1/3", "2/3", "3/3")}
    ran: list[str] = []
    for shard, (result, events) in outcomes.items():
        assert f"runner: shard {shard}:" in result.err and "by test counts" in result.err, result.text
        lines = [json.loads(line) for line in events.read_text().splitlines()]
        assert lines[0]["shard"]["index"] == int(shard[0]) and lines[0]["shard"]["total"] == 3
        ran += lines[0]["specs"]
    # every spec in exactly one shard; alpha (4 tests) alone in the first
    assert sorted(ran) == sorted(Path(name).name for name in SPECS)
    assert outcomes["1/3"][0].code == 1 and outcomes["2/3"][0].code == 0 and outcomes["3/3"][0].code == 0
    again, _ = _shard(root, "2/3", folder="runner/again")
    assert again.err.splitlines()[0] == outcomes["2/3"][0].err.splitlines()[0]  # stable for the same inputs

    # the shards' folders gathered in another place (as CI downloads them), the old one gone
    moved = tmp_path.parent / (tmp_path.name + "-gathered")
    shutil.copytree(root, moved)
    shutil.rmtree(root)
    root = moved
    merged = run_runner("merge", "runner/results/events.jsonl", "runner/results", cwd=root)
    assert merged.code == 1, merged.text  # one failed test in the whole run
    assert "merged 3 of 3 shards" in merged.err and "9 tests, 8 passed, 1 failed" in merged.err, merged.text
    lines = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in lines].count("run.started") == 1 and lines[-1]["kind"] == "run.ended"
    assert lines[0]["shard"]["merged"] == [1, 2, 3] and lines[0]["shard"]["missing"] == []
    assert (lines[-1]["tests"], lines[-1]["failed"]) == (9, 1)
    report = run_runner("report", "--from", "runner/results/events.jsonl", "-r", "junit",
                        "-o", "mochaFile=runner/results/merged.xml", cwd=root)
    assert report.code == 1
    xml = (root / "runner/results/merged.xml").read_text()
    assert 'tests="9"' in xml and "alpha fails on purpose" in xml
    html = run_runner("report", "--from", "runner/results/events.jsonl", "-r", "html", "-o", "output=merged-report",
                      cwd=root)
    assert html.code == 1, html.text
    shots = [p.name for p in (root / "merged-report").rglob("*.png")]
    assert any("beta" in name for name in shots), shots  # the shard's screenshot, found where it now is


@pytest.mark.slow
def test_recorded_durations_balance_the_next_split(tmp_path: Path) -> None:
    root = _project(tmp_path)
    first = run_runner("run", "--record-durations", "-r", "dot", cwd=root)
    assert first.code == 1 and "recorded the durations of 5 spec(s) in runner/durations.json" in first.err, first.text
    recorded = json.loads((root / "runner/durations.json").read_text())
    assert recorded["version"] == 1 and len(recorded["specs"]) == 5
    # beta opens the browser: make it the long one, and leave a spec that no longer exists
    recorded["specs"]["runner/integration/beta_spec.py"] = 60000
    recorded["specs"]["runner/integration/gone_spec.py"] = 10
    (root / "runner/durations.json").write_text(json.dumps(recorded))
    result, events = _shard(root, "1/2")
    assert "by recorded durations" in result.err, result.text
    assert "names 1 spec(s) that no longer exist (ignored): runner/integration/gone_spec.py" in result.err
    assert json.loads(events.read_text().splitlines()[0])["specs"] == ["beta_spec.py"]

    # the same from an events file
    (root / "runner/durations.json").unlink()
    made = run_runner("durations", "--from", str(events), cwd=root)
    assert made.code == 0 and "recorded the durations of 1 spec(s)" in made.err, made.text
    assert list(json.loads((root / "runner/durations.json").read_text())["specs"]) == ["runner/integration/beta_spec.py"]


@pytest.mark.slow
def test_more_shards_than_specs_leaves_a_shard_with_nothing_to_do(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({"runner/integration/only_spec.py": "def test_x():\n    pass\n"},
                                                CONFIG))
    empty, events = _shard(root, "2/2")
    assert empty.code == 0 and "shard 2/2 has no spec to run" in empty.err, empty.text
    full, _ = _shard(root, "1/2")
    assert full.code == 0, full.text
    merged = run_runner("merge", "out.jsonl", "runner/results", cwd=root)
    assert merged.code == 0 and "1 tests, 1 passed" in merged.err, merged.text


@pytest.mark.parametrize(("args", "says"), [
    (["--shard", "3/2"], "--shard '3/2': the shard must be from 1 to 2, found 3."),
    (["--shard", "0/2"], "--shard '0/2': the shard must be from 1 to 2, found 0."),
    (["--shard", "half"], "--shard 'half': expected i/n"),
    (["--shard", "1/2", "--durations", "nope.json"], "--durations 'nope.json': the file"),
])
def test_bad_shard_options_are_one_clear_message(tmp_path: Path, args: list[str], says: str) -> None:
    root = _project(tmp_path)
    result = run_runner("run", *args, cwd=root)
    assert result.code == 1 and says in result.err, result.text
    assert "Traceback" not in result.text


def test_a_durations_file_that_is_not_json_stops_the_run_before_any_test(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "runner/durations.json").write_text("{oops")
    result = run_runner("run", "--shard", "1/2", cwd=root)
    assert result.code == 1 and "runner/durations.json' is not JSON" in result.err, result.text
    assert "Traceback" not in result.text and "alpha" not in result.out


def _events(path: Path, shard: dict | None, *, ended: bool = True) -> None:
    lines = [{"v": 1, "kind": "run.started", "at": 1.0, "run_id": "r", "runner_version": "0", "browser": "b",
              "specs": ["a.py"], "shard": shard}]
    if ended:
        lines.append({"v": 1, "kind": "run.ended", "at": 2.0, "duration_ms": 1000, "tests": 0, "passed": 0,
                      "failed": 0, "pending": 0, "skipped": 0})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_merge_refuses_what_cannot_be_one_run(tmp_path: Path) -> None:
    _events(tmp_path / "a.jsonl", {"index": 1, "total": 2, "plan": "p1"})
    _events(tmp_path / "b.jsonl", {"index": 2, "total": 2, "plan": "p2"})
    _events(tmp_path / "c.jsonl", {"index": 1, "total": 2, "plan": "p1"})
    _events(tmp_path / "plain.jsonl", None)
    other = run_runner("merge", "out.jsonl", "a.jsonl", "b.jsonl", cwd=tmp_path)
    assert other.code == 1 and "the shards come from different runs" in other.err, other.text
    twice = run_runner("merge", "out.jsonl", "a.jsonl", "c.jsonl", cwd=tmp_path)
    assert twice.code == 1 and "are both shard 1/2" in twice.err, twice.text
    plain = run_runner("merge", "out.jsonl", "plain.jsonl", cwd=tmp_path)
    assert plain.code == 1 and "is not a shard's events file: its run had no --shard" in plain.err, plain.text
    gone = run_runner("merge", "out.jsonl", "missing.jsonl", cwd=tmp_path)
    assert gone.code == 1 and "'missing.jsonl': no such file or folder" in gone.err
    for result in (other, twice, plain, gone):
        assert "Traceback" not in result.text
    assert not (tmp_path / "out.jsonl").exists()


def test_a_missing_or_cut_short_shard_fails_the_merged_run(tmp_path: Path) -> None:
    _events(tmp_path / "a.jsonl", {"index": 1, "total": 3, "plan": "p"})
    _events(tmp_path / "b.jsonl", {"index": 2, "total": 3, "plan": "p"}, ended=False)
    result = run_runner("merge", "out.jsonl", "a.jsonl", "b.jsonl", cwd=tmp_path)
    assert result.code == 1, result.text
    assert "shard 3/3 is missing from the merge" in result.err
    assert "has no run.ended event" in result.err
    ended = json.loads((tmp_path / "out.jsonl").read_text().splitlines()[-1])
    assert "shard 3/3 is missing" in ended["error"] and ended["interrupted"] is True
