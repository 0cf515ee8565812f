"""Requests runner sends for the page's browser context and whose body it reads itself.

A handler route's response (``route.fetch`` before) and ``runner.request()`` (the context's
``request.fetch`` before) used Playwright's own client, whose driver decompresses a whole body
into memory with no bound: a 1 MB gzip "bomb" took the driver to 3 GB. They go through runner's
own client instead (``direct_fetch.py``, which reads at most ``MAX_READ_BODY_BYTES`` once
decompressed), and share the context's cookies both ways as Playwright's client does: the
context's cookies for each URL are sent (unless the first request carries a ``Cookie`` of its
own) and every ``Set-Cookie`` answered is stored in the context (unless its ``Domain`` is another
site's). Redirects are followed here, hop by hop, by Playwright's rules (``fetch_in_context``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

from runner.engine.direct_fetch import DirectClient
from runner.engine.raw_http import REDIRECT_STATUSES
from runner.net import Headers, HttpResponse, UpstreamError, header_has

__all__ = ["fetch_in_context", "parse_set_cookie"]

_BODY_HEADERS = ("content-type", "content-length", "content-encoding", "content-language", "content-location",
                 "transfer-encoding")


async def fetch_in_context(client: DirectClient, context: Any, method: str, url: str, headers: Mapping[str, str],
                           body: bytes | None, timeout_ms: float, *, max_redirects: int) -> HttpResponse:
    """Send a request with ``context``'s cookies, following at most ``max_redirects`` redirects
    (0: a redirect is returned as it is; more redirects than that are an error, as in
    Playwright's client). Raises :class:`UpstreamError`.

    Each hop after a redirect is sent as Playwright's client sends it: with the cookies of its
    own URL from the context (never a ``Cookie`` header the first request carried), without
    ``Authorization`` once the redirect leaves the origin, and as a bodiless GET after a 303
    (but a HEAD stays a HEAD) or a 301/302 answering a POST."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(timeout_ms, 1) / 1000
    sent = dict(headers)
    own_cookie = header_has(sent, "cookie")
    for hop in range(max(max_redirects, 0) + 1):
        if not own_cookie:
            cookies = await context.cookies(url)
            if cookies:
                sent["cookie"] = "; ".join(f"{c['name']}={c['value']}" for c in cookies)
        remaining_ms = (deadline - loop.time()) * 1000
        if remaining_ms <= 0:
            raise UpstreamError(f"no answer within {timeout_ms:g}ms", timed_out=True)
        response = await client.fetch(method, url, sent, body, remaining_ms, follow_redirect=False)
        await _store_cookies(context, url, response.headers.get("set-cookie"))
        location = response.headers.get("location")
        if response.status not in REDIRECT_STATUSES or not location or max_redirects <= 0:
            return response
        if hop >= max_redirects:
            raise UpstreamError(f"{method} {url} redirected more than {max_redirects} times (the last "
                                f"to {location}): a redirect loop?", timed_out=False)
        target = urljoin(url, location)
        own_cookie = False  # the next hop's cookies are the context's for its own URL
        sent = {k: v for k, v in sent.items() if k.lower() != "cookie"}
        if _origin(target) != _origin(url):  # credentials never follow a redirect to another origin
            sent = {k: v for k, v in sent.items() if k.lower() != "authorization"}
        url = target
        upper = method.upper()
        if (response.status == 303 and upper not in ("GET", "HEAD")) or (response.status in (301, 302)
                                                                          and upper == "POST"):
            method, body = "GET", None  # as browsers and Playwright's client do
            sent = {k: v for k, v in sent.items() if k.lower() not in _BODY_HEADERS}
    raise AssertionError("unreachable")


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or {"http": 80, "https": 443}.get(scheme)


async def _store_cookies(context: Any, url: str, header: str | None) -> None:
    if not header:
        return
    for _name, line in Headers({"set-cookie": header}).lines():  # one cookie a line
        cookie = parse_set_cookie(line, url)
        if cookie is None:
            continue
        try:
            if cookie.pop("_expired", False):
                await context.clear_cookies(name=cookie["name"], domain=cookie.get("domain") or urlsplit(url).hostname,
                                            path=cookie.get("path") or "/")
            else:
                await context.add_cookies([cookie])
        except Exception:  # noqa: BLE001 - a cookie the browser refuses is dropped, as it would drop it
            continue


def parse_set_cookie(line: str, url: str) -> dict[str, Any] | None:
    """One ``Set-Cookie`` value as a Playwright cookie for ``url`` (None when it is not one, or
    its ``Domain`` is not ``url``'s host or a parent of it). An expired cookie has ``_expired``:
    it is to be deleted."""
    parts = [p.strip() for p in line.split(";")]
    if not parts or "=" not in parts[0]:
        return None
    name, value = (s.strip() for s in parts[0].split("=", 1))
    if not name:
        return None
    attributes = _CookieAttributes.read(parts[1:])
    parts_url = urlsplit(url)
    host = (parts_url.hostname or "").lower()
    if attributes.domain is not None and not _domain_matches(host, attributes.domain):
        return None  # a server sets no cookie for another site: the browser drops it, as Playwright does
    cookie: dict[str, Any] = {"name": name, "value": value, **attributes.flags}
    cookie["domain"] = attributes.domain or host
    cookie["path"] = attributes.path if attributes.path is not None else _default_path(parts_url.path)
    when = time.time() + attributes.max_age if attributes.max_age is not None else attributes.expires
    if when is not None:
        if when <= time.time():
            cookie["_expired"] = True
        else:
            cookie["expires"] = when
    return cookie


@dataclass
class _CookieAttributes:
    """What the attributes of one ``Set-Cookie`` value say, before they meet the request's URL.
    Unknown attributes and values that do not parse are ignored, as browsers ignore them."""

    domain: str | None = None
    path: str | None = None
    expires: float | None = None
    max_age: float | None = None
    flags: dict[str, Any] = field(default_factory=dict)  # Playwright's secure, httpOnly, sameSite

    @classmethod
    def read(cls, attributes: list[str]) -> _CookieAttributes:
        read = cls()
        for attribute in attributes:
            key, _, val = attribute.partition("=")
            read.add(key.strip().lower(), val.strip())
        return read

    def add(self, key: str, val: str) -> None:
        """One attribute (``key`` lower-cased); a later one wins, as in browsers."""
        if key == "domain" and val:
            # Playwright's rule: "Domain=example.test" is ".example.test" (its subdomains too)
            domain = val.lower()
            self.domain = "." + domain if not domain.startswith(".") and "." in domain else domain
        elif key == "path" and val.startswith("/"):
            self.path = val
        elif key == "expires":
            try:
                self.expires = parsedate_to_datetime(val).timestamp()
            except (TypeError, ValueError, IndexError):
                pass
        elif key == "max-age":
            try:
                self.max_age = float(int(val))
            except ValueError:
                pass
        elif key == "secure":
            self.flags["secure"] = True
        elif key == "httponly":
            self.flags["httpOnly"] = True
        elif key == "samesite" and val.lower() in ("strict", "lax", "none"):
            self.flags["sameSite"] = val.capitalize()


def _default_path(request_path: str) -> str:
    """A cookie's default path: the request's path up to its last "/"."""
    request_path = request_path or "/"
    return request_path[: request_path.rfind("/")] or "/" if request_path.startswith("/") else "/"


def _domain_matches(host: str, domain: str) -> bool:
    """Playwright's ``domainMatches``: ``host`` is ``domain``, or under it when it starts with a dot."""
    if host == domain:
        return True
    return domain.startswith(".") and f".{host}".endswith(domain)
