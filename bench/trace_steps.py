"""Cost of the DOM snapshot that closes the trace step of a command making no browser call.

A traced command that makes no browser call (``wait``, ``intercept``, ``fixture``, ...) ends its
step with an evaluation of nothing, whose DOM snapshot is the page when the command ended (so
that time travel's "after" is that page). Timed here on one browser, in one trace, rounds
interleaved: a step opened and closed as before (no snapshot), and one closed with the snapshot,
on a page of ``--items`` list items; printed: the median per-step time of each and the difference.

Usage: ``.venv/bin/python bench/trace_steps.py [--steps 50] [--rounds 7] [--items 200]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runner.engine.browser import BrowserSession, LaunchOptions  # noqa: E402
from runner.engine.discovery import find_browser  # noqa: E402


async def run(args: argparse.Namespace) -> None:
    s = BrowserSession(LaunchOptions(browser=find_browser()))
    await s.start()
    times: dict[bool, list[float]] = {False: [], True: []}
    try:
        assert s.page is not None
        items = "".join(f"<li>user {i}</li>" for i in range(args.items))
        await s.page.set_content(f"<html><body><h1>Users</h1><ul>{items}</ul></body></html>")
        await s.start_trace("bench", screenshots=False)
        for _round in range(args.rounds + 1):  # the first round warms up
            for snapshot in (False, True):
                started = time.perf_counter()
                for _ in range(args.steps):
                    await s.trace_step("wait 0ms", __file__, 1)
                    await s.trace_step_end(snapshot=snapshot)
                if _round:
                    times[snapshot].append((time.perf_counter() - started) * 1000 / args.steps)
        await s.stop_trace(None)
    finally:
        await s.close()
    plain, snap = statistics.median(times[False]), statistics.median(times[True])
    print(f"A trace step, {args.steps} steps x {args.rounds} interleaved rounds, a page of {args.items} items "
          f"(median ms a step)")
    print(f"  closed as before:            {plain:6.2f}")
    print(f"  closed with a DOM snapshot:  {snap:6.2f}   (+{snap - plain:.2f} ms a pageless command)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--items", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
