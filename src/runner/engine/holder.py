"""What every family of the browser session's verbs stands on: the browser, context and page held.

:class:`~runner.engine.browser.BrowserSession` is :class:`BrowserHolder` with the families
mixed in (``recovery``: what broke, replaced; ``page_verbs``: navigation; ``element_verbs``:
elements and keys; ``network_verbs``: routing, watching and HTTP from the test;
``storage_verbs``: cookies and storage; ``capture_verbs``: screenshots, traces, HAR, downloads;
``studio_verbs``; ``script_verbs``: the page's own JavaScript; ``a11y_verbs``: axe-core's
checks; ``clock_verbs``: the page's clock; ``conditions_verbs``: its network conditions).
``browser.py`` makes what is held here (launch, contexts, the reset between tests, close); a
family only uses it, and reaches another family only through what is declared here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import Browser, BrowserContext, Page

if TYPE_CHECKING:
    from runner.engine.frame_guard import FrameGuard
    from runner.engine.routing import RoutingTarget

__all__ = ["BrowserHolder", "PageError"]


class PageError(Exception):
    """A verb failed in the browser; ``str()`` is Playwright's message, unchanged."""


class BrowserHolder:
    """The browser, its one context and page, and the session's options and routing target."""

    options: Any  # the session's LaunchOptions
    _routing: RoutingTarget | None
    browser: Browser | None
    context: BrowserContext | None
    page: Page | None
    cdp: Any  # the page's CDPSession (None without a page)
    frame_guard: FrameGuard | None  # modifyObstructiveCode on: framed pages' sources rewritten
    popups: Any  # popups.py's PopupPages: the context's other pages (popups, new tabs), routed as the page
    preflights: Any  # while routed: CORS preflights through the routes (preflights.py)
    # Why the page or browser cannot serve the test (the message the test fails with); the
    # next reset replaces what broke.
    broken: str | None
    # browser.py's: a new context and page (the old ones are dropped), and the page taken to
    # about:blank (a new context when it will not go)
    _new_context: Callable[[], Awaitable[None]]
    _blank: Callable[[], Awaitable[None]]
    # element_verbs.py's: ``call(target)`` evaluated in the page, or in the frame at the end of
    # ``path`` (found again at each try), a navigation under way waited out
    _in_page: Callable[..., Awaitable[Any]]

    def _live_page(self) -> Page:
        assert self.page is not None
        return self.page

    def _live_context(self) -> BrowserContext:
        assert self.context is not None
        return self.context

    @property
    def page_url(self) -> str | None:
        """The page's URL now (Playwright keeps it: no trip to the browser); None without a page."""
        return self.page.url if self.page is not None else None

    @property
    def alive(self) -> bool:
        return (
            self.broken is None
            and self.browser is not None
            and self.browser.is_connected()
            and self.page is not None
            and not self.page.is_closed()
        )
