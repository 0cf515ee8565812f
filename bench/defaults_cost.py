"""Per-test cost of ``runner run`` with its defaults on, on a realistic page, against pytest-playwright.

The page the bench serves on 127.0.0.1 is a small single-page app: 2 stylesheets and 3 scripts,
4 images, and 10 ``fetch`` calls whose JSON its script renders as lists; a button fetches once
more and renders 5 items more. The test visits it, waits for the lists, clicks the button and
checks the rendered text, written once for runner and once for pytest-playwright (a new context
and page per test, no video, no trace: its defaults), run side by side on the same Chromium.

Printed, per test, as (time for N tests - time for 1 test) / (N - 1) with the medians of
interleaved rounds: pytest-playwright; ``runner run`` with every default on (``video``, ``trace:
"retain-on-failure"``, the HTML report, the events file, failure screenshots); runner with each
of those off in turn, and with all of them off; each one's ratio to pytest-playwright (target:
every default on at most 0.5) and each default's own cost (all on minus that one off).

Three reference rows give the floor under every runner, each a script of Playwright's alone on
one page kept from test to test, with nothing between the tests (no pytest, no new context, no
reset, no video): the page's own work (the visit and the click, each followed by one in-page
wait for what it renders: a few round trips in all), which no runner that loads the page and
clicks can go below; the same test body as pytest-playwright's; and that body inside Playwright's
trace with DOM snapshots (as runner's traces have them), started before each test and discarded
after it: what the trace itself costs, whoever records it. The bench says whether the target is
below the page's own work, and below the page's own work with the trace's own cost added (every
default on includes the trace). The same
table is printed a second time for CPU time: the user + system time of each run's processes (read
from the run's ``wait4``; runner or pytest, Playwright's driver, the browser's processes and ffmpeg
as far as they are waited for), which a machine shared with other work disturbs far less than
the wall time.

Usage: ``.venv/bin/python bench/defaults_cost.py [--tests 20] [--rounds 3] [--only all,video-off]
[--before SRC]`` (needs pytest-playwright: ``.venv/bin/pip install -e '.[bench]'``). ``--before``
runs each runner variant a second time, interleaved, with the runner package of another source
tree (``git archive main src | tar -x -C /tmp/base``, then ``--before /tmp/base/src``): a change's
before and after, side by side in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_cost import PLAYWRIGHT_ARGS, _spec, command, playwright_project  # noqa: E402
from tests.support.servers import Handler, TestServer, serving  # noqa: E402

SECTIONS = 10  # fetch calls made when the page loads

APP = """<!doctype html>
<html><head><title>Shop</title>
<link rel="stylesheet" href="/static/base.css"><link rel="stylesheet" href="/static/theme.css">
<script src="/static/vendor.js"></script><script src="/static/util.js"></script>
</head><body>
<header><img src="/img/logo.png" alt="logo"><h1>Shop</h1><p id="status">Loading</p></header>
<nav><img src="/img/a.png" alt="a"><img src="/img/b.png" alt="b"><img src="/img/c.png" alt="c"></nav>
<main id="sections"></main>
<button id="more">More</button><ul id="extra"></ul>
<script src="/static/app.js"></script>
</body></html>"""

APP_JS = """
(async () => {
  const main = document.getElementById('sections');
  const parts = await Promise.all(Array.from({length: SECTIONS}, (_, i) =>
    fetch('/api/section/' + i).then(r => r.json())));
  for (const part of parts) {
    const section = document.createElement('section');
    section.innerHTML = '<h2>' + util.escape(part.title) + '</h2><ul>' +
      part.items.map(item => '<li class="item"><b>' + util.escape(item.name) + '</b> ' +
                     util.escape(item.price) + '</li>').join('') + '</ul>';
    main.appendChild(section);
  }
  document.getElementById('status').textContent = 'Loaded ' + parts.length + ' sections';
  document.getElementById('more').addEventListener('click', async () => {
    const more = await (await fetch('/api/more')).json();
    document.getElementById('extra').innerHTML =
      more.map(name => '<li>' + util.escape(name) + '</li>').join('');
  });
})();
""".replace("SECTIONS", str(SECTIONS))

UTIL_JS = """
window.util = {escape: s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'})[c])};
"""

#: A script of some weight, as a framework bundle would be (parsed and run on every visit).
VENDOR_JS = "window.vendor = {};\n" + "".join(
    f"window.vendor.f{i} = function (a, b) {{ var x = a * {i} + b; return x.toString(16) + '{'v' * 40}'; }};\n"
    for i in range(1500))

BASE_CSS = "body{font-family:sans-serif;margin:0}header{display:flex;gap:8px;padding:8px;background:#eef}" + "".join(
    f".c{i}{{color:#{i % 256:02x}{(i * 7) % 256:02x}{(i * 13) % 256:02x};padding:{i % 9}px}}" for i in range(600))
THEME_CSS = "section{border:1px solid #ccc;margin:6px;padding:6px}li.item b{color:#336}img{width:32px;height:32px}"


def _png(rgb: tuple[int, int, int], size: int = 64) -> bytes:
    """A plain-colour PNG of ``size`` x ``size``."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + bytes(rgb) * size
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b""))


