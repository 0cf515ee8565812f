"""The HTML report of a large run: how long it takes to build, how big its index is, and how soon
the page is usable in Chromium.

Generates the events file of a realistic run (250 specs x 20 tests = 5,000 tests by default;
about one test in ten fails with an error, a screenshot, a Routes table and three intercepted
requests with JSON bodies; some are flaky, skipped or pending; every test has a command log),
then:

- build: ``runner report --from FILE --reporter html``'s work (read the file, build the folder),
  timed in this process;
- the page, in Chromium (Playwright, Debian's /usr/bin/chromium), over http (a local server on
  127.0.0.1) and from disk (file://): the time from the start of navigation to the list drawn on
  screen (the page's ``data-ready`` mark, then the next frame), a text filter applied and drawn,
  a status filter applied and drawn, and a failed test opened (its data file loaded, its page
  drawn). Medians of ``--rounds`` loads.

Targets (issue 12): build in seconds, usable in under 2 s.
Usage: ``.venv/bin/python bench/report_scale.py [--specs 250] [--tests 20] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import functools
import http.server
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from runner.events import (  # noqa: E402
    AttemptEnded,
    CommandEnded,
    CommandStarted,
    Event,
    RequestIntercepted,
    RunEnded,
    RunStarted,
    ScreenshotTaken,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
    dumps_event,
    read_events,
)
from runner.reporters.html import HtmlReport  # noqa: E402

_COMMANDS = [("visit", "'/shop'", None), ("intercept", "'GET', '/api/cart'", None),
             ("click", "", "get('#add')"), ("type", "'hello{enter}'", "get('input[name=q]')"),
             ("wait", "'@cart'", None), ("should", "'have.text', 'Done'", "get('.status')")]


def _events(specs: int, tests: int, screenshot: Path) -> list[Event]:
    """The events of a generated run (``screenshot``: the file every failure screenshot names)."""
    t = 1_800_000_000.0
    names = [f"area_{s // 25:02d}/feature_{s:03d}_spec.py" for s in range(specs)]
    out: list[Event] = [RunStarted(at=t, run_id="bench", runner_version="bench", browser="chromium (headless)",
                                   specs=names, browser_version="156", config={"baseUrl": "http://127.0.0.1:9"},
                                   sources={"baseUrl": "config"}, project_root="/project")]
    counts = {"passed": 0, "failed": 0, "pending": 0, "skipped": 0}
    for s, spec in enumerate(names):
        out.append(SpecStarted(at=t, spec=spec, absolute=f"/project/{spec}"))
        for n in range(tests):
            k = s * tests + n
            nodeid = f"{spec}::test_case_{n:02d}_does_the_thing_number_{k}"
            title = [f"feature {s}", f"case {n}: does the thing number {k}"]
            state = "failed" if k % 10 == 3 else "skipped" if k % 50 == 7 else "pending" if k % 97 == 5 else "passed"
            flaky = k % 33 == 1 and state == "passed"
            counts[state] += 1
            out.append(TestStarted(at=t, spec=spec, nodeid=nodeid, title=title))
            attempts = 2 if flaky else 1
            for attempt in range(1, attempts + 1):
                ok = state != "failed" and (attempt == attempts)
                for c, (name, args, subject) in enumerate(_COMMANDS, 1):
                    out.append(CommandStarted(at=t, nodeid=nodeid, id=c, name=name, args=args, subject=subject,
                                              file=f"/project/{spec}", line=10 + c, attempt=attempt))
                    t += 0.02
                    failed = not ok and c == len(_COMMANDS)
                    out.append(CommandEnded(at=t, nodeid=nodeid, id=c, name=name, state="failed" if failed else "passed",
                                            duration_ms=20, attempt=attempt,
                                            error="CommandError: Timed out retrying after 4000ms: expected "
                                                  "<div.status> to have text 'Done'" if failed else None))
                routes: list[dict[str, Any]] = []
                if not ok:
                    routes = [{"id": "route-1", "method": "GET", "matcher": '{"url": "/api/cart"}', "stubbed": True,
                               "handler": "static", "alias": "cart", "matches": 1, "times": None, "middleware": False}]
                    for r in range(3):
                        items = ",".join(f'{{"sku": "S-{i}", "qty": {i}}}' for i in range(20))
                        body = f'{{"items": [{items}], "total": {k}}}'
                        out.append(RequestIntercepted(
                            at=t, nodeid=nodeid, id=f"r{r}", method="GET", url=f"http://127.0.0.1:9/api/cart?page={r}",
                            route_ids=["route-1"], aliases=["cart"], stubbed=r == 0, state="Complete", status=200,
                            resource_type="fetch", request_headers={"accept": "application/json"},
                            response_headers={"content-type": "application/json"}, request_body_size=0,
                            response_body_size=len(body),
                            response_body={"size": len(body), "content_type": "application/json", "encoding": "utf-8",
                                           "data": body, "cut": False},
                            timings={"queued": 0.3, "handler": 1.0, "upstream": 8.0, "total": 10.0}, attempt=attempt))
                    out.append(ScreenshotTaken(at=t, nodeid=nodeid, path=str(screenshot), failure=True, attempt=attempt))
                error = None if ok else (
                    "runner = <runner>\n\n    def test_case(runner):\n        runner.visit('/shop')\n"
                    ">       runner.get('.status').should('have.text', 'Done')\nE       runner.errors.CommandError: "
                    "Timed out retrying after 4000ms: expected <div.status> to have text 'Done'\n\n"
                    f"{spec}:16: CommandError")
                out.append(AttemptEnded(
                    at=t, spec=spec, nodeid=nodeid, attempt=attempt,
                    state=("skipped" if state == "skipped" else "pending" if state == "pending"
                           else "passed" if ok else "failed"),
                    duration_ms=120, error=error, error_type=None if ok else "CommandError",
                    message=None if ok else "CommandError: Timed out retrying after 4000ms: expected <div.status> "
                    "to have text 'Done'", screenshots=[] if ok else [str(screenshot)], routes=routes))
            out.append(TestEnded(at=t, spec=spec, nodeid=nodeid, title=title, state=state, duration_ms=120 * attempts,
                                 attempts=attempts, flaky=flaky))
        out.append(SpecEnded(at=t, spec=spec, duration_ms=tests * 120))
    out.append(RunEnded(at=t, duration_ms=(t - 1_800_000_000.0) * 1000, tests=specs * tests, passed=counts["passed"],
                        failed=counts["failed"], pending=counts["pending"], skipped=counts["skipped"]))
    return out


def _build(events_file: Path, target: Path) -> float:
    started = time.perf_counter()
    report = HtmlReport(target)
    for event in read_events(events_file):
        report(event)
    report.finish()
    return time.perf_counter() - started


_MEASURE = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  await frame();
  const ready = performance.now();
  const filter = document.getElementById('filter');
  let t = performance.now();
  filter.value = 'number 4321'; filter.dispatchEvent(new Event('input'));
  await frame(); await frame();
  const text = performance.now() - t;
  const shown = document.querySelectorAll('#list .row:not([hidden])').length;
  filter.value = ''; filter.dispatchEvent(new Event('input')); await frame(); await frame();
  t = performance.now();
  document.querySelector('#statusFilters button[data-status=failed]').click();
  await frame();
  const status = performance.now() - t;
  const failed = document.querySelectorAll('#list .row:not([hidden])').length;
  t = performance.now();
  document.querySelector('#list .row.s-failed').click();
  while (!document.querySelector('#detail table.commands')) { await new Promise(r => setTimeout(r, 5)); }
  await frame();
  const open = performance.now() - t;
  return {ready, text, shown, status, failed, open};
}"""


