"""Which watched responses were the server's ``304 Not Modified``.

While every route is a spy, the page is only watched and its HTTP cache stays on: a cached
response the browser revalidates reaches the page as the cached 200, and Playwright reports that
200. The status the server sent is only in the DevTools protocol's
``Network.responseReceivedExtraInfo``: this listens for it on the page's CDP session while
watching, so a spy records the 304 the server sent (as the original's proxy saw it).
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict
from typing import Any

__all__ = ["Revalidations"]

_REMEMBERED = 2000  # request ids kept while waiting for their response (oldest forgotten first)


class Revalidations:
    """Counts, per URL, the responses the server answered with 304 (see :meth:`take`)."""

    def __init__(self, cdp: Any) -> None:
        self._cdp = cdp
        self._urls: OrderedDict[str, str] = OrderedDict()  # CDP request id -> URL
        self._not_modified: Counter[str] = Counter()
        self._on = False

    async def start(self) -> None:
        if self._on:
            return
        self._on = True
        self._cdp.on("Network.requestWillBeSent", self._sent)
        self._cdp.on("Network.responseReceivedExtraInfo", self._raw)
        await self._cdp.send("Network.enable")

    async def stop(self) -> None:
        if not self._on:
            return
        self._on = False
        self._cdp.remove_listener("Network.requestWillBeSent", self._sent)
        self._cdp.remove_listener("Network.responseReceivedExtraInfo", self._raw)
        self._urls.clear()
        self._not_modified.clear()
        try:
            await asyncio.wait_for(self._cdp.send("Network.disable"), 5)
        except Exception:  # noqa: BLE001 - the page is going away
            pass

    def _sent(self, event: dict[str, Any]) -> None:
        request = event.get("request") or {}
        if request.get("method") == "GET":
            self._urls[event["requestId"]] = request.get("url", "")
            while len(self._urls) > _REMEMBERED:
                self._urls.popitem(last=False)

    def _raw(self, event: dict[str, Any]) -> None:
        url = self._urls.pop(event.get("requestId", ""), None)
        if url is not None and event.get("statusCode") == 304:
            self._not_modified[url] += 1

    def take(self, url: str) -> bool:
        """True (once per 304) when the server's answer to ``url`` was 304 Not Modified."""
        if self._not_modified.get(url, 0) <= 0:
            return False
        self._not_modified[url] -= 1
        return True
