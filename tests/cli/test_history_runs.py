"""The history across real runs: runner/history.json, `runner flakes`, `--last-failed`, `--failed-first`
(one process, workers, shards and `runner merge`), a file runner cannot read, two runs at once."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tests.cli.conftest import RUNNER, base_project, run_runner, write_project

# flip fails on every other run, driven by a file of the project; retried fails its first attempt
# and passes its retry, every run.
SPECS = {
    "runner/integration/flip_spec.py": """
        from pathlib import Path

        COUNTER = Path(__file__).resolve().parents[2] / "flip.txt"


        def test_steady():
            pass


        def test_flip():
            n = int(COUNTER.read_text()) if COUNTER.exists() else 0
            COUNTER.write_text(str(n + 1))
            assert n % 2 == 1, f"flip fails on run {n + 1}"
        """,
    "runner/integration/retry_spec.py": """
        from pathlib import Path

        import pytest

        COUNTER = Path(__file__).resolve().parents[2] / "retry.txt"


        @pytest.mark.runner(retries=1)
        def test_retried(runner):
            n = int(COUNTER.read_text()) if COUNTER.exists() else 0
            COUNTER.write_text(str(n + 1))
            assert n % 2 == 1, "fails on its first attempt\\nand says more"
        """,
    "runner/integration/other_spec.py": "def test_other():\n    pass\n",
}
CONFIG = {"video": False, "trashAssetsBeforeRuns": False, "reportFolder": False}
FLIP = "runner/integration/flip_spec.py::test_flip"
RETRIED = "runner/integration/retry_spec.py::test_retried"


def _history(root: Path) -> dict:
    return json.loads((root / "runner/history.json").read_text())


def _started(events: Path) -> list[str]:
    """The tests the run started, in order."""
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    return [e["nodeid"] for e in lines if e["kind"] == "test.started"]


@pytest.mark.slow
def test_runs_build_the_history_flakes_reads_it_and_last_failed_reruns_the_failures(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project(SPECS, CONFIG))
    events = root / "runner/results/events.jsonl"
    empty = run_runner("flakes", cwd=root)
    assert empty.code == 0 and "no history yet" in empty.err, empty.text
    no_history = run_runner("run", "-r", "dot", "--last-failed", cwd=root)
    assert "--last-failed: there is no history yet (runner/history.json): every test runs." in no_history.err
    assert no_history.code == 1 and len(_started(events)) == 4, no_history.text  # run 1: flip failed

    history = _history(root)
    assert history["version"] == 1 and len(history["runs"]) == 1
    tests = history["runs"][0]["tests"]
    assert tests[FLIP] == {"outcome": "failed", "attempts": 1, "error": "AssertionError: flip fails on run 1"}
    assert tests[RETRIED] == {"outcome": "flaky", "attempts": 2, "error": "AssertionError: fails on its first attempt"}
    assert tests["runner/integration/other_spec.py::test_other"] == {"outcome": "passed", "attempts": 1}

    # run 2: only flip (it passes), with pytest's own spelling, which means runner's flag
    second = run_runner("run", "-r", "dot", "--", "--lf", cwd=root)
    assert second.code == 0, second.text
    assert "pytest's --lf is runner's --last-failed" in second.err
    assert "--last-failed: running only the 1 test(s) that failed in the last run, in 1 spec(s)." in second.err
    assert _started(events) == [FLIP]
    # run 3: nothing failed in run 2, so everything runs; flip fails again
    third = run_runner("run", "-r", "dot", "--last-failed", cwd=root)
    assert "--last-failed: no test failed in the last run: every test runs." in third.err and third.code == 1
    assert len(_started(events)) == 4
    # run 4: the failures first, in two workers; flip passes
    fourth = run_runner("run", "-r", "dot", "--failed-first", "--workers", "2", cwd=root)
    assert fourth.code == 0, fourth.text
    assert "--failed-first: the 1 test(s) that failed in the last run, in 1 spec(s) run first." in fourth.err
    order = _started(events)
    assert sorted(order) == sorted([FLIP, RETRIED, "runner/integration/flip_spec.py::test_steady",
                                    "runner/integration/other_spec.py::test_other"])
    flip_spec = [test for test in order if test.startswith("runner/integration/flip_spec.py")]
    assert flip_spec == [FLIP, "runner/integration/flip_spec.py::test_steady"]  # the failure before its spec's others
    assert [run["tests"].get(FLIP, {}).get("outcome") for run in _history(root)["runs"]] == \
        ["failed", "passed", "failed", "passed"]

    flakes = run_runner("flakes", cwd=root)
    assert flakes.code == 0, flakes.text
    assert "2 flaky tests in the last 4 runs (runner/history.json):" in flakes.out
    assert f"  {FLIP}\n    2 of 4 runs failed   F.F.\n    last failure: AssertionError: flip fails on run 3" in flakes.out
    assert f"  {RETRIED}\n    0 of 3 runs failed, 3 passed only on a retry   R-RR\n" in flakes.out
    assert "other_spec" not in flakes.out and "test_steady" not in flakes.out
    as_json = run_runner("flakes", "--json", "--runs", "2", cwd=root)
    assert as_json.code == 0, as_json.text
    data = json.loads(as_json.out)
    assert data["runs"] == 2
    assert {flake["test"]: (flake["failed"], flake["flaky"], flake["passed"], flake["outcomes"])
            for flake in data["flaky"]} == {FLIP: (1, 0, 1, ["failed", "passed"]), RETRIED: (0, 2, 0, ["flaky", "flaky"])}
    bad = run_runner("flakes", "--runs", "0", cwd=root)
    assert bad.code != 0 and "expected a whole number of runs of at least 1, found '0'" in bad.err, bad.text

    # historyRuns bounds the file; both flags at once are refused
    kept = run_runner("run", "-r", "dot", "--config", "historyRuns=2", "--spec", "runner/integration/other_spec.py",
                      cwd=root)
    assert kept.code == 0 and len(_history(root)["runs"]) == 2, kept.text
    both = run_runner("run", "--last-failed", "--", "--ff", cwd=root)
    assert both.code == 1 and "--last-failed and --failed-first cannot be combined" in both.err, both.text


@pytest.mark.slow
def test_shards_add_one_run_merge_adds_none_twice_and_last_failed_splits_the_failures(tmp_path: Path) -> None:
    specs = {**SPECS, "runner/integration/more_spec.py": "def test_m1():\n    assert False, 'm1'\n\n"
                                                          "def test_m2():\n    pass\n",
             "runner/integration/also_spec.py": "def test_a1():\n    assert False, 'a1'\n"}
    m1, a1 = "runner/integration/more_spec.py::test_m1", "runner/integration/also_spec.py::test_a1"
    root = write_project(tmp_path, base_project(specs, CONFIG))

    def shard(which: str, *extra: str):
        name = which.replace("/", "-of-")
        return run_runner("run", "--shard", which, "-r", "dot", "--config", f"eventsFile=shards/{name}.jsonl",
                          *extra, cwd=root)

    assert shard("1/2").code + shard("2/2").code == 3  # flip, m1 and a1 failed
    runs = _history(root)["runs"]
    assert len(runs) == 1 and len(runs[0]["tests"]) == 7 and sorted(runs[0]["split"]["shards"]) == ["1", "2"]
    merged = run_runner("merge", "merged.jsonl", "shards", cwd=root)
    assert merged.code == 3, merged.text
    assert _history(root)["runs"] == runs  # the shards added themselves already: nothing twice
    assert "runner: the merged run is already in the history: nothing added (runner/history.json)." in merged.err

    # the same merge in a project without that history (a CI job that gathers the shards): one run
    other = tmp_path / "gathered"
    write_project(other, base_project(specs, CONFIG))
    (other / "shards").mkdir()
    for events in (root / "shards").iterdir():
        (other / "shards" / events.name).write_bytes(events.read_bytes())
    gathered = run_runner("merge", "merged.jsonl", "shards", cwd=other)
    assert "the merged run was added to the history: 7 tests (runner/history.json)." in gathered.err, gathered.text
    again = run_runner("merge", "merged2.jsonl", "shards", cwd=other)
    assert again.code == 3 and "already in the history: nothing added" in again.err, again.text
    assert "added to the history:" not in again.err and "note:" not in again.err, again.text
    assert [len(run["tests"]) for run in _history(other)["runs"]] == [7]

    # a job that gathers the events without the repository: the tests are kept, and it says so
    bare = tmp_path / "bare"
    write_project(bare, {"runner.json": json.dumps(CONFIG)})
    (bare / "shards").mkdir()
    for events in (root / "shards").iterdir():
        (bare / "shards" / events.name).write_bytes(events.read_bytes())
    kept = run_runner("merge", "merged.jsonl", "shards", cwd=bare)
    assert "the merged run was added to the history: 7 tests" in kept.err, kept.text
    assert "note: 5 spec file(s) of the merged run are not in this project" in kept.err, kept.text
    assert [len(run["tests"]) for run in _history(bare)["runs"]] == [7]

    # --last-failed over both shards: the shards share out the last run's three failures
    # each shard counts the selected tests (not every test of their specs) and its own share of them
    ran: list[str] = []
    for which in ("1/2", "2/2"):
        result = shard(which, "--last-failed")
        mine = _started(root / f"shards/{which.replace('/', '-of-')}.jsonl") if "has no spec" not in result.err else []
        specs_of = {test.split("::", 1)[0] for test in mine}
        assert f"runner: --last-failed: shard {which} runs {len(mine)} of the 3 test(s) that failed in the last run, " \
               f"in {len(specs_of)} spec(s)." in result.err, result.err
        assert f"specs, by test counts ({len(mine)} tests of 3 tests;" in result.err, result.err
        ran += mine
    assert sorted(ran) == sorted([FLIP, m1, a1])
    runs = _history(root)["runs"]
    assert len(runs) == 2 and sorted(runs[1]["tests"]) == sorted(ran)

    # flip passed this time: the next --last-failed runs m1 and a1 alone, in two workers
    workers = run_runner("run", "-r", "dot", "--last-failed", "--workers", "2", cwd=root)
    assert workers.code == 2, workers.text
    assert "--last-failed: running only the 2 test(s) that failed in the last run, in 2 spec(s)." in workers.err
    assert sorted(_started(root / "runner/results/events.jsonl")) == sorted([m1, a1])  # not m2

    # --failed-first over two shards: each tells the failures of its own specs only
    held = 0
    for which in ("1/2", "2/2"):
        result = shard(which, "--failed-first")
        mine = [test for test in _started(root / f"shards/{which.replace('/', '-of-')}.jsonl") if test in (m1, a1)]
        assert f"runner: --failed-first: shard {which} holds {len(mine)} of the 2 test(s) that failed in the last " \
               f"run, in {len(mine)} spec(s): they run first." in result.err, result.err
        held += len(mine)
    assert held == 2


def test_last_failed_counts_only_the_failed_tests_that_still_exist(tmp_path: Path) -> None:
    spec = "runner/integration/two_spec.py"
    root = write_project(tmp_path, base_project({
        spec: "def test_one():\n    assert False\n\n\ndef test_two():\n    assert False\n\n\ndef test_ok():\n    pass\n",
    }, CONFIG))
    assert run_runner("run", "-r", "dot", cwd=root).code == 2
    source = root / spec
    source.write_text(source.read_text().replace("def test_two", "def test_second"))
    again = run_runner("run", "-r", "dot", "--lf", cwd=root)
    assert again.code == 1, again.text
    assert ("runner: --last-failed: running only the 1 test(s) that failed in the last run, in 1 spec(s); 1 other "
            f"test(s) that failed there no longer exist (renamed or removed: {spec}::test_two).") in again.err, again.err
    assert _started(root / "runner/results/events.jsonl") == [f"{spec}::test_one"]
    # and when none of them is left, every test runs, as the line says
    source.write_text(source.read_text().replace("def test_one", "def test_first"))
    gone = run_runner("run", "-r", "dot", "--lf", cwd=root)
    assert ("runner: --last-failed: the 1 test(s) that failed in the last run no longer exist (renamed or removed: "
            f"{spec}::test_one): every test runs.") in gone.err, gone.err
    assert len(_started(root / "runner/results/events.jsonl")) == 3


def test_a_history_runner_cannot_read_is_left_as_it_is_and_the_run_goes_on(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({"runner/integration/a_spec.py": "def test_a():\n    pass\n"},
                                                CONFIG))
    torn = '{"version": 1, "runs": [{"id": "x", "at'
    (root / "runner/history.json").write_text(torn)
    result = run_runner("run", "-r", "dot", "--last-failed", cwd=root)
    assert result.code == 0, result.text
    warnings = [line for line in result.err.splitlines() if "history.json" in line]
    assert len(warnings) == 2 and all("is not JSON" in line for line in warnings), result.err
    assert "--last-failed: every test runs" in warnings[0] and "this run was not added to the history" in warnings[1]
    assert "Traceback" not in result.text
    assert (root / "runner/history.json").read_text() == torn
    flakes = run_runner("flakes", cwd=root)
    assert flakes.code == 1 and "is not JSON" in flakes.err and "Traceback" not in flakes.text, flakes.text
    (root / "runner/history.json").write_text('{"version": 7, "runs": []}')
    foreign = run_runner("flakes", cwd=root)
    assert foreign.code == 1 and "has format version 7; this runner reads version 1" in foreign.err, foreign.text


@pytest.mark.slow
def test_two_runs_at_once_both_end_up_in_the_history(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({"runner/integration/a_spec.py": "def test_a():\n    pass\n"},
                                                CONFIG))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    procs = []
    for name in ("one", "two"):
        folders = ",".join(f"{option}={name}/{option}" for option in ("screenshotsFolder", "downloadsFolder", "videosFolder",
                                                                        "tracesFolder"))
        procs.append(subprocess.Popen([RUNNER, "run", "-r", "dot", "--config", f"{folders},eventsFile={name}/e.jsonl"],
                                      cwd=root, env={**env, "NO_COLOR": "1"}, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
    runs = _history(root)["runs"]
    ids = {json.loads((root / name / "e.jsonl").read_text().splitlines()[0])["run_id"] for name in ("one", "two")}
    assert {run["id"] for run in runs} == ids


def test_a_closed_output_pipe_and_a_missing_project_folder_end_in_one_line(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({"runner/integration/a_spec.py": "def test_a():\n    pass\n"}, CONFIG))
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    for command in (["flakes", "--json"], ["config"], ["schema"]):
        # a real pipe whose reader is gone before runner writes (what `| head -1` leaves, without its race)
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run([RUNNER, *command], cwd=root, env=env, stdout=write, stderr=subprocess.PIPE,
                                  text=True, timeout=60, stdin=subprocess.DEVNULL)
        finally:
            os.close(write)
        assert done.returncode == 141 and done.stderr == "", (command, done.returncode, done.stderr)

    missing = run_runner("flakes", "--project", str(tmp_path / "nonexist"), cwd=root)
    assert missing.code == 1 and missing.out == "", missing.text
    assert missing.err == (f"runner: the project folder {str(tmp_path / 'nonexist')!r} does not exist: expected the "
                           "folder of runner.json (--project DIR, or the current directory).\n")
    bare = tmp_path / "bare"
    bare.mkdir()
    no_config = run_runner("flakes", "--project", str(bare), cwd=root)
    assert no_config.code == 0 and f"(in {str(bare)!r}, which holds no runner.json)" in no_config.err, no_config.text
