"""The page's DevTools protocol session, narrowed to what a screencast recorder needs.

The video recorder (``artifacts/video.py``) sends protocol commands and listens to one event; it
gets this adapter instead of Playwright's ``CDPSession``, so nothing outside ``engine/`` holds a
Playwright object. Each new page gets a new adapter: a recorder compares them by identity to see
that the browser was relaunched.

:func:`listen_now` and :func:`send_now` are for a protocol event and answer that come with every
request of a page (the CORS preflight guard, ``preflights.py``): they reach Playwright's own
session object under its public wrapper, which on each call inspects the handler's signature,
copies the event's parameters, captures the caller's stack and, while a trace records, sends that
stack as a message of its own. Where that object is not there (another Playwright), they use the
public API.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import CDPSession

__all__ = ["DevTools", "quietly", "listen_now", "stop_listening_now", "send_now"]


def _events_of(session: CDPSession) -> Any:
    """Where ``session``'s events are heard unwrapped: Playwright's own session object, else
    (another Playwright) the public one."""
    impl = getattr(session, "_impl_obj", None)
    if impl is not None and callable(getattr(impl, "on", None)) and callable(getattr(impl, "remove_listener", None)):
        return impl
    return session


def _internal_sender(session: CDPSession) -> tuple[Any, Callable[..., Any] | None]:
    """Playwright's own session object and its connection's sender of calls internal to the
    driver; ``None`` for the sender where they are not there (another Playwright)."""
    impl = getattr(session, "_impl_obj", None)
    return impl, getattr(getattr(impl, "_connection", None), "send_message_to_server", None)


def listen_now(session: CDPSession, event: str, callback: Callable[[dict[str, Any]], Any]) -> None:
    """Call ``callback`` with the parameters of every ``event`` of ``session``, unwrapped."""
    _events_of(session).on(event, callback)


def stop_listening_now(session: CDPSession, event: str, callback: Callable[[dict[str, Any]], Any]) -> None:
    """Stop calling ``callback`` (the same callable :func:`listen_now` was given)."""
    _events_of(session).remove_listener(event, callback)


def _retrieved(reply: Any) -> None:
    if not reply.cancelled():
        reply.exception()  # retrieved, so never logged as an error nobody saw


def send_now(session: CDPSession, method: str, params: dict[str, Any]) -> None:
    """Send a protocol command whose answer nobody needs, at once (not from a task of its own)
    and as a call internal to the driver (no stack captured, nor sent to a trace that records). A
    failure (the page or its session went away) is nobody's news."""
    impl, send = _internal_sender(session)
    if send is None:
        asyncio.ensure_future(quietly(session.send(method, params)))
        return
    try:
        reply = send(impl, "send", {"method": method, "params": params}, {"internal": True, "timeout": 0})
    except Exception:  # noqa: BLE001 - the session is gone
        return
    reply.add_done_callback(_retrieved)


async def quietly(call: Awaitable[Any]) -> None:
    """Await a protocol call on a page that may be going away: its failure is nobody's news
    (a listener stopped, a paused request let through, a session detached as the page closes)."""
    try:
        await call
    except Exception:  # noqa: BLE001 - the page or its session is gone
        pass


class DevTools:
    """Protocol commands and events of one page (runs on the engine loop).

    A recorder sends a command for every frame it gets (its ack) and a few more whenever it
    pauses: they go as calls internal to Playwright's driver, and the frames come unwrapped
    (:func:`listen_now`), as the preflight guard's do, so that recording a video captures no
    stack per frame and, while a test's trace records, sends none to it.
    """

    def __init__(self, session: CDPSession) -> None:
        self._session = session
        self._impl, self._send = _internal_sender(session)

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a protocol command and return its result.

        Raises Playwright's ``Error`` when the command fails or the page is gone.
        """
        if self._send is None:  # another Playwright: its public call
            public: dict[str, Any] = await self._session.send(method, params)
            return public
        reply = await self._send(self._impl, "send", {"method": method, "params": params or {}},
                                 {"internal": True, "timeout": 0})
        result: dict[str, Any] = reply["result"]
        return result

    def on(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> None:
        """Call ``callback`` with the parameters of every ``event`` (e.g. a screencast frame)."""
        listen_now(self._session, event, callback)

    def remove_listener(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> None:
        """Stop calling ``callback`` (the same callable :meth:`on` was given)."""
        stop_listening_now(self._session, event, callback)
