"""The verbs of what the browser keeps for a site: cookies and the storage of visited origins.

Cookies (``cookies``, ``add_cookies``, ``clear_cookies``) and the storage of the origins the page
visited, wiped (``clear_storage``), or captured and restored for a session (``capture_storage``,
``restore_storage``).

The page's navigations are watched (:meth:`StorageVerbs._on_navigated`) to learn which origins
hold storage: the reset between tests (``browser.py``) wipes those through CDP.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Route

from runner.engine.holder import BrowserHolder

__all__ = ["StorageVerbs"]


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

    def _on_navigated(self, frame: Any) -> None:
        url = frame.url
        if url.startswith(("http://", "https://")):
            parts = urlsplit(url)
            self._touched_origins.add(f"{parts.scheme}://{parts.netloc}")

    async def _forget_origins(self) -> None:
        """Clear the storage of every origin the page visited (and forget them)."""
        origins, self._touched_origins = self._touched_origins, set()
        for origin in origins:
            await self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})

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
        marker = "/__runner_session_restore__"

        async def placeholder(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>runner</title>")

        await self.page.route(f"**{marker}", placeholder)
        try:
            for origin in origins:
                await self.page.goto(origin["origin"] + marker)
                await self.page.evaluate(
                    "items => { for (const {name, value} of items) localStorage.setItem(name, value); }",
                    origin["localStorage"],
                )
        finally:
            await self.page.unroute(f"**{marker}", placeholder)
            await self._blank()
