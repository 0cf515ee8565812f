"""Per-test cost and start-up time of ``runner run`` against pytest + pytest-playwright.

Both run the same trivial test (visit a page served on 127.0.0.1, one assertion) in the same
process layout, side by side, on the same browser executable. Printed:

* per-test cost: (time for N tests - time for 1 test) / (N - 1), for each tool, and the ratio
  runner / pytest-playwright (target: at most 0.5);
* start-up, on the one-test projects: from ``runner run`` to the first test's first command
  (``command.started`` in the run's events file) against pytest-playwright's time from ``pytest``
  to its first test body, the ratio, and runner's figure against its target of 1.0 s.

Both tools run as a user's would: with Python's bytecode cache (``PYTHONDONTWRITEBYTECODE`` is
dropped from their environment, and one untimed run of each project writes the cache first);
without it every run compiles runner's modules from source, a cost of the machine's setting.

Usage: ``.venv/bin/python bench/run_cost.py [--tests 40] [--rounds 3] [--startup-only]``
(``--startup-only``: only the one-test projects, for the start-up figure; use more rounds then).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.servers import serving  # noqa: E402

BIN = Path(sys.executable).parent
K = TypeVar("K")
#: runner's start-up target: from ``runner run`` to the first test's first command (issue 26).
STARTUP_TARGET_MS = 1000.0
PAGE = "<html><head><title>Bench</title></head><body><h1 id='t'>Hello</h1></body></html>"


#: The trivial test: visit a page, one assertion (runner's and pytest-playwright's spelling).
RUNNER_BODY = """
    runner.visit("/page")
    runner.get("#t").should("have.text", "Hello")
"""
PLAYWRIGHT_BODY = """
    page.goto(URL + "/page")
    expect(page.locator("#t")).to_have_text("Hello")
