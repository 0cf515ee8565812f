"""A run always ends and keeps its report, whatever hangs: a page stuck in JavaScript, a frozen
browser (SIGSTOP), a killed driver (SIGKILL, as the out-of-memory killer does), a handler that
never returns or that blocks runner's loop, and a browser that cannot start.

Each runs the real ``runner run`` on a temp project, with a real Chromium and real signals; the
subprocess bound of ``run_runner`` is what "the run ends" means here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.procs import alive

pytestmark = pytest.mark.slow

# Spec code that finds this run's processes, under the test's own process: "run-driver" marks
# Playwright's driver, "--remote-debugging-pipe" the browser's main process (its helpers have
# "--type=" too; a launcher script such as Debian's /usr/bin/chromium-headless-shell, which runs the
# browser as its child, has the flag too and is told apart by not being the deepest).
PROCESSES = '''
import json
import os
import signal
from pathlib import Path

from runner.engine.processes import descendants


def processes(marker):
    found = []
    for pid in descendants(os.getpid()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker in command and b"--type=" not in command:
            found.append(pid)
    return [pid for pid in found if not set(descendants(pid)) & set(found)]


def family(pid):
    return [pid, *descendants(pid)]


def freeze_the_browser(record):
    """SIGSTOP the browser and every process under it; their pids go to the file ``record``."""
    (browser,) = processes(b"--remote-debugging-pipe")
    pids = family(browser)
    Path(record).write_text(json.dumps(pids))
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
'''

NEXT_TEST = '''

def test_next_gets_a_working_page(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "Hi")
'''

FETCHING = """<html><body><h1>Hi</h1><p id="done"></p><script>
const q = new URLSearchParams(location.search);
const n = Number(q.get("n") || 1);
let ok = 0, failed = 0;
const show = () => { document.getElementById("done").textContent = `${ok} ok ${failed} failed`; };
for (let i = 0; i < n; i++)
  fetch(q.get("url") + "?i=" + i).then(r => r.text()).then(() => { ok++; show(); }, () => { failed++; show(); });
</script></body></html>"""


def _events(root: Path) -> list[dict]:
    lines = (root / "runner" / "results" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def _ended_whole(result, root: Path) -> list[dict]:
    """The run ended with its report: the spec reporter's summary, an events file ending with
    run.ended, no traceback of runner's own. Returns the events."""
    assert "(Run Finished)" in result.out, result.text
    assert "Traceback" not in result.err, result.err
    events = _events(root)
    assert events[-1]["kind"] == "run.ended", events[-1]
    return events


def test_a_page_stuck_in_javascript_fails_its_test_and_the_next_gets_a_fresh_page(project):
    stuck = ("<html><body><h1>Hi</h1><script>addEventListener('load', () => "
             "setTimeout(() => { while (true) {} }, 50))</script></body></html>")
    root = project(base_project({
        "site/stuck.html": stuck,
        "runner/integration/a_spec.py": '''
import time


def test_stuck(runner):
    runner.intercept("/api/*", {"body": "stubbed"})  # routes to clear when the test ends
    runner.visit("/stuck.html")
    time.sleep(0.3)  # the endless loop has begun
    runner.get("h1").should("have.text", "Hi")
''' + NEXT_TEST,
    }, {"defaultCommandTimeout": 2000}))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "1) test_stuck" in result.out
    # the command's 2 s, then 30 s more in which a slow page could still have answered
    said = re.search(r"CommandError: The page stopped responding: runner\.get\('h1'\)\.should\(\) got no "
                     r"answer from the browser in (\d+)ms \(defaultCommandTimeout: 2000ms, and 30 s more\)\.",
                     result.out)
    assert said is not None, result.out
    assert 30000 <= int(said.group(1)) <= 32500
    assert "✓ test_next_gets_a_working_page" in result.out
    _ended_whole(result, root)


