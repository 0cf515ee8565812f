"""The ``req`` object handed to route handlers, and the request state shared along the chain."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

from runner.casing import camel_to_snake
from runner.errors import InterceptError, UsageError
from runner.net.bodies import body_refusal, decode_body, encode_body

from ._util import parse_query, show
from .headers import header_delete, header_get, header_has, header_replace
from .interception import RequestSnapshot
from .messages import HttpRequest
from .static_response import StaticResponse, parse_shorthand, parse_static

if TYPE_CHECKING:
    from .route import Route

__all__ = ["Req", "RequestData", "LiveQuery", "REQUEST_EVENTS"]

REQUEST_EVENTS = ("before:response", "response", "after:response")


def with_query(url: str, query: Mapping[str, Any]) -> str:
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            pairs.append((str(key), _query_text(item)))
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(pairs), parts.fragment))


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@dataclass
class Subscription:
    """A response-phase listener: ``event`` is before:response, response:callback, response or after:response."""

    route: Route
    order: int  # the route's position in the chain
    event: str
    handler: Callable[..., Any]


class RequestData:
    """The request as modified so far; shared by every handler of the chain.

    It wraps the page's :class:`~runner.net.messages.HttpRequest` (``raw``, never changed) with
    what the handlers see and change (``method``, ``url``, ``headers`` as a plain dict, ``body``
    decoded); :meth:`outgoing` gives the ``HttpRequest`` that goes upstream."""

    def __init__(self, raw: HttpRequest, response_timeout: float) -> None:
        self.raw = raw
        self.method = raw.method
        self.url = raw.url
        self.headers: dict[str, Any] = dict(raw.headers)
        # Handlers see the body's length as the original shows it; the browser does not report
        # the header, so it is added here and dropped again on the way out unless changed.
        self._shown_length: str | None = None
        if raw.body and not header_has(self.headers, "content-length"):
            self._shown_length = str(len(raw.body))
            self.headers["content-length"] = self._shown_length
        body, parsed = decode_body(raw.body, raw.headers.get("content-type"))
        self.body: Any = body
        self.body_parsed = parsed
        self._body_original = copy.deepcopy(body) if parsed else body
        self.http_version = raw.http_version
        self.resource_type = raw.resource_type
        self.response_timeout = response_timeout
        self.follow_redirect = False
        self.subscriptions: list[Subscription] = []
        self.lock = threading.Lock()

    def resolve_url(self, value: str) -> str:
        if value == "":
            return value
        base = self.raw.page_url or self.url
        return urljoin(base, value)

    def body_changed(self) -> bool:
        if self.body_parsed:
            return bool(self.body != self._body_original or type(self.body) is not type(self._body_original))
        return self.body is not self._body_original and self.body != self._body_original

    def body_bytes(self) -> bytes | None:
        """The bytes to send. Raises UsageError for a body a handler set that is not a str,
        bytes or JSON data (a set, a Decimal, NaN...)."""
        if not self.body_changed():
            return self.raw.body
        refusal = body_refusal(self.body, "req.body")
        if refusal is not None:
            raise UsageError(refusal)
        return encode_body(self.body)[0]

    def sync_length(self, before: Any) -> None:
        """After a handler: a body it changed gets the ``content-length`` of its new bytes, so
        the next handler and the server see it (the original's rule), unless the handler set
        ``content-length`` itself (``before`` is the value it found). Raises UsageError for a
        body that cannot be sent, while the handler that set it is still the one to blame."""
        if not self.body_changed():
            return
        size = str(len(self.body_bytes() or b""))
        current = header_get(self.headers, "content-length")
        if current is None or current != before:
            return  # no length to keep true, or the handler chose one
        if size == str(current):
            return
        header_replace(self.headers, "content-length", size)
        if self._shown_length == current:
            self._shown_length = size  # still runner's own: dropped on the way out, as before

    def final_headers(self, body: bytes | None) -> dict[str, str]:
        headers = {str(k): str(v) for k, v in self.headers.items()}
        if self._shown_length is not None and header_get(headers, "content-length") == self._shown_length:
            header_delete(headers, "content-length")  # ours, untouched: the browser sets the real one
        original = self.raw.headers.get("content-length")
        if original is not None and self.body_changed():
            current = header_get(headers, "content-length")
            if current == original:  # the user did not change it: recompute
                header_replace(headers, "content-length", str(len(body or b"")))
        return headers

    def outgoing(self) -> tuple[HttpRequest, bool]:
        """The request to send upstream, and whether it differs from what the browser sent."""
        body = self.body_bytes()
        headers = self.final_headers(body)
        out = HttpRequest(method=self.method, url=self.url, headers=headers, body=body)
        changed = (
            out.method != self.raw.method
            or out.url != self.raw.url
            or out.headers != self.raw.headers
            or out.body != self.raw.body
        )
        return out, changed

    def snapshot(self, alias: str | None = None) -> RequestSnapshot:
        return RequestSnapshot(
            method=self.method,
            url=self.url,
            headers={str(k): str(v) for k, v in self.headers.items()},
            body=self.body,
            http_version=self.http_version,
            resource_type=self.resource_type,
            response_timeout=self.response_timeout,
            follow_redirect=self.follow_redirect,
            alias=alias,
        )

    def subscribe(self, route: Route, order: int, event: str, handler: Callable[..., Any]) -> None:
        """Add a response-phase listener (``event``: see :class:`Subscription`) of the handler of
        ``route`` (``order``: its place in the chain)."""
        with self.lock:
            self.subscriptions.append(Subscription(route, order, event, handler))

    def has_response_listeners(self) -> bool:
        return bool(self.subscriptions)


class LiveQuery(MutableMapping[str, Any]):
    """``req.query``: reads the current URL's query; setting or deleting a key rewrites ``req.url``."""

    def __init__(self, data: RequestData) -> None:
        self._data = data

    def _current(self) -> dict[str, Any]:
        return parse_query(self._data.url)

    def __getitem__(self, key: str) -> Any:
        return self._current()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        query = self._current()
        query[key] = value
        self._data.url = with_query(self._data.url, query)

    def __delitem__(self, key: str) -> None:
        query = self._current()
        del query[key]
        self._data.url = with_query(self._data.url, query)

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())

    def __repr__(self) -> str:
        return repr(self._current())

    def __eq__(self, other: object) -> bool:
        return self._current() == (dict(other) if isinstance(other, Mapping) else other)

    __hash__ = None  # type: ignore[assignment]