"""


def _spec(n: int, stamp: Path, fixture: str, body: str, head: str) -> str:
    """N tests named test_0.. taking ``fixture`` and running ``body``; the first stamps the time."""
    indented = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    tests = [f"\n\ndef test_{i}({fixture}):\n" + ("    _stamp()\n" if i == 0 else "") + indented + "\n"
             for i in range(n)]
    return (f"import time\n{head}\n\ndef _stamp():\n    open({str(stamp)!r}, 'w').write(repr(time.time()))\n"
            + "".join(tests))


def runner_project(root: Path, url: str, n: int, stamp: Path, values: dict[str, object] | None = None,
                   body: str = RUNNER_BODY) -> Path:
    """A runner project of ``n`` tests (``values``: more of its runner.json)."""
    (root / "runner" / "integration").mkdir(parents=True)
    (root / "runner.json").write_text(json.dumps({
        "baseUrl": url, "video": False, "screenshotOnRunFailure": False, "trashAssetsBeforeRuns": False,
        **(values or {})}))
    (root / "runner" / "integration" / "bench_spec.py").write_text(_spec(n, stamp, "runner", body, ""))
    return root


#: The browser's arguments in the pytest-playwright projects (the bench's floor uses them too)
PLAYWRIGHT_ARGS = ["--disable-gpu", "--no-first-run", "--disable-background-networking"]


def playwright_project(root: Path, url: str, n: int, stamp: Path, executable: str,
                       body: str = PLAYWRIGHT_BODY) -> Path:
    """The same tests under pytest-playwright, on the same browser executable."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "conftest.py").write_text(textwrap.dedent(f"""
        import pytest

        @pytest.fixture(scope="session")
        def browser_type_launch_args(browser_type_launch_args):
            return {{**browser_type_launch_args, "executable_path": {executable!r},
                    "args": {PLAYWRIGHT_ARGS!r}}}
    """))
    head = f"from playwright.sync_api import expect\n\nURL = {url!r}"
    (root / "test_bench.py").write_text(_spec(n, stamp, "page", body, head))
    return root


def _environment() -> dict[str, str]:
    """A user's environment: no RUNNER_ variables, and Python's bytecode cache on."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RUNNER_") and k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], cwd: Path, stamp: Path, *, runner: bool = False) -> tuple[float, float]:
    """(whole run seconds, seconds from start to the first test body: for ``runner run``, to the
    first test's first command, read from the run's events file)."""
    if stamp.exists():
        stamp.unlink()
    events = cwd / "runner" / "results" / "events.jsonl"
    started = time.time()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, env=_environment())
    total = time.time() - started
    if done.returncode != 0:
        raise SystemExit(f"benchmark run failed: {' '.join(cmd)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    first = _first_command(events) if runner else float(stamp.read_text())
    return total, first - started


def _first_command(events: Path) -> float:
    """When the run's first command started (seconds since the epoch), from its events file."""
    with events.open(encoding="utf-8") as lines:
        for line in lines:
            event = json.loads(line)
            if event["kind"] == "command.started":
                return float(event["at"])
    raise SystemExit(f"benchmark run failed: no command.started in {events}")


def command(root: Path, *, playwright: bool) -> list[str]:
    """The run of the project at ``root``: ``runner run``, or pytest for a pytest-playwright one."""
    if playwright:
        return [str(BIN / "pytest"), "-q", "-p", "no:cacheprovider", "-p", "no:runner-e2e",
                str(root / "test_bench.py")]
    return [str(BIN / "runner"), "run", "--project", str(root)]


def measure(projects: dict[K, Path], rounds: int, stamp: Path,
            playwright: Callable[[K], bool], warm_up: bool = False) -> dict[K, list[tuple[float, float]]]:
    """Run every project ``rounds`` times, interleaved (every project sees the same machine
    state), with ``warm_up`` after one untimed run of each (it writes the bytecode caches): each
    run's (whole seconds, seconds to the first test body; for runner, to its first command)."""
    for key, root in projects.items() if warm_up else ():
        timed(command(root, playwright=playwright(key)), root, stamp, runner=not playwright(key))
    results: dict[K, list[tuple[float, float]]] = {key: [] for key in projects}
    for _ in range(rounds):
        for key, root in projects.items():
            results[key].append(timed(command(root, playwright=playwright(key)), root, stamp,
                                      runner=not playwright(key)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--startup-only", action="store_true", help="only the start-up figure (one-test projects)")
    args = parser.parse_args()
    from runner.engine.discovery import find_browser

    executable = find_browser().path
    sizes = (1,) if args.startup_only else (1, args.tests)
    with serving() as server, tempfile.TemporaryDirectory() as tmp:
        server.page("/page", PAGE)
        base = Path(tmp)
        stamp = base / "stamp"
        projects = {}
        for n in sizes:
            projects[("runner", n)] = runner_project(base / f"r{n}", server.url, n, stamp)
            projects[("pw", n)] = playwright_project(base / f"p{n}", server.url, n, stamp, executable)
        results = measure(projects, args.rounds, stamp, playwright=lambda key: key[0] == "pw", warm_up=True)

    def med(key: tuple[str, int], idx: int) -> float:
        return statistics.median(r[idx] for r in results[key])

    n = args.tests
    if not args.startup_only:
        per = {tool: (med((tool, n), 0) - med((tool, 1), 0)) / (n - 1) * 1000 for tool in ("runner", "pw")}
        print(f"per-test cost (ms, median of {args.rounds} rounds, {n} tests):")
        print(f"  runner            {per['runner']:8.1f}")
        print(f"  pytest-playwright {per['pw']:8.1f}")
        ratio = per["runner"] / per["pw"]
        print(f"  ratio runner/pytest-playwright {ratio:.2f}  (target <= 0.50: {'met' if ratio <= 0.5 else 'NOT met'})")
    start = {tool: med((tool, 1), 1) * 1000 for tool in ("runner", "pw")}
    print(f"start-up (ms, median of {args.rounds} interleaved rounds, one test):")
    print(f"  runner run to the first test's first command  {start['runner']:6.0f}"
          f"  (target <= {STARTUP_TARGET_MS:.0f}: {'met' if start['runner'] <= STARTUP_TARGET_MS else 'NOT met'})")
    print(f"  pytest-playwright to its first test body      {start['pw']:6.0f}")
    print(f"  ratio runner/pytest-playwright {start['runner'] / start['pw']:.2f}")
    print("  each round (runner / pytest-playwright): " + ", ".join(
        f"{r[1] * 1000:.0f}/{p[1] * 1000:.0f}" for r, p in zip(results[("runner", 1)], results[("pw", 1)], strict=True)))


if __name__ == "__main__":
    main()
