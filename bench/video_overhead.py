"""Cost of recording a video: the same quick test with and without the VideoRecorder.

One Chromium, one page (like the engine). A page with a never-ending CSS animation (the worst
case: the page paints all the time) gets 3 x ~30 quick interactions through Playwright
(clicks, typing, checks, reads). Each round runs it plain, recorded by runner's paced screencast,
and recorded by an unpaced screencast (every frame, for reference), in an order that flips each
round so all sides see the same machine; figures are ratios of medians. Target: recorded / plain <= 1.15. ``start()`` and ``stop()`` (once per spec)
are reported on their own.

With ``--project DIR`` it also times whole ``runner run`` runs of that project (the run's own
duration, from the json reporter: start-up excluded, each spec's video start and finish included)
with ``video`` true and false, alternately.

Usage: ``.venv/bin/python bench/video_overhead.py [--rounds 9] [--crf 32] [--project examples/todo]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from playwright.async_api import Page, async_playwright  # noqa: E402

from runner.artifacts.video import (  # noqa: E402
    PAUSE,
    SCREENCAST_SCALE,
    VideoRecorder,
    find_ffmpeg,
)
from runner.engine.browser import QUIET_FLAGS  # noqa: E402
from runner.engine.discovery import find_browser  # noqa: E402

TARGET = 1.15
PAGE = """<!doctype html><html><head><style>
@keyframes spin { from { transform: rotate(0deg) } to { transform: rotate(360deg) } }
#spinner { width: 40px; height: 40px; background: #36c; animation: spin 1s linear infinite; }
li { padding: 2px }
</style></head><body>
<div id="spinner"></div>
<h1 id="title">Todo</h1>
<input id="new" placeholder="what"><button id="add">Add</button>
<label><input type="checkbox" id="done"> done</label>
<ul id="list"></ul><p id="count">0</p>
<script>
document.getElementById('add').onclick = () => {
  const li = document.createElement('li');
  li.textContent = document.getElementById('new').value;
  document.getElementById('list').appendChild(li);
  document.getElementById('new').value = '';
  document.getElementById('count').textContent = document.querySelectorAll('li').length;
};
</script></body></html>"""


async def workload(page: Page, repeats: int = 3) -> float:
    """``repeats`` x ~30 quick interactions; returns the seconds they took."""
    began = time.perf_counter()
    for _ in range(repeats):
        await page.set_content(PAGE)
        for i in range(8):
            await page.fill("#new", f"item {i}")
            await page.click("#add")
            await page.wait_for_function(
                f"document.getElementById('count').textContent === '{i + 1}'"
            )
        await page.check("#done")
        await page.uncheck("#done")
        assert await page.inner_text("#count") == "8"
        await page.hover("#title")
        await page.locator("li").nth(3).click()
    return time.perf_counter() - began


async def recorded_run(
    page: Page, cdp: Any, path: Path, args: argparse.Namespace, ffmpeg: str, *, paced: bool,
) -> dict[str, float]:
    crf = None if args.crf < 0 else args.crf
    recorder = VideoRecorder(cdp, path, crf=crf, viewport=(1000, 660), ffmpeg=ffmpeg)
    if args.scale is not None:
        recorder.scale = args.scale
    if args.pause is not None:
        recorder.pause = args.pause
    if not paced:
        recorder.hot_interval = 0.0  # never pause: the plain screencast, every frame
    t = time.perf_counter()
    await recorder.start()
    started = time.perf_counter() - t
    took = await workload(page)
    t = time.perf_counter()
    await recorder.stop()
    return {"test": took, "start": started, "stop": time.perf_counter() - t,
            "frames": recorder.frames_received, "pauses": recorder.pauses}


def _row(name: str, runs: list[dict[str, float]], plain: float) -> float:
    test = statistics.median(r["test"] for r in runs)
    frames = statistics.median(r["frames"] for r in runs)
    pauses = statistics.median(r["pauses"] for r in runs)
    print(f"{name:<22} median {test * 1000:7.1f} ms  ratio {test / plain:.3f}  "
          f"frames {frames:.0f} ({frames / test:.1f}/s), paused {pauses:.0f} times, "
          f"start {statistics.median(r['start'] for r in runs) * 1000:.1f} ms, "
          f"stop+encode {statistics.median(r['stop'] for r in runs) * 1000:.1f} ms")
    return test / plain


async def main(args: argparse.Namespace) -> int:
    ffmpeg = find_ffmpeg()
    plain: list[float] = []
    sides: dict[str, list[dict[str, float]]] = {"paced": [], "unpaced": []}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=find_browser().path, headless=True, args=list(QUIET_FLAGS),
            chromium_sandbox=False,
        )
        page = await browser.new_page(viewport={"width": 1000, "height": 660})
        cdp = await page.context.new_cdp_session(page)
        with tempfile.TemporaryDirectory() as tmp:
            await workload(page)  # warm up
            for r in range(args.rounds):
                order = ["plain", "paced", "unpaced"]
                if r % 2:
                    order.reverse()
                for side in order:
                    await page.goto("about:blank")
                    if side == "plain":
                        plain.append(await workload(page))
                    else:
                        sides[side].append(await recorded_run(
                            page, cdp, Path(tmp) / f"{side}{r}.mp4", args, ffmpeg,
                            paced=side == "paced",
                        ))
        await browser.close()
    p = statistics.median(plain)
    print(f"ffmpeg: {ffmpeg}")
    print(f"rounds: {args.rounds}, videoCompression crf: {args.crf}, frame scale: "
          f"{args.scale or SCREENCAST_SCALE}, pause: {PAUSE if args.pause is None else args.pause} s")
    print(f"{'plain test':<22} median {p * 1000:7.1f} ms  "
          f"(all: {', '.join(f'{x * 1000:.0f}' for x in plain)})")
    ratio = _row("recorded (runner)", sides["paced"], p)
    _row("unpaced screencast", sides["unpaced"], p)
    verdict = "OK" if ratio <= TARGET else "OVER TARGET"
    print(f"ratio recorded/plain: {ratio:.3f}  (target <= {TARGET})  {verdict}")
    return 0 if ratio <= TARGET else 1


def whole_runs(project: Path, rounds: int) -> float:
    """Median run duration with video on / off, for ``runner run`` of ``project``."""
    runner = Path(sys.executable).with_name("runner")
    times: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for video in ((True, False) if r % 2 == 0 else (False, True)):
                out = Path(tmp) / f"run{r}{video}.json"
                options = json.dumps({"video": video, "reporter": "json"})
                done = subprocess.run(
                    [str(runner), "run", "--project", str(project), "--config", options,
                     "--reporter-options", json.dumps({"output": str(out)})],
                    capture_output=True, text=True, timeout=600,
                )
                if not out.exists():
                    raise SystemExit(f"runner run failed:\n{done.stdout}\n{done.stderr}")
                times[video].append(json.loads(out.read_text())["totalDuration"] / 1000)
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"whole runs of {project}: video off median {off:.2f} s, on {on:.2f} s "
          f"(all on: {', '.join(f'{x:.2f}' for x in times[True])}; "
          f"off: {', '.join(f'{x:.2f}' for x in times[False])})")
    print(f"ratio whole run video on/off: {on / off:.3f}  (target <= {TARGET})  "
          f"{'OK' if on / off <= TARGET else 'OVER TARGET'}")
    return on / off


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--crf", type=int, default=32, help="CRF; -1 means videoCompression false")
    parser.add_argument("--scale", type=float, default=None, help="override SCREENCAST_SCALE")
    parser.add_argument("--pause", type=float, default=None, help="override PAUSE (seconds)")
    parser.add_argument("--project", type=Path, default=None,
                        help="also time whole runs of this project with video on and off")
    args = parser.parse_args()
    code = asyncio.run(main(args))
    if args.project is not None and whole_runs(args.project, args.rounds) > TARGET:
        code = 1
    sys.exit(code)
