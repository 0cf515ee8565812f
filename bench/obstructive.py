"""Cost of modifyObstructiveCode (framed pages' documents and scripts rewritten), as ratios of
the same work with it off, measured side by side in one run (two browsers, rounds interleaved).

  fetches (the page's fetch() calls)          ~1.0x   (never paused: the guard sees no fetch)
  a page with 30 scripts of its own           the cost of letting each through (one round trip)
  a page framing 5 pages that each load a script: the rewriting itself

Usage: ``.venv/bin/python bench/obstructive.py [--rounds 7]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.servers import TestServer  # noqa: E402

from runner.run.session import RunSession  # noqa: E402

FETCHES = """async ([url, n]) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await (await fetch(url + '?i=' + i, {cache: 'no-store'})).arrayBuffer();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}"""
# framebusting code that never fires (its test is false), so both sides load the same pages; with
# the guard on, the framed copies are still rewritten (their text changes), which is what is timed
BUSTER = "if (top === null) { top.location = '/busted'; }\nwindow.loaded = (window.loaded || 0) + 1;\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--fetches", type=int, default=200)
    args = parser.parse_args()
    server = TestServer()
    server.route("/small", lambda h: h.send(200, b'{"ok": true}', content_type="application/json"))
    server.route("/s.js", lambda h: h.send(200, BUSTER * 20, content_type="application/javascript",
                                            headers={"Cache-Control": "no-store"}))
    scripts = "".join(f'<script src="/s.js?n={i}"></script>' for i in range(30))
    server.page("/app", "<html><body>bench</body></html>")
    server.page("/scripts", f"<html><body>{scripts}</body></html>")
    server.page("/framed", '<html><body><script src="/s.js?f=1"></script></body></html>')
    frames = "".join(f'<iframe src="/framed?n={i}"></iframe>' for i in range(5))
    server.page("/frames", f"<html><body>{frames}</body></html>")
    with tempfile.TemporaryDirectory() as tmp:
        on = RunSession.create(root=tmp, config_file=False, load_plugins=False, mode="pytest")
        off = RunSession.create(root=tmp, config_file=False, load_plugins=False, mode="pytest",
                                cli_config=[{"modifyObstructiveCode": False}])
        try:
            samples: dict[str, list[float]] = {}
            for round_number in range(args.rounds):
                pair = [("on", on), ("off", off)]
                for name, session in (pair if round_number % 2 else pair[::-1]):  # neither side always first
                    measure(session, server, name, samples, args.fetches)
            report(samples)
        finally:
            on.close()
            off.close()
            server.close()


def measure(session: RunSession, server: TestServer, name: str, samples: dict[str, list[float]], n: int) -> None:
    config = session.config
    runner = session.begin_test(config, spec_relative="bench", title=name)
    try:
        runner.visit(server.url + "/app")
        value = runner._ctx.run(runner._ctx.browser.page.evaluate(FETCHES, [server.url + "/small", n]), 600_000)
        samples.setdefault(f"fetch {name}", []).append(float(value))
        for page, frames in (("scripts", False), ("frames", True)):
            started = time.perf_counter()
            runner.visit(server.url + "/" + page)
            if frames:  # every frame ran its script
                runner._ctx.run(runner._ctx.browser.page.wait_for_function(
                    "Array.from(document.querySelectorAll('iframe')).every(f => f.contentWindow.loaded > 0)"), 30_000)
            samples.setdefault(f"{page} {name}", []).append((time.perf_counter() - started) * 1000)
    finally:
        session.end_test()


def report(samples: dict[str, list[float]]) -> None:
    def median(key: str) -> float:
        return statistics.median(samples[key])

    print(f"{'':34} {'on (ms)':>10} {'off (ms)':>10} {'ratio':>7}")
    for label, key in (("fetch() median", "fetch"), ("page with 30 scripts: load", "scripts"),
                       ("page framing 5 busting pages", "frames")):
        a, b = median(f"{key} on"), median(f"{key} off")
        print(f"{label:34} {a:10.2f} {b:10.2f} {a / b:6.2f}x")


if __name__ == "__main__":
    main()
