"""The request as a RouteMatcher sees it: :class:`MatchView`, built once per request.

A view over the request (:meth:`MatchView.of` an :class:`~runner.net.messages.HttpRequest`),
not a model of its own: its parts as the matchers compare them.

Each field reads its part of the request from the view (the URL's parts, the headers in lower
case, the Basic credentials, ...). The URL's query is parsed only when a ``query`` field first
asks, and the body parsed as JSON, and its GraphQL operations found, only when a ``json`` or
``graphql`` field first asks.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

if TYPE_CHECKING:
    from ..messages import HttpRequest

__all__ = ["MatchView", "NO_BODY", "parse_json_body", "graphql_operations"]

#: what :func:`parse_json_body` gives for a body that is not JSON (never equal to a JSON value)
NO_BODY: Any = object()
_UNREAD: Any = object()
_OPERATION = re.compile(r"\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)")


class MatchView:
    """What each RouteMatcher field is compared with, built once per request (1a.2)."""

    __slots__ = (
        "method", "headers", "auth_username", "auth_password", "url", "hostname", "path",
        "pathname", "port", "https", "resource_type", "body", "_json", "_graphql", "_query_text", "_query",
    )

    def __init__(self, method: str, url: str, headers: Mapping[str, str], resource_type: str,
                 body: bytes | None = None) -> None:
        self.body = body
        self._json: Any = _UNREAD
        self._graphql: list[dict[str, Any]] | None = None
        self.method = method
        self.url = url
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.resource_type = resource_type or ""
        parts = urlsplit(url)
        self.hostname = parts.hostname or ""
        self.pathname = parts.path or "/"
        self.path = self.pathname + (f"?{parts.query}" if parts.query else "")
        self.https = parts.scheme.lower().startswith("https")
        try:
            port = parts.port
        except ValueError:
            port = None
        self.port = port if port is not None else (443 if self.https else 80)
        self._query_text = parts.query
        self._query: dict[str, str] | None = None
        self.auth_username, self.auth_password = _basic_auth(self.headers.get("authorization"))

    @classmethod
    def of(cls, request: HttpRequest) -> MatchView:
        """The view of a request the page made."""
        return cls(request.method, request.url, request.headers, request.resource_type, request.body)

    @property
    def query(self) -> dict[str, str]:
        """The URL's query parameters (parsed when a ``query`` field first asks: most routes
        have none, and every request of a routed page is matched)."""
        if self._query is None:
            query: dict[str, list[str]] = {}
            for key, value in parse_qsl(self._query_text, keep_blank_values=True):
                query.setdefault(key, []).append(value)
            # a repeated key is compared as its values joined with "," (as the original coerces arrays)
            self._query = {k: ",".join(v) for k, v in query.items()}
        return self._query

    @property
    def json_body(self) -> Any:
        """The body parsed as JSON (once, when a ``json`` or ``graphql`` key first asks)."""
        if self._json is _UNREAD:
            self._json = parse_json_body(self.body)
        return self._json

    @property
    def graphql_operations(self) -> list[dict[str, Any]]:
        if self._graphql is None:
            self._graphql = graphql_operations(self.method, self.url, self.json_body)
        return self._graphql


def _basic_auth(header: str | None) -> tuple[str, str]:
    if not header:
        return "", ""
    scheme, _, creds = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return "", ""
    try:
        decoded = base64.b64decode(creds.strip(), validate=False).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return "", ""
    # split at the FIRST colon only: a password may contain ':' (the original truncated it)
    user, _, password = decoded.partition(":")
    return user, password


def parse_json_body(body: bytes | None) -> Any:
    """The body as JSON, or :data:`NO_BODY` when it is not JSON."""
    if not body:
        return NO_BODY
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return NO_BODY


def graphql_operations(method: str, url: str, body: Any) -> list[dict[str, Any]]:
    """The GraphQL operations a request carries (``body``: as :func:`parse_json_body` gave it):
    the JSON body (one operation, or a batch) or, for a GET, the ``query``, ``operationName`` and
    ``variables`` parameters of the URL. ``operationName`` falls back on the first named
    operation of the query text."""
    raw: list[Any]
    if isinstance(body, dict):
        raw = [body]
    elif isinstance(body, list):
        raw = body
    elif method.upper() == "GET":
        params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        if "query" not in params:
            return []
        variables: Any = params.get("variables")
        if variables:
            try:
                variables = json.loads(variables)
            except ValueError:
                variables = None
        raw = [{"query": params["query"], "operationName": params.get("operationName"), "variables": variables}]
    else:
        return []
    operations = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("query", ""), str):
            continue
        query = item.get("query") or ""
        name = item.get("operationName")
        if not isinstance(name, str) or not name:
            found = _OPERATION.search(query)
            name = found.group(1) if found else ""
        variables = item.get("variables")
        operations.append({"operationName": name, "query": query,
                           "variables": variables if isinstance(variables, dict) else {}})
    return operations
