"""Per-test cost of Playwright tracing in ``runner run``, against pytest + pytest-playwright.

The same trivial test (visit a page served on 127.0.0.1, click a button, assert its text) is run
N times, side by side, with ``trace`` set to ``off``, ``retain-on-failure`` (the default; every
test passes, so no trace is kept), ``on`` (every trace written) and ``on`` with
``traceScreenshots``, and once by pytest-playwright (untraced) for reference. Printed: the
per-test cost of each, (time for N tests - time for 1 test) / (N - 1), and its ratio to
pytest-playwright's (the default must stay at or under 0.5).

Usage (needs pytest-playwright, as ``run_cost.py`` does; ``/work/bench-venv`` has it):
``PYTHONPATH=src /work/bench-venv/bin/python bench/trace_cost.py [--tests 40] [--rounds 2]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_cost import measure, playwright_project, runner_project  # noqa: E402
from tests.support.servers import serving  # noqa: E402

PAGE = ("<html><head><title>Bench</title></head><body>"
        "<button id='b' onclick=\"this.textContent='done'\">go</button></body></html>")

#: name -> the runner.json values of that variant
VARIANTS = {
    "off": {"trace": "off"},
    "retain-on-failure": {"trace": "retain-on-failure"},
    "on": {"trace": "on"},
    "on+screenshots": {"trace": "on", "traceScreenshots": True},
}


#: The traced test: visit, click, assert.
RUNNER_CLICK = """
    runner.visit("/page")
    runner.get("#b").click()
    runner.get("#b").should("have.text", "done")
"""
PLAYWRIGHT_CLICK = """
    page.goto(URL + "/page")
    page.click("#b")
    expect(page.locator("#b")).to_have_text("done")
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from runner.engine.discovery import find_browser

    executable = find_browser().path
    with serving() as server, tempfile.TemporaryDirectory() as tmp:
        server.page("/page", PAGE)
        base = Path(tmp)
        stamp = base / "stamp"
        projects: dict[tuple[str, int], Path] = {}
        for n in (1, args.tests):
            for name, values in VARIANTS.items():
                projects[(name, n)] = runner_project(base / f"{name}-{n}", server.url, n, stamp, values,
                                                         RUNNER_CLICK)
            projects[("pytest-playwright", n)] = playwright_project(base / f"pw-{n}", server.url, n, stamp,
                                                                    executable, PLAYWRIGHT_CLICK)

        runs = measure(projects, args.rounds, stamp, playwright=lambda key: key[0] == "pytest-playwright")
        results = {key: [whole for whole, _first in times] for key, times in runs.items()}
        kept = {name: sum(1 for _ in (base / f"{name}-{args.tests}").rglob("*.zip")) for name in VARIANTS}
        sizes = [p.stat().st_size for p in (base / f"on-{args.tests}").rglob("*.zip")]

    n = args.tests

    def per_test(name: str) -> float:
        return (statistics.median(results[(name, n)]) - statistics.median(results[(name, 1)])) / (n - 1) * 1000

    reference = per_test("pytest-playwright")
    print(f"per-test cost (ms, median of {args.rounds} rounds, {n} tests: visit, click, assert):")
    for name in [*VARIANTS, "pytest-playwright"]:
        cost = per_test(name)
        traces = f"  ({kept[name]} traces kept)" if name in kept else ""
        print(f"  {name:<20}{cost:8.1f}   {cost / reference:5.2f}x pytest-playwright{traces}")
    if sizes:
        print(f"trace size with trace 'on': median {statistics.median(sizes) / 1024:.1f} KB")
    default = per_test("retain-on-failure") / reference
    print(f"default (retain-on-failure) ratio {default:.2f}  (target <= 0.50: {'met' if default <= 0.5 else 'NOT met'})")


if __name__ == "__main__":
    main()
