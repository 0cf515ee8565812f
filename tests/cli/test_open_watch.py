"""``runner open``'s watcher, on the real command: only a person's saves re-run.

A spec that writes files into every watched place (the spec folder, beside the support file,
``fixturesFolder``, Python files too), a plugins-file task that writes one, and a shell command
that writes one: none of their writes starts a run. A person's save of the spec, of a helper it
imports, of the support file, of ``runner.json`` and of a fixture the spec read each starts
exactly one run; a fixture no test read starts none.

No fixed sleep: the server tells every batch the watcher handled (``{"t": "watch", ...}``,
``ui/rerun.py``), with what it ignored and whether it re-ran; the test waits for those.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from tests.support.open_ui import OpenSocket, write_sample
from tests.support.show_trace import start_serving, stop_serving

SPEC = '''
import importlib
import pathlib
import subprocess

from support.helpers import VALUE

ROOT = pathlib.Path(__file__).resolve().parents[2]
WRITTEN = ["runner/integration/counter.txt", "runner/integration/generated.py", "runner/fixtures/counter.json",
           "runner/support/counter.txt", "runner/support/generated_helper.py"]


def _bump(path):
    count = int(path.read_text().split()[-1]) + 1 if path.exists() else 1
    path.write_text(f"# {count}")


def test_writes(runner):
    assert VALUE == 1
    assert runner.fixture("users.json")["name"] == "Ada"
    for name in WRITTEN:
        _bump(ROOT / name)
    # a module the run writes and then runs: watched (the run executed it), yet never a save
    assert importlib.import_module("support.generated_helper").__doc__ is None
    assert runner.task("write_note") == "noted"
    # a process the run starts escapes the hook: a data file it writes is not watched
    subprocess.run(["sh", "-c", "echo 1 >> runner/integration/from_shell.txt"], cwd=ROOT, check=True)
'''

PLUGINS = '''
import pathlib


def setup(on, config):
    def write_note(_arg):
        path = pathlib.Path(config["projectRoot"]) / "runner" / "plugins" / "task_note.py"
        path.write_text("NOTE = 1\\n")
        (pathlib.Path(config["projectRoot"]) / "task-note.json").write_text("{}")
        return "noted"

    on("task", {"write_note": write_note})
'''

#: what the run writes where the watcher hears it (the fixtures folder's counter too, but only the
#: fixtures a run read are watched files)
BY_RUN = ["runner/fixtures/counter.json", "runner/integration/counter.txt", "runner/integration/generated.py",
          "runner/plugins/task_note.py",
          "runner/support/counter.txt", "runner/support/generated_helper.py", "task-note.json"]

BOUND = 60.0


def _project(root: Path) -> Path:
    write_sample(root, spec=SPEC)
    for folder in ("support", "plugins", "fixtures"):
        (root / "runner" / folder).mkdir(parents=True, exist_ok=True)
    (root / "runner" / "support" / "index.py").write_text("SUPPORT = 1\n")
    (root / "runner" / "support" / "helpers.py").write_text("VALUE = 1\n")
    (root / "runner" / "fixtures" / "users.json").write_text('{"name": "Ada"}')
    (root / "runner" / "fixtures" / "unread.json").write_text("{}")
    (root / "runner" / "plugins" / "index.py").write_text(textwrap.dedent(PLUGINS).lstrip())
    return root


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


class Watching:
    """The UI's socket, and what a run of ``a_spec.py`` and the watcher told over it."""

    def __init__(self, sock: OpenSocket) -> None:
        self.sock = sock

    def runs(self, state: str) -> list[int]:
        return [m["run"]["number"] for m in self.sock.seen if m.get("t") == "run" and m["run"]["state"] == state]

    def watch_messages(self, since: int = 0) -> list[dict]:
        return [m for m in self.sock.seen[since:] if m.get("t") == "watch"]

    async def run_and_its_writes_ignored(self, number: int) -> None:
        """Until run ``number`` ended and the watcher ignored every file it wrote (the batches of
        its writes seen, none re-running)."""
        def running(_message: dict) -> bool:
            return number in self.runs("running")

        if not running({}):
            await self.sock.until(running, bound=BOUND)
        start = next(i for i, m in enumerate(self.sock.seen)
                     if m.get("t") == "run" and m["run"]["state"] == "running" and m["run"]["number"] == number)

        def ignored() -> set[str]:
            return {n for m in self.watch_messages(start) for n in m["ignored"]["run"]}

        def check(_message: dict) -> bool:
            wrongly = [m for m in self.watch_messages(start) if m["rerun"] and set(m["changed"]) & set(BY_RUN)]
            assert not wrongly, f"a file the run wrote re-ran it: {wrongly}"
            return number in self.runs("done") and set(BY_RUN) <= ignored() \
                and any("runner/integration/from_shell.txt" in m["ignored"]["unwatched"]
                        for m in self.watch_messages(start))

        if not check({}):
            await self.sock.until(check, bound=BOUND)
        # run `number` passed: its writes happened
        ended = [m for m in self.sock.seen if m.get("t") == "run" and m["run"].get("number") == number
                 and m["run"]["state"] == "done"]
        assert ended[-1]["run"]["summary"] == "1 passed", ended[-1]

    async def save_runs_once(self, path: Path, text: str, shown: str, number: int) -> None:
        since = len(self.sock.seen)
        _append(path, text)
        await self.run_and_its_writes_ignored(number)
        reruns = [m for m in self.watch_messages(since) if m["rerun"]]
        assert [m["changed"] for m in reruns] == [[shown]]


