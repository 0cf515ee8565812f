"""A 1,000-test suite spread over workers, shards and a remote browser pool, checked end to end.

Issue 15's closing demonstration, run as a user's CI would run it, and timed:

  1. ``runner run`` (one process), then ``runner run --workers 2 --record-durations``: the whole
     suite on this machine with local browsers, and the speed-up of two workers at this size; the
     durations file the second writes balances the shards of step 2.
  2. ``runner run --shard i/2 --workers 2 --browser-endpoint ws://...`` for i = 1 and 2, as two
     separate processes (two CI machines) whose browsers come from one ``playwright run-server``
     started here on loopback (the remote pool), each writing its events file.
  3. ``runner merge`` of the two events files into one run, then ``runner report --from`` the
     merged file as JUnit XML and as the HTML report.

The suite: 100 specs of 10 tests (a visit, a click, a retried assertion, an intercepted fetch in
some), of which 7 fail on purpose and 5 are skipped. Every step must give exactly the same
totals (1,000 tests: 988 passed, 7 failed, 5 skipped) and exit with 7; any difference stops
the script with the output of the step that differed.

Usage: ``.venv/bin/python bench/thousand.py [--specs 100]`` (about 4 minutes on two cores)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.playwright_server import playwright_server  # noqa: E402

from runner.engine.discovery import find_browser  # noqa: E402

RUNNER = str(Path(sys.executable).with_name("runner"))
TESTS_PER_SPEC = 10
FAILING = {(3, 2), (17, 9), (29, 0), (42, 5), (58, 7), (71, 1), (96, 4)}  # (spec, test) pairs
SKIPPED = {(5, 3), (33, 8), (61, 0), (77, 6), (88, 2)}
PAGE = ('<html><body><h1>Hi</h1><button id="go" onclick="document.getElementById(\'out\').textContent = '
        '\'done\'">go</button><p id="out"></p><p id="count"></p><script>fetch("/api/items")'
        '.then(r => r.ok ? r.json() : []).then(items => { document.getElementById("count").textContent = '
        'items.length; });</script></body></html>')


def spec_source(spec: int, tests: int) -> str:
    lines = ["import pytest", ""]
    for t in range(tests):
        if (spec, t) in SKIPPED:
            lines.append('@pytest.mark.skip(reason="skipped on purpose")')
        lines.append(f"def test_{t}(runner):")
        if t % 3 == 0:
            lines.append(f'    runner.intercept("/api/items", {{"body": list(range({t}))}}).as_("items")')
        lines.append('    runner.visit("/")')
        if t % 3 == 0:
            lines.append('    runner.wait("@items")')
            lines.append(f'    runner.get("#count").should("have.text", "{t}")')
        else:
            lines.append('    runner.get("#go").click()')
            lines.append('    runner.get("#out").should("have.text", "done")')
        if (spec, t) in FAILING:
            lines.append(f'    assert {spec} == {t}, "spec {spec} test {t} fails on purpose"')
        lines.append("")
    return "\n".join(lines)


def make_suite(root: Path, specs: int) -> None:
    (root / "site").mkdir(parents=True)
    (root / "site/index.html").write_text(PAGE)
    (root / "runner.json").write_text(json.dumps({
        "fileServerFolder": "site", "video": False, "trace": "off", "trashAssetsBeforeRuns": False,
        "reportFolder": False, "eventsFile": False, "defaultCommandTimeout": 10000,
    }))
    folder = root / "runner/integration"
    folder.mkdir(parents=True)
    for i in range(specs):
        (folder / f"s{i:03d}_spec.py").write_text(spec_source(i, TESTS_PER_SPEC))


def step(root: Path, name: str, expected_code: int, *args: str, env: dict[str, str] | None = None,
         ) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run([RUNNER, *args], cwd=root, capture_output=True, text=True, timeout=3000,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("RUNNER_")}, **(env or {})})
    elapsed = time.perf_counter() - started
    if done.returncode != expected_code:
        raise SystemExit(f"{name}: `runner {' '.join(args)}` exited with {done.returncode}, expected "
                         f"{expected_code}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return elapsed, done


def totals_of_events(path: Path) -> tuple[int, int, int, int]:
    ended = json.loads(path.read_text().splitlines()[-1])
    assert ended["kind"] == "run.ended", f"{path} does not end with run.ended"
    return ended["tests"], ended["passed"], ended["failed"], ended.get("skipped", 0) + ended.get("pending", 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--specs", type=int, default=100)
    args = parser.parse_args()
    failing = sum(1 for s, _ in FAILING if s < args.specs)
    skipped = sum(1 for s, _ in SKIPPED if s < args.specs)
    total = args.specs * TESTS_PER_SPEC
    expected = (total, total - failing - skipped, failing, skipped)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_suite(root, args.specs)
        print(f"a suite of {args.specs} specs, {total} tests ({failing} fail and {skipped} are skipped on purpose)")

        serial, _ = step(root, "serial", failing, "run", "-r", "dot")
        print(f"  one process, local browser:             {serial:7.1f} s  {serial / total * 1000:6.1f} ms a test")
        seconds, _ = step(root, "workers", failing, "run", "--workers", "2", "--record-durations",
                          "-r", "dot", "--config", "eventsFile=runner/results/local.jsonl")
        got = totals_of_events(root / "runner/results/local.jsonl")
        assert got == expected, f"the local run counted {got}, expected {expected}"
        durations = json.loads((root / "runner/durations.json").read_text())["specs"]
        assert len(durations) == args.specs, f"durations of {len(durations)} specs, expected {args.specs}"
        print(f"  --workers 2, local browsers:            {seconds:7.1f} s  {seconds / total * 1000:6.1f} ms a test"
              f"  ({serial / seconds:.2f}x the one process)")

        # the server launches the executable local runs find (the headless shell when installed)
        browser = find_browser(headless=True).path
        with playwright_server() as endpoint:
            shard_seconds = []
            for index in (1, 2):
                seconds, done = step(
                    root, f"shard {index}/2", _failing_in_shard(root, index), "run",
                    "--shard", f"{index}/2", "--workers", "2", "--browser-endpoint", endpoint, "--browser", browser,
                    "-r", "dot", "--config", f"eventsFile=runner/results/shard-{index}.jsonl")
                line = next(x for x in done.stderr.splitlines() if x.startswith("runner: shard"))
                shard_seconds.append(seconds)
                print(f"  shard {index}/2, --workers 2, remote pool:  {seconds:7.1f} s  ({line.split(': ', 2)[2]})")
        print(f"  the shards side by side (two machines):  {max(shard_seconds):7.1f} s; "
              f"longest/mean {max(shard_seconds) / (sum(shard_seconds) / 2):.2f}")

        _, merged = step(root, "merge", failing, "merge", "runner/results/merged.jsonl",
                         "runner/results/shard-1.jsonl", "runner/results/shard-2.jsonl")
        got = totals_of_events(root / "runner/results/merged.jsonl")
        assert got == expected, f"the merged run counted {got}, expected {expected}:\n{merged.stderr}"
        print(f"  merged: {merged.stderr.strip().splitlines()[-1]}")

        step(root, "junit", failing, "report", "--from", "runner/results/merged.jsonl", "-r", "junit",
             "-o", "mochaFile=runner/results/merged.xml")
        xml = (root / "runner/results/merged.xml").read_text()
        counted = [int(x) for x in re.findall(r'<testsuites[^>]*\btests="(\d+)"', xml)]
        assert counted == [total], f"the JUnit report counts {counted} tests, expected {total}"
        assert xml.count("fails on purpose") >= failing, "the JUnit report lacks a failure's message"
        step(root, "html", failing, "report", "--from", "runner/results/merged.jsonl", "-r", "html",
             "-o", "output=runner/report")
        html = root / "runner/report/index.html"
        assert html.is_file(), "the HTML report was not written"
        data = (root / "runner/report").rglob("*")
        size = sum(p.stat().st_size for p in data if p.is_file())
        print(f"  one JUnit report of {total} tests and one HTML report ({size / 1e6:.1f} MB) from the merged run")
        print(f"every step counted {expected[0]} tests: {expected[1]} passed, {expected[2]} failed, "
              f"{expected[3]} skipped; every exit status was {failing}")


def _failing_in_shard(root: Path, index: int) -> int:
    """The tests failing on purpose in the specs shard ``index`` runs (read from its plan)."""
    from runner.run.shard_plan import plan_shards

    specs = sorted((root / "runner/integration").glob("*_spec.py"))
    durations = json.loads((root / "runner/durations.json").read_text())["specs"]
    mine = {Path(key).name for key in plan_shards(specs, root, 2, durations).shards[index - 1]}
    return sum(1 for s, _ in FAILING if f"s{s:03d}_spec.py" in mine)


if __name__ == "__main__":
    main()
