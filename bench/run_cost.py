"""Per-test cost and start-up time of ``runner run`` against pytest + pytest-playwright.

Both run the same trivial test (visit a page served on 127.0.0.1, one assertion) in the same
process layout, side by side, on the same browser executable. Printed:

* per-test cost: (time for N tests - time for 1 test) / (N - 1), for each tool, and the ratio
  runner / pytest-playwright (target: at most 0.5);
* start-up: from process start to the first test body (target: runner below pytest-playwright).

Usage: ``.venv/bin/python bench/run_cost.py [--tests 40] [--rounds 3]``
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


def playwright_project(root: Path, url: str, n: int, stamp: Path, executable: str,
                       body: str = PLAYWRIGHT_BODY) -> Path:
    """The same tests under pytest-playwright, on the same browser executable."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "conftest.py").write_text(textwrap.dedent(f"""
        import pytest

        @pytest.fixture(scope="session")
        def browser_type_launch_args(browser_type_launch_args):
            return {{**browser_type_launch_args, "executable_path": {executable!r},
                    "args": ["--disable-gpu", "--no-first-run", "--disable-background-networking"]}}
    """))
    head = f"from playwright.sync_api import expect\n\nURL = {url!r}"
    (root / "test_bench.py").write_text(_spec(n, stamp, "page", body, head))
    return root


def timed(cmd: list[str], cwd: Path, stamp: Path) -> tuple[float, float]:
    """(whole run seconds, seconds from start to the first test body)."""
    if stamp.exists():
        stamp.unlink()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNNER_")}
    started = time.time()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, env=env)
    total = time.time() - started
    if done.returncode != 0:
        raise SystemExit(f"benchmark run failed: {' '.join(cmd)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    first = float(stamp.read_text()) - started
    return total, first


def command(root: Path, *, playwright: bool) -> list[str]:
    """The run of the project at ``root``: ``runner run``, or pytest for a pytest-playwright one."""
    if playwright:
        return [str(BIN / "pytest"), "-q", "-p", "no:cacheprovider", "-p", "no:runner-e2e",
                str(root / "test_bench.py")]
    return [str(BIN / "runner"), "run", "--project", str(root)]


def measure(projects: dict[K, Path], rounds: int, stamp: Path,
            playwright: Callable[[K], bool]) -> dict[K, list[tuple[float, float]]]:
    """Run every project ``rounds`` times, interleaved (every project sees the same machine
    state): each run's (whole seconds, seconds to the first test body)."""
    results: dict[K, list[tuple[float, float]]] = {key: [] for key in projects}
    for _ in range(rounds):
        for key, root in projects.items():
            results[key].append(timed(command(root, playwright=playwright(key)), root, stamp))
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from runner.engine.discovery import find_browser

    executable = find_browser().path
    with serving() as server, tempfile.TemporaryDirectory() as tmp:
        server.page("/page", PAGE)
        base = Path(tmp)
        stamp = base / "stamp"
        projects = {}
        for n in (1, args.tests):
            projects[("runner", n)] = runner_project(base / f"r{n}", server.url, n, stamp)
            projects[("pw", n)] = playwright_project(base / f"p{n}", server.url, n, stamp, executable)
        results = measure(projects, args.rounds, stamp, playwright=lambda key: key[0] == "pw")

    def med(key: tuple[str, int], idx: int) -> float:
        return statistics.median(r[idx] for r in results[key])

    n = args.tests
    per = {tool: (med((tool, n), 0) - med((tool, 1), 0)) / (n - 1) * 1000 for tool in ("runner", "pw")}
    start = {tool: med((tool, 1), 1) * 1000 for tool in ("runner", "pw")}
    print(f"per-test cost (ms, median of {args.rounds} rounds, {n} tests):")
    print(f"  runner            {per['runner']:8.1f}")
    print(f"  pytest-playwright {per['pw']:8.1f}")
    ratio = per["runner"] / per["pw"]
    print(f"  ratio runner/pytest-playwright {ratio:.2f}  (target <= 0.50: {'met' if ratio <= 0.5 else 'NOT met'})")
    print("start-up to the first test body (ms):")
    print(f"  runner            {start['runner']:8.0f}")
    print(f"  pytest-playwright {start['pw']:8.0f}")
    ok = start["runner"] < start["pw"]
    print(f"  ratio runner/pytest-playwright {start['runner'] / start['pw']:.2f}  (target < 1.00: {'met' if ok else 'NOT met'})")


if __name__ == "__main__":
    main()
