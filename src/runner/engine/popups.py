"""The other pages of the test's context: popups and new tabs, caught, routed and driven.

A link with ``target=_blank`` or ``window.open(...)`` opens a page in the session's one context.
:class:`PopupPages` (one per context, made with it) hands such a page to the test that waits for
one (``runner.popup()``), and sends the requests of every page but the test's own (and runner's
own tabs: :meth:`PopupPages.open_own`) through the same routing target as the page: a context
route while the page is routed (the page's own route comes first, so the page's requests never
reach it), a context listener while it is watched. So
a popup's requests meet the same routes, records and aliases, also the routes added after it
opened, and its first request too (a page's own route would be set only once the page exists).

:class:`PageView` is the browser session's verbs bound to one such page: navigation, elements
and captures act on it; everything the session holds for the whole context (routing, cookies,
tracing, what broke) is the session's. Not here: a popup's WebSocket routes, CORS preflights
through the routes, and ``modifyObstructiveCode`` (the test's page alone has them).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import BrowserContext, Page, Request, Route
from playwright.async_api import Error as PlaywrightError

from runner.engine.a11y_verbs import A11yVerbs
from runner.engine.capture_verbs import CaptureVerbs
from runner.engine.element_verbs import ElementVerbs
from runner.engine.page_verbs import PageVerbs
from runner.engine.recovery import CLOSE_BOUND
from runner.engine.script_verbs import ScriptVerbs
from runner.engine.snapshot_verbs import SnapshotVerbs
from runner.engine.storage_verbs import StorageVerbs
from runner.errors import CommandError

if TYPE_CHECKING:
    from runner.engine.holder import BrowserHolder

__all__ = ["PopupPages", "PageView"]


_NO_FRAME = object()  # a service worker's request: no frame, no page


def _page_of(request: Request) -> Page | None | object:
    """The page that made ``request``: None for a new page's first request (made before its
    frame exists: Playwright has no frame to give), ``_NO_FRAME`` for a service worker's (which
    the test's page's own route never sees either)."""
    try:
        page: Page | None = request.frame.page
    except PlaywrightError:
        return _NO_FRAME if request.service_worker is not None else None
    return page


def _url_of(page: Page | None | object) -> str | None:
    return page.url if isinstance(page, Page) else None


class PageView(PageVerbs, SnapshotVerbs, ElementVerbs, CaptureVerbs, ScriptVerbs, StorageVerbs, A11yVerbs):
    """The session's verbs bound to another page of its context (a popup): the page verbs act
    on that page, and every other attribute is the session's (so its state is never copied).
    The verbs of the whole context that its families also hold stay the session's
    (``clear_storage``, ``restore_storage``: a session is the test's)."""

    def __init__(self, session: BrowserHolder, page: Page, label: str) -> None:
        self._session = session
        self.label = label  # "tab[1]": how the command log names the page
        self.page = page
        self.cdp = None
        self.frame_guard = None  # modifyObstructiveCode: the test's page only

    def __getattr__(self, name: str) -> Any:
        # only what this view does not set itself: the session's verbs and state of the context
        return getattr(self._session, name)

    @property  # type: ignore[override]
    def broken(self) -> str | None:
        """The session's: a browser that broke broke every page."""
        return self._session.broken

    @broken.setter
    def broken(self, why: str | None) -> None:
        self._session.broken = why

    def _live_page(self) -> Page:
        assert self.page is not None
        if self.page.is_closed():
            raise CommandError(
                f"The popup {self.label} is closed (by tab.value.close() or its own window.close()), "
                "so its runner has no page to drive.\nOpen it again in a `with runner.popup() as tab:` "
                "block, or drive the test's page with `runner`.")
        return self.page

    async def clear_storage(self) -> None:
        await self._session.clear_storage()  # type: ignore[attr-defined]

    async def restore_storage(self, state: dict[str, Any]) -> None:
        await self._session.restore_storage(state)  # type: ignore[attr-defined]

    async def close_page(self) -> None:
        """Close the page (its ``beforeunload`` handlers are not run); closed already is fine."""
        page = self.page
        if page is not None and not page.is_closed():
            await asyncio.wait_for(page.close(), CLOSE_BOUND)


class PopupPages:
    """The pages the test's page opens: handed to the test that waits for one (in the order
    they opened), routed and watched as the test's page is, closed by the reset between tests."""

    def __init__(self, context: BrowserContext, session: BrowserHolder, client: Callable[[], Any]) -> None:
        self._context = context
        self._session = session
        self._main = session.page
        self._client = client  # runner's own HTTP client (the session's), for handle_route
        self._waiters: dict[int, asyncio.Future[PageView]] = {}
        self._ids = itertools.count(1)
        self.views: list[PageView] = []  # the popups handed to the test, tab[1] first
        self._routed = False
        self._watching: Callable[[], object] | None = None  # stops the request listener while watched
        self._watching_quiet = False
        self._own: set[Page] = set()  # runner's own tabs (opened by open_own): no popups
        self._opening_own = False
        context.on("page", self._on_page)

    # -- waiting for a popup ----------------------------------------------------------------
    def expect(self) -> int:
        """Wait, from now, for the next page the context opens; returns the wait's token for
        :meth:`take` (or :meth:`forget`)."""
        token = next(self._ids)
        self._waiters[token] = asyncio.get_running_loop().create_future()
        return token

    def forget(self, token: int) -> None:
        """Stop the wait ``token`` (its with-block raised): a page it would have got is left open."""
        self._waiters.pop(token, None)

    async def take(self, token: int, timeout_ms: float) -> PageView | None:
        """The page the wait ``token`` got, once it loaded its document (within ``timeout_ms``);
        None when no page opened in time."""
        waiter = self._waiters.get(token)
        if waiter is None:
            return None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        try:
            view = await asyncio.wait_for(asyncio.shield(waiter), timeout_ms / 1000)
        except TimeoutError:
            return None
        finally:
            self._waiters.pop(token, None)
        try:  # its first document, as visit waits for one; a slow one is still the popup
            await view.page.wait_for_load_state(  # type: ignore[union-attr]
                "domcontentloaded", timeout=max(deadline - loop.time(), 0.001) * 1000)
        except PlaywrightError:
            pass
        return view

    async def open_own(self) -> Page:
        """A new page of runner's own in the context (``clear_all_local_storage``'s tab): never
        handed to a waiting test, and its requests are not the test's (neither routed nor watched)."""
        self._opening_own = True  # the context's "page" event comes before new_page() returns
        try:
            page = await self._context.new_page()
        finally:
            self._opening_own = False
        self._own.add(page)
        page.once("close", lambda closed: self._own.discard(closed))
        return page

    def _on_page(self, page: Page) -> None:
        if page is self._main:
            return
        if self._opening_own:
            self._own.add(page)
            return
        # the origins it shows hold storage the reset between tests wipes, as the page's do
        learn = self._session._on_navigated  # type: ignore[attr-defined]
        learn(page.main_frame)
        page.on("framenavigated", learn)
        waiter = next((w for w in self._waiters.values() if not w.done()), None)
        if waiter is None:
            return  # opened with no runner.popup() waiting: left as it is (closed between tests)
        view = PageView(self._session, page, f"tab[{len(self.views) + 1}]")
        self.views.append(view)
        waiter.set_result(view)

    # -- their requests ---------------------------------------------------------------------
    async def route(self, on: bool) -> None:
        """Route the other pages' requests to the routing target (``on``), as the test's page."""
        if on == self._routed:
            return
        if on:
            await self._context.route("**/*", self._on_route)
        else:
            await self._context.unroute("**/*", self._on_route)
        self._routed = on

    def watch(self, on: bool, *, quiet: bool = False) -> None:
        """Show the other pages' requests to the routing target, as the watched test's page;
        ``quiet`` as its listener is (the context routed: only the hops after a redirect,
        which the driver sends anyway, see request_events.py)."""
        if on == (self._watching is not None) and (not on or quiet == self._watching_quiet):
            return
        if self._watching is not None:
            self._watching()
            self._watching = None
        if on:
            from runner.engine.request_events import listen

            self._watching = listen(self._context, "request", self._on_request, subscribe=not quiet, public=True)
            self._watching_quiet = quiet

    async def _on_route(self, route: Route, request: Request) -> None:
        page = _page_of(request)
        routing = self._session._routing
        if page is _NO_FRAME or page is self._main or page in self._own or routing is None:
            await route.fallback()  # the test's page has a route of its own
            return
        from runner.engine.exchange import handle_route

        ends = self._session.request_ends()  # type: ignore[attr-defined]
        await handle_route(routing, route, request, _url_of(page), self._client(), ends)

    def _on_request(self, request: Request) -> None:
        routing = self._session._routing
        # as for the test's page: while routed, the route sees all but the hops after a redirect
        # (asked first: every request of the context comes here, and its page costs the most)
        if routing is None or (self._routed and request.redirected_from is None):
            return
        page = _page_of(request)
        if page is _NO_FRAME or page is self._main or page in self._own:
            return
        from runner.engine.exchange import observe_request

        observe_request(routing, request, _url_of(page), None, self._session.request_ends())  # type: ignore[attr-defined]

    async def close_all(self) -> None:
        """Close every page of the context but the test's (the reset between tests)."""
        self._waiters.clear()
        self.views.clear()
        for page in self._context.pages:
            if page is not self._main and not page.is_closed():
                try:
                    await asyncio.wait_for(page.close(), CLOSE_BOUND)
                except (PlaywrightError, TimeoutError):
                    pass  # the context's own close or replacement takes it
