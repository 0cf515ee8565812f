"""The original's experimental retry strategies on real ``runner run``s: a test that fails one
attempt in two (driven by a counter file) under each strategy; attempts run, outcome, exit status,
and what the events, JSON, JUnit and HTML reports say; a per-test override refused."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.report_events import read_data_file

THRESHOLD = "detect-flake-and-pass-on-threshold"
ALWAYS_FAIL = "detect-flake-but-always-fail"
FLAKY = "runner/integration/flaky_spec.py::test_fails_every_other_attempt"


def _spec(counter: Path, ran: Path) -> dict[str, str]:
    return {
        "runner/integration/flaky_spec.py": f"""
            from pathlib import Path

            COUNTER = Path({str(counter)!r})
            RAN = Path({str(ran)!r})

            def test_fails_every_other_attempt(runner):
                n = int(COUNTER.read_text()) if COUNTER.exists() else 0
                COUNTER.write_text(str(n + 1))
                with RAN.open("a") as f:
                    f.write(f"flaky {{n + 1}}\\n")
                assert n % 2 == 1, f"attempt {{n + 1}} fails"

            def test_steady(runner):
                with RAN.open("a") as f:
                    f.write("steady\\n")
        """,
        "runner/integration/override_spec.py": f"""
            import pytest

            @pytest.mark.runner(retries={{"experimentalStrategy": "{ALWAYS_FAIL}", "runMode": True,
                                          "openMode": False}})
            def test_sets_a_strategy(runner):
                pass
        """,
    }


def _run(root: Path, counter: Path, ran: Path, retries: dict, spec: str = "flaky_spec.py") -> tuple[int, str, list[dict]]:
    counter.unlink(missing_ok=True)
    ran.unlink(missing_ok=True)
    result = run_runner("run", "--spec", f"runner/integration/{spec}", "--config",
                        json.dumps({"retries": retries}), cwd=root)
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    return result.code, result.out + result.err, events


def _ended(events: list[dict], kind: str, nodeid: str = FLAKY) -> list[dict]:
    return [e for e in events if e["kind"] == kind and e["nodeid"] == nodeid]


@pytest.fixture
def flaky_project(project, tmp_path):
    counter, ran = tmp_path / "count.txt", tmp_path / "ran.txt"
    root = project(base_project(_spec(counter, ran), {"video": False, "trace": "off"}))
    return root, counter, ran


@pytest.mark.slow
def test_pass_on_threshold_runs_until_the_passes_required_or_they_cannot_be_reached(flaky_project):
    root, counter, ran = flaky_project
    # fail, pass, fail, pass: the second pass is the fourth attempt of the four allowed
    code, text, events = _run(root, counter, ran, {"experimentalStrategy": THRESHOLD, "runMode": True,
                                                   "openMode": False,
                                                   "experimentalOptions": {"maxRetries": 3, "passesRequired": 2}})
    assert code == 0, text
    assert ran.read_text().split("\n")[:4] == ["flaky 1", "flaky 2", "flaky 3", "flaky 4"]
    assert [a["state"] for a in _ended(events, "attempt.ended")] == ["failed", "passed", "failed", "passed"]
    (ended,) = _ended(events, "test.ended")
    assert (ended["state"], ended["attempts"], ended["attempts_allowed"], ended["flaky"]) == ("passed", 4, 4, True)
    assert ended["verdict"] == f"passed 2 of 4 attempts, 2 required ({THRESHOLD})"
    assert f"[flaky: passed 2 of 4 attempts, 2 required ({THRESHOLD})]" in text
    # the defaults (2 retries, 2 passes required): fail, pass, fail; a second pass cannot come
    code, text, events = _run(root, counter, ran, {"experimentalStrategy": THRESHOLD, "runMode": True,
                                                   "openMode": False})
    assert code == 1, text
    assert counter.read_text() == "3"
    (ended,) = _ended(events, "test.ended")
    assert (ended["state"], ended["attempts"], ended["flaky"]) == ("failed", 3, False)
    assert ended["verdict"] == f"passed 1 of 3 attempts, 2 required ({THRESHOLD})"
    assert "retry strategy: passed 1 of 3 attempts, 2 required" in text
    # runMode false: the strategy does not apply in `runner run`, one attempt
    code, text, events = _run(root, counter, ran, {"experimentalStrategy": THRESHOLD, "runMode": False,
                                                   "openMode": True})
    assert code == 1, text
    assert counter.read_text() == "1"
    (ended,) = _ended(events, "test.ended")
    assert (ended["attempts"], ended["attempts_allowed"], ended["verdict"]) == (1, 1, None)


@pytest.mark.slow
def test_always_fail_fails_a_flaky_test_and_every_report_says_why(flaky_project):
    root, counter, ran = flaky_project
    # stopIfAnyPassed: fail, pass, and no more; the test fails although its last attempt passed
    code, text, events = _run(root, counter, ran, {"experimentalStrategy": ALWAYS_FAIL, "runMode": True,
                                                   "openMode": False,
                                                   "experimentalOptions": {"maxRetries": 3, "stopIfAnyPassed": True}})
    assert code == 1, text
    assert [line for line in ran.read_text().splitlines() if line.startswith("flaky")] == ["flaky 1", "flaky 2"]
    assert [a["state"] for a in _ended(events, "attempt.ended")] == ["failed", "passed"]
    (ended,) = _ended(events, "test.ended")
    verdict = f"flaky, passed 1 of 2 attempts; failed by {ALWAYS_FAIL}"
    assert (ended["state"], ended["attempts"], ended["flaky"], ended["verdict"]) == ("failed", 2, False, verdict)
    assert f"[{verdict}]" in text and "1 of 1 failed" in text
    steady = _ended(events, "test.ended", "runner/integration/flaky_spec.py::test_steady")
    assert [(e["state"], e["attempts"], e["verdict"]) for e in steady] == [("passed", 1, None)]
    # the JSON and JUnit reports, from the run's events
    made = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "json", cwd=root)
    report = json.loads(made.out)
    test = next(t for s in report["specs"] for t in s["tests"] if t["nodeid"] == FLAKY)
    assert (test["state"], test["flaky"], test["flaky_failed"], test["verdict"]) == ("failed", False, True, verdict)
    assert (report["totalFailed"], report["totalFlakyFailed"]) == (1, 1)
    made = run_runner("report", "--from", "runner/results/events.jsonl", "--reporter", "junit",
                      "--reporter-options", "mochaFile=junit.xml", cwd=root)
    case = next(c for c in ET.parse(root / "junit.xml").getroot().iter("testcase")
                if c.get("name") == "test_fails_every_other_attempt")
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == verdict
    out = case.findtext("system-out") or ""
    assert "[[PROPERTY|flaky=true]] failed by its retry strategy" in out and f"retry strategy: {verdict}" in out
    # the HTML report: the test failed, its verdict, its two attempts as they ran
    folder = root / "runner" / "report"
    row = next(r for r in read_data_file(folder / "data" / "index.js", "index")["tests"] if r[7] == FLAKY)
    assert (row[3], row[6], row[9]) == ("failed", 0, verdict)
    page = read_data_file(folder / "data" / "t" / f"{row[0]}.js", "test")[1]
    assert page["verdict"] == verdict and [a["state"] for a in page["attempts"]] == ["failed", "passed"]
    # without stopIfAnyPassed: all three attempts (the defaults), failed, flaky
    code, text, events = _run(root, counter, ran, {"experimentalStrategy": ALWAYS_FAIL, "runMode": True,
                                                   "openMode": False})
    assert code == 1, text
    attempts = _ended(events, "attempt.ended")
    assert [a["state"] for a in attempts] == ["failed", "passed", "failed"]
    (ended,) = _ended(events, "test.ended")
    assert ended["verdict"] == f"flaky, passed 1 of 3 attempts; failed by {ALWAYS_FAIL}"
    # each failed attempt's failure screenshot, named by its attempt (docs/artifacts.md)
    assert [[Path(p).name for p in a["screenshots"]] for a in attempts] == [
        ["test_fails_every_other_attempt (failed).png"], [],
        ["test_fails_every_other_attempt (failed) (attempt 3).png"]]
    assert all(Path(p).is_file() for a in attempts for p in a["screenshots"])


@pytest.mark.slow
def test_a_strategy_in_a_tests_mark_is_refused_as_global_only(flaky_project):
    root, counter, ran = flaky_project
    code, text, events = _run(root, counter, ran, 1, spec="override_spec.py")
    assert code == 1, text
    assert "The `retries.experimentalStrategy` configuration can only be set globally" in text
    (ended,) = _ended(events, "test.ended", "runner/integration/override_spec.py::test_sets_a_strategy")
    assert ended["state"] == "failed"


@pytest.mark.slow
def test_deferred_retries_run_after_the_specs_other_tests(project, tmp_path):
    """retries.deferred: the failed tests' retries run after the spec's other tests, in the order
    they failed; function fixtures are set up again for each attempt, the module's stay up
    through the spec's last test for them; the next spec runs after them."""
    ran = tmp_path / "ran.txt"
    root = project(base_project({
        "runner/integration/a_spec.py": f"""
            import pytest
            from pathlib import Path

            RAN = Path({str(ran)!r})

            def note(text):
                with RAN.open("a") as f:
                    f.write(text + "\\n")

            def count(name):
                return sum(1 for line in RAN.read_text().splitlines() if line == name)

            @pytest.fixture(scope="module")
            def shared():
                note("module up")
                yield
                note("module down")

            @pytest.fixture
            def each():
                note("function up")
                yield
                note("function down")

            def test_first(runner, shared, each):
                note("first")
                assert count("first") == 2

            def test_second(runner, shared):
                note("second")

            def test_third(runner, shared, each):
                note("third")
                assert count("third") == 3

            def test_fourth(shared):
                note("fourth")
        """,
        "runner/integration/b_spec.py": f"""
            from pathlib import Path

            def test_other(runner):
                with Path({str(ran)!r}).open("a") as f:
                    f.write("other spec\\n")
        """,
    }, {"video": False, "trace": "off", "retries": {"runMode": 2, "deferred": True}}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert ran.read_text().splitlines() == [
        "module up",
        "function up", "first", "function down",  # fails: its retry waits
        "second",
        "function up", "third", "function down",  # fails: waits too
        "fourth",  # the spec's last test: its teardown keeps the module for the waiting retries
        "function up", "first", "function down",  # the first's retry passes
        "function up", "third", "function down",  # the third's second attempt fails
        "module down",  # as after the spec's last test's attempts: torn down, and set up again
        "module up",
        "function up", "third", "function down",  # its third passes
        "module down",
        "other spec",
    ]
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    ended = [(e["title"][-1], e["state"], e["attempts"], e["flaky"]) for e in events if e["kind"] == "test.ended"]
    assert ended == [("test_second", "passed", 1, False), ("test_fourth", "passed", 1, False),
                     ("test_first", "passed", 2, True), ("test_third", "passed", 3, True),
                     ("test_other", "passed", 1, False)]
    attempts = [(e["nodeid"].rpartition("::")[2], e["attempt"], e["state"]) for e in events
                if e["kind"] == "attempt.ended" and "a_spec" in e["nodeid"]]
    assert ("test_third", 3, "passed") in attempts and ("test_first", 1, "failed") in attempts
    # the spec ends after its last retry, and before the next spec starts
    order = [(e["kind"], e.get("spec")) for e in events if e["kind"] in ("spec.started", "spec.ended")]
    assert order == [("spec.started", "a_spec.py"), ("spec.ended", "a_spec.py"),
                     ("spec.started", "b_spec.py"), ("spec.ended", "b_spec.py")]
    assert "passed on attempt 3 of 3, flaky" in result.out


@pytest.mark.slow
def test_deferred_retries_under_workers_run_at_once_and_say_so(project, tmp_path):
    """A pytest-xdist worker reports only the test it runs: there a failed test's retries run at
    once, and a notice at start says that `deferred` does not apply."""
    files = {}
    for name in ("a", "b"):
        files[f"runner/integration/{name}_spec.py"] = f"""
            from pathlib import Path

            RAN = Path({str(tmp_path / name)!r})

            def note(text):
                with RAN.open("a") as f:
                    f.write(text + "\\n")

            def test_first(runner):
                note("first")
                assert RAN.read_text().count("first") == 2

            def test_second(runner):
                note("second")
        """
    retries = {"experimentalStrategy": ALWAYS_FAIL, "experimentalOptions": {"maxRetries": 1}, "runMode": True,
               "openMode": False, "deferred": True}
    root = project(base_project(files, {"video": False, "trace": "off", "retries": retries}))
    result = run_runner("run", "--workers", "2", cwd=root, timeout=240)
    assert result.code == 2, result.text  # each spec's flaky test, failed by the strategy
    assert "runner: notice: `retries.deferred` does not apply with workers" in result.err
    for name in ("a", "b"):
        assert (tmp_path / name).read_text().splitlines() == ["first", "first", "second"]
    # the strategy's verdict and the attempt that passed crossed from the workers
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    firsts = [e for e in events if e["kind"] == "test.ended" and e["title"][-1] == "test_first"]
    assert [(e["state"], e["attempts"], e["verdict"]) for e in firsts] == [
        ("failed", 2, f"flaky, passed 1 of 2 attempts; failed by {ALWAYS_FAIL}")] * 2
    states = [e["state"] for e in events if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_first")]
    assert states == ["failed", "passed"] * 2


@pytest.mark.slow
def test_a_stop_asked_while_retries_wait_ends_the_waiting_tests_with_their_attempt(project, tmp_path):
    """A plugin's stop of the run (session.shouldstop) while a test waits for its deferred
    retries: the test ends failed by the attempt it had, the run stops as asked."""
    ran = tmp_path / "ran.txt"
    root = project(base_project({"runner/integration/a_spec.py": f"""
        from pathlib import Path

        RAN = Path({str(ran)!r})

        def note(text):
            with RAN.open("a") as f:
                f.write(text + "\\n")

        def test_first(runner):
            note("first")
            assert False, "first fails"

        def test_stopper(runner, request):
            note("stopper")
            request.node.session.shouldstop = "a plugin stopped the run"

        def test_after(runner):
            note("after")
    """}, {"video": False, "trace": "off", "retries": {"runMode": 2, "deferred": True}}))
    result = run_runner("run", cwd=root)
    assert result.code == 130, result.text  # runner tells a stopped pytest as an interrupted run
    assert ran.read_text().splitlines() == ["first", "stopper"]
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    ended = [(e["title"][-1], e["state"], e["attempts"]) for e in events if e["kind"] == "test.ended"]
    assert ended == [("test_stopper", "passed", 1), ("test_first", "failed", 1)]
    (attempt,) = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_first")]
    assert attempt["message"] == "AssertionError: first fails"  # its own, not an interruption


@pytest.mark.slow
def test_deferred_retries_under_x_wait_and_each_attempt_is_told_as_it_ends(project, tmp_path):
    """`runner run -- -x` is runner's --max-failures 1, which counts final outcomes: a failed
    test's retries still wait for the spec's end. Each attempt's `attempt.ended` is written as
    it ends (before the next test, and before the next attempt's commands), at its own time.
    pytest's own -x, which runner does not see (PYTEST_ADDOPTS), stops at the failed test: its
    retries run at once."""
    root = project(base_project({"runner/integration/zz_defer_spec.py": """
        def test_a(runner):
            runner.log("a runs")
            assert False, "a fails"

        def test_b(runner):
            runner.log("b runs")

        def test_c(runner):
            runner.log("c runs")
    """}, {"video": False, "trace": "off", "retries": {"runMode": 2, "openMode": 0, "deferred": True}}))
    result = run_runner("run", "--spec", "**/zz_defer_spec.py", "--", "-x", cwd=root)
    assert result.code == 1, result.text
    out = result.out
    assert out.index("✓ test_b") < out.index("✓ test_c") < out.index("1) test_a") < out.index("2 passing, 1 failing")
    assert "[failed 3 attempts]" in out
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    seen = [(e["kind"], e["nodeid"].rpartition("::")[2], e.get("attempt")) for e in events
            if e["kind"] in ("test.started", "attempt.ended", "test.ended", "log")]
    assert seen == [
        ("test.started", "test_a", None), ("log", "test_a", 1), ("attempt.ended", "test_a", 1),
        ("test.started", "test_b", None), ("log", "test_b", 1), ("attempt.ended", "test_b", 1),
        ("test.ended", "test_b", None),
        ("test.started", "test_c", None), ("log", "test_c", 1), ("attempt.ended", "test_c", 1),
        ("test.ended", "test_c", None),
        ("log", "test_a", 2), ("attempt.ended", "test_a", 2),
        ("log", "test_a", 3), ("attempt.ended", "test_a", 3), ("test.ended", "test_a", None),
    ], seen
    told = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_a")]
    assert [e["state"] for e in told] == ["failed"] * 3
    assert told[0]["at"] < told[1]["at"] < told[2]["at"]  # each at its own end
    (ended,) = [e for e in events if e["kind"] == "test.ended" and e["nodeid"].endswith("test_a")]
    assert (ended["state"], ended["attempts"]) == ("failed", 3)
    # pytest's -x given through PYTEST_ADDOPTS is taken as the same stop: the deferred retries wait too
    result = run_runner("run", "--spec", "**/zz_defer_spec.py", "-r", "list", cwd=root, env={"PYTEST_ADDOPTS": "-x"})
    assert result.code == 1, result.text
    assert "pytest's -x in PYTEST_ADDOPTS is runner's --max-failures 1" in result.err, result.err
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    logs = [e["message"] for e in events if e["kind"] == "log"]
    assert logs == ["a runs", "b runs", "c runs", "a runs", "a runs"], logs


@pytest.mark.slow
def test_an_interruption_while_a_test_waits_keeps_the_attempt_it_had(project, tmp_path):
    """A waiting test's first attempt was told as it ended; the interruption (here the run's own
    SIGINT, during the next test) ends it with that attempt kept before the interrupted one."""
    root = project(base_project({"runner/integration/a_spec.py": """
        import os
        import signal

        def test_first(runner):
            assert False, "first fails"

        def test_interrupts(runner):
            os.kill(os.getpid(), signal.SIGINT)

        def test_after(runner):
            pass
    """}, {"video": False, "trace": "off", "retries": {"runMode": 2, "openMode": 0, "deferred": True}}))
    result = run_runner("run", cwd=root)
    assert result.code == 130, result.text
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    firsts = [(e["kind"], e.get("attempt"), e["state"]) for e in events
              if e["kind"] in ("attempt.ended", "test.ended") and e["nodeid"].endswith("test_first")]
    assert firsts == [("attempt.ended", 1, "failed"), ("attempt.ended", 2, "failed"), ("test.ended", None, "failed")]
    told = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_first")]
    assert told[0]["message"] == "AssertionError: first fails"
    assert "Interrupted" in told[1]["message"]
    (ended,) = [e for e in events if e["kind"] == "test.ended" and e["nodeid"].endswith("test_first")]
    assert ended["attempts"] == 2
