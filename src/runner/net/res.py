"""The ``res`` object handed to response handlers, and the response state shared along the events."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping
from typing import Any

from runner.casing import camel_to_snake
from runner.errors import InterceptError, UsageError
from runner.net.bodies import decode_body, encode_body

from ._util import MISSING, is_finite_non_negative
from .headers import header_get, header_has, header_set, merge_headers
from .interception import ResponseSnapshot
from .messages import HttpResponse
from .static_response import load_fixture_body, parse_shorthand

__all__ = ["Res", "ResponseData"]

_NO_BODY_STATUS = (204, 304)
_DROP = ("content-encoding", "transfer-encoding")


class ResponseData:
    """The upstream response as modified so far; shared by every response handler.

    It wraps the server's :class:`~runner.net.messages.HttpResponse` (``upstream``, never
    changed) with what the handlers see and change (``status_code``, ``headers`` as a plain dict,
    ``body`` decoded, ``delay``, ...); :meth:`final` gives the ``HttpResponse`` the page gets."""

    def __init__(self, upstream: HttpResponse, method: str) -> None:
        self.upstream = upstream
        self.status_code = upstream.status
        self.status_message = upstream.status_text
        self.headers: dict[str, Any] = dict(upstream.headers)
        self.url = upstream.url
        raw = b"" if method.upper() == "HEAD" or upstream.status in _NO_BODY_STATUS else upstream.body
        self.raw_body = raw
        if raw is upstream.body and (raw or header_has(self.headers, "content-length")):
            # the length of the body handlers are given (not a compressed one the server sent)
            header_set(self.headers, "content-length", str(len(raw)))
        ctype = header_get(upstream.headers, "content-type")
        body, parsed = decode_body(raw, ctype)
        self.body: Any = body
        self.body_parsed = parsed
        self._original = copy.deepcopy(body) if parsed else body
        self.delay: float | None = None
        self.throttle_kbps: float | None = None
        self.sent = False  # res.send() stopped propagation
        self.force_network_error = False  # res.send({"forceNetworkError": True})
        self.lock = threading.Lock()

    def body_changed(self) -> bool:
        if self.body_parsed:
            return bool(self.body != self._original or type(self.body) is not type(self._original))
        return self.body is not self._original and self.body != self._original

    def final(self) -> HttpResponse:
        """The response to fulfil the page's request with (its body at ``throttle_kbps``)."""
        body = self.raw_body if not self.body_changed() else encode_body(self.body)[0]
        headers = {str(k): str(v) for k, v in self.headers.items() if str(k).lower() not in _DROP}
        if header_has(headers, "content-length"):
            header_set(headers, "content-length", str(len(body)))
        return HttpResponse(status=int(self.status_code), status_text=str(self.status_message or ""),
                            headers=headers, body=body, throttle_kbps=self.throttle_kbps or None)

    def snapshot(self) -> ResponseSnapshot:
        return ResponseSnapshot(
            status_code=int(self.status_code),
            status_message=str(self.status_message or ""),
            headers={str(k): str(v) for k, v in self.headers.items()},
            url=self.url,
            body=self.body,
            delay=self.delay,
            throttle_kbps=self.throttle_kbps,
        )

    def describe(self) -> str:
        return f"{self.status_code} {self.url}"


_SETTABLE = ("body", "headers", "status_code", "status_message", "delay", "throttle_kbps")