def _section(h: Handler) -> None:
    number = int(h.path.rsplit("/", 1)[1])
    h.send(200, {"title": f"Section {number}",
                 "items": [{"name": f"item {number}.{i}", "price": f"{(number * 20 + i) / 4:.2f}"} for i in range(20)]})


def serve_app(server: TestServer) -> None:
    """The app's page, assets and API on ``server``."""
    server.page("/app", APP)
    for path, body, kind in (("/static/app.js", APP_JS, "text/javascript"), ("/static/util.js", UTIL_JS, "text/javascript"),
                             ("/static/vendor.js", VENDOR_JS, "text/javascript"), ("/static/base.css", BASE_CSS, "text/css"),
                             ("/static/theme.css", THEME_CSS, "text/css")):
        server.route(path, lambda h, body=body, kind=kind: h.send(200, body, content_type=kind))
    for name, rgb in (("logo", (30, 60, 200)), ("a", (200, 30, 30)), ("b", (30, 160, 60)), ("c", (220, 180, 20))):
        image = _png(rgb)
        server.route(f"/img/{name}.png", lambda h, image=image: h.send(200, image, content_type="image/png"))
    for number in range(SECTIONS):
        server.route(f"/api/section/{number}", _section)
    server.route("/api/more", lambda h: h.send(200, [f"extra item {i}" for i in range(5)]))


#: The test, in runner's and pytest-playwright's spelling: visit, wait for the render, click, check.
RUNNER_BODY = """
    runner.visit("/app")
    runner.get("#status").should("have.text", "Loaded 10 sections")
    runner.get("li.item").should("have.length", 200)
    runner.get("#more").click()
    runner.get("#extra li").should("have.length", 5)
    runner.get("#extra").should("contain", "extra item 4")
"""
PLAYWRIGHT_BODY = """
    page.goto(URL + "/app")
    expect(page.locator("#status")).to_have_text("Loaded 10 sections")
    expect(page.locator("li.item")).to_have_count(200)
    page.locator("#more").click()
    expect(page.locator("#extra li")).to_have_count(5)
    expect(page.locator("#extra")).to_contain_text("extra item 4")
"""

