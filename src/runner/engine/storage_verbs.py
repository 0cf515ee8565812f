"""The verbs of what the browser keeps for a site: cookies and the storage of visited origins.

Cookies (``cookies``, ``add_cookies``, ``clear_cookies``); the page's ``localStorage`` and
``sessionStorage`` read, set and cleared (``web_storage``, ``set_web_storage``,
``remove_web_storage``, and for every origin ``all_local_storage``, ``clear_all_local_storage``,
``frames_session_storage``, ``clear_frames_session_storage``); and the storage of the origins the
page visited, wiped (``clear_storage``), or captured and restored for a session
(``capture_storage``, ``restore_storage``).

Local storage is shared by every page of an origin, so the context knows it for every origin it
saw (Playwright's storage state) and a page of runner's own clears it. Session storage belongs to
one tab and is readable only from a document of its origin: these verbs reach the origins the
page shows now (its top document and its frames).

The page's navigations are watched (:meth:`StorageVerbs._on_navigated`) to learn which origins
hold storage: the reset between tests (``browser.py``) wipes those through CDP.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Frame, Route

from runner.engine.holder import BrowserHolder

__all__ = ["StorageVerbs", "all_of"]

_READ = "area => Object.fromEntries(Object.keys(window[area]).map(k => [k, window[area].getItem(k)]))"
_SET = "([area, key, value]) => window[area].setItem(key, value)"
_REMOVE = "([area, keys]) => { if (keys === null) window[area].clear(); else for (const k of keys) window[area].removeItem(k); }"
# The path runner answers itself on an origin whose local storage it clears (see restore_storage).
_PLACEHOLDER = "/__runner_storage__"


def _origin(url: str) -> str | None:
    if not url.startswith(("http://", "https://")):
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def _placeholder(route: Route) -> None:
    await route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>runner</title>")



async def all_of(*calls: Awaitable[Any]) -> None:
    """Await ``calls`` together; raise the first one's error once all of them ended (none is
    left running behind the caller's back): protocol calls that do not depend on one another,
    sent at once."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result

