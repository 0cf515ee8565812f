"""Parallel and distributed runs, as ratios measured side by side in one run (issue 15).

  workers     40 specs of 3 trivial tests: `runner run --workers 2` against `--workers 1`
              (target: at least 1.6x faster on a 2-core machine). The serial run's CPU use is
              printed beside it: trivial tests are CPU-bound, and the browser's processes work
              while the test process waits, so the speed-up on a machine is at most its cores
              over the cores a serial run keeps busy.
  waiting     20 specs of 3 tests that wait on the app (a stubbed API answering after 250 ms, as
              a real backend does): the same two runs. No target in the issue; it shows what
              workers give a suite that is not CPU-bound on the same machine.
  remote      the same suite's cost per test with `--browser-endpoint` on a `playwright
              run-server` started here on loopback, against a local browser (target: at most 1.3x)
  shards      a generated suite with uneven recorded durations, split into shards by runner
              (longest-processing-time packing of the durations) and by test count in order
              (how Playwright's `--shard` splits): the longest shard against the mean (target for
              runner: at most 1.1x). No browser: the recorded durations are the times.

The runs are whole `runner run` processes (start-up, browser launch, the report) timed by the wall
clock, interleaved round by round so both sides of each ratio see the same machine.

Usage: ``.venv/bin/python bench/parallel.py [--rounds 2] [--specs 40]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.playwright_server import playwright_server  # noqa: E402

from runner.engine.discovery import find_browser  # noqa: E402
from runner.run.shard_plan import pack, plan_shards  # noqa: E402

RUNNER = str(Path(sys.executable).with_name("runner"))
# The remote server launches the same executable the local runs find (the headless shell when
# installed), so the ratio is the cost of the remote road alone.
LOCAL_BROWSER = find_browser(headless=True).path
SPEC = """
def test_one(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "Hi")

def test_two(runner):
    runner.visit("/")
    runner.get("#go").click()
    runner.get("#out").should("have.text", "done")

def test_three(runner):
    runner.visit("/")
    runner.get("h1").should("be.visible")
"""
WAITING_SPEC = """
def test_one(runner):
    runner.intercept("/api/items", {"body": [1, 2, 3], "delay": 250}).as_("items")
    runner.visit("/app.html")
    runner.wait("@items")
    runner.get("#count").should("have.text", "3")

def test_two(runner):
    runner.intercept("/api/items", {"body": [1, 2], "delay": 250}).as_("items")
    runner.visit("/app.html")
    runner.get("#count").should("have.text", "2")

def test_three(runner):
    runner.intercept("/api/items", {"body": [], "delay": 250}).as_("items")
    runner.visit("/app.html")
    runner.wait("@items")
    runner.get("#count").should("have.text", "0")
