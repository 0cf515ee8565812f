"""Traces written by the real ``runner run``: which tests keep one under each ``trace`` setting,
where it goes, what reaches the reports, what the trace holds, and that the next run trashes it."""

from __future__ import annotations

import json
import shlex
import zipfile
from pathlib import Path
from typing import Any

import pytest
from tests.cli.conftest import base_project, run_runner

PAGE = "<html><body><h1>Hi</h1><button id='b' onclick=\"this.textContent='ok'\">go</button></body></html>"
SPEC = """
    def test_passes(runner):
        runner.visit("/")
        runner.get("#b").click()
        runner.get("#b").should("have.text", "ok")


    def test_fails(runner):
        runner.intercept("GET", "/api/x", {"body": {"a": 1}}).as_("x")
        runner.visit("/")
        runner.get("#b").click()
        runner.get("h1").should("have.text", "Bye", timeout=300)
"""
# fails on its first attempt, passes on the second (a file counts the attempts)
FLAKY = """
    from pathlib import Path


    def test_flaky(runner):
        runner.visit("/")
        count = Path(__file__).with_name("count.txt")
        tries = int(count.read_text()) + 1 if count.exists() else 1
        count.write_text(str(tries))
        runner.get("#b").click()
        runner.get("#b").should("have.text", "ok" if tries > 1 else "never", timeout=300)


    def test_passes(runner):
        runner.visit("/")
"""


def traces(root: Path) -> list[str]:
    folder = root / "runner" / "traces"
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def trace_events(path: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(path) as archive:
        return [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]


@pytest.mark.slow
def test_by_default_only_the_failed_test_keeps_its_trace_and_every_report_says_where(project):
    root = project(base_project({"runner/integration/a_spec.py": SPEC}, {"video": False}, page=PAGE))
    (root / "xdg").mkdir()  # a data home: trashing uses its freedesktop trash
    xdg = {"XDG_DATA_HOME": str(root / "xdg")}
    result = run_runner("run", "--reporter", "json", "-o", "output=results.json", cwd=root, env=xdg)
    assert result.code == 1, result.text
    assert traces(root) == ["a_spec.py/test_fails.zip"]
    kept = str(root / "runner" / "traces" / "a_spec.py" / "test_fails.zip")

    report = json.loads((root / "results.json").read_text())
    tests = {t["title"][-1]: t for t in report["specs"][0]["tests"]}
    assert [a["trace"] for a in tests["test_fails"]["attempts"]] == [kept]
    assert tests["test_fails"]["traces"] == [kept]
    assert [a["trace"] for a in tests["test_passes"]["attempts"]] == [None]
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    ended = {e["nodeid"].rsplit("::", 1)[1]: e["trace"] for e in events if e["kind"] == "attempt.ended"}
    assert ended == {"test_passes": None, "test_fails": kept}

    # the trace: runner's commands as steps at the spec's lines, with DOM snapshots
    lines = (root / "runner/integration/a_spec.py").read_text().splitlines()
    steps = {e["title"]: e for e in trace_events(Path(kept)) if e["type"] == "before" and e.get("title")}
    expected = {"intercept GET /api/x (stubbed) as x": "runner.intercept(", "visit('/')": "runner.visit(",
                "get('#b').click()": "runner.get(\"#b\").click()", "get('h1') should have.text 'Bye'": "Bye"}
    for title, code in expected.items():
        step = steps[title]
        assert step["method"] == "tracingGroup"
        frame = step["stack"][0]
        assert frame["file"] == str(root / "runner/integration/a_spec.py")
        assert code in lines[frame["line"] - 1] and "def test_fails" in "\n".join(lines[:frame["line"]])
    all_events = trace_events(Path(kept))
    clicks = [e for e in all_events if e["type"] == "before" and e.get("method") == "mouseClick"]
    assert clicks and clicks[0]["parentId"] == steps["get('#b').click()"]["callId"]  # the click is in its step
    snapshots = [e for e in all_events if e["type"] == "frame-snapshot"]
    assert any("BUTTON" in json.dumps(s["snapshot"]["html"]) for s in snapshots)
    # the command that acted shows the page before it (the button says "go") and after it ("ok"),
    # though runner's re-check of the button right before the mouse went down is not recorded
    assert "go" in page_before(all_events, clicks[0]).split() and "ok" not in page_before(all_events, clicks[0]).split()
    assert "ok" in after_page(all_events, steps["get('#b').click()"]).split()

    # the spec reporter names it, with the command that opens it
    spec_run = run_runner("run", "--config", "trashAssetsBeforeRuns=false", cwd=root, env=xdg)
    assert f"trace: {kept}  (runner show-trace {shlex.quote(kept)})" in spec_run.out

    # "off" writes nothing, and the run trashed the last run's traces
    off = run_runner("run", "--config", "trace=off", cwd=root, env=xdg)
    assert off.code == 1, off.text
    assert traces(root) == []
    assert list((root / "xdg" / "Trash" / "files").iterdir())


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "kept"), [
    ("on", ["a_spec.py/test_flaky (attempt 2).zip", "a_spec.py/test_flaky.zip", "a_spec.py/test_passes.zip"]),
    ("on-first-retry", ["a_spec.py/test_flaky (attempt 2).zip"]),
    ("retain-on-failure", ["a_spec.py/test_flaky.zip"]),
])
def test_which_attempts_keep_a_trace(project, mode: str, kept: list[str]):
    root = project(base_project({"runner/integration/a_spec.py": FLAKY},
                                {"video": False, "retries": 1, "trace": mode}, page=PAGE))
    result = run_runner("run", cwd=root, env={"XDG_DATA_HOME": str(root / "xdg")})
    assert result.code == 0, result.text
    assert traces(root) == kept
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    told = sorted(Path(e["trace"]).relative_to(root / "runner/traces").as_posix()
                  for e in events if e["kind"] == "attempt.ended" and e["trace"])
    assert told == kept


