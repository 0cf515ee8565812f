"""``runner.network_conditions()`` and the ``networkConditions`` option in real runs: a download of
a known size takes measurably longer under a download limit than the same download measured
without one in the same test, an upload too; a stub is not throttled; offline fails requests like a network
error and makes ``navigator.onLine`` false (a popup's too), a stub still answered; the next test
has the network as it is; bad input is told; the option applies to every test and is in the
run's events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.servers import serving

SIZE = 200_000
PAGE = "<html><body><h1>net</h1><a id='open' href='two.html' target='_blank'>two</a></body></html>"

SPEC = """
    import pytest
    from runner import UsageError

    TIMED = '''async (url) => {
      const started = performance.now();
      const response = await fetch(url, {cache: "no-store"});
      const body = await response.arrayBuffer();
      return [performance.now() - started, body.byteLength];
    }'''
    POSTED = '''async ([url, size]) => {
      const started = performance.now();
      const response = await fetch(url, {method: "POST", body: "u".repeat(size), cache: "no-store"});
      const body = await response.arrayBuffer();
      return [performance.now() - started, body.byteLength];
    }'''
    FAILS = '''async (url) => {
      try { await fetch(url, {cache: "no-store"}); return "answered" } catch (e) { return e.name + ": " + e.message }
    }'''

    def test_a_download_limit_slows_a_download(runner):
        runner.visit("/")
        base, size = runner.evaluate(TIMED, "/big.bin?plain")
        assert size == SIZE
        runner.network_conditions(download=800)  # 100,000 bytes a second: 2 s for the file
        slow, size = runner.evaluate(TIMED, "/big.bin?throttled", timeout=30_000)
        assert size == SIZE
        # a wide margin over the same download without a limit; the limit cannot be beaten
        assert slow > 3 * base and slow > 1000, (base, slow)
        with runner.popup() as later:  # a popup opened since is throttled too
            runner.evaluate("window.open('/two.html') && 1")
        later.value.get("h2").should("have.text", "Two")
        in_popup, size = later.value.evaluate(TIMED, "/big.bin?popup", timeout=30_000)
        assert size == SIZE and in_popup > 3 * base and in_popup > 1000, (base, in_popup)
        runner.intercept("/stub.bin", {"body": "x" * SIZE})
        stubbed, size = runner.evaluate(TIMED, "/stub.bin", timeout=30_000)
        assert size == SIZE and stubbed * 3 < slow, (stubbed, slow)  # a stub is not on the network

    def test_an_upload_limit_slows_an_upload(runner):
        runner.visit("/")
        echo = runner.env("echo") + "/echo"
        base, size = runner.evaluate(POSTED, [echo + "?plain", SIZE])
        assert size > SIZE  # the server read it all (and echoed it)
        runner.network_conditions(upload=800)  # 100,000 bytes a second: 2 s for the body
        slow, size = runner.evaluate(POSTED, [echo + "?throttled", SIZE], timeout=30_000)
        assert size > SIZE and slow > 3 * base and slow > 1000, (base, slow)

    def test_offline(runner):
        runner.visit("/")
        with runner.popup() as tab:
            runner.get("#open").click()
        tab.value.get("h2").should("have.text", "Two")
        assert runner.evaluate("navigator.onLine") is True
        runner.network_conditions("offline")
        assert runner.evaluate("navigator.onLine") is False
        assert tab.value.evaluate("navigator.onLine") is False
        assert tab.value.evaluate(FAILS, "/big.bin?popup") == "TypeError: Failed to fetch"  # a popup's requests
        assert runner.evaluate(FAILS, "/big.bin?offline") == "TypeError: Failed to fetch"
        runner.intercept("/stub.txt", {"body": "made up"})
        assert runner.evaluate(FAILS, "/stub.txt") == "answered"  # a stub needs no network
        # a response a handler reads is fetched by runner, outside the page (docs say so)
        runner.intercept("/read.txt", lambda req: req.continue_(lambda res: None))
        assert runner.evaluate(FAILS, "/read.txt") == "answered"
        tab.value.network_conditions()  # a popup's runner sets them for every page of the test
        assert runner.evaluate("navigator.onLine") is True and tab.value.evaluate("navigator.onLine") is True
        runner.network_conditions(offline=True)

    def test_the_next_test_has_the_network_as_it_is(runner):
        runner.visit("/")
        assert runner.evaluate("navigator.onLine") is True
        assert runner.evaluate(FAILS, "/big.bin?next") == "answered"

    def test_bad_input_is_told(runner):
        with pytest.raises(UsageError, match="'slow-4g' is not a preset") as err:
            runner.network_conditions("slow-4g")
        assert "'slow-3g', 'fast-3g', 'offline'" in str(err.value)
        with pytest.raises(UsageError, match="latency must be 0 or more milliseconds; found -1"):
            runner.network_conditions(latency=-1)
        with pytest.raises(UsageError, match="does not take 'speed'"):
            runner.network_conditions(speed=3)
        with pytest.raises(UsageError, match="download must be a number"):
            runner.network_conditions(download="fast")
    """.replace("SIZE", str(SIZE))

OPTION_SPEC = """
    import pytest
    from runner import CommandError

    def test_one(runner):
        with pytest.raises(CommandError, match="ERR_INTERNET_DISCONNECTED") as err:
            runner.visit("/")
        assert "The test's network is offline (runner.network_conditions()" in str(err.value)
        runner.network_conditions(latency=3000)
        with pytest.raises(CommandError, match="timed out") as err:
            runner.visit("/", timeout=500)
        assert "The test's network is slowed (latency 3000ms)" in str(err.value)

    def test_two(runner):
        with pytest.raises(CommandError, match="ERR_INTERNET_DISCONNECTED"):
            runner.visit("/")
        runner.network_conditions()
        runner.visit("/")
        assert runner.evaluate("navigator.onLine") is True
    """


def _events(root: Path) -> list[dict]:
    return [json.loads(line) for line in
            (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_network_conditions_in_a_real_run(project) -> None:
    root = project(base_project({
        "runner/integration/net_spec.py": SPEC,
        "site/two.html": "<html><body><h2>Two</h2></body></html>",
        "site/read.txt": "read",
    }, {"video": False, "retries": 0}, page=PAGE))
    (root / "site" / "big.bin").write_bytes(b"\x07" * SIZE)
    with serving() as echo:  # reads a POST's whole body before it answers
        result = run_runner("run", "--env", f"echo={echo.url}", cwd=root)
    assert result.code == 0, result.text

    events = _events(root)
    told = [(e["name"], e["args"]) for e in events
            if e["kind"] == "command.started" and e["name"] == "network_conditions"]
    assert ("network_conditions", "download=800") in told and ("network_conditions", "'offline'") in told
    results = [e["result"] for e in events if e["kind"] == "command.ended" and e["name"] == "network_conditions"
               and e["state"] == "passed"]
    assert results[:5] == ["download 800 kbps", "upload 800 kbps", "offline", "none (the network as it is)",
                           "offline"], results
    assert ("tab[1].network_conditions", "") in [(f"{e['subject']}.{e['name']}", e["args"]) for e in events
                                                 if e["kind"] == "command.started" and e["subject"]]
    offline = "runner/integration/net_spec.py::test_offline"
    (ended,) = [e for e in events if e["kind"] == "attempt.ended" and e["nodeid"] == offline]
    assert "network_conditions: offline" in ended["log"], ended["log"]


@pytest.mark.slow
def test_the_option_applies_to_every_test_and_is_in_the_run_started_event(project) -> None:
    root = project(base_project({"runner/integration/opt_spec.py": OPTION_SPEC}, {"video": False, "retries": 0}))
    result = run_runner("run", "--config", "networkConditions=offline", cwd=root)
    assert result.code == 0, result.text
    (started,) = [e for e in _events(root) if e["kind"] == "run.started"]
    assert "offline" in json.dumps(started["config"]["networkConditions"]), started["config"]["networkConditions"]

    shown = run_runner("config", "--config", "networkConditions=slow-3g", cwd=root)
    assert "networkConditions" in shown.out and '"slow-3g"' in shown.out and "--config" in shown.out, shown.out