def test_a_frozen_browser_is_killed_and_the_next_test_gets_a_new_one(project, tmp_path):
    frozen = tmp_path / "frozen.json"
    root = project(base_project({
        "runner/integration/a_spec.py": PROCESSES + f'''

def test_frozen(runner):
    runner.visit("/")
    freeze_the_browser({str(frozen)!r})
    runner.get("h1").should("exist")
''' + NEXT_TEST,
    }, {"defaultCommandTimeout": 2000}))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "CommandError: The page stopped responding: runner.get('h1').should()" in result.out
    assert "✓ test_next_gets_a_working_page" in result.out
    events = _ended_whole(result, root)
    assert [e["launch"] for e in events if e["kind"] == "browser.started"] == [1, 2]
    assert not [pid for pid in json.loads(frozen.read_text()) if alive(pid)], "frozen processes were left"


def test_a_killed_driver_fails_its_test_in_one_line_and_the_next_starts_a_new_one(project):
    root = project(base_project({
        "runner/integration/a_spec.py": PROCESSES + '''

def test_before(runner):
    runner.visit("/")


def test_killed(runner):
    runner.visit("/")
    (driver,) = processes(b"run-driver")
    os.kill(driver, signal.SIGKILL)  # as the out-of-memory killer does
    runner.get("h1").should("exist")
''' + NEXT_TEST,
    }))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "✓ test_before" in result.out and "✓ test_next_gets_a_working_page" in result.out
    assert "TargetClosedError" not in result.text
    events = _ended_whole(result, root)
    (failed,) = [e for e in events if e["kind"] == "attempt.ended" and e["state"] == "failed"]
    assert failed["message"] == ("CommandError: The browser's driver stopped (killed?) while the test "
                                 "was running: Playwright's node process is gone, and the browser "
                                 "with it.")
    assert [e["launch"] for e in events if e["kind"] == "browser.started"] == [1, 2]


def test_a_handler_that_never_returns_fails_its_test_and_the_run_still_exits(project):
    root = project(base_project({
        "site/fetch.html": FETCHING,
        "runner/integration/a_spec.py": '''
import threading


def test_handler_never_returns(runner):
    runner.intercept("/api/never*", lambda req: threading.Event().wait())
    runner.visit("/fetch.html?url=/api/never")
    runner.get("#done").should("have.text", "0 ok 1 failed", timeout=10000)
''' + NEXT_TEST,
    }, {"defaultCommandTimeout": 1000, "video": False}))
    result = run_runner("run", cwd=root, timeout=120)  # before: interpreter shutdown waited forever
    assert result.code == 1, result.text
    assert ("InterceptError: A request handler passed to `runner.intercept()` timed out after taking "
            "more than the `defaultCommandTimeout` of `1000ms` to finish.") in result.out
    assert "✓ test_next_gets_a_working_page" in result.out
    _ended_whole(result, root)


def test_an_async_handler_that_blocks_the_loop_is_named_and_the_next_test_runs(project):
    root = project(base_project({
        "site/fetch.html": FETCHING,
        "runner/integration/a_spec.py": '''
import time


async def blocks_the_loop(req):
    time.sleep(3600)  # not awaited: runner's whole event loop stops here


def test_blocks(runner):
    runner.intercept("/api/slow*", blocks_the_loop)
    runner.visit("/fetch.html?url=/api/slow")
    runner.get("#done").should("have.text", "1 ok 0 failed")
''' + NEXT_TEST + '''

def test_blocks_again_last(runner):
    runner.intercept("/api/slow*", blocks_the_loop)
    runner.visit("/fetch.html?url=/api/slow")
    runner.get("#done").should("have.text", "1 ok 0 failed")
''',
    }, {"defaultCommandTimeout": 1000}))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 2, result.text
    # each failure's headline (pytest's traceback below it may repeat the message)
    named = re.findall(r"^\s+CommandError: runner's event loop is blocked by blocks_the_loop "
                       r"\(a_spec.py:5\), so runner\.\S+ got no answer \(defaultCommandTimeout: "
                       r"1000ms\)\.", result.out, re.M)
    assert len(named) == 2, result.out
    assert "✓ test_next_gets_a_working_page" in result.out
    _ended_whole(result, root)