@pytest.mark.slow
def test_only_a_persons_saves_rerun(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        async def scenario() -> Watching:
            watching = Watching(await OpenSocket.connect(url))
            try:
                await watching.sock.send({"t": "run", "spec": "a_spec.py"})
                await watching.run_and_its_writes_ignored(1)
                assert watching.runs("running") == [1]
                integration = project / "runner" / "integration"
                await watching.save_runs_once(integration / "a_spec.py", "\n# saved\n",
                                              "runner/integration/a_spec.py", 2)
                await watching.save_runs_once(project / "runner" / "support" / "helpers.py", "OTHER = 2\n",
                                              "runner/support/helpers.py", 3)
                await watching.save_runs_once(project / "runner" / "support" / "index.py", "MORE = 2\n",
                                              "runner/support/index.py", 4)
                config = json.loads((project / "runner.json").read_text())
                since = len(watching.sock.seen)
                (project / "runner.json").write_text(json.dumps({**config, "defaultCommandTimeout": 5000}))
                await watching.run_and_its_writes_ignored(5)
                assert [m["changed"] for m in watching.watch_messages(since) if m["rerun"]] == [["runner.json"]]
                # a fixture the run read is watched; one no run read is not
                fixtures = project / "runner" / "fixtures"
                since = len(watching.sock.seen)
                (fixtures / "unread.json").write_text('{"other": 1}')
                await watching.sock.until(lambda _m: any("runner/fixtures/unread.json" in m["ignored"]["unwatched"]
                                                         for m in watching.watch_messages(since)), bound=BOUND)
                assert not any(m["rerun"] for m in watching.watch_messages(since))
                await watching.save_runs_once(fixtures / "users.json", " ", "runner/fixtures/users.json", 6)
                assert watching.runs("running") == [1, 2, 3, 4, 5, 6]
                # a save that breaks the configuration runs nothing, and the status bar says why
                since = len(watching.sock.seen)
                (project / "runner.json").write_text("{")
                ended = await watching.sock.until(lambda m: m.get("t") == "run" and m["run"]["state"] == "not-run",
                                                  bound=BOUND)
                assert ended["run"]["spec"] == "a_spec.py"
                assert "runner.json" in ended["run"]["summary"] and "not valid JSON" in ended["run"]["summary"]
                told = await watching.sock.until(lambda m: m.get("t") == "watch", bound=BOUND)
                assert told["changed"] == ["runner.json"] and told["rerun"] is False
                assert watching.runs("running") == [1, 2, 3, 4, 5, 6]
                return watching
            finally:
                await watching.sock.close()

        watching = asyncio.run(scenario())
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    # the counters the spec bumped: each of the six runs wrote them once
    assert (project / "runner" / "fixtures" / "counter.json").read_text() == "# 6"
    assert (project / "runner" / "integration" / "counter.txt").read_text() == "# 6"
    assert all(not m["changed"] for m in watching.watch_messages()[:-1] if not m["rerun"])


WAITING_SPEC = '''
import time


def test_waits(runner):
    runner.log("started")
    time.sleep(60)
'''


@pytest.mark.slow
def test_a_save_during_a_run_restarts_it_and_a_new_spec_only_updates_the_list(tmp_path: Path) -> None:
    project = write_sample(tmp_path, spec=WAITING_SPEC)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        async def scenario() -> None:
            sock = await OpenSocket.connect(url)
            watching = Watching(sock)
            try:
                def logged(number: int) -> bool:
                    return any(m.get("t") == "event" and m["event"]["kind"] == "log" and m.get("run") == number
                               for m in sock.seen)

                await sock.send({"t": "run", "spec": "a_spec.py"})
                await sock.until(lambda _m: logged(1), bound=BOUND)
                _append(project / "runner" / "integration" / "a_spec.py", "\n# saved\n")
                # the run in progress is stopped, then the spec runs again
                await sock.until(lambda _m: 1 in watching.runs("stopped") and logged(2), bound=BOUND)
                assert watching.runs("running") == [1, 2]
                since = len(sock.seen)
                (project / "runner" / "integration" / "b_spec.py").write_text("def test_b(runner):\n    pass\n")
                told = await sock.until(lambda m: m.get("t") == "watch" and m["changed"], bound=BOUND)
                assert told["changed"] == ["runner/integration/b_spec.py"] and told["rerun"] is False
                hellos = [m for m in sock.seen[since:] if m.get("t") == "hello"]
                assert hellos and "b_spec.py" in hellos[-1]["specs"]
                assert watching.runs("running") == [1, 2] and 2 not in watching.runs("stopped")
            finally:
                await sock.close()

        asyncio.run(scenario())
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


MAKER_SPEC = '''
import pathlib

HERE = pathlib.Path(__file__).parent


def test_makes_a_spec(runner):
    (HERE / "made_spec.py").write_text("def test_made(runner):\\n    pass\\n")
'''


@pytest.mark.slow
def test_a_spec_the_run_writes_is_listed_and_runs_nothing(tmp_path: Path) -> None:
    """A spec a test wrote was never listed (the watcher dropped the run's write whole): the list
    showed it only once a page reloaded or a person saved another watched file."""
    project = write_sample(tmp_path, spec=MAKER_SPEC)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        async def scenario() -> None:
            sock = await OpenSocket.connect(url)
            watching = Watching(sock)
            try:
                await sock.send({"t": "run", "spec": "a_spec.py"})
                told = await sock.until(lambda m: m.get("t") == "watch"
                                        and "runner/integration/made_spec.py" in m["ignored"]["run"], bound=BOUND)
                assert told["rerun"] is False and told["changed"] == []
                hellos = [m for m in sock.seen if m.get("t") == "hello"]  # told before the batch
                assert "made_spec.py" in hellos[-1]["specs"], hellos[-1]["specs"]
                assert watching.runs("running") == [1]
            finally:
                await sock.close()

        asyncio.run(scenario())
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
