"""Cost of runner.intercept(), as ratios against fetches with no intercept, measured in one run.

Every figure is the median of many sequential ``fetch()`` calls made by the page (or the load time
of a page), with the scenarios interleaved round by round so that both sides of each ratio see
the same machine. Targets (issue 26, and issue 4's for what issue 26 does not name):

  no intercept defined         <= 1.05x of no intercept   (define nothing, pay nothing)
  spy                          <= 1.1x  of no intercept (defined once the page loaded: it
                                        listens for the server's 304s at once; and defined
                                        before the visit, the usual order, where it listens
                                        only once a response carries a validator)
  static stub                  <= 1.1x  of Playwright's own route.fulfill of the same response
  response handler             <= 2.5x  of no intercept, and
                               <= 1.2x  of Playwright's own route.fetch + route.fulfill
  1 MiB response modification  <= 3x of the plain 1 MiB fetch
  50 parallel spied fetches    <= 1.5x of the un-intercepted batch
  page of 1000 images, spied   <= 1.5x of the plain page

Reference rows (no target): Playwright's own fulfill and fetch+fulfill against no intercept, the
stub against no intercept, the static stub with the CORS preflight guard disarmed
(engine/preflights.py) against Playwright's fulfill (the guard pauses no same-origin fetch of a
page without frames; what is left between the two is that a second interceptor is enabled on the
page at all, about 0.15 ms a request, measured with patterns that match nothing), and
Playwright's public request, response and requestfinished listeners doing nothing: what hearing
of every request costs through Playwright's public API (runner's spy listens under it, through
``engine/request_events.py``, and costs less).

Each sequential figure is the mean of the middle 80% of the fetches' times (a median moves in
steps of the 0.1 ms to which the page's clock is coarsened).

A last line gives runner's process CPU per fetch of each scenario (Python's side only): on a
machine that other work keeps busy it moves less than the times do.

The HTTP server runs in a child process (bench/intercept_server.py), as a real app's server does:
served from threads of this process, it waited for the GIL whenever runner's engine thread held
it, so runner's Python work was charged twice (once in the engine, once more as a slower server),
and the CPU line counted the server's work as runner's. ``--server thread`` serves from threads
of this process as the bench did before, to compare the two.

Usage: ``.venv/bin/python bench/intercept.py [--fetches 300] [--rounds 5] [--small] [--server thread]``
(``--small``: only the small-response rows, for a quick look).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import intercept_server  # noqa: E402
from tests.support.servers import TestServer  # noqa: E402

from runner.run.session import RunSession  # noqa: E402

SEQUENTIAL = """async ([url, n]) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fetch(url + (url.includes('?') ? '&' : '?') + 'i=' + i, {cache: 'no-store'});
    await r.arrayBuffer();
    times.push(performance.now() - t);
  }
  // the mean of the middle 80%: performance.now() is coarsened to 0.1 ms in a page that is not
  // cross-origin isolated, so a median of single fetches moves in steps of 6% of a 1.6 ms fetch
  times.sort((a, b) => a - b);
  const cut = Math.floor(times.length / 10);
  const middle = times.slice(cut, times.length - cut);
  return middle.reduce((a, b) => a + b, 0) / middle.length;
}"""

PARALLEL = """async ([url, n]) => {
  const t = performance.now();
  await Promise.all(Array.from({length: n}, (_, i) =>
    fetch(url + '?p=' + i + '&r=' + Math.random(), {cache: 'no-store'}).then(r => r.arrayBuffer())));
  return performance.now() - t;
}"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fetches", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--small", action="store_true", help="only the small-response rows")
    parser.add_argument("--server", choices=("process", "thread"), default="process",
                        help="serve from a child process (the default: as an app's server) or from "
                             "threads of this process (as the bench did before)")
    args = parser.parse_args()

    stop: Callable[[], None]
    if args.server == "thread":
        server = TestServer()
        intercept_server.serve_routes(server)
        url, stop = server.url, server.close
    else:
        child, url = intercept_server.start()
        stop = lambda: intercept_server.stop(child)  # noqa: E731

    try:
        with tempfile.TemporaryDirectory() as tmp:
            session = RunSession.create(root=tmp, config_file=False, load_plugins=False, mode="pytest")
            try:
                run(session, url, args)
            finally:
                session.close()
    finally:
        stop()