def test_a_browser_that_cannot_start_stops_the_run_with_one_message(project, tmp_path):
    fake = tmp_path / "bin" / "chromium-without-its-libraries"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'chromium: error while loading shared libraries: libnss3.so: "
                    "cannot open shared object file: No such file or directory' >&2\nexit 127\n")
    fake.chmod(0o755)
    spec = "\n\n".join(f"def test_{n}(runner):\n    runner.visit('/')" for n in range(5))
    root = project(base_project({"runner/integration/a_spec.py": spec + "\n"}))
    result = run_runner("run", "--browser", str(fake), cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert result.err.count("runner: ") == 1, result.err
    assert result.err.startswith(f"runner: The browser could not be started: {str(fake)!r}: it exited "
                                 "with code 127 before it answered.\n  chromium: error while loading "
                                 "shared libraries: libnss3.so"), result.err
    assert "test_0" not in result.out and "Traceback" not in result.text
    assert "The browser did not start" in result.out  # the summary's last row
    events = _ended_whole(result, root)
    assert [e["kind"] for e in events] == ["run.started", "run.ended"]
    assert events[-1]["error"] == "the browser did not start"


def test_a_browser_frozen_at_the_end_of_the_run_is_killed(project, tmp_path):
    frozen = tmp_path / "frozen.json"
    root = project(base_project({
        "runner/integration/a_spec.py": PROCESSES + f'''

def test_freezes_the_browser_last(runner):
    runner.visit("/")
    freeze_the_browser({str(frozen)!r})
''',
    }, {"video": False}))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 0, result.text
    _ended_whole(result, root)
    assert not [pid for pid in json.loads(frozen.read_text()) if alive(pid)], "frozen processes were left"


SILENT_SERVER = '''
import socket
import threading

import pytest


@pytest.fixture
def silent_url():
    """A server on 127.0.0.1 that takes connections and never answers (closed after the test)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held = []

    def accept():
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    listener.close()
    for connection in held:
        connection.close()
'''


def test_a_failed_test_ends_within_seconds_of_its_failing_command(project):
    """The failure screenshot of a page loading forever, or stuck in JavaScript, used to wait
    30 s (then was not kept); now the test ends seconds after its command failed, and the page
    that was only loading is captured."""
    stuck = "<html><body><h1>Hi</h1><script>while (true) {}</script></body></html>"
    root = project(base_project({
        "site/stuck.html": stuck,
        "runner/integration/a_spec.py": SILENT_SERVER + '''

def test_never_answers(runner, silent_url):
    runner.visit(silent_url)


def test_stuck_in_javascript(runner):
    runner.visit("/stuck.html")
''' + NEXT_TEST,
    }, {"pageLoadTimeout": 3000, "video": False}))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 2, result.text  # the number of failed tests
    assert "runner.visit() timed out after 3000ms" in result.out
    assert "✓ test_next_gets_a_working_page" in result.out
    events = _ended_whole(result, root)
    for title in ("test_never_answers", "test_stuck_in_javascript"):
        nodeid = f"runner/integration/a_spec.py::{title}"
        (failed,) = [e for e in events if e["kind"] == "command.ended" and e["nodeid"] == nodeid
                     and e["state"] == "failed"]
        (ended,) = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"] == nodeid]
        assert failed["duration_ms"] < 3000 + 1500, (title, failed["duration_ms"])  # pageLoadTimeout
        assert ended["at"] - failed["at"] < 8, (title, ended["at"] - failed["at"])
    shots = [e for e in events if e["kind"] == "screenshot.taken" and e["failure"]]
    assert [e["nodeid"].rsplit("::", 1)[1] for e in shots] == ["test_never_answers"]
    assert Path(shots[0]["path"]).stat().st_size > 0
