"""Which watched responses were the server's ``304 Not Modified``.

While every route is a spy, the page is only watched and its HTTP cache stays on: a cached
response the browser revalidates reaches the page as the cached 200, and Playwright reports that
200. The status the server sent is only in the DevTools protocol's
``Network.responseReceivedExtraInfo``: this listens for it on the page's CDP session, so a spy
records the 304 the server sent (as the original's proxy saw it).

Listening to the Network domain costs every request of the page (its events cross to runner:
about 0.3-0.5x on a spied page, bench/intercept.py), and only a response that carries a
validator (``ETag``, ``Last-Modified``) can ever be revalidated. So it starts only once a
watched response carries one (:meth:`arm`), in time for the requests that revalidate it; the
browser's cache is emptied between tests. What the page cached earlier in the same test, before
the spies watched it, can be revalidated by the very first request a spy sees: so watching that
begins on a page that has already loaded something starts listening at once (:meth:`begin`).
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from runner.engine.devtools import quietly
from runner.engine.request_events import listen

__all__ = ["Revalidations"]

_REMEMBERED = 2000  # request ids kept while waiting for their response (oldest forgotten first)


class Revalidations:
    """Counts, per URL, the responses the server answered with 304 (see :meth:`take`)."""

    def __init__(self, cdp: Any) -> None:
        self._cdp = cdp
        self._urls: OrderedDict[str, str] = OrderedDict()  # CDP request id -> URL
        self._early: OrderedDict[str, dict[str, Any]] = OrderedDict()  # raw responses ahead of their request
        self._pending: Counter[str] = Counter()  # URL -> requests whose raw status has not come
        self._not_modified: Counter[str] = Counter()
        self._waiters: dict[str, asyncio.Event] = {}
        self._on = False
        self._stops: list[Callable[[], object]] = []
        self._starting: asyncio.Future[None] | None = None

    def arm(self, headers: dict[str, str]) -> None:
        """A watched response arrived: start listening when it can be revalidated later."""
        if not self._on and ("etag" in headers or "last-modified" in headers):
            self.begin()

    def begin(self) -> None:
        """Start listening now (the page may hold cached responses already); :meth:`ready`
        waits until the browser has been asked."""
        if not self._on and self._starting is None:
            self._starting = asyncio.ensure_future(quietly(self.start()))

    async def ready(self) -> None:
        starting = self._starting
        if starting is not None:
            await asyncio.shield(starting)

    async def start(self) -> None:
        if self._on:
            return
        self._on = True
        # every request of the page sends these: heard under Playwright's public wrapper
        self._stops = [listen(self._cdp, "Network.requestWillBeSent", self._sent, subscribe=True),
                       listen(self._cdp, "Network.responseReceivedExtraInfo", self._raw, subscribe=True)]
        await self._cdp.send("Network.enable")

    async def stop(self) -> None:
        if not self._on:
            return
        self._on = False
        self._starting = None
        for stop in self._stops:
            stop()
        self._stops = []
        self._urls.clear()
        self._early.clear()
        self._pending.clear()
        self._not_modified.clear()
        await quietly(asyncio.wait_for(self._cdp.send("Network.disable"), 5))

    def _sent(self, event: dict[str, Any]) -> None:
        request = event.get("request") or {}
        request_id = event.get("requestId", "")
        early = self._early.pop(request_id, None)
        if request.get("method") == "GET":
            url = request.get("url", "")
            self._urls[request_id] = url
            self._pending[url] += 1
            while len(self._urls) > _REMEMBERED:
                self._forget(self._urls.popitem(last=False)[1])
            if early is not None:
                self._raw(early)

    def _forget(self, url: str) -> None:
        self._pending[url] -= 1
        if self._pending[url] <= 0:
            del self._pending[url]

    def _raw(self, event: dict[str, Any]) -> None:
        request_id = event.get("requestId", "")
        url = self._urls.pop(request_id, None)
        if url is None:
            # Chromium may send the raw response before the request itself (measured: a
            # revalidated fetch, about 1 time in 6): kept until its request arrives
            self._early[request_id] = event
            while len(self._early) > _REMEMBERED:
                self._early.popitem(last=False)
            return
        self._forget(url)
        if event.get("statusCode") == 304:
            self._not_modified[url] += 1
        waiter = self._waiters.pop(url, None)
        if waiter is not None:
            waiter.set()

    async def take(self, url: str) -> bool:
        """True (once per 304) when the server's answer to ``url`` was 304 Not Modified. When
        that answer's raw status has not arrived yet, it is waited for (briefly); a URL with
        nothing pending is answered at once (the common case costs nothing)."""
        if self._not_modified.get(url, 0) <= 0 and url in self._pending:
            waiter = self._waiters.setdefault(url, asyncio.Event())
            try:
                await asyncio.wait_for(waiter.wait(), 1.0)
            except TimeoutError:
                pass
        if self._not_modified.get(url, 0) <= 0:
            return False
        self._not_modified[url] -= 1
        return True
