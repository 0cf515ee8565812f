"""``runner.clock()`` in a real run: the app's first script reads the clock installed before the
visit, ``tick`` fires timers in order, ``set_time`` fires none, ``run_all`` runs the pending ones,
a clock installed on a loaded page takes effect at once, ``restore`` gives real time back, the
next test has real time, bad input is told; every call is in the command log and the events."""

from __future__ import annotations

import json

import pytest
from tests.cli.conftest import base_project, run_runner

PAGE = """<html><body><h1>clock</h1><script>
  window.first = Date.now();
  window.seen = [];
  const every = setInterval(() => seen.push('i'), 30);
  setTimeout(() => seen.push('b'), 50);
  setTimeout(() => { seen.push('a'); clearInterval(every); }, 100);
</script></body></html>"""

MOVING = """<html><head><style>
  #mover { position: absolute; left: 0; top: 40px; animation: slide 0.4s linear 1 forwards; }
  @keyframes slide { from { left: 0 } to { left: 400px } }
  body { height: 3000px; }
</style></head><body><input id="field">
<button id="mover" onclick="this.textContent = 'caught at ' + Math.round(this.getBoundingClientRect().left)">move</button>
</body></html>"""

SPEC = """
    import time

    import pytest
    from runner import CommandError, UsageError

    NEW_YEAR = 1577836800000  # 2020-01-01T00:00:00Z

    def test_clock_before_visit(runner):
        clock = runner.clock(now="2020-01-01T00:00:00Z")
        runner.visit("/")
        assert runner.evaluate("window.first") == NEW_YEAR
        assert runner.evaluate("window.seen") == []
        clock.tick(99)
        assert runner.evaluate("window.seen") == ["i", "b", "i", "i"]
        clock.tick(1)
        assert runner.evaluate("window.seen") == ["i", "b", "i", "i", "a"]
        assert runner.evaluate("Date.now()") == NEW_YEAR + 100
        clock.set_time(NEW_YEAR + 86_400_000)
        assert runner.evaluate("Date.now()") == NEW_YEAR + 86_400_000
        runner.evaluate("setTimeout(() => { seen.push('x'); setTimeout(() => seen.push('y'), 5000) }, 1000)")
        clock.tick(999)
        assert runner.evaluate("window.seen").count("x") == 0
        assert clock.run_all() == 2
        assert runner.evaluate("window.seen")[-2:] == ["x", "y"]
        assert runner.evaluate("Date.now()") == NEW_YEAR + 86_400_000 + 6000
        runner.evaluate("setInterval(() => 0, 10)")
        with pytest.raises(CommandError, match="never ends") as ran:
            clock.run_all()
        assert str(ran.value).startswith("clock.run_all(): ran 1000 timers")  # the call named once

    def test_clock_after_visit(runner):
        runner.visit("/")
        clock = runner.clock(now=0)
        assert runner.evaluate("Date.now()") == 0
        runner.evaluate("window.late = 0; setTimeout(() => { window.late = Date.now() }, 250)")
        assert runner.evaluate("window.late") == 0
        clock.tick(250)
        assert runner.evaluate("window.late") == 250

    def test_runner_itself_keeps_real_time_under_a_paused_clock(runner):
        clock = runner.clock(now=0)
        runner.visit("/moving.html")
        runner.get("#mover").click()  # waits for the element to stand still: the browser's own frames
        runner.get("#mover").should("contain", "caught at 400")
        runner.get("#field").type("typed").should("have.value", "typed")
        runner.scroll_to("bottom", duration=100)
        with pytest.raises(CommandError, match="did not end within 300ms"):
            runner.evaluate("new Promise((r) => setTimeout(r, 50))", timeout=300)  # the page's timer waits for tick
        clock.tick(50)
        with pytest.raises(CommandError, match="accessibility violation"):  # axe runs to its end
            runner.check_a11y()

    def test_the_next_test_has_real_time(runner):
        runner.visit("/")
        assert abs(runner.evaluate("window.first") - time.time() * 1000) < 60_000
        runner.window().its("seen").should("contain", "a")  # its timers ran in real time

    def test_restore_gives_real_time_back(runner):
        runner.visit("/")
        clock = runner.clock(now=0)
        clock.restore()
        assert abs(runner.evaluate("Date.now()") - time.time() * 1000) < 60_000
        runner.evaluate("window.fired = false; setTimeout(() => { window.fired = true }, 50)")
        runner.window().its("fired").should("be.true")

    def test_a_clock_and_a_cookie(runner):
        runner.visit("/")
        runner.set_cookie("left", "behind")
        runner.clock(now=0)

    @pytest.mark.runner(testIsolation=False)
    def test_without_isolation_after_a_clock_the_page_is_new(runner):
        assert runner.get_all_cookies() == [] and runner.url() == "about:blank"
        runner.visit("/")
        assert abs(runner.evaluate("window.first") - time.time() * 1000) < 60_000

    def test_pause_resume_and_a_second_clock(runner):
        runner.visit("/")
        runner.clock(now=5000)
        clock = runner.clock(now=0)  # a second call sets the clock anew
        assert runner.evaluate("Date.now()") == 0
        clock.resume()
        # runs on in real time: a timer fires without a tick
        assert runner.evaluate("new Promise((r) => setTimeout(() => r(Date.now()), 30))") >= 30
        clock.pause()
        stopped = runner.evaluate("Date.now()")
        runner.wait(100)  # real time passes; the paused clock does not
        assert runner.evaluate("Date.now()") == stopped
        clock.tick(10)
        assert runner.evaluate("Date.now()") == stopped + 10

    def test_bad_input_is_told(runner):
        with pytest.raises(UsageError, match="ISO 8601") as err:
            runner.clock(now="yesterday")
        assert "'yesterday'" in str(err.value)
        with pytest.raises(UsageError, match="milliseconds, 0 or more"):
            runner.clock(now=0).tick(-1)

    def test_a_clock_kept_past_its_test_is_refused(runner):
        pytest.kept = runner.clock(now=0)

    def test_the_kept_clock(runner):
        with pytest.raises(CommandError, match="ended with its test"):
            pytest.kept.tick(10)
    """