@pytest.mark.slow
def test_a_page_replaced_after_it_got_stuck_is_traced_again(project):
    stuck = ("<html><body><h1>Hi</h1><script>addEventListener('load', () => "
             "setTimeout(() => { while (true) {} }, 50))</script></body></html>")
    root = project(base_project({
        "site/stuck.html": stuck,
        "runner/integration/a_spec.py": """
            import time


            def test_stuck(runner):
                runner.visit("/stuck.html")
                time.sleep(0.3)  # the endless loop has begun
                runner.get("h1").should("have.text", "Hi")


            def test_next(runner):
                runner.visit("/")
                runner.get("#b").click()
        """,
    }, {"video": False, "trace": "on", "defaultCommandTimeout": 2000}, page=PAGE))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "✓ test_next" in result.out
    assert "Traceback" not in result.err
    # the stuck page's trace is written or lost with one warning; the new page's is written whole
    lost = [line for line in result.err.splitlines() if "trace of test_stuck" in line]
    assert (root / "runner/traces/a_spec.py/test_stuck.zip").is_file() or len(lost) == 1, result.err
    steps = [e.get("title") for e in trace_events(root / "runner/traces/a_spec.py/test_next.zip")
             if e["type"] == "before" and e.get("method") == "tracingGroup"]
    assert steps == ["visit('/')", "get('#b').click()"]


