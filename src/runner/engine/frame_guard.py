"""``modifyObstructiveCode``: the documents and scripts of framed pages, rewritten on their way in.

A separate DevTools session of the page pauses responses (Fetch domain) and hands the documents
and scripts that belong to a frame inside the page to :mod:`runner.engine.obstructive`; the page's own
documents and scripts go through untouched (their ``top`` is themselves: nothing to bust).

Pausing anything at all makes Chromium route every request of the page through the interception
layer (about 1.5x per fetch, bench/obstructive.py), so the guard is armed only where frames are:

* runner's own navigations (``visit``, ``reload``, ``go``) arm it for the top document only;
  that document is read as it arrives: a page whose HTML never mentions an iframe (no
  ``<iframe>``/``<frame>`` tag, no ``"iframe"`` in an inline script) disarms it before the
  document commits (one pause per visit; the document's own requests never meet the
  interception layer), a page that does keeps it, now pausing the documents and scripts of its
  frames;
* a frame attached to a page while the guard is off (an iframe made by an external script, a
  page reached by a link) arms it from then on: that frame's first document has usually arrived
  already and is not rewritten; its later documents and scripts are.

It works beside Playwright's routing (which has its own session).
"""

from __future__ import annotations

import asyncio
import base64
import re
from typing import Any

from runner.engine.devtools import quietly
from runner.engine.obstructive import rewrite_html, rewrite_js

__all__ = ["FrameGuard"]

_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.I)
# a page that may have frames: an <iframe>/<frame> tag, or "iframe" in an inline script
_FRAMES = re.compile(rb"iframe|<frame\b", re.I)
_DROPPED = ("content-length", "content-encoding", "transfer-encoding")
_TOP_DOCUMENT = [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}]
_FRAMED = [{"urlPattern": "*", "resourceType": kind, "requestStage": "Response"} for kind in ("Document", "Script")]


class FrameGuard:
    """Rewrites framebusting out of what the page's frames load; ``parse`` picks the parser
    (``experimentalSourceRewriting``) over the patterns. ``state``: ``"off"``, ``"top"`` (the
    next top document is read) or ``"framed"`` (frames' documents and scripts are rewritten)."""

    def __init__(self, context: Any, page: Any, *, parse: bool) -> None:
        self._context = context
        self._page = page
        self._parse = parse
        self._cdp: Any = None
        self._main: str | None = None
        self.state = "off"
        self.rewritten = 0  # responses changed (for tests and the bench)

    async def start(self) -> None:
        self._cdp = await self._context.new_cdp_session(self._page)
        tree = await self._cdp.send("Page.getFrameTree")
        self._main = tree["frameTree"]["frame"]["id"]
        self._cdp.on("Fetch.requestPaused", lambda event: asyncio.ensure_future(self._answer(event)))
        self._cdp.on("Page.frameAttached", self._attached)
        await self._cdp.send("Page.enable")

    async def arm_for_navigation(self) -> None:
        """Before runner navigates the page: read the coming top document (see the module)."""
        if self.state == "off":
            await self._set("top")

    async def settle(self) -> None:
        """After runner's navigation: a top document never judged (a same-document navigation,
        a failed load) leaves the guard off, not waiting."""
        if self.state == "top":
            await self._set("off")

    async def _set(self, state: str) -> None:
        if self._cdp is None or state == self.state:
            return
        self.state = state
        if state == "off":
            await self._cdp.send("Fetch.disable")
        else:
            await self._cdp.send("Fetch.enable", {"patterns": _FRAMED if state == "framed" else _TOP_DOCUMENT})

    def _attached(self, event: dict[str, Any]) -> None:
        if event.get("parentFrameId") and self.state != "framed":
            asyncio.ensure_future(quietly(self._set("framed")))

    async def _answer(self, event: dict[str, Any]) -> None:
        request_id = event["requestId"]
        try:
            frame = event.get("frameId")
            if frame == self._main:
                if event.get("resourceType") == "Document" and self.state != "off":
                    await self._judge_top_document(event)
                else:
                    await self._cdp.send("Fetch.continueRequest", {"requestId": request_id})
                return
            changed = await self._rewritten(event) if self._is_framed(event) else None
            if changed is None:
                await self._cdp.send("Fetch.continueRequest", {"requestId": request_id})
                return
            status, headers, body = changed
            await self._cdp.send("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": status, "responseHeaders": headers,
                "body": base64.b64encode(body).decode("ascii")})
            self.rewritten += 1
        except Exception:  # noqa: BLE001 - the page went away, or the response cannot be read
            await quietly(self._cdp.send("Fetch.continueRequest", {"requestId": request_id}))

    async def _judge_top_document(self, event: dict[str, Any]) -> None:
        """The page's own document: let it through, and keep the guard only if it has frames."""
        framed = False
        status = event.get("responseStatusCode") or 0
        if 200 <= status < 300 and not event.get("responseErrorReason"):
            framed = bool(_FRAMES.search(await self._body(event["requestId"])))
        if not framed:
            # Off before the document commits: Chromium gives the new document's requests a
            # loader made now, so none of them passes through the interception layer (disabling
            # after the commit would leave it in their way for the document's life, ~10% per fetch).
            await self._set("off")  # this also lets the paused document through
            return
        await self._cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
        await self._set("framed")

    def _is_framed(self, event: dict[str, Any]) -> bool:
        status = event.get("responseStatusCode") or 0
        return bool(event.get("frameId")) and 200 <= status < 300 and not event.get("responseErrorReason")

    async def _rewritten(self, event: dict[str, Any]) -> tuple[int, list[dict[str, str]], bytes] | None:
        headers = event.get("responseHeaders") or []
        ctype = next((h["value"] for h in headers if h["name"].lower() == "content-type"), "")
        is_document = event.get("resourceType") == "Document"
        if is_document and ctype and "html" not in ctype.lower():
            return None
        found = _CHARSET.search(ctype)
        charset = found.group(1) if found else "utf-8"
        raw = await self._body(event["requestId"])
        try:
            text = raw.decode(charset)
        except (LookupError, UnicodeDecodeError):
            return None  # not text we can read: left alone
        out = rewrite_html(text, parse=self._parse) if is_document else rewrite_js(text, parse=self._parse)
        if out == text:
            return None
        kept = [h for h in headers if h["name"].lower() not in _DROPPED]
        return int(event["responseStatusCode"]), kept, out.encode(charset, errors="replace")

    async def _body(self, request_id: str) -> bytes:
        """The paused response's body, as the server sent it."""
        reply = await self._cdp.send("Fetch.getResponseBody", {"requestId": request_id})
        return base64.b64decode(reply["body"]) if reply.get("base64Encoded") else reply["body"].encode("utf-8")

    async def stop(self) -> None:
        cdp, self._cdp = self._cdp, None
        if cdp is not None:
            await quietly(asyncio.wait_for(cdp.detach(), 5))

