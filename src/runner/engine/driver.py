"""Playwright's driver: started ahead of everything else, then taken by the first browser.

The driver (a node process) takes most of a second to start and needs no configuration, so
``runner run`` and ``runner open``'s child start it first thing, while the rest of runner loads.
This module imports nothing of runner's engine but the driver's start (the browser adapter,
``browser.py``, is several times its import cost): the driver starts as early as it can. The
future is kept on the engine loop that started it, and the first browser session takes it.

Node keeps the driver's compiled JavaScript between runs (its compile cache, in
``$XDG_CACHE_HOME/runner/node-compile-cache``, else ``~/.cache/runner/node-compile-cache``): the
driver then starts about a fifth sooner (measured 314 -> 249 ms at best, 522 -> 419 ms median on
a busy 2-core machine). Node checks each entry against the file it was compiled from, so another
Playwright is compiled anew, and it goes on without the cache when the folder cannot be written.
A ``NODE_COMPILE_CACHE`` of the user's own is kept.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from playwright.async_api import Playwright, async_playwright

from runner.errors import BrowserNotFoundError
from runner.run_temp import run_folder
from runner.user_cache import user_cache_folder
from runner.usercode.tracebacks import first_line

__all__ = ["compile_cache_folder", "driver", "start_driver_early"]

_cached = False  # Playwright's driver environment is runner's (_with_driver_environment)


def compile_cache_folder() -> Path | None:
    """Where node keeps the driver's compiled JavaScript (None without a home folder)."""
    folder = user_cache_folder()
    return folder / "node-compile-cache" if folder is not None else None


def _with_driver_environment() -> None:
    """Give the driver processes Playwright starts node's compile cache (see the module) and, in a
    ``runner run``, the run's temporary folder as ``TMPDIR`` (``run_temp.py``: what a killed
    driver or browser leaves there is removed with the run). Playwright has no option for its
    driver's environment, so its function that makes it is wrapped; a Playwright without that
    function simply starts its driver without them."""
    global _cached
    transport = sys.modules.get("playwright._impl.transport")
    make_env = getattr(transport, "get_driver_env", None)
    if _cached or make_env is None:
        return

    def get_driver_env() -> dict[str, str]:
        env: dict[str, str] = make_env()
        folder = compile_cache_folder()
        if folder is not None:
            env.setdefault("NODE_COMPILE_CACHE", str(folder))
        temp = run_folder()
        if temp is not None:
            env["TMPDIR"] = temp
        return env

    transport.get_driver_env = get_driver_env  # type: ignore[union-attr]
    _cached = True


def start_driver_early(loop: Any) -> None:
    """Start Playwright's driver now on ``loop`` (an ``EngineLoop``); its browser session takes
    it with ``loop.take_early_driver()``."""
    if loop.early_driver is None:
        _with_driver_environment()
        loop.early_driver = loop.submit(async_playwright().start())


async def driver(early: Any = None) -> Playwright:
    """Playwright's driver: ``early`` (a future from :func:`start_driver_early`) when it came up,
    else a new one. Raises ``BrowserNotFoundError`` when node cannot start."""
    if early is not None:
        try:
            return await asyncio.wrap_future(early)
        except Exception:  # noqa: BLE001 - start one the usual way below
            pass
    _with_driver_environment()
    try:
        return await async_playwright().start()
    except Exception as err:  # noqa: BLE001 - node missing, out of memory, ...
        raise BrowserNotFoundError(
            f"The browser could not be started: Playwright's driver (node) did not start: "
            f"{first_line(err)}\nReinstall Playwright (pip install --force-reinstall playwright)."
        ) from err
