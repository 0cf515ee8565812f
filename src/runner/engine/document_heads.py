"""The raw heads (status line and header lines) of the page's document responses while a visit
loads, so a response that is not valid HTTP fails the visit (``raw_http.problem``).

Playwright gives parsed headers only, after Chromium forgave what it could; the raw text is in
the DevTools protocol's ``Network.responseReceivedExtraInfo``. It listens on a CDP session of its
own, not the page's main one: the Network domain it enables costs every request while it is on,
so it is turned on for the navigation and off after it, and turning it off must not turn off
another listener's (``revalidations.py`` enables it on the page's main session). That session is
opened at a page's first visit and kept for the page's next ones (attaching a session to the page
and detaching it cost a visit 6 ms at load 2.5 and 10 ms at load 13 on the shared 2-core
machine, measured by visiting the page of bench/defaults_cost.py in one process, interleaved); it
goes with its page.

Only the main frame's document response is checked, and the page's subresources would send the
domain's events to runner for nothing (some seven a request): so the domain is turned off as soon
as the head of a main-frame document that is not a redirect has arrived, while the page's
subresources load. A document whose head never comes (a same-document navigation, one from the
cache) leaves it on until the visit ends, as before. A visit of bench/defaults_cost.py's page
(20 requests) took 51.5 ms with the domain on until the load event, 45.5 ms with this, 42.6 ms
with no check at all (three interleaved runs each, 15 visits a run, quiet 2-core machine,
2026-11-27).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from runner.engine import raw_http
from runner.engine.devtools import quietly, send_now

__all__ = ["DocumentHeads"]

_BOUND_S = 2.0  # opening or closing the session (a stuck page must not hold a visit longer)
_closing: set[asyncio.Task[None]] = set()  # sessions being closed in the background
# page -> its heads session, kept between visits (the entry goes when the page object does)
_sessions: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


class DocumentHeads:
    """Collects the main frame's document heads; :meth:`problem` says what is invalid."""

    def __init__(self, session: Any, main_frame: str) -> None:
        self._session = session
        self._main = main_frame
        self._documents: set[str] = set()  # request ids of the main frame's documents
        self._heads: dict[str, list[str]] = {}  # request id -> raw heads (a redirect has several)
        self._final: set[str] = set()  # request ids whose last head (not a redirect's) arrived
        self._closed = False
        session.on("Network.requestWillBeSent", self._sent)
        session.on("Network.responseReceivedExtraInfo", self._raw)

    @classmethod
    async def open(cls, context: Any, page: Any) -> DocumentHeads | None:
        """Start listening on ``page`` (None when the browser offers no session for it)."""
        kept = _sessions.pop(page, None)
        if kept is not None:
            heads = await cls._listen(kept)
            if heads is not None:
                _sessions[page] = kept
                return heads
            _detach(kept)  # it no longer answers: a new one is tried
        try:
            session = await asyncio.wait_for(context.new_cdp_session(page), _BOUND_S)
        except Exception:  # noqa: BLE001 - a remote or closing browser: the visit goes on unchecked
            return None
        heads = await cls._listen(session)
        if heads is None:
            _detach(session)
            return None
        _sessions[page] = session
        return heads

    @classmethod
    async def _listen(cls, session: Any) -> DocumentHeads | None:
        """Listen on ``session`` with the Network domain on; None when it does not answer."""
        try:
            tree = await asyncio.wait_for(session.send("Page.getFrameTree"), _BOUND_S)
        except Exception:  # noqa: BLE001 - a session gone with its page, a closing browser
            return None
        heads = cls(session, tree["frameTree"]["frame"]["id"])
        try:
            await asyncio.wait_for(session.send("Network.enable"), _BOUND_S)
        except Exception:  # noqa: BLE001 - as above
            heads.close()
            return None
        return heads

    def _sent(self, event: dict[str, Any]) -> None:
        if event.get("type") == "Document" and event.get("frameId") == self._main:
            request_id = event.get("requestId", "")
            self._documents.add(request_id)
            if request_id in self._final:  # its head came first (extra info can overtake)
                self.close()

    def _raw(self, event: dict[str, Any]) -> None:
        request_id = event.get("requestId", "")
        text = event.get("headersText")
        if isinstance(text, str) and text:  # absent for HTTP/2 and QUIC: nothing to check
            self._heads.setdefault(request_id, []).append(text)
        if not raw_http.followed_redirect(event.get("statusCode"), event.get("headers") or {}):
            self._final.add(request_id)
            if request_id in self._documents:  # the document's head is in: the rest is subresources
                self.close()

    def problem(self) -> str | None:
        """Why a document response of the main frame was not valid HTTP, or None."""
        for request_id in self._documents:
            for head in self._heads.get(request_id, []):
                found = raw_http.problem(head)
                if found is not None:
                    return found
        return None

    def close(self) -> None:
        """Stop listening: the listeners go, and the Network domain is turned off, sent at once
        (so before the next visit turns it on again) and not waited for (a page still loading,
        or stuck, may take seconds to answer, and nothing needs the answer). Once only."""
        if self._closed:
            return
        self._closed = True
        for event, listener in (("Network.requestWillBeSent", self._sent),
                                ("Network.responseReceivedExtraInfo", self._raw)):
            try:
                self._session.remove_listener(event, listener)
            except Exception:  # noqa: BLE001 - not there: nothing to remove
                pass
        send_now(self._session, "Network.disable", {})


def _detach(session: Any) -> None:
    """Detach ``session`` in the background (from a page still loading or stuck it can take
    seconds, and nothing waits for it)."""
    task = asyncio.ensure_future(quietly(asyncio.wait_for(session.detach(), _BOUND_S)))
    _closing.add(task)
    task.add_done_callback(_closing.discard)
