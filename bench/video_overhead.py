"""Cost of recording a video: the same quick test with and without the VideoRecorder.

One Chromium, one page (like the engine). A page with a small CSS/JS animation gets ~30 quick
interactions through Playwright (clicks, typing, checks, reads). Rounds alternate plain and
recorded runs (the order flips each round) so both sides see the same machine; the figure is the
ratio of the medians. Target: recorded / plain <= 1.15. ``start()`` and ``stop()`` (once per spec)
are reported on their own.

Usage: ``.venv/bin/python bench/video_overhead.py [--rounds 9] [--crf 32]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from playwright.async_api import Page, async_playwright  # noqa: E402

from runner.artifacts.video import (  # noqa: E402
    EVERY_NTH_FRAME,
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


async def workload(page: Page) -> float:
    """~30 quick interactions; returns the seconds they took."""
    began = time.perf_counter()
    await page.set_content(PAGE)
    for i in range(8):
        await page.fill("#new", f"item {i}")
        await page.click("#add")
        await page.wait_for_function(f"document.getElementById('count').textContent === '{i + 1}'")
    await page.check("#done")
    await page.uncheck("#done")
    assert await page.inner_text("#count") == "8"
    await page.hover("#title")
    await page.locator("li").nth(3).click()
    return time.perf_counter() - began


async def main(rounds: int, crf: int | None, scale: float | None, nth: int | None) -> int:
    ffmpeg = find_ffmpeg()
    plain: list[float] = []
    recorded: list[float] = []
    starts: list[float] = []
    stops: list[float] = []
    frames: list[int] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=find_browser().path, headless=True, args=list(QUIET_FLAGS),
            chromium_sandbox=False,
        )
        page = await browser.new_page(viewport={"width": 1000, "height": 660})
        cdp = await page.context.new_cdp_session(page)
        with tempfile.TemporaryDirectory() as tmp:
            await workload(page)  # warm up
            for r in range(rounds):
                for recording in ((False, True) if r % 2 == 0 else (True, False)):
                    await page.goto("about:blank")
                    if not recording:
                        plain.append(await workload(page))
                        continue
                    recorder = VideoRecorder(cdp, Path(tmp) / f"r{r}.mp4", crf=crf,
                                             viewport=(1000, 660), ffmpeg=ffmpeg)
                    if scale is not None:
                        recorder.scale = scale
                    if nth is not None:
                        recorder.every_nth_frame = nth
                    t = time.perf_counter()
                    await recorder.start()
                    starts.append(time.perf_counter() - t)
                    recorded.append(await workload(page))
                    t = time.perf_counter()
                    await recorder.stop()
                    stops.append(time.perf_counter() - t)
                    frames.append(recorder.frames_received)
        await browser.close()
    p, v = statistics.median(plain), statistics.median(recorded)
    ratio = v / p
    print(f"ffmpeg: {ffmpeg}")
    print(f"rounds: {rounds}, videoCompression crf: {crf}, frame scale: {scale or SCREENCAST_SCALE}, "
          f"everyNthFrame: {nth or EVERY_NTH_FRAME}")
    print(f"plain test:     median {p * 1000:7.1f} ms  (all: {', '.join(f'{x * 1000:.0f}' for x in plain)})")
    print(f"recorded test:  median {v * 1000:7.1f} ms  (all: {', '.join(f'{x * 1000:.0f}' for x in recorded)})")
    print(f"frames per recorded test: median {statistics.median(frames):.0f}")
    print(f"recorder start: median {statistics.median(starts) * 1000:.1f} ms, "
          f"stop (finish encoding): median {statistics.median(stops) * 1000:.1f} ms")
    verdict = "OK" if ratio <= TARGET else "OVER TARGET"
    print(f"ratio recorded/plain: {ratio:.3f}  (target <= {TARGET})  {verdict}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--crf", type=int, default=32, help="CRF; -1 means videoCompression false")
    parser.add_argument("--scale", type=float, default=None, help="override SCREENCAST_SCALE")
    parser.add_argument("--nth", type=int, default=None, help="override EVERY_NTH_FRAME")
    args = parser.parse_args()
    crf = None if args.crf < 0 else args.crf
    sys.exit(asyncio.run(main(args.rounds, crf, args.scale, args.nth)))
