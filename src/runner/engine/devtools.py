"""The page's DevTools protocol session, narrowed to what a screencast recorder needs.

The video recorder (``artifacts/video.py``) sends protocol commands and listens to one event; it
gets this adapter instead of Playwright's ``CDPSession``, so nothing outside ``engine/`` holds a
Playwright object. Each new page gets a new adapter: a recorder compares them by identity to see
that the browser was relaunched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import CDPSession

__all__ = ["DevTools", "quietly"]


async def quietly(call: Awaitable[Any]) -> None:
    """Await a protocol call on a page that may be going away: its failure is nobody's news
    (a listener stopped, a paused request let through, a session detached as the page closes)."""
    try:
        await call
    except Exception:  # noqa: BLE001 - the page or its session is gone
        pass


class DevTools:
    """Protocol commands and events of one page (runs on the engine loop)."""

    def __init__(self, session: CDPSession) -> None:
        self._session = session

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a protocol command and return its result.

        Raises Playwright's ``Error`` when the command fails or the page is gone.
        """
        result: dict[str, Any] = await self._session.send(method, params)
        return result

    def on(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> None:
        """Call ``callback`` with the parameters of every ``event`` (e.g. a screencast frame)."""
        self._session.on(event, callback)

    def remove_listener(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> None:
        """Stop calling ``callback`` (the same callable :meth:`on` was given)."""
        self._session.remove_listener(event, callback)