@pytest.mark.slow
def test_the_clock_in_a_real_run(project) -> None:
    root = project(base_project({"runner/integration/clock_spec.py": SPEC, "site/moving.html": MOVING},
                                {"video": False, "retries": 0, "defaultCommandTimeout": 3000}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "11 passing" in result.out, result.out

    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    first = "runner/integration/clock_spec.py::test_clock_before_visit"
    started = [(e["name"], e["args"]) for e in events if e["kind"] == "command.started" and e["nodeid"] == first]
    assert started[0] == ("clock", "now='2020-01-01T00:00:00Z'")
    assert ("tick", "99") in started and ("set_time", "1577923200000") in started
    assert ("run_all", "") in started
    results = [e["result"] for e in events if e["kind"] == "command.ended" and e["nodeid"] == first
               and e["name"] in ("clock", "tick")]
    assert results == ["2020-01-01T00:00:00.000Z", "2020-01-01T00:00:00.099Z", "2020-01-01T00:00:00.100Z",
                       "2020-01-02T00:00:00.999Z"]
    (ended,) = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"] == first]
    log = ended["log"]
    assert log[0] == "clock: 2020-01-01T00:00:00.000Z", log
    assert "tick: 99ms (now 2020-01-01T00:00:00.099Z)" in log
    assert "set_time: now 2020-01-02T00:00:00.000Z" in log
    assert "run_all: 2 timers (now 2020-01-02T00:00:06.000Z)" in log
    failed_run_all = [e for e in events if e["kind"] == "command.ended" and e["nodeid"] == first
                      and e["name"] == "run_all" and e["state"] == "failed"]
    assert len(failed_run_all) == 1 and "never ends" in failed_run_all[0]["error"]
