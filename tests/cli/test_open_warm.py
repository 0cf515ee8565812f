"""``runner open``'s runs start in a spare child prepared ahead, and no state of one run reaches the
next: a spec that passes only in a fresh state (its module's state, the support file's, the plugins
file's and its run events, cookies, local storage, routes) passes on every run of the same
``runner open``. The later runs really are the spare's (a process, and a browser, started before the
run was asked for); a changed configuration is honoured by the next run; after the runs no zombie is
left under the server (a child subreaper that reaps the orphans of its runs)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import pytest
from tests.support.open_ui import OpenSocket, run_done, write_sample
from tests.support.procs import children, left_after
from tests.support.show_trace import start_serving, stop_serving

from runner.ui.server import OpenServer

SUPPORT = '''
STATE = []  # the support file's module state: empty in every run
'''

PLUGINS = '''
import json, pathlib

told = []  # the plugins file's module state: its events of this run only

def setup(on, config):
    on("before:run", lambda details: told.append("before:run"))
    on("before:spec", lambda spec: told.append("before:spec"))
    on("task", {"told": lambda: list(told)})
    return {"env": {"fromPlugins": pathlib.Path(config["projectRoot"], "plugins-env.txt").read_text()}}
'''

SPEC = '''
import json, os, time
from pathlib import Path

import support.index

SEEN = []  # the spec's module state: empty in every run
OUT = Path(__file__).resolve().parents[2] / "runs.jsonl"


def _started(pid):
    """When process ``pid`` started, in seconds since the machine booted (from /proc)."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    return ticks / os.sysconf("SC_CLK_TCK")


def _browser_started():
    """When the oldest browser process under this process started."""
    found = []
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                todo.append(int(child))
                if "chrom" in Path(f"/proc/{child}/comm").read_text():
                    found.append(_started(int(child)))
    return min(found)


def test_fresh(runner):
    assert SEEN == [] and support.index.STATE == []
    SEEN.append(1)
    support.index.STATE.append(1)
    assert runner.task("told") == ["before:run", "before:spec"]  # told once, in this run
    runner.visit("/")
    assert runner.get_all_cookies() == [] and runner.get_all_local_storage() == {}
    runner.set_cookie("left", "behind")
    runner.evaluate("localStorage.setItem('left', 'behind')")
    assert runner.evaluate("fetch('/api/x').then(r => r.status)") == 404  # no route from before
    runner.intercept("GET", "/api/x", {"body": {"msg": "stubbed"}})
    assert runner.evaluate("fetch('/api/x').then(r => r.status)") == 200
    with OUT.open("a") as out:
        out.write(json.dumps({"pid": os.getpid(), "process": _started(os.getpid()),
                              "browser": _browser_started(), "env": runner.env("fromPlugins"),
                              "viewport": runner.evaluate("window.innerWidth")}) + "\\n")
