"""VideoRecorder against a real Chromium: valid h264 mp4, right duration, CRF, abort."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.video import decoded_frames, frame_colours, mean_colour, probe, video_size

from runner.artifacts.video import VideoRecorder
from runner.artifacts.video_encoder import FFMPEG_NICENESS

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

ANIMATION = """<!doctype html><html><body style="margin:0">
<div id="box" style="width:80px;height:80px;background:#c33;position:absolute"></div>
<script>
let t0 = performance.now();
function step(now) {
  const x = ((now - t0) / 3) % 900;
  const box = document.getElementById('box');
  box.style.left = x + 'px';
  box.style.top = (x / 3) + 'px';
  box.style.background = 'hsl(' + Math.floor(x) % 360 + ',80%,50%)';
  if (!window.stopAnimation) requestAnimationFrame(step);
}
requestAnimationFrame(step);
</script></body></html>"""


@contextlib.asynccontextmanager
async def _page(width: int, height: int, html: str) -> AsyncIterator[tuple[Any, Any]]:
    """A fresh headless Chromium page showing ``html``, and a CDP session on it."""
    from playwright.async_api import async_playwright

    from runner.engine.browser import QUIET_FLAGS
    from runner.engine.discovery import find_browser

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=find_browser().path, headless=True, args=list(QUIET_FLAGS),
            chromium_sandbox=False, timeout=30_000,
        )
        try:
            page = await browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(10_000)
            cdp = await page.context.new_cdp_session(page)
            await page.set_content(html)
            yield page, cdp
        finally:
            await browser.close()


async def _record(tmp: Path, name: str, *, crf: int | None, animate: float, idle: float,
                  navigate: bool = False, abort: bool = False) -> tuple[Path, float, Any]:
    async with _page(640, 360, ANIMATION) as (page, cdp):
        recorder = VideoRecorder(cdp, tmp / name, crf=crf, viewport=(640, 360))
        began = time.monotonic()
        recorder.began_wall = time.time()
        await asyncio.wait_for(recorder.start(), 15)
        recorder.seen_niceness = os.getpriority(os.PRIO_PROCESS, recorder._encoder.proc.pid)
        await asyncio.sleep(animate)
        if navigate:  # the reset between tests goes through about:blank
            await page.goto("about:blank")
            await page.set_content(ANIMATION)
            await asyncio.sleep(animate / 2)
        await page.evaluate("window.stopAnimation = true")
        await asyncio.sleep(idle)
        if abort:
            await asyncio.wait_for(recorder.abort(), 30)
            return tmp / name, time.monotonic() - began, recorder
        path = await asyncio.wait_for(recorder.stop(), 60)
        return path, time.monotonic() - began, recorder


def record(tmp: Path, name: str, **kwargs: Any) -> tuple[Path, float, Any]:
    return asyncio.run(asyncio.wait_for(_record(tmp, name, **kwargs), 120))


def test_records_h264_mp4_lasting_the_wall_time(tmp_path: Path) -> None:
    path, wall, recorder = record(tmp_path, "spec/a.cy.py.mp4", crf=32, animate=1.5, idle=1.0)
    # its time 0 on the wall clock (a test's moment in the video is its start minus this)
    assert recorder.began_wall <= recorder.started_at <= recorder.began_wall + 2
    assert path == tmp_path / "spec/a.cy.py.mp4" and path.stat().st_size > 0
    codec, duration = probe(path)
    assert codec == "h264"
    assert recorder.frames_received >= 3
    assert abs(duration - wall) <= 0.2 * wall, (duration, wall)
    # every frame handed to ffmpeg is a frame of the video (none paired up as interlaced fields)
    assert decoded_frames(path) == recorder.frames_written
    assert video_size(path) == (320, 180)  # the screencast's size: half the 640x360 viewport
    assert recorder.seen_niceness == os.getpriority(os.PRIO_PROCESS, 0) + FFMPEG_NICENESS  # browser first


def test_survives_navigation_and_keeps_duration(tmp_path: Path) -> None:
    path, wall, recorder = record(tmp_path, "nav.mp4", crf=None, animate=1.0, idle=0.5,
                                  navigate=True)
    codec, duration = probe(path)
    assert codec == "h264"
    assert abs(duration - wall) <= 0.2 * wall, (duration, wall)


def test_crf_changes_the_size(tmp_path: Path) -> None:
    fine, _, _ = record(tmp_path, "crf10.mp4", crf=10, animate=1.5, idle=0.2)
    coarse, _, _ = record(tmp_path, "crf51.mp4", crf=51, animate=1.5, idle=0.2)
    assert coarse.stat().st_size < fine.stat().st_size


def test_abort_removes_the_file(tmp_path: Path) -> None:
    path, _, _ = record(tmp_path, "gone.mp4", crf=32, animate=0.8, idle=0.1, abort=True)
    assert not path.exists()


PHASES = """<!doctype html><html><body style="margin:0;background:rgb(220,30,30)">
<div id="spin" style="width:30px;height:30px;background:#777;position:absolute;left:5px;top:5px;
  animation: spin 0.5s linear infinite"></div>