"""
APP = ('<html><body><p id="count"></p><script>fetch("/api/items").then(r => r.json())'
       '.then(items => { document.getElementById("count").textContent = items.length; });</script></body></html>')
PAGE = ('<html><body><h1>Hi</h1><button id="go" onclick="document.getElementById(\'out\').textContent = '
        '\'done\'">go</button><p id="out"></p></body></html>')


def make_suite(root: Path, specs: int, spec: str = SPEC) -> None:
    (root / "site").mkdir(parents=True)
    (root / "site/index.html").write_text(PAGE)
    (root / "site/app.html").write_text(APP)
    (root / "runner.json").write_text(json.dumps({"fileServerFolder": "site", "video": False, "reportFolder": False,
                                                  "trashAssetsBeforeRuns": False, "eventsFile": False}))
    folder = root / "runner/integration"
    folder.mkdir(parents=True)
    for i in range(specs):
        (folder / f"s{i:03d}_spec.py").write_text(spec)


def timed_run(root: Path, *args: str, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run([RUNNER, "run", "-r", "dot", *args], cwd=root, capture_output=True, text=True,
                          timeout=1200, env={**_env(), **(env or {})})
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"runner run {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def busy_cores(run: Callable[[], float]) -> tuple[float, float]:
    """(seconds, cores the machine kept busy on average) while ``run`` ran (from /proc/stat)."""
    def busy_idle() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields) - idle, idle

    busy_before, _ = busy_idle()
    elapsed = run()
    busy_after, _ = busy_idle()
    return elapsed, (busy_after - busy_before) / os.sysconf("SC_CLK_TCK") / elapsed


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RUNNER_")}


def shard_balance(total: int = 4, specs: int = 200, seed: int = 7) -> tuple[float, float]:
    """(runner's longest shard / mean, count-in-order longest shard / mean) on a generated suite."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        durations: dict[str, float] = {}
        tests: dict[str, int] = {}
        paths = []
        for i in range(specs):
            count = rng.choice([1, 1, 2, 3, 5, 8, 13])
            per_test = rng.lognormvariate(7.5, 1.0)  # most tests ~2 s, some far longer
            key = f"s{i:03d}_spec.py"
            (root / key).write_text("".join(f"def test_{t}(): pass\n" for t in range(count)))
            durations[key], tests[key] = count * per_test, count
            paths.append(root / key)
        plan = plan_shards(paths, root, total, durations)
        mean = sum(durations.values()) / total
        ours = max(plan.load(i) for i in range(1, total + 1)) / mean
        # Playwright's --shard: the tests in order, cut into n groups of (nearly) equal test count
        flat = [key for key in durations for _ in range(tests[key])]
        size = -(-len(flat) // total)
        loads = [0.0] * total
        for index, key in enumerate(flat):
            loads[min(index // size, total - 1)] += durations[key] / tests[key]
        theirs = max(loads) / mean
        assert sorted(s for shard in pack(durations, total) for s in shard) == sorted(durations)
        return ours, theirs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--specs", type=int, default=40)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"one worker": [], "two workers": [], "remote": [], "cores": [],
                                     "waiting one": [], "waiting two": []}
    waiting_specs = max(1, args.specs // 2)
    with tempfile.TemporaryDirectory() as tmp, playwright_server() as endpoint:
        root, waiting = Path(tmp) / "trivial", Path(tmp) / "waiting"
        make_suite(root, args.specs)
        make_suite(waiting, waiting_specs, WAITING_SPEC)
        tests = args.specs * 3
        for _ in range(args.rounds):
            elapsed, cores = busy_cores(lambda: timed_run(root, "--workers", "1"))
            times["one worker"].append(elapsed)
            times["cores"].append(cores)
            times["two workers"].append(timed_run(root, "--workers", "2"))
            times["remote"].append(timed_run(root, "--browser-endpoint", endpoint, "--browser", LOCAL_BROWSER))
            times["waiting one"].append(timed_run(waiting, "--workers", "1"))
            times["waiting two"].append(timed_run(waiting, "--workers", "2"))
    med = {k: statistics.median(v) for k, v in times.items()}
    machine = len(os.sched_getaffinity(0))
    ours, theirs = shard_balance()
    print(f"Parallel runs, medians over {args.rounds} interleaved rounds ({args.specs} specs, {tests} tests)")
    print(f"  {'scenario':44}{'s':>8}{'baseline s':>12}{'ratio':>8}{'target':>9}  verdict")
    speedup = med["one worker"] / med["two workers"]
    print(f"  {'--workers 2 vs 1 (speed-up)':44}{med['two workers']:8.1f}{med['one worker']:12.1f}{speedup:8.2f}"
          f"{'>= 1.6':>9}  {'met' if speedup >= 1.6 else 'NOT met'}")
    print(f"    (the serial run kept {med['cores']:.2f} of this machine's {machine} cores busy: "
          f"at most {machine / med['cores']:.2f}x is there to gain)")
    waited = med["waiting one"] / med["waiting two"]
    print(f"  {f'waiting on the app, --workers 2 vs 1 ({waiting_specs * 3} tests)':44}{med['waiting two']:8.1f}"
          f"{med['waiting one']:12.1f}{waited:8.2f}{'':>9}  reference")
    per_test = (med["remote"] / tests) / (med["one worker"] / tests)
    print(f"  {'remote endpoint vs local, per test':44}{med['remote'] / tests:8.3f}{med['one worker'] / tests:12.3f}"
          f"{per_test:8.2f}{'<= 1.3':>9}  {'met' if per_test <= 1.3 else 'NOT met'}")
    print("Shard balance, 200 generated specs of uneven recorded durations, 4 shards (longest shard / mean)")
    print(f"  {'runner --shard (by recorded durations)':44}{ours:8.3f}{'':12}{'':8}{'<= 1.1':>9}  "
          f"{'met' if ours <= 1.1 else 'NOT met'}")
    print(f"  {'by test count in order (Playwright --shard)':44}{theirs:8.3f}{'':12}{'':8}{'':>9}  reference")


if __name__ == "__main__":
    main()
