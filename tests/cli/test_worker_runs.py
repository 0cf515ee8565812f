"""`runner run --workers N`: specs spread over pytest-xdist workers, one merged run (real runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project
from tests.cli.test_hangs import PROCESSES

SPEC = '''
def test_one(runner):
    runner.intercept("/data.json").as_("data")
    runner.visit("/")
    runner.get("h1").should("have.text", "Hi")
    assert runner.task("seed", "{name}") == "seeded {name}"

def test_two(runner):
    runner.log("two of {name}")
'''
PLUGINS = '''
from pathlib import Path

def setup(on, config):
    log = Path(config["projectRoot"]) / "plugin-events.log"

    def tell(name):
        return lambda *args: log.open("a").write(name + "\\n")

    on("before:run", tell("before:run"))
    on("after:run", tell("after:run"))
    on("task", {"seed": lambda name: f"seeded {name}"})
'''


def _project(root: Path, names: tuple[str, ...] = ("a", "b", "c", "d"), extra: dict | None = None) -> Path:
    files = {f"runner/integration/{n}_spec.py": SPEC.format(name=n) for n in names}
    files["runner/plugins/index.py"] = PLUGINS
    files["site/data.json"] = '{"n": 1}'
    files.update(extra or {})
    return write_project(root, base_project(files, {"trashAssetsBeforeRuns": False}))


def _events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_workers_run_each_spec_once_and_the_run_is_whole(tmp_path: Path) -> None:
    root = _project(tmp_path, extra={"runner/integration/e_spec.py": "def test_fails():\n    assert False, 'e fails'\n"})
    result = run_runner("run", "--workers", "2", cwd=root, timeout=240)
    assert result.code == 1, result.text  # exit status = failed tests
    for name in "abcde":
        assert result.out.count(f"Running:  {name}_spec.py") == 1, result.out  # each spec's block once, whole
    assert "9 passing" not in result.out and "e fails" in result.out
    events = _events(root)
    kinds = [e["kind"] for e in events]
    assert kinds.count("run.started") == 1 and kinds.count("run.ended") == 1
    assert kinds.count("test.ended") == 9 and kinds.count("spec.ended") == 5
    # the workers' finer events reached the events file: each test's commands, logs and routes
    logs = {e["message"] for e in events if e["kind"] == "log"}
    assert logs == {f"two of {n}" for n in "abcd"}
    commands = [e for e in events if e["kind"] == "command.ended"]
    assert {e["nodeid"].split("::")[0].rsplit("/", 1)[-1] for e in commands} == {f"{n}_spec.py" for n in "abcd"}
    assert sum(1 for e in events if e["kind"] == "route.added") == 4
    for event in [e for e in events if e["kind"] in ("command.started", "log")]:  # before their test ends
        ended = next(i for i, e in enumerate(events) if e["kind"] == "test.ended" and e["nodeid"] == event["nodeid"])
        assert events.index(event) < ended
    # one video per spec, recorded in the worker that ran it, told with its spec
    ended = {e["spec"]: e for e in events if e["kind"] == "spec.ended"}
    for name in "abcd":
        video = root / "runner/videos" / f"{name}_spec.py.mp4"
        assert video.is_file() and video.stat().st_size > 0
        assert ended[f"{name}_spec.py"]["video"] == str(video)
    # the plugins file's run events once; its task worked in the workers
    assert (root / "plugin-events.log").read_text().splitlines() == ["before:run", "after:run"]
    report = (root / "runner/report").is_dir()
    assert report


@pytest.mark.slow
def test_the_longest_specs_start_first(tmp_path: Path) -> None:
    root = _project(tmp_path)
    durations = {"version": 1, "specs": {"runner/integration/a_spec.py": 10, "runner/integration/b_spec.py": 20,
                                         "runner/integration/c_spec.py": 9000, "runner/integration/d_spec.py": 500}}
    (root / "runner/durations.json").write_text(json.dumps(durations))
    result = run_runner("run", "--workers", "2", "-r", "dot", cwd=root, timeout=240)
    assert result.code == 0, result.text
    assert _events(root)[0]["specs"] == ["c_spec.py", "d_spec.py", "b_spec.py", "a_spec.py"]


@pytest.mark.slow
def test_a_worker_whose_browser_driver_dies_loses_one_test(tmp_path: Path) -> None:
    killer = PROCESSES + '''

def test_killed(runner):
    runner.visit("/")
    (driver,) = processes(b"run-driver")
    os.kill(driver, signal.SIGKILL)
    runner.get("h1").should("exist")


def test_after(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "Hi")
'''
    root = _project(tmp_path, ("a", "b"), extra={"runner/integration/k_spec.py": killer})
    result = run_runner("run", "--workers", "2", "-r", "dot", cwd=root, timeout=240)
    assert result.code == 1, result.text
    states = {e["nodeid"].rsplit("::", 1)[-1] + "@" + e["spec"]: e["state"] for e in _events(root)
              if e["kind"] == "test.ended"}
    assert states.pop("test_killed@k_spec.py") == "failed"
    assert set(states.values()) == {"passed"} and len(states) == 5


def test_bad_worker_counts_are_one_clear_message(tmp_path: Path) -> None:
    root = _project(tmp_path, ("a",))
    zero = run_runner("run", "--workers", "0", cwd=root)
    assert zero.code == 1 and "--workers '0': expected at least 1 worker" in zero.err, zero.text
    word = run_runner("run", cwd=root, env={"RUNNER_WORKERS": "many"})
    assert word.code == 1 and "RUNNER_WORKERS 'many': expected a number of worker processes" in word.err
    headed = run_runner("run", "--workers", "2", "--headed", cwd=root)
    assert headed.code == 1 and "cannot be combined with more than one worker" in headed.err
    for result in (zero, word, headed):
        assert "Traceback" not in result.text
