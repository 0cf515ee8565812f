"""The one HTTP request and the one HTTP response of net/: what the adapter, the chain and the records pass.

An exchange starts as an :class:`HttpRequest` the adapter builds from the browser's request (its
``id``, ``resource_type``, ``page_url``: the page's side), goes out as the :class:`HttpRequest`
the handlers' changes made (the same type, the page's fields left at their defaults), comes back
as an :class:`HttpResponse` (read whole by ``fetch``, or only its head by ``pass_through``) and
reaches the page as the :class:`HttpResponse` the engine answers with. ``req`` and ``res``
(:class:`~runner.net.req.RequestData`, :class:`~runner.net.res.ResponseData`) wrap them while
the handlers run; a matcher reads a request through :class:`~runner.net.matching.MatchView`.

Headers are plain ``dict[str, str]`` here, as the browser gives them and as ``req.headers`` and
``res.headers`` show them to users (case-sensitive keys, JSON-ready): the case-insensitive,
multi-valued rules live in :class:`~runner.net.headers.Headers`, which reads these dicts where a
rule applies (the lines sent, a header looked up) rather than replacing them, so what a handler
sees is exactly what it set.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .headers import Headers

__all__ = ["HttpRequest", "HttpResponse"]


@dataclass
class HttpRequest:
    """An HTTP request: as the page made it (before any handler ran), or as it goes upstream.

    ``method``: the HTTP method (``"GET"``). ``url``: the absolute URL. ``headers``: the complete
    header set (from the browser, names lower-cased; going upstream, a header a handler deleted
    is absent). ``body``: the raw bytes, or None for no body.

    The page's side, for a request the browser made: ``id``, the browser's own request id
    (becomes ``Interception.browser_request_id``); ``resource_type``, the browser's
    classification (``document``, ``fetch``, ``xhr``, ``script``, ...); ``http_version``,
    ``"1.1"`` unless known otherwise; ``page_url``, the URL of the page (frame) that made it, to
    resolve a relative ``req.url`` a handler assigns (None: the request's URL is used).

    ``server``: the app's server made it (it came through runner's proxy, not from the page):
    only ``runner.intercept_backend``'s routes see it, and its record says so.
    """

    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    id: str = ""
    resource_type: str = ""
    http_version: str = "1.1"
    page_url: str | None = None
    server: bool = False


@dataclass
class HttpResponse:
    """An HTTP response: the server's, or the one the engine answers the page with.

    ``status``, ``status_text``, ``headers`` (as the server sent them, or as sent to the page)
    and ``body``: decoded from any content-encoding (gzip, br, ...) when read by
    :meth:`Exchange.fetch <runner.net.types.Exchange.fetch>`; ``url``: the final URL (after
    redirects when they were followed; "" for an answer to the page).

    A response of :meth:`Exchange.pass_through <runner.net.types.Exchange.pass_through>` is
    only its head: its body went to the page without passing through the engine (``body`` is
    empty) and ``load_body``, when not None, reads it on demand (a coroutine function run on the
    engine's loop; the engine calls it at most once, only when a test reads ``response.body``).

    ``throttle_kbps``, for an answer to the page: send the body at this rate, the page reading
    it as it arrives. An exchange that can stream says so (:attr:`Exchange.streams_body
    <runner.net.types.Exchange.streams_body>`); for any other the engine waits as long as the
    body would take, then answers at once (see :class:`~runner.net.guard.Guard`).
    """

    status: int
    status_text: str
    headers: dict[str, str]
    body: bytes = b""
    url: str = ""
    throttle_kbps: float | None = None
    load_body: Callable[[], Awaitable[bytes]] | None = None

    def header_lines(self) -> list[tuple[str, str]]:
        """The headers as sent, one ``(name, value)`` a line (see :meth:`Headers.lines`)."""
        return Headers(self.headers).lines()
