"""Per-test cost of the ways to give each test a trace of its own, side by side in one run.

Playwright's tracing of a browser context keeps the context's network log (and the response
bodies it names) from one chunk to the next, so a trace made as a chunk of a context that served
earlier tests holds their requests too. The ways out, each timed on the same test (reset the page,
open the trace, visit a page on 127.0.0.1 that fetches a JSON unique to the test, wait for it to
show, click a button, close the trace) on one browser, rounds interleaved:

- ``chunk``: the old way (tracing started once on the one context, a chunk per test);
- ``restart``: tracing started and stopped per test on the one context (reset between tests);
- ``context``: a new context and page per test (closed and made anew instead of the reset), traced;
- ``off``: the reset and the test, untraced (the floor).

Each traced way is run with every trace written (``"on"``) and every trace discarded (what the
default costs a passing test). Printed: the median per-test time of each and of its reset and
trace calls alone, each with the median of its per-round ratio to ``chunk`` (same traces kept;
``off`` to ``chunk`` discarded), and the requests and size of the last test's trace (the test's
own requests are 2: its page and its JSON; ``chunk``'s grow with the tests of the round). A last check tells what a test finds of the one before it (cookie, local storage,
CacheStorage, service worker) after the reset and after a new context.

Usage: ``.venv/bin/python bench/trace_isolation.py [--tests 20] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.servers import TestServer  # noqa: E402

from runner.engine.browser import BrowserSession, LaunchOptions  # noqa: E402
from runner.engine.discovery import find_browser  # noqa: E402

PAGE = """<html><body><h1>-</h1><button id='b' onclick="this.textContent='done'">go</button><script>
const n = new URLSearchParams(location.search).get('n');
fetch('/data?n=' + n).then(r => r.json()).then(j => { document.querySelector('h1').textContent = j.n; });
</script></body></html>"""
# what a test leaves behind, and what the next one finds of it
LEAVE = """async () => {
  document.cookie = 'left=1; max-age=3600';
  localStorage.setItem('left', '1');
  await (await caches.open('left')).put('/left', new Response('x'));
  await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
}"""
FIND = """async () => ({
  cookie: document.cookie.includes('left=1'),
  localStorage: localStorage.getItem('left') === '1',
  cacheStorage: (await caches.keys()).includes('left'),
  serviceWorker: (await navigator.serviceWorker.getRegistrations()).length > 0,
})"""
VIEWPORT = (1000, 660)


class Way:
    """One way of tracing each test: ``begin`` before the test, ``end`` after it."""

    def __init__(self, name: str, keep: bool, tmp: Path) -> None:
        self.name, self.keep, self.tmp = name, keep, tmp
        self.started_on: Any = None  # chunk: the context tracing was started on
        self.last_trace: Path | None = None
        self.count = 0

    async def begin(self, s: BrowserSession) -> None:
        if self.name == "context":
            assert s.context is not None
            await s.context.close()
            await s._new_context()
        else:
            await s.reset(VIEWPORT)
        assert s.context is not None
        tracing = s.context.tracing
        if self.name == "chunk":
            if self.started_on is not s.context:
                await tracing.start(snapshots=True, screenshots=False, sources=True)
                self.started_on = s.context
            else:
                await tracing.start_chunk()
        elif self.name in ("restart", "context"):
            await tracing.start(snapshots=True, screenshots=False, sources=True)

    async def end(self, s: BrowserSession) -> None:
        assert s.context is not None
        self.count += 1
        path = self.tmp / f"{self.name}-{self.keep}-{self.count}.zip" if self.keep else None
        tracing = s.context.tracing
        if self.name == "chunk":
            await tracing.stop_chunk(path=path)
        elif self.name in ("restart", "context"):
            await tracing.stop(path=path)
        if path is not None:
            self.last_trace = path

    async def leave(self, s: BrowserSession) -> None:
        """The next way's tests come: stop what this one left running (not timed)."""
        if self.started_on is not None and s.context is self.started_on:
            await s.context.tracing.stop()
        self.started_on = None
        s._fresh = False  # a context made anew would let the next way's first test skip its reset


async def one_test(s: BrowserSession, url: str, n: int) -> None:
    page = s.page
    assert page is not None
    await page.goto(f"{url}/page?n={n}")
    await page.locator("h1", has_text=f"body-{n}").wait_for(timeout=5000)
    await page.click("#b")


