"""A spec's video through the run's session: a test's last state is in it, though the catch-up
that puts it there is waited for only when the next test's reset moves the page on."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.support.servers import serving
from tests.support.video import frame_colours

from runner.run.session import RunSession

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

#: A spinner paints all the time (the screencast keeps pausing) on a red page.
SPINNING = """<!doctype html><html><body style="margin:0;background:rgb(220,30,30)">
<div id="spin" style="width:30px;height:30px;background:#777;position:absolute;left:5px;top:5px;
  animation: spin 0.5s linear infinite"></div>
<style>@keyframes spin { to { transform: rotate(360deg) } }</style></body></html>"""


def _blue(colour: tuple[int, int, int]) -> bool:
    r, g, b = colour
    return b > 150 and r < 100 and g < 100


def _run_two_tests(tmp_path: Path, url: str) -> tuple[Path, bool]:
    """Test 1 ends on a blue page inside a pause of the screencast; test 2's reset then blanks
    the page at once. Returns the spec's video and whether test 1 did end inside a pause."""
    root = tmp_path / "project"
    (root / "runner" / "integration").mkdir(parents=True)
    (root / "runner.json").write_text(json.dumps({"baseUrl": url, "trace": "off", "reportFolder": False,
                                                  "eventsFile": False}))
    session = RunSession.create(root=root, mode="run")
    try:
        runner = session.begin_test(session.config, spec_relative="spin_spec.py", title="test_1")
        runner.visit("/spin")
        recorder = session.recordings.videos._recorder
        deadline = time.monotonic() + 10
        while not recorder._pausing:  # the spinner makes the recorder stop the screencast
            assert time.monotonic() < deadline, "the screencast never paused"
            time.sleep(0.005)
        runner.evaluate("document.body.style.background = 'rgb(30,30,220)'")  # the last state
        paused = recorder._pausing  # the state came inside the pause: only the catch-up shows it
        session.end_test()
        session.begin_test(session.config, spec_relative="spin_spec.py", title="test_2")  # about:blank
        session.end_test()
        path = session.recordings.finish_spec("spin_spec.py", passed=True)
        session.recordings.settle_videos()
    finally:
        session.close()
    assert path is not None
    return Path(path), paused


def test_a_tests_last_state_is_in_the_spec_video_when_the_next_test_resets_the_page(tmp_path: Path) -> None:
    with serving() as server:
        server.page("/spin", SPINNING)
        video, paused = _run_two_tests(tmp_path, server.url)
    colours = frame_colours(video)
    assert paused
    assert any(_blue(c) for c in colours), colours
    # the blue frame comes before the blank page of the next test (white), not after it
    first_blue = next(i for i, c in enumerate(colours) if _blue(c))
    whites = [i for i, c in enumerate(colours) if min(c) > 230]
    assert whites and whites[-1] > first_blue, colours
