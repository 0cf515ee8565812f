"""``--browser-endpoint``: the browser runs on a Playwright server elsewhere; runner connects to it.

The server is ``playwright run-server`` (it ships in the Playwright wheel), a pool of its
containers, or a service that speaks Playwright's protocol (Moon, browserless). runner connects
with Playwright's own client (``chromium.connect``), so everything runner does to a local browser
it does to the remote one: routes, DevTools sessions (videos, the preflight and frame guards),
screenshots, downloads and traces come back to this machine's folders.

* The app and runner's file server listen on this machine's loopback: the connection exposes
  it (Playwright's ``expose_network="<loopback>"``), so the remote browser reaches
  ``127.0.0.1``/``localhost`` through runner.
* Launch options travel in the ``x-playwright-launch-options`` header: headless or not, and
  runner's browser flags. A server started without ``--unsafe`` ignores the flags (and any
  executable path, from ``--browser PATH``: a path on the server); it launches its own Chromium.
* Versions must agree to the minor (Playwright's rule): a mismatch is one message naming both
  and what to install.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from runner.errors import BrowserNotFoundError, UsageError

__all__ = ["RemoteEndpoint", "connect_remote", "remote_endpoint"]

_MISMATCH = re.compile(r"server version:\s*v?([\d.]+).*?client version:\s*v?([\d.]+)", re.S)


@dataclass(frozen=True)
class RemoteEndpoint:
    """A Playwright server's WebSocket URL and the headers to connect with (authentication)."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The URL as runner prints it: without credentials or query (tokens live there)."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))


def remote_endpoint(url: str | None, headers: Sequence[str] | None = None,
                    environ: Mapping[str, str] | None = None) -> RemoteEndpoint | None:
    """The endpoint of ``--browser-endpoint``/``--browser-endpoint-header`` or, when not given,
    of ``RUNNER_BROWSER_ENDPOINT``/``RUNNER_BROWSER_ENDPOINT_HEADERS`` (a JSON object); None for a
    local browser. Raises :class:`UsageError` naming what is wrong."""
    env = environ if environ is not None else {}
    where = "--browser-endpoint"
    if not url:
        url, where = env.get("RUNNER_BROWSER_ENDPOINT", "").strip() or None, "RUNNER_BROWSER_ENDPOINT"
    if not url:
        return None
    _check_url(url, where)
    found: dict[str, str] = {}
    text = env.get("RUNNER_BROWSER_ENDPOINT_HEADERS", "").strip()
    if text:
        try:
            data = json.loads(text)
        except ValueError as err:
            raise UsageError(f"RUNNER_BROWSER_ENDPOINT_HEADERS is not JSON ({err}): expected an object of "
                             'header names and values, e.g. {"Authorization": "Bearer ..."}.') from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise UsageError("RUNNER_BROWSER_ENDPOINT_HEADERS: expected a JSON object of header names and "
                             'string values, e.g. {"Authorization": "Bearer ..."}.')
        found.update({str(k): v for k, v in data.items()})
    for header in headers or []:
        name, sep, value = header.partition(":")
        if not sep or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name.strip()):
            raise UsageError(f"--browser-endpoint-header {header!r}: expected 'Name: value' "
                             "(e.g. 'Authorization: Bearer ...').")
        found[name.strip()] = value.strip()
    return RemoteEndpoint(url, found)


def _check_url(url: str, where: str) -> None:
    """Refuse what is not a ws(s)://host[:port] URL, naming the part that is wrong (urlsplit and
    .port raise ValueError for a bad port or IPv6 host: a traceback otherwise, later)."""
    expected = ("expected the WebSocket URL of a Playwright server (ws://host:port/ or wss://...), "
                "as `playwright run-server` prints it.")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its check: 'ws://h:notaport/' raises here, not in a label later
    except ValueError as err:
        raise UsageError(f"{where} {url!r}: {err}; {expected}") from None
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise UsageError(f"{where} {url!r}: {expected}")
    if any(char.isspace() or ord(char) < 0x20 for char in url):
        raise UsageError(f"{where} {url!r}: it holds a space or a control character; {expected}")


async def connect_remote(chromium: Any, endpoint: RemoteEndpoint, *, headless: bool, args: list[str],
                         browser_choice: str | None, timeout_ms: float) -> Any:
    """Connect to the endpoint's server; its browser is launched for this connection. Raises
    :class:`BrowserNotFoundError` saying why it could not be (unreachable, versions, launch)."""
    from playwright.async_api import Error as PlaywrightError

    launch: dict[str, Any] = {"headless": headless, "args": args, "chromiumSandbox": False}
    if browser_choice in ("chrome", "msedge"):
        launch["channel"] = browser_choice
    elif browser_choice and browser_choice != "chromium":
        launch["executablePath"] = browser_choice  # a path on the server (honoured with --unsafe)
    headers = {**endpoint.headers, "x-playwright-launch-options": json.dumps(launch)}
    try:
        return await chromium.connect(endpoint.url, headers=headers, timeout=timeout_ms,
                                      expose_network="<loopback>")
    except PlaywrightError as err:
        raise BrowserNotFoundError(_connect_failure(endpoint, str(err))) from err


def _connect_failure(endpoint: RemoteEndpoint, text: str) -> str:
    from importlib.metadata import version

    local = version("playwright")

    where = f"The browser endpoint {endpoint.label}"
    mismatch = _MISMATCH.search(text)
    if mismatch or "version mismatch" in text.lower():
        server = mismatch.group(1) if mismatch else "another version"
        minor = ".".join(local.split(".")[:2])
        return (f"{where} runs Playwright {server}, and runner here has Playwright {local}: they must be the "
                f"same major.minor version. Run the server's Playwright {minor} (`playwright run-server` of "
                f"playwright=={local}, or the image mcr.microsoft.com/playwright:v{local}), or install the "
                f"server's version here (pip install 'playwright=={server}.*').")
    first = next((line.strip() for line in text.splitlines() if line.strip() and "=====" not in line), text)
    lowered = text.lower()
    if any(word in lowered for word in ("econnrefused", "enotfound", "eai_again", "timeout", "socket hang up",
                                        "unexpected server response", "ehostunreach", "econnreset")):
        return (f"{where} cannot be reached ({first}). Expected a running Playwright server there "
                "(`playwright run-server --port 3000`, a grid of its containers, or a service that speaks "
                "Playwright's protocol), and the headers it asks for (--browser-endpoint-header).")
    return (f"{where} could not start a browser: {first}. The server launches its own Chromium; a path "
            "given with --browser is a path on the server and needs `playwright run-server --unsafe`.")