class StorageVerbs(BrowserHolder):
    """Cookies and the storage of the origins the page visited."""

    _touched_origins: set[str]  # the origins the page visited since their storage was wiped

    async def cookies(self) -> list[dict[str, Any]]:
        """Every cookie of the context, as Playwright describes them (``name``, ``value``,
        ``domain``, ``path``, ``expires``, ``httpOnly``, ``secure``, ``sameSite``)."""
        return [dict(cookie) for cookie in await self._live_context().cookies()]

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        """Set cookies (same keys as :meth:`cookies` gives). Raises Playwright's ``Error`` for
        a cookie the browser refuses."""
        await self._live_context().add_cookies(cookies)  # type: ignore[arg-type]

    async def clear_cookies(self, name: str | None = None) -> None:
        """Delete the cookies called ``name``, or all of them."""
        await self._live_context().clear_cookies(name=name)

    async def web_storage(self, area: str) -> dict[str, str]:
        """Every key of ``area`` (``"localStorage"`` or ``"sessionStorage"``) of the page's
        document, with its value. Raises Playwright's ``Error`` when the document may not use it."""
        items: dict[str, str] = await self._live_page().evaluate(_READ, area)
        return items

    async def set_web_storage(self, area: str, key: str, value: str) -> None:
        """Store ``value`` under ``key`` in the page document's ``area``."""
        await self._live_page().evaluate(_SET, [area, key, value])

    async def remove_web_storage(self, area: str, keys: list[str] | None) -> None:
        """Remove ``keys`` from the page document's ``area`` (all of them for None)."""
        await self._live_page().evaluate(_REMOVE, [area, keys])

    async def all_local_storage(self) -> dict[str, dict[str, str]]:
        """The local storage of every origin the context saw that holds some, by origin."""
        state = await self._live_context().storage_state()
        return {o["origin"]: {i["name"]: i["value"] for i in o["localStorage"]}
                for o in state.get("origins") or [] if o.get("localStorage")}

    async def clear_all_local_storage(self) -> list[str]:
        """Clear the local storage of every origin that holds some; return those origins.

        A page of runner's own (its own tab: the test's session storage is untouched) opens
        each origin on a placeholder answered by runner, as ``restore_storage`` does."""
        origins = sorted(await self.all_local_storage())
        if not origins:
            return []
        # not a popup of the test's page: its requests are no test's (popups.py)
        page = await (self.popups.open_own() if self.popups is not None else self._live_context().new_page())
        try:
            await page.route(f"**{_PLACEHOLDER}", _placeholder)
            for origin in origins:
                await page.goto(origin + _PLACEHOLDER)
                await page.evaluate("() => localStorage.clear()")
        finally:
            await page.close()
        return origins

    def _storage_frames(self) -> list[tuple[str, Frame]]:
        """The page's frames with an origin of a site, the first of each origin."""
        seen: dict[str, Frame] = {}
        for frame in self._live_page().frames:
            origin = _origin(frame.url)
            if origin is not None and origin not in seen:
                seen[origin] = frame
        return list(seen.items())

    async def frames_session_storage(self) -> dict[str, dict[str, str]]:
        """The session storage of each origin the page shows now (its document and frames) that
        holds some, by origin. A frame that may not use it (sandboxed) is left out."""
        out: dict[str, dict[str, str]] = {}
        for origin, frame in self._storage_frames():
            try:
                items: dict[str, str] = await frame.evaluate(_READ, "sessionStorage")
            except Exception:  # noqa: BLE001 - a sandboxed frame, or one going away
                continue
            if items:
                out[origin] = items
        return out

    async def clear_frames_session_storage(self) -> list[str]:
        """Clear the session storage of each origin the page shows now; return those origins."""
        cleared = []
        for origin, frame in self._storage_frames():
            try:
                await frame.evaluate(_REMOVE, ["sessionStorage", None])
            except Exception:  # noqa: BLE001 - a sandboxed frame, or one going away
                continue
            cleared.append(origin)
        return cleared

    def _on_navigated(self, frame: Any) -> None:
        origin = _origin(frame.url)
        if origin is not None:
            self._touched_origins.add(origin)

    async def _forget_origins(self) -> None:
        """Clear the storage of every origin the page visited (and forget them)."""
        origins, self._touched_origins = self._touched_origins, set()
        await all_of(*(self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
                       for origin in origins))

    async def clear_storage(self) -> None:
        """Cookies and the storage of every visited origin cleared; the page at about:blank."""
        assert self.context is not None and self.cdp is not None
        await self._blank()
        await self.context.clear_cookies()
        await self._forget_origins()

    async def capture_storage(self) -> dict[str, Any]:
        """Cookies and local storage of the context (Playwright's storage state)."""
        assert self.context is not None
        state: dict[str, Any] = dict(await self.context.storage_state())
        return state

    async def restore_storage(self, state: dict[str, Any]) -> None:
        """Put back what :meth:`capture_storage` took, leaving the page at about:blank.

        Local storage can only be written from a document of its origin, so each origin is
        opened on a placeholder page answered by runner itself (nothing reaches the server).
        """
        assert self.context is not None and self.page is not None
        await self.clear_storage()
        cookies = state.get("cookies") or []
        if cookies:
            await self.context.add_cookies(cookies)
        origins = [o for o in state.get("origins") or [] if o.get("localStorage")]
        if not origins:
            return
        await self.page.route(f"**{_PLACEHOLDER}", _placeholder)
        try:
            for origin in origins:
                await self.page.goto(origin["origin"] + _PLACEHOLDER)
                await self.page.evaluate(
                    "items => { for (const {name, value} of items) localStorage.setItem(name, value); }",
                    origin["localStorage"],
                )
        finally:
            await self.page.unroute(f"**{_PLACEHOLDER}", _placeholder)
            await self._blank()
