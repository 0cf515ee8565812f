"""The CORS answers the engine gives itself: the automatic answer to a CORS preflight (1a.7)
and the default CORS headers of every response the engine makes up (1a.8)."""

from __future__ import annotations

from .headers import header_has
from .messages import HttpRequest, HttpResponse

__all__ = ["add_cors_headers", "preflight_response"]

_SAFELISTED = frozenset(
    ("cache-control", "content-language", "content-type", "expires", "last-modified", "pragma")
)


def add_cors_headers(headers: dict[str, str], request_headers: dict[str, str]) -> dict[str, str]:
    """The default CORS headers of every response the engine gives the page (1a.8)."""
    non_safelisted = any(k.lower() not in _SAFELISTED for k in headers)
    if not header_has(headers, "access-control-allow-origin"):
        headers["access-control-allow-origin"] = request_headers.get("origin") or "*"
    if not header_has(headers, "access-control-allow-credentials"):
        headers["access-control-allow-credentials"] = "true"
    if non_safelisted and not header_has(headers, "access-control-expose-headers"):
        headers["access-control-expose-headers"] = "*"
    return headers


def preflight_response(raw: HttpRequest) -> HttpResponse:
    """The automatic answer to a CORS preflight (1a.7)."""
    h = raw.headers
    return HttpResponse(
        status=204,
        status_text="No Content",
        headers={
            "access-control-max-age": "-1",
            "access-control-allow-credentials": "true",
            "access-control-allow-origin": h.get("origin") or "*",
            "access-control-allow-methods": h.get("access-control-request-method") or "*",
            "access-control-allow-headers": h.get("access-control-request-headers") or "*",
        },
        body=b"",
    )