def requests_in(trace: Path) -> int:
    with zipfile.ZipFile(trace) as archive:
        lines = archive.read("trace.network").decode().splitlines()
    return sum(1 for line in lines if json.loads(line).get("type") == "resource-snapshot")


async def leftovers(s: BrowserSession, url: str, fresh: str) -> dict[str, bool]:
    """Leave a cookie, local storage, a cache entry and a service worker; clean up as ``fresh``
    says (the reset, or a new context); tell what the next test finds."""
    await s.reset(VIEWPORT)  # a page made anew skips its next reset (_fresh): this one is used
    assert s.page is not None
    await s.page.goto(f"{url}/blank")
    await s.page.evaluate(LEAVE)
    if fresh == "context":
        assert s.context is not None
        await s.context.close()
        await s._new_context()
    else:
        await s.reset(VIEWPORT)
    await s.page.goto(f"{url}/blank")
    found: dict[str, bool] = await s.page.evaluate(FIND)
    return found


async def run(args: argparse.Namespace, url: str, tmp: Path) -> None:
    s = BrowserSession(LaunchOptions(browser=find_browser()))
    await s.start()
    ways = [Way("off", False, tmp)] + [Way(name, keep, tmp) for name in ("chunk", "restart", "context")
                                       for keep in (True, False)]
    keys = [(w.name, w.keep) for w in ways]
    whole: dict[tuple[str, bool], list[float]] = {k: [] for k in keys}  # ms a test, a value a round
    around: dict[tuple[str, bool], list[float]] = {k: [] for k in keys}  # of it: the reset and the trace
    serial = 0
    try:
        for _warm in range(3):
            for way in ways:
                await way.begin(s)
                serial += 1
                await one_test(s, url, serial)
                await way.end(s)
                await way.leave(s)
        for _round in range(args.rounds):
            for way in ways:
                spent = 0.0
                started = time.perf_counter()
                for _ in range(args.tests):
                    mark = time.perf_counter()
                    await way.begin(s)
                    spent += time.perf_counter() - mark
                    serial += 1
                    await one_test(s, url, serial)
                    mark = time.perf_counter()
                    await way.end(s)
                    spent += time.perf_counter() - mark
                whole[(way.name, way.keep)].append((time.perf_counter() - started) * 1000 / args.tests)
                around[(way.name, way.keep)].append(spent * 1000 / args.tests)
                await way.leave(s)
        found = {fresh: await leftovers(s, url, fresh) for fresh in ("reset", "context")}
    finally:
        await s.close()

    def ratio(key: tuple[str, bool], of: dict[tuple[str, bool], list[float]]) -> float:
        """The median over rounds of the round's ratio to the old way (``chunk``, same traces kept)."""
        base = ("chunk", key[1]) if key[0] != "off" else ("chunk", False)
        return statistics.median(a / b for a, b in zip(of[key], of[base], strict=True))

    print(f"Per-test cost of a trace of its own: {args.tests} tests x {args.rounds} interleaved rounds; "
          f"medians; ratios are per round, to chunk with the same traces kept")
    print(f"{'way':<9} {'traces':<10} {'ms/test':>8} {'ratio':>6} {'reset+trace ms':>15} {'ratio':>6} "
          f"{'last trace: requests':>21} {'KB':>6}")
    for way in ways:
        key = (way.name, way.keep)
        kept = "off" if way.name == "off" else ("written" if way.keep else "discarded")
        last = way.last_trace
        requests = str(requests_in(last)) if last is not None else "-"
        size = f"{last.stat().st_size / 1024:.1f}" if last is not None else "-"
        print(f"{way.name:<9} {kept:<10} {statistics.median(whole[key]):>8.1f} {ratio(key, whole):>6.2f} "
              f"{statistics.median(around[key]):>15.1f} {ratio(key, around):>6.2f} {requests:>21} {size:>6}")
    print("What a test finds of the one before it (True: left behind):")
    for fresh, what in found.items():
        print(f"  after {'the reset' if fresh == 'reset' else 'a new context'}: {what}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    server = TestServer()
    server.page("/page", PAGE)
    server.page("/blank", "<html><body>blank</body></html>")
    server.route("/sw.js", lambda h: h.send(200, "self.addEventListener('fetch', () => {});",
                                             content_type="application/javascript"))
    server.route("/data", lambda h: h.send(200, json.dumps({"n": f"body-{h.query['n']}"}),
                                           content_type="application/json"))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(run(args, server.url, Path(tmp)))
    finally:
        server.close()


if __name__ == "__main__":
    main()