'''


def _project(root: Path) -> Path:
    project = write_sample(root, {"watchForFileChanges": False, "experimentalInteractiveRunEvents": True,
                                  "pluginsFile": "plugins.py", "viewportWidth": 900}, spec=SPEC)
    (project / "runner" / "support").mkdir(parents=True, exist_ok=True)
    (project / "runner" / "support" / "index.py").write_text(SUPPORT, encoding="utf-8")
    (project / "plugins.py").write_text(PLUGINS, encoding="utf-8")
    (project / "plugins-env.txt").write_text("first", encoding="utf-8")
    return project


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                for c in (task / "children").read_text().split()]
    except OSError:
        return []  # it ended meanwhile


def _has_browser(pid: int) -> bool:
    todo = _children(pid)
    while todo:
        child = todo.pop()
        try:
            if "chrom" in Path(f"/proc/{child}/comm").read_text():
                return True
        except OSError:
            continue
        todo += _children(child)
    return False


def _is_child_of_open(pid: int) -> bool:
    try:
        return b"runner.ui.child" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _wait_for_spare(server: int, last_run: int, bound: float = 60.0) -> None:
    """Wait until a child of the server other than the last run's has launched its browser (the
    spare is ready: asked for sooner, the run would find it still starting)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if any(_has_browser(c) for c in _children(server) if c != last_run and _is_child_of_open(c)):
            return
        time.sleep(0.05)
    raise AssertionError(f"no spare child with a browser under the server within {bound} s")


def _zombies_under(pid: int) -> list[int]:
    zombies = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                stat = Path(f"/proc/{child}/stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[0] == "Z":
                zombies.append(int(child))
    return zombies


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _no_zombie_under(pid: int, last_run: int, bound: float = 10.0) -> list[int]:
    """The zombies left under ``pid`` once the last run's child and the orphans that reached the
    server have ended (waited for up to 30 s) and the server's reaping had ``bound`` seconds (a
    process that just ended is a zombie until its SIGCHLD is handled)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        others = [c for c in _children(pid) if c == last_run or not _is_child_of_open(c)]
        if all(_state(c) in ("Z", "gone") for c in others):
            break
        time.sleep(0.05)
    deadline = time.monotonic() + bound
    while (zombies := _zombies_under(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return zombies


async def _run_spec(url: str) -> tuple[float, OpenSocket]:
    """Run the spec with ▶; when the run was asked for, and what the page heard."""
    sock = await OpenSocket.connect(url)
    try:
        await sock.until(lambda m: m.get("t") == "hello", bound=30)
        asked = time.clock_gettime(time.CLOCK_BOOTTIME)  # the clock of /proc's start times
        await sock.send({"t": "run", "spec": "a_spec.py"})
        await sock.until(lambda m: m.get("t") == "run" and m["run"].get("state") == "running", bound=30)
        await sock.until(run_done, bound=120)
    finally:
        await sock.close()
    return asked, sock


@pytest.mark.slow
def test_every_run_is_fresh_uses_the_spare_and_leaves_no_zombie(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc, url = start_serving(["open", "--no-open"], project)
    asked: list[float] = []
    socks: list[OpenSocket] = []
    try:
        for number in range(4):
            if number > 0:
                last = json.loads((project / "runs.jsonl").read_text().splitlines()[-1])
                _wait_for_spare(proc.pid, last["pid"])
            if number == 3:  # a changed configuration and plugins file: the next run has them
                config = json.loads((project / "runner.json").read_text())
                (project / "runner.json").write_text(json.dumps({**config, "viewportWidth": 700}))
                (project / "plugins-env.txt").write_text("second", encoding="utf-8")
            when, sock = asyncio.run(_run_spec(url))
            asked.append(when)
            socks.append(sock)
        zombies = _no_zombie_under(proc.pid, json.loads((project / "runs.jsonl").read_text().splitlines()[-1])["pid"])
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    for sock in socks:
        ended = sock.events("test.ended")
        assert [t["state"] for t in ended] == ["passed"], [a.get("error") for a in sock.events("attempt.ended")]
    runs = [json.loads(line) for line in (project / "runs.jsonl").read_text().splitlines()]
    assert len(runs) == 4 and len({r["pid"] for r in runs}) == 4  # a process of its own each run
    assert zombies == []
    for run, when in zip(runs[1:3], asked[1:3], strict=True):  # the spare: started, its browser too, before the run
        assert run["process"] < when and run["browser"] < when, (run, when)
    # the last run's spare launched its browser 900 px wide: the run asked for 700 (and launched its own)
    assert runs[3]["process"] < asked[3], (runs[3], asked[3])
    assert [r["env"] for r in runs] == ["first", "first", "first", "second"]
    assert [r["viewport"] for r in runs] == [900, 900, 900, 700]


@pytest.mark.slow
def test_no_spare_starts_each_run_after_it_is_asked_for(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc, url = start_serving(["open", "--no-open", "--no-spare"], project)
    asked: list[float] = []
    try:
        for _ in range(2):
            asked.append(asyncio.run(_run_spec(url))[0])
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    runs = [json.loads(line) for line in (project / "runs.jsonl").read_text().splitlines()]
    assert len(runs) == 2
    for run, when in zip(runs, asked, strict=True):
        assert run["process"] >= when - 0.02 and run["browser"] >= when - 0.02, (run, when)  # 10 ms ticks


@pytest.mark.slow
def test_a_spare_that_died_is_replaced_by_a_fresh_child_and_ctrl_c_leaves_no_process(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        _wait_for_spare(proc.pid, last_run=0)
        spare = next(c for c in _children(proc.pid) if _is_child_of_open(c))
        os.killpg(spare, signal.SIGKILL)  # the spare and its browser die while the server is idle
        assert left_after({spare}) == []
        _asked, sock = asyncio.run(_run_spec(url))
        assert [t["state"] for t in sock.events("test.ended")] == ["passed"]
        run = json.loads((project / "runs.jsonl").read_text().splitlines()[-1])
        assert run["pid"] != spare  # another child ran it
        _wait_for_spare(proc.pid, run["pid"])  # and a new spare prepared after it
        started = children(proc.pid)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert left_after(started) == []


@pytest.mark.slow
def test_with_no_page_left_the_spare_ends_and_a_page_that_connects_gets_one_again(tmp_path: Path) -> None:
    project = write_sample(tmp_path, {"watchForFileChanges": False})

    async def spare_with_browser(server: OpenServer) -> set[int]:
        assert server.spare is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            child = server.spare.child
            if child is not None and child.proc is not None and _has_browser(child.proc.pid):
                return {child.proc.pid} | children(child.proc.pid)
            await asyncio.sleep(0.05)
        raise AssertionError("no spare with a browser within 60 s")

    async def scenario() -> set[int]:
        server = OpenServer(project=project, orphan_grace=0.5)
        url = await server.start()
        try:
            sock = await OpenSocket.connect(url)
            await sock.until(lambda m: m.get("t") == "hello", bound=10)
            assert server.spare is not None
            first = server.spare.child
            tree = await spare_with_browser(server)
            await sock.close()  # the last page is closed
            assert first is not None
            await asyncio.wait_for(first.done.wait(), 30)
            assert server.spare.child is None
            assert left_after(tree) == []  # no browser left running
            sock = await OpenSocket.connect(url)
            await sock.until(lambda m: m.get("t") == "hello", bound=10)
            tree = await spare_with_browser(server)
            assert server.spare.child is not first
            await sock.close()
            return tree
        finally:
            await server.close()

    assert left_after(asyncio.run(scenario())) == []
