"""Playwright's driver: started ahead of everything else, then taken by the first browser.

The driver (a node process) takes most of a second to start and needs no configuration, so
``runner run`` and ``runner open``'s child start it first thing, while the rest of runner loads.
This module imports nothing of runner's engine but the driver's start (the browser adapter,
``browser.py``, is several times its import cost): the driver starts as early as it can. The
future is kept on the engine loop that started it, and the first browser session takes it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Playwright, async_playwright

from runner.errors import BrowserNotFoundError
from runner.usercode.tracebacks import first_line

__all__ = ["start_driver_early", "driver"]


def start_driver_early(loop: Any) -> None:
    """Start Playwright's driver now on ``loop`` (an ``EngineLoop``); its browser session takes
    it with ``loop.take_early_driver()``."""
    if loop.early_driver is None:
        loop.early_driver = loop.submit(async_playwright().start())


async def driver(early: Any = None) -> Playwright:
    """Playwright's driver: ``early`` (a future from :func:`start_driver_early`) when it came up,
    else a new one. Raises ``BrowserNotFoundError`` when node cannot start."""
    if early is not None:
        try:
            return await asyncio.wrap_future(early)
        except Exception:  # noqa: BLE001 - start one the usual way below
            pass
    try:
        return await async_playwright().start()
    except Exception as err:  # noqa: BLE001 - node missing, out of memory, ...
        raise BrowserNotFoundError(
            f"The browser could not be started: Playwright's driver (node) did not start: "
            f"{first_line(err)}\nReinstall Playwright (pip install --force-reinstall playwright)."
        ) from err