#: The floor, in three steps, each run by Playwright's sync API alone on one page kept for every
#: test, with nothing between the tests. ``page``: the page's own work: the visit and the click,
#: each followed by one in-page wait for what it renders (a few round trips in all); ``body``: the
#: test body as pytest-playwright runs it; ``body+trace``: the same, inside Playwright's trace with
#: DOM snapshots, started and discarded around each test.
FLOOR_SCRIPT = """import sys
from playwright.sync_api import expect, sync_playwright

URL, EXECUTABLE, COUNT, MODE = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def test(page):
BODY


def page_work(page):
    page.goto(URL + "/app", wait_until="commit")
    page.wait_for_function("document.querySelectorAll('li.item').length === 200 && "
                           "document.getElementById('status').textContent === 'Loaded 10 sections'", polling=2)
    page.evaluate("document.getElementById('more').click()")
    page.wait_for_function("document.querySelectorAll('#extra li').length === 5", polling=2)


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=EXECUTABLE, args=ARGS)
    context = browser.new_context()
    page = context.new_page()
    for _ in range(COUNT):
        if MODE == "body+trace":
            context.tracing.start(snapshots=True, screenshots=False, sources=False)
        (page_work if MODE == "page" else test)(page)
        if MODE == "body+trace":
            context.tracing.stop()
    browser.close()
"""

FLOORS = {"page": "the page's own work: visit, click, an in-page wait for each",
          "body": "the test body run by Playwright alone, nothing between tests",
          "body+trace": "the same in Playwright's trace, discarded per test"}

#: name -> runner.json values over the defaults (only baseUrl is set otherwise)
VARIANTS: dict[str, dict[str, Any]] = {
    "all": {},
    "video-off": {"video": False},
    "trace-off": {"trace": "off"},
    "report-off": {"reportFolder": False},
    "events-off": {"eventsFile": False},
    "all-off": {"video": False, "trace": "off", "reportFolder": False, "eventsFile": False,
                "screenshotOnRunFailure": False},
}


def runner_project(root: Path, url: str, n: int, stamp: Path, values: dict[str, Any]) -> Path:
    """A runner project of ``n`` tests on the defaults, but ``values``."""
    (root / "runner" / "integration").mkdir(parents=True)
    (root / "runner.json").write_text(json.dumps({"baseUrl": url, **values}))
    (root / "runner" / "integration" / "app_spec.py").write_text(_spec(n, stamp, "runner", RUNNER_BODY, ""))
    return root


def timed(cmd: list[str], cwd: Path, stamp: Path, pythonpath: str | None) -> tuple[float, float]:
    """Seconds the whole run took, and the CPU seconds (user + system) of the run's processes
    that were waited for (runner or pytest, Playwright's driver, the browser's processes, ffmpeg)
    (``pythonpath``: the runner source tree to run, else the installed one)."""
    stamp.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUNNER_") and k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    started = time.time()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            out.seek(0)
            raise SystemExit(f"benchmark run failed: {' '.join(cmd)}\n{out.read()[-6000:].decode(errors='replace')}")
    return time.time() - started, usage.ru_utime + usage.ru_stime


def floor_command(root: Path, url: str, executable: str, count: int, mode: str) -> list[str]:
    """The floor's script (``FLOOR_SCRIPT``) written into ``root``, and the command running it."""
    root.mkdir(parents=True, exist_ok=True)
    script = root / "floor.py"
    script.write_text(FLOOR_SCRIPT.replace("BODY", textwrap.indent(textwrap.dedent(PLAYWRIGHT_BODY).strip(), "    "))
                      .replace("ARGS", repr(PLAYWRIGHT_ARGS)))
    return [sys.executable, str(script), url, executable, str(count), mode]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(VARIANTS), help="runner variants, comma-separated")
    parser.add_argument("--before", default=None, help="a runner source tree (its src folder) to compare with")
    args = parser.parse_args()
    from runner.engine.discovery import find_browser

    variants = [v for v in args.only.split(",") if v]
    executable = find_browser().path
    n = args.tests
    with serving() as server, tempfile.TemporaryDirectory() as tmp:
        serve_app(server)
        base = Path(tmp)
        stamp = base / "stamp"
        # (name, tests) -> (command, its folder, the runner source tree to run or None)
        projects: dict[tuple[str, int], tuple[list[str], Path, str | None]] = {}
        runs = [(name, None) for name in variants]
        if args.before:
            runs += [(name + "@before", str(Path(args.before).resolve())) for name in variants]
        for count in (1, n):
            root = playwright_project(base / f"pw{count}", server.url, count, stamp, executable, body=PLAYWRIGHT_BODY)
            projects[("pytest-playwright", count)] = (command(root, playwright=True), root, None)
            for name in FLOORS:
                root = base / f"floor-{name}{count}"
                projects[(name, count)] = (floor_command(root, server.url, executable, count, name), root, None)
            for name, source in runs:
                values = VARIANTS[name.removesuffix("@before")]
                root = runner_project(base / f"{name}{count}", server.url, count, stamp, values)
                projects[(name, count)] = (command(root, playwright=False), root, source)
        results: dict[tuple[str, int], list[tuple[float, float]]] = {key: [] for key in projects}
        for _ in range(args.rounds):  # interleaved: every variant sees the same machine state
            for key, (cmd, root, source) in projects.items():
                results[key].append(timed(cmd, root, stamp, source))
    report(results, runs, variants, n, args.rounds, which=0, title="per-test cost on the app page (ms")
    report(results, runs, variants, n, args.rounds, which=1,
           title="per-test CPU on the app page (CPU ms of the run's processes, less sensitive to the machine's load")