class Res:
    """The response given to a response handler (one per call; changes persist to later handlers).

    Attributes (camelCase spellings work too): ``status_code``, ``status_message``, ``headers``,
    ``body``, ``delay``, ``throttle_kbps``, ``url`` (read only). Methods: ``send``,
    ``set_delay``, ``set_throttle`` (also ``setDelay``, ``setThrottle``).
    """

    _data: ResponseData
    _report: Callable[[BaseException], None]
    _load_fixture: Callable[[str], bytes]
    _can_send: bool
    _sent: bool
    _finished: bool
    _lock: threading.Lock

    def __init__(self, data: ResponseData, report: Callable[[BaseException], None],
                 load_fixture: Callable[[str], bytes], *, can_send: bool = True) -> None:
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_report", report)
        object.__setattr__(self, "_load_fixture", load_fixture)
        object.__setattr__(self, "_can_send", can_send)
        object.__setattr__(self, "_sent", False)
        object.__setattr__(self, "_finished", False)
        object.__setattr__(self, "_lock", threading.Lock())

    def __getattr__(self, name: str) -> Any:
        if name == "setDelay":
            return self.set_delay
        if name == "setThrottle":
            return self.set_throttle
        snake = camel_to_snake(name, camel_only=True)
        if snake != name and snake in (*_SETTABLE, "url"):
            return getattr(self._data, snake)
        raise AttributeError(f"res has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        snake = camel_to_snake(name, camel_only=True)
        if snake not in _SETTABLE:
            raise UsageError(
                f"res has no settable property {name!r}. Settable properties: "
                "body, headers, status_code, status_message, delay, throttle_kbps."
            )
        setattr(self._data, snake, value)

    # the snake_case attributes read through to the shared data
    @property
    def body(self) -> Any:
        return self._data.body

    @property
    def headers(self) -> dict[str, Any]:
        return self._data.headers

    @property
    def status_code(self) -> int:
        return self._data.status_code

    @property
    def status_message(self) -> str:
        return self._data.status_message

    @property
    def delay(self) -> float | None:
        return self._data.delay

    @property
    def throttle_kbps(self) -> float | None:
        return self._data.throttle_kbps

    @property
    def url(self) -> str:
        return self._data.url

    def __repr__(self) -> str:
        return f"<res {self._data.describe()}>"

    def set_delay(self, delay: float) -> Res:
        """Wait ``delay`` ms before the page gets the response; returns res."""
        if not is_finite_non_negative(delay):
            raise UsageError(f"`res.set_delay()` needs a finite number of milliseconds >= 0; found {delay!r}.")
        self._data.delay = delay
        return self

    def set_throttle(self, kbps: float) -> Res:
        """Serve the response at ``kbps`` kilobits per second at most; returns res."""
        if not is_finite_non_negative(kbps):
            raise UsageError(f"`res.set_throttle()` needs a finite number of kilobits per second >= 0; found {kbps!r}.")
        self._data.throttle_kbps = kbps
        return self

    def send(self, *args: Any, **kwargs: Any) -> None:
        """Pass the response on now (no more response handlers run), merged with the arguments
        (a StaticResponse, ``(body, headers?)`` or ``(status_code, body?, headers?)``).
        Raises InterceptError when called twice or after the handler finished."""
        __tracebackhide__ = True
        data: ResponseData = self._data
        if not self._can_send:
            raise UsageError("`res.send()` is not available in an `after:response` handler: the response was already sent.")
        with self._lock:
            if self._finished:
                err = InterceptError(
                    "`res.send()` was called after the response handler finished executing, but "
                    "`res.send()` can not be called after the response has been passed on. "
                    f"Response: {data.describe()}"
                )
            elif self._sent:
                err = InterceptError(
                    "`res.send()` was called multiple times in a response handler, but the response "
                    f"can only be sent once. Response: {data.describe()}"
                )
            else:
                err = None
                object.__setattr__(self, "_sent", True)
        if err is not None:
            self._report(err)
            raise err
        static = parse_shorthand(args, kwargs, "res.send")
        with data.lock:
            if static is not None:
                self._merge(data, static)
            data.sent = True

    def _merge(self, data: ResponseData, static: Any) -> None:
        if static.force_network_error:
            data.force_network_error = True
            return
        user_headers: Mapping[str, str] = static.headers or {}
        headers = merge_headers(data.headers, user_headers)
        if static.fixture:
            raw, ctype = load_fixture_body(static.fixture, self._load_fixture)
            if not header_has(headers, "content-type"):
                headers["content-type"] = ctype
            data.body, _ = decode_body(raw, header_get(headers, "content-type"))
            data.body_parsed = False
            data.raw_body = raw
            data._original = data.body
        elif static.body is not MISSING:
            data.body = static.body
            data.body_parsed = False
            data._original = MISSING  # always re-encode what the user sent
            _bytes, as_json = encode_body(static.body)
            if as_json and not header_has(user_headers, "content-type"):
                header_set(headers, "content-type", "application/json")
        if static.status_code is not None:
            data.status_code = static.status_code
            from ._util import reason_phrase

            data.status_message = reason_phrase(static.status_code)
        data.headers = headers
        if static.delay is not None:
            data.delay = static.delay
        if static.throttle_kbps is not None:
            data.throttle_kbps = static.throttle_kbps

    def _finish(self) -> bool:
        with self._lock:
            object.__setattr__(self, "_finished", True)
            return bool(self._sent)