@pytest.mark.slow
def test_a_trace_lost_with_its_browser_is_one_warning_and_the_run_goes_on(project):
    from tests.cli.test_hangs import PROCESSES

    root = project(base_project({
        "runner/integration/a_spec.py": PROCESSES + '''

def test_killed(runner):
    runner.visit("/")
    (driver,) = processes(b"run-driver")
    os.kill(driver, signal.SIGKILL)  # the browser goes with it
    runner.get("h1").should("exist")


def test_next(runner):
    runner.visit("/")
''',
    }, {"video": False, "trace": "on"}, page=PAGE))
    result = run_runner("run", cwd=root, timeout=120)
    assert result.code == 1, result.text
    assert "✓ test_next" in result.out and "Traceback" not in result.text
    lost = str(root / "runner/traces/a_spec.py/test_killed.zip")
    warnings = [line for line in result.err.splitlines() if line.startswith("runner: warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(
        f"runner: warning: the trace of test_killed could not be written to {lost!r}: "), result.err
    assert traces(root) == ["a_spec.py/test_next.zip"]
    attempts = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    assert [e["trace"] is None for e in attempts if e["kind"] == "attempt.ended"] == [True, False]


# Each test's page fetches a JSON of its own (its URL and its body are found nowhere else).
FETCHING = """<html><body><h1>-</h1><script>
const n = new URLSearchParams(location.search).get('n');
fetch('/data' + n + '.json').then(r => r.json()).then(j => { document.querySelector('h1').textContent = j.n; });
</script></body></html>"""


def fetching_spec(count: int) -> str:
    tests = "".join(f"""
def test_{n}(runner):
    runner.visit("/?n={n}")
    runner.get("h1").should("have.text", "body-of-{n}")
""" for n in range(1, count))
    return tests + f"""
def test_last(runner):
    runner.visit("/?n={count}")
    runner.get("h1").should("have.text", "body-of-{count}")
    runner.get("h1").should("have.text", "something else", timeout=300)
"""


def network_urls(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        lines = archive.read("trace.network").decode().splitlines()
    return sorted(json.loads(line)["snapshot"]["request"]["url"] for line in lines
                  if json.loads(line)["type"] == "resource-snapshot")


@pytest.mark.slow
def test_a_trace_holds_its_own_test_and_not_the_tests_before_it(project):
    count = 8
    files = {f"site/data{n}.json": json.dumps({"n": f"body-of-{n}"}) for n in range(1, count + 1)}
    files["runner/integration/a_spec.py"] = fetching_spec(count)
    root = project(base_project(files, {"video": False, "trace": "on"}, page=FETCHING))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    folder = root / "runner" / "traces" / "a_spec.py"
    last = folder / "test_last.zip"
    origin = network_urls(last)[0].split("/?")[0]
    assert network_urls(last) == [f"{origin}/?n={count}", f"{origin}/data{count}.json"]
    with zipfile.ZipFile(last) as archive:  # all but the sources (the spec names every test's data)
        everything = b"".join(archive.read(name) for name in archive.namelist() if not name.startswith("src/"))
    for n in range(1, count):  # no earlier test's URL, nor its response's body
        assert f"data{n}.json".encode() not in everything and f"body-of-{n}\"".encode() not in everything
    assert f"body-of-{count}\"".encode() in everything  # its own body is there
    # the first test's trace and the 7th's hold the same: two requests each
    assert network_urls(folder / "test_1.zip") == [f"{origin}/?n=1", f"{origin}/data1.json"]
    assert network_urls(folder / "test_7.zip") == [f"{origin}/?n=7", f"{origin}/data7.json"]

    # the failed command's step carries its error, as a failed Playwright call does; no other does
    events = trace_events(last)
    steps = {e["callId"]: e["title"] for e in events if e["type"] == "before" and e.get("method") == "tracingGroup"}
    failed = {steps[e["callId"]]: e["error"] for e in events if e["type"] == "after" and e.get("error")
              and e["callId"] in steps}
    assert list(failed) == ["get('h1') should have.text 'something else'"]
    error = failed["get('h1') should have.text 'something else'"]
    assert error["name"] == "CommandError"
    assert error["message"].startswith("Timed out retrying after ")
    assert "expected <h1> to have text 'something else', but the text was 'body-of-8'" in error["message"]
    spec = root / "runner/integration/a_spec.py"
    line = 1 + next(i for i, text in enumerate(spec.read_text().splitlines()) if "something else" in text)
    assert error["stack"].startswith(f'  File "{spec}", line {line}\nCommandError: Timed out retrying')


@pytest.mark.slow
def test_a_kept_trace_after_discarded_ones_holds_its_own_test_alone(project):
    # retain-on-failure (the default): the passing tests' traces are discarded while the run goes
    # on to the next test and its reset (the next trace's start waits for it); the failed one's
    # holds none of theirs, nor the reset before it
    count = 6
    files = {f"site/data{n}.json": json.dumps({"n": f"body-of-{n}"}) for n in range(1, count + 1)}
    files["runner/integration/a_spec.py"] = fetching_spec(count)
    root = project(base_project(files, {"video": False}, page=FETCHING))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    folder = root / "runner" / "traces" / "a_spec.py"
    assert sorted(p.name for p in folder.iterdir()) == ["test_last.zip"]
    last = folder / "test_last.zip"
    origin = network_urls(last)[0].split("/?")[0]
    assert network_urls(last) == [f"{origin}/?n={count}", f"{origin}/data{count}.json"]
    with zipfile.ZipFile(last) as archive:
        everything = b"".join(archive.read(name) for name in archive.namelist() if not name.startswith("src/"))
    for n in range(1, count):
        assert f"data{n}.json".encode() not in everything and f"body-of-{n}\"".encode() not in everything
    # the trace begins with this test's own visit: no call of the reset before it (about:blank)
    calls = [e for e in trace_events(last) if e["type"] == "before" and e.get("method") != "tracingGroup"]
    gotos = [e["params"].get("url") for e in calls if e.get("method") == "goto"]
    assert gotos == [f"{origin}/?n={count}"], gotos


USERS_PAGE = """<html><body><h1>Users</h1><button id='load'>load</button><ul id='users'></ul><script>
document.querySelector('#load').onclick = () => fetch('/users').then(r => r.json()).then(names => {
  for (const name of names) document.querySelector('#users').append(Object.assign(document.createElement('li'), {textContent: name}));
});
</script></body></html>"""


def after_page(events: list[dict[str, Any]], step: dict[str, Any]) -> str:
    """The text of the page the trace viewer shows as the "after" of ``step`` (a group): the
    after snapshot of the last call in it that has one (Playwright's viewer picks that one; a step
    with none shows the page of an earlier call instead: returned as "" here)."""
    ends = {e["callId"]: e["endTime"] for e in events if e["type"] == "after"}
    frames: dict[str, list[dict[str, Any]]] = {}  # a frame's snapshots, in order (references count back)
    for e in events:
        if e["type"] == "frame-snapshot":
            frames.setdefault(e["snapshot"]["frameId"], []).append(e["snapshot"])
    afters = {(s["callId"], s["frameId"]): i for snapshots in frames.values() for i, s in enumerate(snapshots)
              if s["phase"] == "after" and s.get("isMainFrame")}
    inner = [(ends[e["callId"]], e["callId"], frame) for e in events
             if e["type"] == "before" and e.get("parentId") == step["callId"]
             for frame in frames if (e["callId"], frame) in afters]
    if not inner:
        return ""
    _, call, frame = max(inner)
    return snapshot_text(frames[frame], afters[(call, frame)])


def page_before(events: list[dict[str, Any]], call: dict[str, Any]) -> str:
    """The text of the page the trace viewer shows as the "before" of ``call`` (a browser call):
    its own before snapshot, else the after snapshot of the last call that ended before it
    started (as Playwright's viewer picks it)."""
    ends = {e["callId"]: e["endTime"] for e in events if e["type"] == "after"}
    frames: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        if e["type"] == "frame-snapshot" and e["snapshot"].get("isMainFrame"):
            frames.setdefault(e["snapshot"]["frameId"], []).append(e["snapshot"])
    (frame, snapshots), = frames.items()
    own = [i for i, s in enumerate(snapshots) if s["callId"] == call["callId"] and s["phase"] == "before"]
    if own:
        return snapshot_text(snapshots, own[-1])
    earlier = [(ends[s["callId"]], i) for i, s in enumerate(snapshots)
               if s["phase"] == "after" and ends.get(s["callId"], float("inf")) <= call["startTime"]]
    return snapshot_text(snapshots, max(earlier)[1]) if earlier else ""


def snapshot_text(snapshots: list[dict[str, Any]], index: int) -> str:
    """The text of snapshot ``index`` of a frame, its references to earlier snapshots (``[[back,
    node]]``: the node-th node, in post-order, of the snapshot ``back`` before) followed."""

    def nodes(i: int) -> list[Any]:
        found: list[Any] = []

        def walk(node: Any) -> None:
            if isinstance(node, str):
                found.append(node)
            elif isinstance(node, list) and node and not isinstance(node[0], list):
                for child in node[2:]:
                    walk(child)
                found.append(node)

        walk(snapshots[i]["html"])
        return found

    def text(node: Any, i: int) -> str:
        if isinstance(node, str):
            return node
        if isinstance(node, list) and node and isinstance(node[0], list):  # a reference
            back, at = node[0]
            return text(nodes(i - back)[at], i - back)
        if isinstance(node, list) and node and node[0] in ("SCRIPT", "STYLE"):
            return ""
        return " ".join(text(child, i) for child in node[2:]) if isinstance(node, list) else ""

    return " ".join(text(snapshots[index]["html"], index).split())


@pytest.mark.slow
def test_a_command_that_does_not_touch_the_page_shows_the_page_as_it_was_when_it_ended(project):
    root = project(base_project({"runner/integration/a_spec.py": """
        def test_users(runner):
            runner.intercept("GET", "/users", {"body": ["Ann", "Bob", "Cy"], "delay": 300}).as_("users")
            runner.visit("/")
            runner.get("#load").click()
            runner.wait("@users")
            runner.wait(200)
            runner.wrap(3).should("equal", 3)
            runner.get("li").should("have.length", 3)  # the page had the list when the wait ended
            runner.get("h1").should("have.text", "Bye", timeout=300)
    """}, {"video": False}, page=USERS_PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    events = trace_events(root / "runner/traces/a_spec.py/test_users.zip")
    steps = {e["title"]: e for e in events if e["type"] == "before" and e.get("method") == "tracingGroup"}
    # the click's own "after" is the page before the answer came (300 ms later): no list yet
    assert "Bob" not in after_page(events, steps["get('#load').click()"])
    assert "Users load Ann Bob Cy" in after_page(events, steps["wait 200ms"])
    assert "Users load Ann Bob Cy" in after_page(events, steps["wrap(3) should equal 3"])
    assert "Users load Ann Bob Cy" in after_page(events, steps["get('li') should have.length 3"])
    # every command that makes no browser call ends with the page as it was then
    ends = {e["callId"]: e["endTime"] for e in events if e["type"] == "after"}
    for title in ("intercept GET /users (stubbed) as users", "wait @users", "wait 200ms"):
        assert after_page(events, steps[title]).startswith("Users load") or title.startswith("intercept"), title
        inner = [e for e in events if e["type"] == "before" and e.get("parentId") == steps[title]["callId"]]
        assert inner and max(ends[e["callId"]] for e in inner) <= ends[steps[title]["callId"]], title


@pytest.mark.slow
def test_a_failure_that_is_no_commands_is_the_last_step_of_the_trace_with_its_error(project):
    root = project(base_project({"runner/integration/a_spec.py": """
        def test_plain(runner):
            runner.visit("/")
            total = 1 + 1
            assert total == 3, "the total"
    """}, {"video": False}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    events = trace_events(root / "runner/traces/a_spec.py/test_plain.zip")
    steps = [e for e in events if e["type"] == "before" and e.get("method") == "tracingGroup"]
    # the failure's step is the command log's last line: the statement that failed, with its error
    assert [s["title"] for s in steps] == ["visit('/')", 'assert total == 3, "the total"']
    spec = root / "runner/integration/a_spec.py"
    assert steps[1]["stack"][0]["file"] == str(spec) and steps[1]["stack"][0]["line"] == 4
    errors = [e["error"] for e in events if e["type"] == "after" and e.get("error")]
    assert len(errors) == 1 and errors[0]["name"] == "AssertionError"
    assert errors[0]["message"] == "the total\nassert 2 == 3"


@pytest.mark.slow
def test_a_query_a_navigation_interrupted_and_runner_asked_again_is_no_error_of_the_trace(project):
    # a form submitted: the query of get('h1') meets the old page's end ("Execution context was
    # destroyed"), runner waits for the new page and asks again, and the command passes
    form = "<html><body><h1>Form</h1><form action='/next.html'><button id='go'>go</button></form></body></html>"
    root = project(base_project({
        "site/next.html": "<html><body><h1>Next</h1></body></html>",
        "runner/integration/a_spec.py": """
        def test_submit(runner):
            for _ in range(5):
                runner.visit("/")
                runner.get("#go").click()
                runner.get("h1").should("have.text", "Next")
    """}, {"video": False, "trace": "on"}, page=form))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    events = trace_events(root / "runner/traces/a_spec.py/test_submit.zip")
    assert [e["error"] for e in events if e["type"] == "after" and e.get("error")] == []  # Errors tab: none


# the heading changes 600 ms after the page loaded: a check of it retries some ten times meanwhile
LATE_PAGE = ("<html><body><h1>Wait</h1><script>addEventListener('load', () => setTimeout(() => "
             "document.querySelector('h1').textContent = 'Ready', 600))</script></body></html>")


@pytest.mark.slow
def test_a_retried_check_is_traced_by_its_first_read_and_the_page_it_ended_on_not_by_each_retry(project):
    root = project(base_project({"runner/integration/a_spec.py": """
        def test_late(runner):
            runner.visit("/")
            runner.get("h1").should("have.text", "Ready")
            runner.get("h1").should("have.text", "Never", timeout=400)
    """}, {"video": False}, page=LATE_PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    events = trace_events(root / "runner/traces/a_spec.py/test_late.zip")
    steps = {e["title"]: e for e in events if e["type"] == "before" and e.get("method") == "tracingGroup"}
    for title, before, after in (("get('h1') should have.text 'Ready'", "Wait", "Ready"),
                                 ("get('h1') should have.text 'Never'", "Ready", "Ready")):
        calls = [e for e in events if e["type"] == "before" and e.get("parentId") == steps[title]["callId"]]
        # the first read (the page as the check found it) and one snapshot as it ended, two DOM
        # snapshots each, instead of a pair for every retry
        assert [c["method"] for c in calls] == ["evaluateExpression", "evaluateExpression"], title
        assert page_before(events, calls[0]).endswith(before), title
        assert after_page(events, steps[title]).endswith(after), title
    failed = [e for e in events if e["type"] == "after" and e.get("error")]
    assert [e["callId"] for e in failed] == [steps["get('h1') should have.text 'Never'"]["callId"]]
    assert "but the text was 'Ready'" in failed[0]["error"]["message"]


@pytest.mark.slow
def test_commands_that_do_not_touch_a_busy_page_are_not_held_up_by_its_trace(project):
    # the page is busy in JavaScript for 6 s: the first value check's closing snapshot waits its
    # 1 s bound, the next ones do not wait again while the page has not answered it
    busy = ("<html><body><h1>Hi</h1><script>addEventListener('load', () => setTimeout(() => "
            "{ const end = Date.now() + 6000; while (Date.now() < end) {} }, 50))</script></body></html>")
    root = project(base_project({"runner/integration/a_spec.py": """
        import time


        def test_busy(runner):
            runner.visit("/")
            time.sleep(0.3)  # the loop has begun
            started = time.monotonic()
            for i in range(8):
                runner.wrap(i).should("equal", i)
            took = time.monotonic() - started
            assert took < 2.5, f"8 value checks took {took:.1f} s"
    """}, {"video": False, "trace": "on"}, page=busy))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    events = trace_events(root / "runner/traces/a_spec.py/test_busy.zip")
    steps = [e["title"] for e in events if e["type"] == "before" and e.get("method") == "tracingGroup"]
    assert steps[1:] == [f"wrap({i}) should equal {i}" for i in range(8)]
    assert [e["error"] for e in events if e["type"] == "after" and e.get("error")] == []
