"""``runner.record_har``'s browser side: every exchange of the page, as HAR 1.2 entries.

Playwright's own HAR recorder belongs to a browser context and is written when the context
closes; runner keeps one context for a whole run, so it records from the page's events
instead: ``requestfinished`` and ``requestfailed``, with the request's timing, both header lists
and the response body (``request`` tells what is in flight; a request still in flight when it
stops is recorded as pending, with what is known of it). Its listeners subscribe through
``request_events.listen``: on a page runner routes, a quiet listener of the page's requests is
there already, and Playwright's own subscription would then leave the recording without its
``request`` events. Stubbed and routed
requests are recorded as the page received them; ``_answeredBy`` says whether the server
answered (through the network, or fetched by runner for a route's handler) or a route did
(``replay_har(update=...)`` adds only the server's); ``serverIPAddress`` is set when the network
answered.
Runs on the engine's loop only.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request

__all__ = ["HarRecorder"]

_TEXT_TYPES = ("text/", "application/json", "application/javascript", "application/xml",
               "application/x-www-form-urlencoded", "image/svg+xml", "+json", "+xml")


def _is_text(mime: str, data: bytes) -> bool:
    lower = mime.lower()
    if not any(t in lower for t in _TEXT_TYPES):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _content(data: bytes, mime: str) -> dict[str, Any]:
    if _is_text(mime, data):
        return {"text": data.decode("utf-8")}
    return {"text": base64.b64encode(data).decode("ascii"), "encoding": "base64"}


def _mime(headers: Sequence[Any]) -> str:
    return next((h["value"] for h in headers if h["name"].lower() == "content-type"), "")


class HarRecorder:
    """Records the exchanges of ``page`` whose URL ``keep`` accepts, from :meth:`start` until
    :meth:`stop` (``content``: ``"embed"`` the bodies, or ``"omit"`` them)."""

    def __init__(self, page: Page, keep: Callable[[str], bool], content: str = "embed") -> None:
        self._page = page
        self._keep = keep
        self._content = content
        self._entries: list[dict[str, Any]] = []
        self._reading: set[asyncio.Task[None]] = set()  # entries being built
        self._in_flight: set[Request] = set()  # started, neither finished nor failed yet
        self._landed = asyncio.Event()  # set whenever nothing is in flight
        self._landed.set()
        self._stops: list[Callable[[], object]] = []  # what stops each listener, while listening

    async def start(self) -> None:
        from runner.engine.request_events import listen

        self._stops = [listen(self._page, event, handler, subscribe=True, public=True)
                       for event, handler in (("request", self._started), ("requestfinished", self._finished),
                                              ("requestfailed", self._failed))]

    def _started(self, request: Request) -> None:
        if self._keep(request.url):
            self._in_flight.add(request)
            self._landed.clear()

    def _ended(self, request: Request) -> None:
        self._in_flight.discard(request)
        if not self._in_flight:
            self._landed.set()

    def _finished(self, request: Request) -> None:
        self._ended(request)
        self._track(self._entry(request, failed=False))

    def _failed(self, request: Request) -> None:
        self._ended(request)
        self._track(self._entry(request, failed=True))

    def _track(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._reading.add(task)
        task.add_done_callback(self._reading.discard)

    async def stop(self, timeout_s: float = 10.0, settle_s: float = 2.0) -> list[dict[str, Any]]:
        """Stop listening, once the requests in flight ended (waited for at most ``settle_s``: a
        request the test's last command started is the test's, as the run's settle counts it;
        one still open then, a stream or an answer that has not come, is recorded as pending);
        wait (at most ``timeout_s``) for the entries being read; return every entry, oldest first."""
        if self._stops and self._in_flight:
            try:
                await asyncio.wait_for(self._landed.wait(), settle_s)
            except TimeoutError:
                pass
        if self._stops:
            for request in self._in_flight:
                self._track(self._entry(request, failed=False, pending=True))
            self._in_flight.clear()
            stops, self._stops = self._stops, []
            for stop in stops:
                stop()
        if self._reading:
            await asyncio.wait(set(self._reading), timeout=timeout_s)
        return sorted(self._entries, key=lambda e: e["startedDateTime"])

    async def _entry(self, request: Request, *, failed: bool, pending: bool = False) -> None:
        if not self._keep(request.url):
            return
        try:
            entry = await self._build(request, failed, pending)
        except PlaywrightError:
            return  # the page or the browser went away: nothing left to record
        if entry is not None:
            self._entries.append(entry)

    async def _build(self, request: Request, failed: bool, pending: bool) -> dict[str, Any] | None:
        timing = request.timing
        started = timing.get("startTime") or 0
        if started <= 0:  # no timing (some routed requests): the time it ended, as near as known
            started = time.time() * 1000
        # the headers sent are known once the answer starts: a pending request has those the page gave
        request_headers = ([{"name": k, "value": v} for k, v in request.headers.items()] if pending
                           else await request.headers_array())
        post = request.post_data_buffer
        har_request: dict[str, Any] = {
            "method": request.method, "url": request.url, "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": h["name"], "value": h["value"]} for h in request_headers],
            "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(request.url).query, keep_blank_values=True)],
            "headersSize": -1, "bodySize": len(post) if post else 0,
        }
        if post:
            har_request["postData"] = {"mimeType": _mime(request_headers), **_content(post, _mime(request_headers) or "text/plain")}
        response = None if failed or pending else await request.response()
        address: Any = None  # the server's address, when the network answered
        if response is None:
            har_response: dict[str, Any] = {
                "status": 0, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
            }
            if not pending:
                har_response["_failureText"] = request.failure or "no response"
        else:
            headers = await response.headers_array()
            mime = _mime(headers)
            body = b""
            if self._content == "embed" and not 300 <= response.status < 400:
                try:
                    body = await response.body()
                except PlaywrightError:
                    body = b""  # no body to read (a redirect, a HEAD, an evicted resource)
            content: dict[str, Any] = {"size": len(body), "mimeType": mime}
            if body:
                content.update(_content(body, mime))
            location = next((h["value"] for h in headers if h["name"].lower() == "location"), "")
            try:
                address = await response.server_addr()  # None: a route answered, not the network
            except PlaywrightError:
                address = None
            har_response = {
                "status": response.status, "statusText": response.status_text, "httpVersion": "HTTP/1.1",
                "cookies": [], "headers": [{"name": h["name"], "value": h["value"]} for h in headers],
                "content": content, "redirectURL": location, "headersSize": -1, "bodySize": len(body),
            }
        wait = max(0.0, (timing.get("responseStart") or 0) - max(timing.get("requestStart") or 0, 0))
        end = timing.get("responseEnd") or 0
        receive = max(0.0, end - (timing.get("responseStart") or end))
        entry: dict[str, Any] = {
            "startedDateTime": datetime.fromtimestamp(started / 1000, UTC).isoformat(timespec="milliseconds"),
            "time": round(max(end, 0), 3),
            "request": har_request, "response": har_response, "cache": {},
            "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0,
                        "wait": round(wait, 3), "receive": round(receive, 3)},
            "_resourceType": request.resource_type,
        }
        if pending:
            entry["_pending"] = True  # still in flight when the recording stopped: not replayable
        if response is not None:
            from runner.engine.exchange import fetched_from_server

            # the network answered, or runner fetched the answer for a route's handler: the
            # server's (a route's own answer, a stub, is not: replay_har(update=...) skips it)
            server = bool(address) or fetched_from_server(request)
            entry["_answeredBy"] = "server" if server else "route"
        if address:
            entry["serverIPAddress"] = address["ipAddress"]
        return entry
