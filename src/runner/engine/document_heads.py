"""The raw heads (status line and header lines) of the page's document responses while a visit
loads, so a response that is not valid HTTP fails the visit (``raw_http.problem``).

Playwright gives parsed headers only, after Chromium forgave what it could; the raw text is in
the DevTools protocol's ``Network.responseReceivedExtraInfo``. It listens on a CDP session of its
own, opened for the navigation and closed after it: the Network domain it enables costs every
request while it is on, and turning it off must not turn off another listener's
(``revalidations.py`` enables it on the page's main session).
"""

from __future__ import annotations

import asyncio
from typing import Any

from runner.engine import raw_http
from runner.engine.devtools import quietly

__all__ = ["DocumentHeads"]

_BOUND_S = 2.0  # opening or closing the session (a stuck page must not hold a visit longer)
_closing: set[asyncio.Task[None]] = set()  # sessions being closed in the background


class DocumentHeads:
    """Collects the main frame's document heads; :meth:`problem` says what is invalid."""

    def __init__(self, session: Any, main_frame: str) -> None:
        self._session = session
        self._main = main_frame
        self._documents: set[str] = set()  # request ids of the main frame's documents
        self._heads: dict[str, list[str]] = {}  # request id -> raw heads (a redirect has several)
        session.on("Network.requestWillBeSent", self._sent)
        session.on("Network.responseReceivedExtraInfo", self._raw)

    @classmethod
    async def open(cls, context: Any, page: Any) -> DocumentHeads | None:
        """Start listening on ``page`` (None when the browser offers no session for it)."""
        try:
            session = await asyncio.wait_for(context.new_cdp_session(page), _BOUND_S)
        except Exception:  # noqa: BLE001 - a remote or closing browser: the visit goes on unchecked
            return None
        try:
            tree = await asyncio.wait_for(session.send("Page.getFrameTree"), _BOUND_S)
            heads = cls(session, tree["frameTree"]["frame"]["id"])
            await asyncio.wait_for(session.send("Network.enable"), _BOUND_S)
        except Exception:  # noqa: BLE001 - as above
            await quietly(asyncio.wait_for(session.detach(), _BOUND_S))
            return None
        return heads

    def _sent(self, event: dict[str, Any]) -> None:
        if event.get("type") == "Document" and event.get("frameId") == self._main:
            self._documents.add(event.get("requestId", ""))

    def _raw(self, event: dict[str, Any]) -> None:
        text = event.get("headersText")
        if isinstance(text, str) and text:  # absent for HTTP/2 and QUIC: nothing to check
            self._heads.setdefault(event.get("requestId", ""), []).append(text)

    def problem(self) -> str | None:
        """Why a document response of the main frame was not valid HTTP, or None."""
        for request_id in self._documents:
            for head in self._heads.get(request_id, []):
                found = raw_http.problem(head)
                if found is not None:
                    return found
        return None

    def close(self) -> None:
        """Detach in the background: detaching from a page still loading (or stuck) can take
        seconds, and nothing waits for it."""
        task = asyncio.ensure_future(quietly(asyncio.wait_for(self._session.detach(), _BOUND_S)))
        _closing.add(task)
        task.add_done_callback(_closing.discard)