class Completion:
    """How a handler ended the request phase: a stub (``static``) or continue (``callback``)."""

    def __init__(self, kind: str, static: StaticResponse | None = None,
                 callback: Callable[..., Any] | None = None) -> None:
        self.kind = kind  # "reply" or "continue"
        self.static = static
        self.callback = callback


_READ_ONLY = ("http_version", "resource_type")


class Req:
    """The request given to a route handler (one per handler call; changes persist along the chain).

    Attributes (camelCase spellings work too): ``body``, ``headers``, ``method``, ``url``,
    ``query`` (live), ``http_version`` and ``resource_type`` (read only), ``response_timeout``,
    ``follow_redirect``, ``alias``. Methods: ``reply``, ``continue_``, ``destroy``, ``redirect``, ``on``.
    """

    _data: RequestData

    def __init__(self, data: RequestData, route: Route, order: int,
                 report: Callable[[BaseException], None]) -> None:
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_route", route)
        object.__setattr__(self, "_order", order)
        object.__setattr__(self, "_report", report)
        object.__setattr__(self, "_alias", None)
        object.__setattr__(self, "_completion", None)
        object.__setattr__(self, "_finished", False)
        object.__setattr__(self, "_lock", threading.Lock())

    # -- attributes --------------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        snake = camel_to_snake(name, camel_only=True)
        if snake != name:
            return getattr(self, snake)
        raise AttributeError(f"req has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        snake = camel_to_snake(name, camel_only=True)
        if snake in _READ_ONLY:
            raise UsageError(f"req.{snake} is read only.")
        if snake not in ("body", "headers", "method", "url", "query", "response_timeout",
                         "follow_redirect", "alias"):
            raise UsageError(
                f"req has no property {name!r}. Settable properties: body, headers, method, url, "
                "query, response_timeout, follow_redirect, alias."
            )
        object.__setattr__(self, snake, value)

    @property
    def body(self) -> Any:
        return self._data.body

    @body.setter
    def body(self, value: Any) -> None:
        self._data.body = value

    @property
    def headers(self) -> dict[str, Any]:
        return self._data.headers

    @headers.setter
    def headers(self, value: Mapping[str, Any]) -> None:
        if not isinstance(value, Mapping):
            raise UsageError(f"req.headers must be a dict of strings; found {value!r}.")
        self._data.headers = dict(value)

    @property
    def method(self) -> str:
        return self._data.method

    @method.setter
    def method(self, value: str) -> None:
        if not isinstance(value, str) or not value:
            raise UsageError(f"req.method must be a non-empty string; found {value!r}.")
        self._data.method = value

    @property
    def url(self) -> str:
        return self._data.url

    @url.setter
    def url(self, value: str) -> None:
        if not isinstance(value, str):
            raise UsageError(f"req.url must be a string; found {value!r}.")
        self._data.url = self._data.resolve_url(value)

    @property
    def query(self) -> LiveQuery:
        return LiveQuery(self._data)

    @query.setter
    def query(self, value: Mapping[str, Any]) -> None:
        if not isinstance(value, Mapping):
            raise UsageError(f"req.query must be a dict; found {value!r}.")
        self._data.url = with_query(self._data.url, dict(value))

    @property
    def http_version(self) -> str:
        return self._data.http_version

    @property
    def resource_type(self) -> str:
        return self._data.resource_type

    @property
    def response_timeout(self) -> float:
        return self._data.response_timeout

    @response_timeout.setter
    def response_timeout(self, value: float) -> None:
        self._data.response_timeout = value

    @property
    def follow_redirect(self) -> bool:
        return self._data.follow_redirect

    @follow_redirect.setter
    def follow_redirect(self, value: bool) -> None:
        self._data.follow_redirect = bool(value)

    @property
    def alias(self) -> str | None:
        return self._alias  # type: ignore[no-any-return]

    @alias.setter
    def alias(self, value: str | None) -> None:
        if value is not None:
            from .route import validate_alias

            validate_alias(value, "req.alias")
        object.__setattr__(self, "_alias", value)

    def __repr__(self) -> str:
        return f"<req {self._data.method} {self._data.url}>"

    # -- completion --------------------------------------------------------------------------
    def _complete(self, what: str, completion: Completion) -> None:
        with self._lock:
            if self._finished:
                err = InterceptError(
                    f"`{what}()` was called after the request handler finished executing, but "
                    f"`{what}()` can not be called after the request has already completed."
                )
            elif self._completion is not None:
                err = InterceptError(
                    "`req.reply()` and/or `req.continue()` were called to signal request completion "
                    "multiple times, but a request can only be completed once."
                )
            else:
                object.__setattr__(self, "_completion", completion)
                return
        self._report(err)
        raise err

    def reply(self, *args: Any, **kwargs: Any) -> None:
        """Answer with a stub (``reply(static)``, ``reply(body, headers?)``,
        ``reply(status_code, body?, headers?)``, keyword StaticResponse keys); with no argument
        send the request upstream as modified; with a function, the same as ``continue_(fn)``.
        Ends the request phase. Raises InterceptError when the request was already completed."""
        __tracebackhide__ = True
        if len(args) == 1 and not kwargs and callable(args[0]):
            self.continue_(args[0])
            return
        static = parse_shorthand(args, kwargs, "req.reply")
        if static is None:
            self._complete("req.reply", Completion("continue"))
        else:
            self._complete("req.reply", Completion("reply", static=static))

    def continue_(self, callback: Callable[..., Any] | None = None) -> None:
        """Send the request upstream now (later request handlers are skipped); ``callback(res)``
        runs in the response phase. Raises InterceptError when already completed."""
        __tracebackhide__ = True
        if callback is not None and not callable(callback):
            raise UsageError(f"`req.continue()` requires the parameter to be a function. You passed: {show(callback)}")
        self._complete("req.continue", Completion("continue", callback=callback))

    def destroy(self) -> None:
        """Answer with a network error."""
        __tracebackhide__ = True
        self._complete("req.destroy", Completion("reply", static=parse_static({"forceNetworkError": True}, "req.reply")))

    def redirect(self, location: str, status_code: int = 302) -> None:
        """Answer with a redirect to ``location`` (``status_code`` defaults to 302)."""
        __tracebackhide__ = True
        if not isinstance(location, str) or not location:
            raise UsageError(f"`req.redirect()` needs a location string; found {location!r}.")
        static = parse_static({"statusCode": status_code, "headers": {"location": location}}, "req.redirect")
        self._complete("req.redirect", Completion("reply", static=static))

    def on(self, event: str, handler: Callable[..., Any]) -> Req:
        """Subscribe ``handler(res)`` to ``before:response``, ``response`` or ``after:response``;
        returns req for chaining."""
        __tracebackhide__ = True
        if event not in REQUEST_EVENTS:
            raise UsageError(
                "An invalid event name was passed as the first parameter to `req.on()`. Valid event "
                f"names are: {show(list(REQUEST_EVENTS))} You passed: {show(event)}"
            )
        if not callable(handler):
            raise UsageError("`req.on()` requires the second parameter to be a function.")
        self._data.subscribe(self._route, self._order, event, handler)
        return self

    def _finish(self) -> Completion | None:
        with self._lock:
            object.__setattr__(self, "_finished", True)
            return self._completion  # type: ignore[no-any-return]