def report(results: dict[tuple[str, int], list[tuple[float, float]]], runs: list[tuple[str, str | None]],
           variants: list[str], n: int, rounds: int, *, which: int, title: str) -> None:
    """Print one table: wall time (``which`` 0) or CPU time (1) per test, and the ratios."""

    def per_test(name: str) -> float:
        whole = {count: statistics.median(r[which] for r in results[(name, count)]) for count in (1, n)}
        return (whole[n] - whole[1]) / (n - 1) * 1000

    pw = per_test("pytest-playwright")
    cost = {name: per_test(name) for name, _ in runs}
    print(f"{title}; median of {rounds} interleaved rounds, {n} tests):")
    print(f"  {'pytest-playwright':28} {pw:8.1f}  1.00")
    floors = {name: per_test(name) for name in FLOORS}
    for name, label in FLOORS.items():
        print(f"  ({label}) {floors[name]:8.1f}  {floors[name] / pw:.2f}")
    for name, _ in runs:
        print(f"  {'runner ' + name:28} {cost[name]:8.1f}  {cost[name] / pw:.2f}")
    if "all" in cost:
        ratio = cost["all"] / pw
        print(f"runner with every default on / pytest-playwright: {ratio:.2f}  "
              f"(target <= 0.50: {'met' if ratio <= 0.5 else 'NOT met'})")
        page, trace = floors["page"], floors["body+trace"] - floors["body"]
        print(f"the target, {pw * 0.5:.1f} ms a test, is {'below' if pw * 0.5 < page else 'above'} the page's own work "
              f"({page:.1f} ms, {page / pw:.2f}), and {'below' if pw * 0.5 < page + trace else 'above'} it with what "
              f"Playwright's trace alone costs this test ({trace:.1f} ms more: {page + trace:.1f} ms, "
              f"{(page + trace) / pw:.2f})")
        print("each default's own cost (all on - that one off, ms a test):")
        for name in variants:
            if name not in ("all", "all-off"):
                print(f"  {name.removesuffix('-off'):10} {cost['all'] - cost[name]:8.1f}")
        if "all-off" in cost:
            print(f"  {'all':10} {cost['all'] - cost['all-off']:8.1f}")
    if "all@before" in cost:
        print(f"before: runner with every default on / pytest-playwright: {cost['all@before'] / pw:.2f}")
        for name in variants:
            if name not in ("all", "all-off") and name + "@before" in cost:
                print(f"  {name.removesuffix('-off'):10} {cost['all@before'] - cost[name + '@before']:8.1f}")
        if "all-off@before" in cost:
            print(f"  {'all':10} {cost['all@before'] - cost['all-off@before']:8.1f}")


if __name__ == "__main__":
    main()