def _page_times(url: str, rounds: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    results: list[dict[str, float]] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(rounds):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(url)
                page.wait_for_selector("html[data-ready]", timeout=30_000)
                results.append(page.evaluate(_MEASURE))
                page.close()
        finally:
            browser.close()
    return {key: statistics.median(r[key] for r in results) for key in results[0]}


def _serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--specs", type=int, default=250)
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="report-scale-"))
    try:
        shot = work / "failure.png"
        shot.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 2000)
        events = _events(args.specs, args.tests, shot)
        events_file = work / "events.jsonl"
        events_file.write_text("".join(dumps_event(e) + "\n" for e in events), encoding="utf-8")
        tests = args.specs * args.tests
        print(f"{tests} tests in {args.specs} specs: {len(events)} events, "
              f"events file {events_file.stat().st_size / 1e6:.1f} MB")
        builds = [_build(events_file, work / f"report-{i}") for i in range(3)]
        folder = work / "report-0"
        index = (folder / "data" / "index.js").stat().st_size
        total = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        files = sum(1 for f in folder.rglob("*") if f.is_file())
        print(f"build (read the events file, write the report): median {statistics.median(builds):.2f} s "
              f"of {', '.join(f'{b:.2f}' for b in builds)}  target: seconds")
        print(f"index data/index.js: {index / 1024:.0f} KB; whole report {total / 1e6:.1f} MB in {files} files")
        server, url = _serve(folder)
        try:
            for where, address in (("http", url), ("file://", (folder / "index.html").as_uri())):
                times = _page_times(address, args.rounds)
                print(f"{where}: list drawn {times['ready']:.0f} ms after navigation start (target < 2000); "
                      f"text filter {times['text']:.0f} ms ({times['shown']:.0f} shown); status filter "
                      f"{times['status']:.0f} ms ({times['failed']:.0f} failed); a failed test opened in "
                      f"{times['open']:.0f} ms  (medians of {args.rounds})")
        finally:
            server.shutdown()
            server.server_close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