<style>@keyframes spin { to { transform: rotate(360deg) } }</style></body></html>"""


async def _paced(tmp: Path) -> dict[str, Any]:
    """A page painting all the time (a spinner) whose background changes colour in phases
    longer than the pause, then an idle page; returns what was seen and when."""
    async with _page(320, 200, PHASES) as (page, cdp):
        recorder = VideoRecorder(cdp, tmp / "phases.mp4", crf=10, viewport=(320, 200))
        began = time.monotonic()
        recorder.began_wall = time.time()
        await asyncio.wait_for(recorder.start(), 15)
        phases = []
        for colour in ("rgb(220,30,30)", "rgb(30,200,30)", "rgb(30,30,220)"):
            await page.evaluate(f"document.body.style.background = '{colour}'")
            phases.append((colour, time.monotonic() - began))
            await asyncio.sleep(4 * recorder.pause)
        busy_frames, busy_seconds = recorder.frames_received, time.monotonic() - began
        await page.evaluate("document.getElementById('spin').remove()")
        await asyncio.sleep(0.3)
        settled_frames, settled_pauses = recorder.frames_received, recorder.pauses
        await asyncio.sleep(1.0)
        idle_frames, idle_pauses = recorder.frames_received, recorder.pauses
        await asyncio.wait_for(recorder.stop(), 60)
        return {
            "path": tmp / "phases.mp4", "phases": phases, "pause": recorder.pause,
            "busy_rate": busy_frames / busy_seconds, "paused": settled_pauses,
            "idle_frames": idle_frames - settled_frames, "idle_pauses": idle_pauses - settled_pauses,
        }


def test_continuous_painting_is_paced_and_every_lasting_state_is_in_the_video(
    tmp_path: Path,
) -> None:
    seen = asyncio.run(asyncio.wait_for(_paced(tmp_path), 120))
    # The spinner paints ~60 times a second; the paced screencast takes far fewer frames...
    assert seen["paused"] >= 3
    assert seen["busy_rate"] < 2.5 / seen["pause"], seen
    # ...yet each colour, held for a few pauses, is what the video shows mid-phase.
    expected = {"rgb(220,30,30)": 0, "rgb(30,200,30)": 1, "rgb(30,30,220)": 2}
    for colour, at in seen["phases"]:
        rgb = mean_colour(seen["path"], at + 2 * seen["pause"])
        assert max(range(3), key=lambda i: rgb[i]) == expected[colour], (colour, at, rgb)
    # A page that stopped painting costs nothing: no frames, no more pauses.
    assert seen["idle_frames"] <= 1 and seen["idle_pauses"] == 0, seen


async def _short_last_state(tmp: Path, catch_up: bool) -> Path:
    """A page painting all the time gets a state that lasts far less than a pause, the test
    ends (catch_up), and the page moves on."""
    async with _page(320, 200, PHASES) as (page, cdp):
        recorder = VideoRecorder(cdp, tmp / f"short-{catch_up}.mp4", crf=10, viewport=(320, 200))
        await asyncio.wait_for(recorder.start(), 15)
        deadline = time.monotonic() + 10
        # the spinner makes the recorder pause: wait until a pause has stopped the screencast
        while True:
            assert time.monotonic() < deadline, "the screencast never paused"
            if recorder._pausing:
                before = recorder.pauses
                while recorder._pausing and recorder.pauses == before:
                    await asyncio.sleep(0.002)
                if recorder._pausing:
                    break  # stopped, and still inside the pause
            await asyncio.sleep(0.005)
        await page.evaluate("document.body.style.background = 'rgb(30,30,220)'")  # the last state
        if catch_up:
            await recorder.catch_up()
        await page.evaluate("document.body.style.background = 'rgb(30,200,30)'")  # the next test
        await asyncio.sleep(3 * recorder.pause)
        return await asyncio.wait_for(recorder.stop(), 60)


def test_a_tests_last_state_is_in_the_video_even_while_paused(tmp_path: Path) -> None:
    def blue_frames(path: Path) -> int:
        return sum(1 for r, g, b in frame_colours(path) if b > 150 and r < 100 and g < 100)

    caught = asyncio.run(asyncio.wait_for(_short_last_state(tmp_path, catch_up=True), 120))
    missed = asyncio.run(asyncio.wait_for(_short_last_state(tmp_path, catch_up=False), 120))
    assert blue_frames(caught) >= 1
    assert blue_frames(missed) == 0  # what catch_up is for: paused, the state never showed
