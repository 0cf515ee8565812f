"""watchForFileChanges on real files and real inotify: a save is one batch, quick saves are one,
artifacts and editors' files are never told, runner.json is, and stop() ends the watch. The rules:
which files are watched, and which of them re-run the last run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from runner.config import load_config
from runner.ui.watch import SpecWatcher, WatchRules, ignored

BOUND = 10.0


def _project(root: Path) -> Path:
    (root / "runner" / "integration").mkdir(parents=True)
    (root / "runner" / "fixtures").mkdir(parents=True)
    (root / "runner" / "support").mkdir(parents=True)
    (root / "runner" / "integration" / "a_spec.py").write_text("def test_a(runner): pass\n")
    (root / "runner.json").write_text(json.dumps({"screenshotsFolder": "runner/integration/shots"}))
    (root / ".venv").mkdir()
    return root


async def _next_batch(watcher: SpecWatcher, act) -> set[Path]:
    changes = watcher.changes()
    first = asyncio.ensure_future(changes.__anext__())
    await asyncio.sleep(0.3)  # the watch is set up
    act()
    try:
        return await asyncio.wait_for(first, BOUND)
    finally:
        watcher.stop()
        await changes.aclose()


def test_the_folders_watched(tmp_path: Path) -> None:
    root = _project(tmp_path)
    config = load_config(root)
    # the missing plugins folder is watched through runner/, with what it holds
    assert WatchRules(config).roots() == ([root / "runner"], [root])
    (root / "runner" / "plugins").mkdir()
    (root / "helpers").mkdir()
    rules = WatchRules(config, imported=[root / "helpers" / "h.py", root / "runner" / "integration" / "x.py"])
    assert rules.roots() == ([root / "runner" / "fixtures", root / "runner" / "integration"],
                             [root, root / "helpers", root / "runner" / "plugins", root / "runner" / "support"])
    # the fixtures folder is watched whole from the start (only the fixtures a run read count)
    (root / "runner" / "fixtures").rmdir()
    assert rules.roots()[0] == [root / "runner" / "integration"]


RULES = [
    # path, kind, re-runs a run of a_spec.py, re-runs a run of every spec
    ("runner.json", "config", True, True),
    ("runner.env.json", "config", True, True),
    ("runner/support/index.py", "support", True, True),
    ("runner/plugins/index.py", "plugins", True, True),
    ("runner/integration/a_spec.py", "spec", True, True),
    ("runner/integration/sub/new_spec.py", "spec", False, True),  # another spec: the list only
    ("runner/integration/helper.py", "spec", True, True),  # a spec by its name, and the run executed it
    ("runner/integration/other.py", "spec", False, True),  # testFiles "**/*.*": a spec by its name
    ("runner/integration/__init__.py", None, False, False),
    ("runner/integration/counter.txt", None, False, False),  # data: a test reads it when it runs
    ("runner/fixtures/users.json", "fixture", True, True),  # the last run read it
    ("runner/fixtures/deep/cart.json", "fixture", True, True),
    ("runner/fixtures/other.json", None, False, False),  # no run read it
    ("runner/support/data.json", None, False, False),  # read, but not a fixture
    ("runner/fixtures/make.py", None, False, False),  # never executed by a run
    ("runner/support/notes.txt", None, False, False),
    ("helpers/h.py", "module", True, True),
    ("helpers/unused.py", None, False, False),
    ("other.json", None, False, False),
]


@pytest.mark.parametrize(("name", "kind", "reruns_one", "reruns_all"), RULES)
def test_what_a_change_is_and_what_it_reruns(tmp_path: Path, name: str, kind: str | None, reruns_one: bool,
                                             reruns_all: bool) -> None:
    root = _project(tmp_path)
    rules = WatchRules(load_config(root), imported=[root / "runner" / "integration" / "a_spec.py",
                                                    root / "runner" / "integration" / "helper.py",
                                                    root / "helpers" / "h.py"],
                       read=[root / "runner" / "fixtures" / "users.json", root / "runner" / "fixtures" / "deep" / "cart.json",
                             root / "runner" / "support" / "data.json"])
    path = root / name
    assert rules.kind(path) == kind
    assert rules.starts_run(path, {root / "runner" / "integration" / "a_spec.py"}) is reruns_one
    assert rules.starts_run(path, None) is reruns_all


def test_never_told(tmp_path: Path) -> None:
    config = load_config(_project(tmp_path))
    root = tmp_path
    assert ignored(root / "runner" / "integration" / "shots" / "x.png", config)
    assert ignored(root / "runner" / "integration" / "__pycache__" / "a.pyc", config)
    assert ignored(root / "runner" / "integration" / ".a_spec.py.swp", config)
    assert not ignored(root / "runner" / "integration" / "a_spec.py", config)


def test_another_config_file_and_the_spec_patterns(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "open.json").write_text(json.dumps({"testFiles": "*_spec.py", "ignoreTestFiles": "skip_*"}))
    rules = WatchRules(load_config(root, config_file="open.json"))
    assert rules.kind(root / "open.json") == "config"
    assert rules.kind(root / "runner.json") is None  # not the configuration read
    assert rules.kind(root / "runner" / "integration" / "b_spec.py") == "spec"
    assert rules.kind(root / "runner" / "integration" / "skip_b_spec.py") is None
    assert rules.kind(root / "runner" / "integration" / "helper.py") is None
    assert rules.roots() == ([root / "runner"], [root])  # runner/plugins is missing


def test_quick_saves_are_one_batch_and_artifacts_are_not_told(tmp_path: Path) -> None:
    root = _project(tmp_path)
    spec = root / "runner" / "integration" / "a_spec.py"
    shots = root / "runner" / "integration" / "shots"

    def act() -> None:
        shots.mkdir()
        (shots / "x.png").write_bytes(b"png")  # an artifact inside a watched folder
        (root / ".venv" / "x.py").write_text("x")  # not watched at all
        for n in range(10):
            spec.write_text(f"def test_a(runner): pass  # {n}\n")

    batch = asyncio.run(_next_batch(SpecWatcher(WatchRules(load_config(root)), debounce_ms=200), act))
    assert batch == {spec}


def test_runner_json_is_told_and_stop_ends_the_watch(tmp_path: Path) -> None:
    root = _project(tmp_path)

    def act() -> None:
        (root / "runner.json").write_text("{}")

    assert asyncio.run(_next_batch(SpecWatcher(WatchRules(load_config(root))), act)) == {root / "runner.json"}

    async def stop_soon() -> float:
        watcher = SpecWatcher(WatchRules(load_config(root)))
        loop = asyncio.get_running_loop()
        started = loop.time()
        loop.call_later(0.3, watcher.stop)
        async for _ in watcher.changes():
            pass
        return loop.time() - started

    assert asyncio.run(asyncio.wait_for(stop_soon(), BOUND)) < 3


def test_a_component_open_watches_the_component_specs(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "components").mkdir()
    (root / "runner.json").write_text(json.dumps({"componentFolder": "components"}))
    config = load_config(root, testing_type="component")
    assert root / "components" in WatchRules(config).roots()[0]
    assert root / "components" not in WatchRules(load_config(root)).roots()[0]
    assert WatchRules(config).kind(root / "components" / "card_spec.py") == "spec"
    assert WatchRules(config).kind(root / "runner" / "integration" / "a_spec.py") is None


def test_a_module_in_a_new_folder_is_watched_once_a_run_executed_it_and_the_runs_writes_are_not(
        tmp_path: Path) -> None:
    from runner.ui.project import OpenProject
    from runner.ui.rerun import WatchRerun

    root = _project(tmp_path)
    lib = root / "lib"
    lib.mkdir()
    spec = root / "runner" / "integration" / "a_spec.py"

    async def scenario() -> list[dict]:
        project = OpenProject(root=root, config_file=None, cli_config=[], cli_env=[], testing_type="e2e",
                              on_config=lambda _config: None)
        project.reload()
        told: list[dict] = []
        batches: asyncio.Queue[dict] = asyncio.Queue()

        def broadcast(message: dict) -> None:
            told.append(message)
            if message.get("t") == "watch":
                batches.put_nowait(message)

        async def rerun() -> bool:
            return True

        watch = WatchRerun(project=project, ours=lambda _path: False, broadcast=broadcast, refresh=project.reload,
                           rerun=rerun, last_specs=lambda: {spec})
        watch.restart()
        await asyncio.sleep(0)  # a yield, not a wait: the watch starts, without lib/
        assert lib not in watch._roots[1]
        watch.run_started()
        watch.heard({"t": "imported", "files": [str(lib / "h.py")]})
        watch.heard({"t": "wrote", "paths": "not a list"})  # noise: nothing
        watch.run_ended(complete=True)  # lib/ is watched from now on (the watcher restarted)
        watch.run_started()  # the next run writes lib/gen.py while a person saves lib/h.py
        watch.heard({"t": "wrote", "paths": [str(lib / "gen.py")]})
        try:
            for _ in range(int(BOUND / 2)):  # saved again until the new watch hears it (bounded)
                (lib / "gen.py").write_text("GENERATED = 1\n")
                (lib / "data.json").write_text("{}")
                (lib / "h.py").write_text("H = 1\n")
                try:
                    return [await asyncio.wait_for(batches.get(), 2)]
                except TimeoutError:
                    continue
            return []
        finally:
            watch.stop()

    batches = asyncio.run(scenario())
    assert batches == [{"t": "watch", "changed": ["lib/h.py"], "rerun": True,
                        "ignored": {"run": ["lib/gen.py"], "unwatched": ["lib/data.json"]}}]
