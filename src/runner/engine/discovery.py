"""Finding a browser to drive: a configured one, one on the system, or one Playwright installed.

Order: ``--browser`` / ``RUNNER_BROWSER`` (``chromium``, ``chrome`` or a path), then Chromium or
Chrome on the system, then the Chromium that ``playwright install`` put in its cache.

A headless run prefers Chromium's *headless shell* when one is installed (Debian's
``chromium-headless-shell`` package, or the one ``playwright install`` puts beside Chromium), as
Playwright itself does: it is the same engine without the desktop browser around it, and a test
costs it about 40 % less CPU than the full browser in headless mode (measured in
``bench/parallel.py``). A run with a window (``--headed``) needs the full browser. A path given
with ``--browser``/``RUNNER_BROWSER`` is used as given.
"""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from runner.errors import BrowserNotFoundError

__all__ = ["BrowserSpec", "find_browser", "is_headless_shell", "INSTALL_HINT"]

_CHROMIUM_NAMES = ("chromium", "chromium-browser")
_SHELL_NAMES = ("chromium-headless-shell",)
_SHELL_PATHS = ("/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell")
_CHROME_NAMES = ("google-chrome", "google-chrome-stable", "chrome")
_CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium")
_CHROME_PATHS = (
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)

INSTALL_HINT = (
    "Install one of:\n"
    "  - Debian/Ubuntu: sudo apt-get install chromium\n"
    "  - any system:    python -m playwright install chromium\n"
    "or point runner at a browser with --browser PATH (or RUNNER_BROWSER=PATH)."
)


@dataclass(frozen=True)
class BrowserSpec:
    """A browser runner can launch: its family and executable."""

    name: str  # "chromium" or "chrome"
    path: str


def _executable(path: str | None) -> str | None:
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return None


def _on_system(names: tuple[str, ...], paths: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    for path in paths:
        if _executable(path):
            return path
    return None


def _playwright_cache() -> str:
    return os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")


def _playwright_installed() -> str | None:
    cache = _playwright_cache()
    patterns = [
        os.path.join(cache, "chromium-*", "chrome-linux*", "chrome"),
        os.path.join(cache, "chromium-*", "chrome-mac*", "Chromium.app", "Contents", "MacOS", "Chromium"),
    ]
    return _newest(patterns)


def _headless_shell() -> str | None:
    """Chromium's headless shell: the system's, else the one Playwright installed."""
    return _on_system(_SHELL_NAMES, _SHELL_PATHS) or _newest(
        [os.path.join(_playwright_cache(), "chromium_headless_shell-*", "chrome-*", "headless_shell")])


def is_headless_shell(path: str) -> bool:
    """Whether ``path`` names Chromium's headless shell (which cannot open a window)."""
    name = os.path.basename(path).lower()
    return "headless_shell" in name or "headless-shell" in name


def _newest(patterns: list[str]) -> str | None:
    for pattern in patterns:
        for candidate in sorted(glob.glob(pattern), reverse=True):
            if _executable(candidate):
                return candidate
    return None


def find_browser(choice: str | None = None, *, headless: bool = True) -> BrowserSpec:
    """Return the browser to launch.

    ``choice`` is ``"chromium"``, ``"chrome"``, a path to an executable, or ``None`` (then
    ``RUNNER_BROWSER`` is read, then the system and Playwright's cache are searched). Chromium's
    headless shell is preferred when ``headless`` and skipped otherwise (see the module).

    Raises ``BrowserNotFoundError`` with the install command when nothing usable is found, or
    when a window is asked of a headless shell given by path.
    """
    if choice is None:
        choice = os.environ.get("RUNNER_BROWSER") or None
    shell = _headless_shell() if headless else None
    if choice:
        lowered = choice.lower()
        if lowered == "chromium":
            path = shell or _on_system(_CHROMIUM_NAMES, _CHROMIUM_PATHS) or _playwright_installed()
            if path:
                return BrowserSpec("chromium", path)
            raise BrowserNotFoundError(f"--browser chromium was asked for, but no Chromium was found.\n{INSTALL_HINT}")
        if lowered in ("chrome", "google-chrome"):
            path = _on_system(_CHROME_NAMES, _CHROME_PATHS)
            if path:
                return BrowserSpec("chrome", path)
            raise BrowserNotFoundError(
                "--browser chrome was asked for, but no Google Chrome was found on this system.\n"
                "Install Google Chrome, or use --browser chromium."
            )
        expanded = os.path.expanduser(choice)
        if _executable(expanded):
            if not headless and is_headless_shell(expanded):
                raise BrowserNotFoundError(
                    f"--headed shows a browser window, but {expanded!r} is Chromium's headless shell, "
                    "which has none.\nExpected a full Chromium or Chrome: leave --browser out to let "
                    "runner find one, or give the path of chromium or chrome."
                )
            family = "chrome" if "chrome" in os.path.basename(expanded).lower() and "chromium" not in expanded.lower() else "chromium"
            return BrowserSpec(family, os.path.abspath(expanded))
        raise BrowserNotFoundError(
            f"--browser {choice!r} is neither 'chromium', 'chrome' nor an executable file.\n"
            f"Expected one of those; found no file at {expanded!r} that can be run."
        )
    path = shell or _on_system(_CHROMIUM_NAMES, _CHROMIUM_PATHS)
    if path:
        return BrowserSpec("chromium", path)
    path = _on_system(_CHROME_NAMES, _CHROME_PATHS)
    if path:
        return BrowserSpec("chrome", path)
    path = _playwright_installed()
    if path:
        return BrowserSpec("chromium", path)
    raise BrowserNotFoundError(f"No browser found: runner drives Chromium or Google Chrome.\n{INSTALL_HINT}")
