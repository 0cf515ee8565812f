"""watchForFileChanges on real files and real inotify: a save is one batch, quick saves are one,
artifacts and editors' files are never told, runner.json is, and stop() ends the watch."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from runner.config import load_config
from runner.ui.watch import SpecWatcher, affects, ignored, watched_paths

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


def test_what_is_watched_and_what_a_change_is(tmp_path: Path) -> None:
    root = _project(tmp_path)
    config = load_config(root)
    paths = watched_paths(config)
    # the missing plugins folder is watched through runner/, which holds the others too
    assert sorted(paths) == [root / "runner", root / "runner.json"]
    (root / "runner" / "plugins").mkdir()
    assert sorted(watched_paths(config)) == sorted([root / "runner" / "integration", root / "runner" / "fixtures",
                                                    root / "runner" / "support", root / "runner" / "plugins",
                                                    root / "runner.json"])
    assert affects(root / "runner.json", config) == "config"
    assert affects(root / "runner" / "integration" / "a_spec.py", config) == "spec"
    assert affects(root / "runner" / "fixtures" / "u.json", config) == "fixture"
    assert affects(root / "runner" / "support" / "index.py", config) == "support"
    assert ignored(root / "runner" / "integration" / "shots" / "x.png", config)
    assert ignored(root / "runner" / "integration" / "__pycache__" / "a.pyc", config)
    assert ignored(root / "runner" / "integration" / ".a_spec.py.swp", config)
    assert not ignored(root / "runner" / "integration" / "a_spec.py", config)


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

    batch = asyncio.run(_next_batch(SpecWatcher(load_config(root), debounce_ms=200), act))
    assert batch == {spec}


def test_runner_json_is_told_and_stop_ends_the_watch(tmp_path: Path) -> None:
    root = _project(tmp_path)

    def act() -> None:
        (root / "runner.json").write_text("{}")

    assert asyncio.run(_next_batch(SpecWatcher(load_config(root)), act)) == {root / "runner.json"}

    async def stop_soon() -> float:
        watcher = SpecWatcher(load_config(root))
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
    assert root / "components" in watched_paths(config)
    assert root / "components" not in watched_paths(load_config(root))
    assert affects(root / "components" / "card_spec.py", config) == "spec"
