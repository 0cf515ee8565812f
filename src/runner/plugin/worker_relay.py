"""In a pytest-xdist worker: what a test did there, sent to the controller with its reports.

The controller's :class:`~runner.plugin.recorder.RunRecorder` tells the run from the reports
xdist brings it. The finer events happen in the worker (each command, log line, route, request
intercepted, screenshot, accessibility check): the relay collects them per test and hangs them on the test's first
report (``EVENTS_ATTR``), which xdist carries across like any report attribute; the recorder
publishes them in their place, before the test's attempts, so the events file, the reporters
and the HTML report hold the whole run.

With specs as the unit (``--dist loadfile``: ``runner run --workers``), a spec's tests run
together in one worker, so its video is recorded there: when its last test is done, the relay
finishes the video, waits for the file and sends its path (``SPEC_VIDEO_ATTR``, and the
``video.written`` event) with that test's teardown report. So does a test after which the run
stops (``--max-failures``: ``stop``, the worker's :class:`~runner.plugin.max_failures.WorkerStop`):
its spec's other tests never start.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from runner.events import (
    A11yChecked,
    CommandEnded,
    CommandStarted,
    Event,
    LogLine,
    RequestIntercepted,
    RouteAdded,
    RouteAliased,
    ScreenshotTaken,
    SnapshotCompared,
    VideoWritten,
)
from runner.plugin.outcomes import EVENTS_ATTR, SPEC_VIDEO_ATTR

__all__ = ["RELAYED", "WorkerRelay"]

#: The events a worker relays (the run's others are the controller's, made from the reports).
RELAYED = (CommandStarted, CommandEnded, LogLine, RouteAdded, RouteAliased, RequestIntercepted, ScreenshotTaken,
           A11yChecked, SnapshotCompared, VideoWritten)


class WorkerRelay:
    """Subscribed to the worker session's bus and registered as a pytest plugin in the worker;
    ``videos``: specs are the unit here, so their videos are finished here."""

    def __init__(self, session: Any, *, videos: bool, stop: Any = None) -> None:
        self._session = session
        self._videos = videos
        self._stop = stop
        self._pending: dict[str, list[dict[str, Any]]] = {}  # nodeid -> events not sent yet
        self._written: list[dict[str, Any]] = []  # video.written of the spec being finished
        self._next: dict[str, Any] = {}  # nodeid -> the next item this worker runs (None: none yet)
        self._failed: dict[str, bool] = {}  # spec file -> a test of it failed here

    def __call__(self, event: Event) -> None:
        if isinstance(event, VideoWritten):
            self._written.append(event.to_json())
            return
        nodeid = getattr(event, "nodeid", None)
        if nodeid:
            self._pending.setdefault(nodeid, []).append(event.to_json())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
        self._next[item.nodeid] = (item.path, nextitem.path if nextitem is not None else None)
        try:
            return (yield)
        finally:
            self._next.pop(item.nodeid, None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        events = self._pending.pop(report.nodeid, None)
        if events:
            setattr(report, EVENTS_ATTR, events)
        path, following = self._next.get(report.nodeid, (None, None))
        if path is None:
            return
        key = str(path)
        self._failed[key] = self._failed.get(key, False) or report.failed
        last = following != path or (self._stop is not None and self._stop.stopped)
        if report.when == "teardown" and last and self._videos:
            self._written = []
            video = self._session.recordings.finish_spec(key, not self._failed.pop(key, False))
            self._session.recordings.settle_videos()  # the file is complete before the controller tells it
            if self._written:
                video = self._written[-1].get("video", video)
            setattr(report, SPEC_VIDEO_ATTR, {"video": video})
            if self._written:
                setattr(report, EVENTS_ATTR, [*(getattr(report, EVENTS_ATTR, None) or []), *self._written])
