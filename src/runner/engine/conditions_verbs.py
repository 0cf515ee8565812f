"""Network conditions of the test's pages (``runner.network_conditions``, ``networkConditions``):
CDP ``Network.emulateNetworkConditions`` on the page's session and on a session of each popup.

Chromium keeps the conditions per page and per DevTools session (they end with the session), so
the test's page gets them on its own session (``cdp``), and every other page of the context, the
popups open now and those that open later, on a session made for it here. A popup gets them once
it exists: its very first request can leave before. What Chromium throttles is what goes over
the network: a response runner makes up (a stub) never does, and is answered even offline.
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from runner.config.network_conditions import NetworkConditions
from runner.engine.holder import BrowserHolder, PageError
from runner.engine.recovery import CLOSE_BOUND

__all__ = ["ConditionsVerbs", "cdp_conditions"]

_NONE = NetworkConditions()


def cdp_conditions(conditions: NetworkConditions | None) -> dict[str, Any]:
    """The parameters of ``Network.emulateNetworkConditions``: throughputs in bytes per second
    (-1: not limited), latency in milliseconds."""
    read = conditions or _NONE

    def per_second(kbps: float | None) -> float:
        return -1 if kbps is None else kbps * 1000 / 8

    return {"offline": read.offline, "latency": read.latency,
            "downloadThroughput": per_second(read.download), "uploadThroughput": per_second(read.upload)}


class ConditionsVerbs(BrowserHolder):
    """The conditions of every page of the context, set and taken off."""

    # what the context's pages are given now (None: the network as it is), and the popups'
    # sessions; browser.py's _new_context sets both anew
    network_conditions: NetworkConditions | None
    _condition_sessions: dict[Page, CDPSession]
    _conditions_heard: Any  # the context whose new pages are heard
    _condition_tasks: set[asyncio.Task[None]]  # new popups being given the conditions

    async def set_network_conditions(self, conditions: NetworkConditions | None) -> None:
        """Give every page of the context ``conditions`` (None: take them off). Raises
        :class:`PageError` with Chromium's words when the page's session refuses them."""
        if conditions == self.network_conditions:
            return
        context = self._live_context()
        if conditions is not None and self._conditions_heard is not context:
            context.on("page", self._condition_new_page)
            self._conditions_heard = context
        self.network_conditions = conditions
        params = cdp_conditions(conditions)
        try:
            await self.cdp.send("Network.emulateNetworkConditions", params)
        except PlaywrightError as err:
            raise PageError(getattr(err, "message", None) or str(err)) from err
        others = [page for page in context.pages if page is not self.page and not page.is_closed()]
        await asyncio.gather(*(self._condition_page(page, params) for page in others))

    def _condition_new_page(self, page: Page) -> None:
        if self.network_conditions is not None and page is not self.page:
            task = asyncio.ensure_future(self._condition_page(page, cdp_conditions(self.network_conditions)))
            self._condition_tasks.add(task)
            task.add_done_callback(self._condition_tasks.discard)

    def _forget_condition_session(self, page: Page) -> None:
        self._condition_sessions.pop(page, None)

    async def _condition_page(self, page: Page, params: dict[str, Any]) -> None:
        """A popup's conditions; one that closed meanwhile needs none."""
        try:
            session = self._condition_sessions.get(page)
            if session is None:
                if params == cdp_conditions(None):
                    return  # it never had any
                session = await asyncio.wait_for(self._live_context().new_cdp_session(page), CLOSE_BOUND)
                self._condition_sessions[page] = session
                page.once("close", self._forget_condition_session)
            await asyncio.wait_for(session.send("Network.emulateNetworkConditions", params), CLOSE_BOUND)
        except (PlaywrightError, TimeoutError):
            pass