def run(session: RunSession, base_url: str, args: Any) -> None:
    config = session.config
    samples: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}  # runner's process CPU per fetch: steadier than time on a busy machine

    def measure(name: str, setup: Callable[[Any], Any], script: str, url: str, n: int,
                before_visit: bool = False) -> None:
        """``setup`` defines the routes once the page loaded, or, with ``before_visit``, before
        the visit (the usual order in a test); what it returns, when callable, undoes it."""
        runner = session.begin_test(config, spec_relative="bench", title=name)
        undo = None
        try:
            if before_visit:
                undo = setup(runner)
            runner.visit(base_url + "/app")
            if not before_visit:
                undo = setup(runner)
            used = time.process_time()
            value = runner._ctx.run(runner._ctx.browser.page.evaluate(script, [url, n]), 600_000)
            cpu.setdefault(name, []).append((time.process_time() - used) * 1000 / n)
        finally:
            if callable(undo):
                undo()
            session.end_test()
        samples.setdefault(name, []).append(float(value))

    def page_load(name: str, setup: Callable[[Any], None]) -> None:
        runner = session.begin_test(config, spec_relative="bench", title=name)
        try:
            setup(runner)
            started = time.perf_counter()
            runner.visit(base_url + "/images")
            samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)
        finally:
            session.end_test()

    def nothing(runner: Any) -> None:
        pass

    def modify(req: Any) -> None:
        def change(res: Any) -> None:
            res.headers["x-bench"] = "1"

        req.continue_(change)

    def modify_big(req: Any) -> None:
        def change(res: Any) -> None:
            res.body = res.body[:-2] + b', "extra": 1}' if isinstance(res.body, bytes) else {**res.body, "extra": 1}

        req.continue_(change)

    def raw_route(kind: str) -> Callable[[Any], None]:
        """Playwright's own route on the same page, for reference (the floor under runner)."""
        async def fulfill(route: Any) -> None:
            await route.fulfill(status=200, body='{"ok": true}', content_type="application/json")

        async def modify(route: Any) -> None:
            response = await route.fetch()
            body = await response.body()
            await route.fulfill(response=response, body=body[:-2] + b', "extra": 1}')

        async def add_header(route: Any) -> None:  # what `modify` does to the small response
            response = await route.fetch()
            await route.fulfill(response=response, headers={**response.headers, "x-bench": "1"})

        handler = {"fulfill": fulfill, "fetch+fulfill": modify, "fetch+header": add_header}[kind]

        def setup(runner: Any) -> None:
            page = runner._ctx.browser.page
            runner._ctx.run(page.route("**/*", handler))
            runner._ctx.browser._routed = True  # so the next reset unroutes it

        return setup

    def listeners(runner: Any) -> Callable[[], None]:
        """Playwright's public request, response and requestfinished listeners that do nothing:
        what hearing of every request costs through Playwright's public API."""
        page = runner._ctx.browser.page
        events = ("request", "response", "requestfinished")

        def nothing_heard(_: Any) -> None:
            pass

        async def listen(on: bool) -> None:
            for event in events:
                (page.on if on else page.remove_listener)(event, nothing_heard)

        runner._ctx.run(listen(True))
        return lambda: runner._ctx.run(listen(False))

    def stub_without_preflights(runner: Any) -> None:
        """A static stub with the preflight guard disarmed (preflights.py): what it costs."""
        runner.intercept("/small*", {"body": {"ok": True}})
        browser = runner._ctx.browser
        runner._ctx.run(browser.preflights.disarm())

    small = base_url + "/small"
    big = base_url + "/big"
    n = args.fetches
    for _ in range(args.rounds):
        measure("plain", nothing, SEQUENTIAL, small, n)
        measure("nothing defined", nothing, SEQUENTIAL, small, n)
        measure("spy", lambda r: r.intercept("/small*").as_("s"), SEQUENTIAL, small, n)
        measure("spy, defined before the visit", lambda r: r.intercept("/small*").as_("s"), SEQUENTIAL, small, n,
                before_visit=True)
        measure("static stub", lambda r: r.intercept("/small*", {"body": {"ok": True}}), SEQUENTIAL, small, n)
        measure("static stub, no preflight guard", stub_without_preflights, SEQUENTIAL, small, n)
        measure("response handler", lambda r: r.intercept("/small*", modify), SEQUENTIAL, small, n)
        measure("playwright fulfill", raw_route("fulfill"), SEQUENTIAL, small, n)
        measure("playwright fetch+fulfill", raw_route("fetch+header"), SEQUENTIAL, small, n)
        measure("playwright listeners", listeners, SEQUENTIAL, small, n)
        if args.small:
            continue
        measure("1 MiB plain", nothing, SEQUENTIAL, big, max(10, n // 20))
        measure("1 MiB playwright fetch+fulfill", raw_route("fetch+fulfill"), SEQUENTIAL, big, max(10, n // 20))
        measure("1 MiB modified", lambda r: r.intercept("/big*", modify_big), SEQUENTIAL, big, max(10, n // 20))
        measure("50 parallel plain", nothing, PARALLEL, small, 50)
        measure("50 parallel spied", lambda r: r.intercept("/small*").as_("s"), PARALLEL, small, 50)
        page_load("1000 images plain", nothing)
        page_load("1000 images spied", lambda r: r.intercept("/pixel.png*").as_("img"))

    med = {k: statistics.median(v) for k, v in samples.items()}
    # (label, scenario, baseline, target); a target of 0 marks a reference row
    rows = [
        ("no intercept defined", "nothing defined", "plain", 1.05),
        ("spy", "spy", "plain", 1.1),
        ("spy, defined before the visit", "spy, defined before the visit", "plain", 1.1),
        ("  (Playwright's public listeners)", "playwright listeners", "plain", 0.0),
        ("static stub vs PW fulfill", "static stub", "playwright fulfill", 1.1),
        ("  (stub, guard off, vs PW fulfill)", "static stub, no preflight guard", "playwright fulfill", 0.0),
        ("  (static stub)", "static stub", "plain", 0.0),
        ("  (Playwright's own fulfill)", "playwright fulfill", "plain", 0.0),
        ("response handler", "response handler", "plain", 2.5),
        ("response handler vs PW fetch+fulfill", "response handler", "playwright fetch+fulfill", 1.2),
        ("  (Playwright's fetch+fulfill)", "playwright fetch+fulfill", "plain", 0.0),
        ("1 MiB response modification", "1 MiB modified", "1 MiB plain", 3.0),
        ("  (Playwright's fetch+fulfill, 1 MiB)", "1 MiB playwright fetch+fulfill", "1 MiB plain", 0.0),
        ("50 parallel spied fetches", "50 parallel spied", "50 parallel plain", 1.5),
        ("page of 1000 images, spied", "1000 images spied", "1000 images plain", 1.5),
    ]
    where = "a child process" if args.server == "process" else "threads of this process"
    print(f"runner.intercept() cost, medians over {args.rounds} interleaved rounds ({n} fetches each; "
          f"the server in {where})")
    print(f"  {'scenario':38}{'ms':>9}{'baseline ms':>13}{'ratio':>8}{'target':>8}  verdict")
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    for label, name, base, target in rows:
        if name not in med:
            continue  # --small
        ratio = med[name] / med[base]
        if not target:  # a reference row: no target of ours
            print(f"  {label:38}{med[name]:9.2f}{med[base]:13.2f}{ratio:8.2f}{'':>8}  reference")
            continue
        verdict = "met" if ratio <= target else "NOT met"
        print(f"  {label:38}{med[name]:9.2f}{med[base]:13.2f}{ratio:8.2f}{target:8.2f}  {verdict}")
    print("runner's process CPU per fetch (ms; Python's side only, Playwright's driver and Chromium not counted):")
    print("  " + ", ".join(f"{name} {ms:.2f}" for name, ms in cpu_med.items() if "parallel" not in name))


if __name__ == "__main__":
    main()
