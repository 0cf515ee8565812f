"""The page's request events, heard cheaply: every request of a watched page crosses here.

Playwright's public wrappers inspect a listener's signature and wrap each object on every event,
and ``request.response()`` is a round trip to the driver. For events that come with every
request of a page this module reaches Playwright's own objects under the wrappers:

* :func:`listen` adds a listener to the object itself, either subscribing to the event (the
  driver then sends it for every request) or quietly: the listener hears only the events the
  driver sends anyway. Playwright subscribes when the first listener of an event is added and
  unsubscribes when the last goes, counting every listener: a quiet one already there would
  keep a subscribing one from subscribing (its events then never came), so :func:`listen`
  keeps the subscription itself, on while a subscribing listener of its own is there. The driver sends a request's ``response``, ``requestFinished`` and
  ``requestFailed`` events, and the ``request`` event of the hop after its redirect, for every
  request the client already holds (one a route was given, or whose ``request`` event came),
  whether or not anyone subscribed.
* :class:`RequestEnds` learns when such a request got its response or failed from those events,
  so waiting for a response costs no message of its own.

Where Playwright's own objects are not there (another Playwright), both use the public API.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError

try:  # the event emitter under Playwright's channel objects: adding to it subscribes to nothing
    from playwright._impl._async_base import mapping as _to_public
    from playwright._impl.event_emitter import EventEmitter as _Emitter
except ImportError:  # pragma: no cover - another Playwright
    _Emitter = None  # type: ignore[assignment,misc]

__all__ = ["listen", "RequestEnds"]


def _impl(obj: Any) -> Any:
    return getattr(obj, "_impl_obj", obj)


def listen(owner: Any, event: str, callback: Callable[[Any], Any], *, subscribe: bool,
           public: bool = False) -> Callable[[], object]:
    """Call ``callback`` with Playwright's own object of every ``event`` of ``owner`` (a page or a
    context), or its public wrapper with ``public``; with ``subscribe`` False, only of the events
    the driver sends anyway. Returns what stops it. Where Playwright's own objects are not there,
    the public API (which subscribes)."""
    impl = getattr(owner, "_impl_obj", None)
    if impl is None or _Emitter is None or not isinstance(impl, _Emitter):
        owner.on(event, callback)
        return lambda: owner.remove_listener(event, callback)
    if public:
        given = callback

        def callback(obj: Any) -> Any:
            return given(_to_public.from_impl(obj))
    if subscribe:
        return _subscribed(impl, event, callback)
    _Emitter.on(impl, event, callback)
    return lambda: _Emitter.remove_listener(impl, event, callback)


# owner's own object -> event -> how many subscribing listeners listen() gave it
_subscribers: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


def _subscribed(impl: Any, event: str, callback: Callable[[Any], Any]) -> Callable[[], object]:
    """Add a subscribing listener: the driver sends ``event`` while one is there, whatever
    quiet listeners ``impl`` has (Playwright's own count would take them for subscribers)."""
    counts = _subscribers.setdefault(impl, {})
    quiet_ones = not counts.get(event) and impl.listener_count(event)
    counts[event] = counts.get(event, 0) + 1
    impl.on(event, callback)  # subscribes when it is the first listener of all
    update = getattr(impl, "_update_subscription", None)  # a channel's (a CDP session's: no-op)
    if quiet_ones and update is not None:
        update(event, True)
    removed = False

    def stop() -> None:
        nonlocal removed
        if removed:
            return
        removed = True
        impl.remove_listener(event, callback)  # unsubscribes when it was the last of all
        counts[event] -= 1
        if not counts[event] and impl.listener_count(event) and update is not None:
            update(event, False)  # only quiet listeners are left

    return stop


class RequestEnds:
    """The responses and failures of a context's requests, from the events the driver sends
    (see the module); :meth:`response` waits for one. A page that closes or crashes ends the
    waits for its requests with Playwright's ``Error``, as asking the driver would."""

    def __init__(self, context: Any) -> None:
        self._waiting: dict[int, tuple[int, list[asyncio.Future[Any]]]] = {}  # request -> (page, waits)
        self._pages: dict[int, set[int]] = {}  # page -> its requests waited for
        # they go with the context (a new context gets a new RequestEnds)
        listen(context, "response", self._responded, subscribe=False)
        listen(context, "requestfailed", lambda request: self._ended(request, None), subscribe=False)
        # a request can finish with no response object; its response event came first otherwise
        listen(context, "requestfinished", lambda request: self._ended(request, None), subscribe=False)

    def _responded(self, response: Any) -> None:
        self._ended(response.request, response)

    def _ended(self, request: Any, response: Any) -> None:
        key = id(_impl(request))
        entry = self._waiting.pop(key, None)
        if entry is None:
            return
        page, waits = entry
        self._pages.get(page, set()).discard(key)
        for future in waits:
            if not future.done():
                future.set_result(response)

    def _page_gone(self, page: int) -> None:
        for key in self._pages.pop(page, set()):
            _page, waits = self._waiting.pop(key, (page, []))
            for future in waits:
                if not future.done():
                    future.set_exception(PlaywrightError("Target page, context or browser has been closed"))

    def _page_key(self, impl: Any) -> int | None:
        """The key of the page that made ``impl`` (its close is listened to), None without one."""
        safe_page = getattr(impl, "_safe_page", None)
        page: Any = safe_page() if safe_page is not None else None
        if page is None or _Emitter is None or not isinstance(page, _Emitter):
            return None
        key = id(page)
        closed = getattr(page, "is_closed", None)
        if closed is not None and closed():
            raise PlaywrightError("Target page, context or browser has been closed")
        if key not in self._pages:
            self._pages[key] = set()
            for event in ("close", "crash"):
                _Emitter.on(page, event, lambda *_: self._page_gone(key))
        return key

    async def response(self, request: Any) -> Any:
        """``request``'s response (Playwright's own object, or the public one), or None when it
        failed. Raises Playwright's ``Error`` when its page closed first."""
        impl = _impl(request)
        if not hasattr(impl, "_response") or not hasattr(impl, "_failure_text"):
            return await request.response()  # another Playwright: ask the driver
        if impl._response is not None:
            return impl._response
        if impl._failure_text is not None:
            return None
        page = self._page_key(impl)
        if page is None:  # a service worker's request: no page to watch, so ask the driver
            return await request.response()
        key = id(impl)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entry = self._waiting.get(key)
        if entry is None:
            self._waiting[key] = (page, [future])
            self._pages[page].add(key)
        else:
            entry[1].append(future)
        try:
            return await future
        finally:
            entry = self._waiting.get(key)
            if entry is not None and future in entry[1]:
                entry[1].remove(future)
                if not entry[1]:
                    del self._waiting[key]
                    self._pages.get(page, set()).discard(key)
