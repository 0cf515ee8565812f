"""The page as it is painted, streamed out of the run (``runner open``'s app view).

The browser's own screencast (CDP ``Page.startScreencast``) sends a JPEG each time the page
paints; each frame is handed to a *sink* (the interactive mode's channel to its server), so the
app is seen in the UI even when the browser is headless or on another machine. At most
``MAX_FPS`` frames a second: the browser sends the next frame only once the last one is
acknowledged, and the acknowledgement is held back to keep that pace (a page that animates
forever costs a few frames a second, not sixty).

A relaunched browser or a replaced page brings a new DevTools session: :meth:`LiveView.ensure`
starts the screencast on it. A failure to start is not the test's: the view stays still and the
test goes on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runner.engine.devtools import DevTools
    from runner.engine.loop import EngineLoop

__all__ = ["LiveView", "MAX_FPS"]

#: Frames a second sent at most.
MAX_FPS = 12
_QUALITY = 60


class LiveView:
    """Streams the current page's frames to ``sink(frame)``, where ``frame`` is
    ``{"data": base64 JPEG, "width": px, "height": px}`` (the page's CSS size)."""

    def __init__(self, sink: Callable[[dict[str, Any]], None], loop: Callable[[], EngineLoop]) -> None:
        self._sink = sink
        self._loop = loop
        self._devtools: DevTools | None = None
        self._last = 0.0
        self._tasks: set[asyncio.Future[Any]] = set()
        self.frames = 0

    def ensure(self, devtools: DevTools | None, viewport: tuple[int, int]) -> None:
        """Stream ``devtools``'s page (a no-op when it is the page already streamed)."""
        if devtools is None or devtools is self._devtools:
            return
        self._devtools = devtools
        devtools.on("Page.screencastFrame", self._on_frame)
        width, height = viewport
        try:
            self._loop().run(devtools.send("Page.startScreencast", {
                "format": "jpeg", "quality": _QUALITY, "maxWidth": max(2, width), "maxHeight": max(2, height),
            }), 5)
        except Exception:  # noqa: BLE001 - the view stays still; the test is not concerned
            self._devtools = None

    def _on_frame(self, params: dict[str, Any]) -> None:
        # runs on the engine loop
        devtools = self._devtools
        if devtools is None:
            return
        meta = params.get("metadata") or {}
        try:
            self._sink({"data": params.get("data", ""),
                        "width": meta.get("deviceWidth"), "height": meta.get("deviceHeight")})
        except Exception:  # noqa: BLE001 - a closed channel loses frames, never the test
            pass
        self.frames += 1
        now = time.monotonic()
        wait = max(0.0, self._last + 1 / MAX_FPS - now)
        self._last = now + wait
        task = asyncio.ensure_future(self._ack(devtools, params.get("sessionId"), wait))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _ack(devtools: DevTools, session_id: Any, wait: float) -> None:
        if wait:
            await asyncio.sleep(wait)
        try:
            await devtools.send("Page.screencastFrameAck", {"sessionId": session_id})
        except Exception:  # noqa: BLE001 - the page is gone; the next one gets its own screencast
            pass
