"""The interception record: what ``runner.wait("@alias")`` and ``runner.get("@alias")`` return."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable, Mapping
from typing import Any

from runner.casing import camel_to_snake
from runner.errors import CommandError, UsageError
from runner.expect import PathMissing, check, walk_path

from ._util import parse_query, show
from .types import InterceptionState

__all__ = ["Interception", "Its", "RequestSnapshot", "ResponseSnapshot", "RequestError", "describe_interceptions"]


class _CamelAttrs:
    """Answer to the camelCase spelling of every snake_case attribute (``statusCode``)."""

    def __getattr__(self, name: str) -> Any:
        snake = camel_to_snake(name, camel_only=True)
        if snake != name:
            return getattr(self, snake)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name if name.islower() else camel_to_snake(name, camel_only=True), value)


class RequestError(_CamelAttrs):
    """Why an interception ended ``Errored``: ``name`` and ``message`` (and the ``cause``)."""

    def __init__(self, message: str, name: str = "Error", cause: BaseException | None = None) -> None:
        self.name = name
        self.message = message
        self.cause = cause

    def __repr__(self) -> str:
        return f"RequestError(name={self.name!r}, message={self.message!r})"

    def __str__(self) -> str:
        return self.message


class RequestSnapshot(_CamelAttrs):
    """The request as it finally went out (after every handler's changes). ``query``, when not
    given, is parsed from ``url`` when first read (a record nobody reads costs no parse)."""

    method: str
    url: str
    headers: dict[str, str]
    body: Any
    http_version: str
    resource_type: str
    response_timeout: float
    follow_redirect: bool
    alias: str | None
    _query: dict[str, Any] | None
    _query_url: str  # the url it is parsed from: the one given, whatever is assigned later

    def __init__(self, *, method: str, url: str, headers: dict[str, str], body: Any,
                 http_version: str, resource_type: str, response_timeout: float, follow_redirect: bool,
                 alias: str | None = None, query: dict[str, Any] | None = None) -> None:
        # one store for all: every attribute set goes through _CamelAttrs.__setattr__ otherwise,
        # and a record is built for every request a route matches
        self.__dict__.update(method=method, url=url, headers=headers, body=body, _query=query, _query_url=url,
                             http_version=http_version, resource_type=resource_type,
                             response_timeout=response_timeout, follow_redirect=follow_redirect, alias=alias)

    @property
    def query(self) -> dict[str, Any]:
        """The URL's query: str values, a list for a repeated key."""
        if self._query is None:
            self._query = parse_query(self._query_url)
        return self._query

    @query.setter
    def query(self, value: dict[str, Any]) -> None:
        self._query = value

    def __repr__(self) -> str:
        return f"<request {self.method} {self.url}>"


class ResponseSnapshot(_CamelAttrs):
    """The response the page received. ``body`` of a passed-through response loads on first read."""

    status_code: int
    status_message: str
    headers: dict[str, str]
    url: str
    delay: float | None
    throttle_kbps: float | None
    _body: Any
    _loader: Callable[[], Any] | None
    _lock: threading.Lock

    def __init__(self, *, status_code: int, status_message: str, headers: dict[str, str], url: str,
                 body: Any = None, delay: float | None = None, throttle_kbps: float | None = None,
                 loader: Callable[[], Any] | None = None) -> None:
        # one store for all (see RequestSnapshot)
        self.__dict__.update(status_code=status_code, status_message=status_message, headers=headers, url=url,
                             delay=delay, throttle_kbps=throttle_kbps, _body=body, _loader=loader,
                             _lock=threading.Lock())

    @property
    def body(self) -> Any:
        """The final body: parsed JSON for JSON content, bytes if binary, else text.

        For a response that went straight to the page the body is read from the browser the
        first time (bounded by ``responseTimeout``) and then cached. Raises CommandError when
        it cannot be read.
        """
        with self._lock:
            if self._loader is not None:
                loader, self._loader = self._loader, None
                self._body = loader()
            return self._body

    @body.setter
    def body(self, value: Any) -> None:
        with self._lock:
            self._loader = None
            self._body = value

    def __repr__(self) -> str:
        return f"<response {self.status_code} {self.url}>"


_arrivals = itertools.count().__next__


class Interception(_CamelAttrs):
    """One request/response cycle of an intercepted request.

    ``id`` (unique per request), ``browser_request_id``, ``route_id`` (first route reached),
    ``route_ids`` (every route the chain reached), ``request`` (:class:`RequestSnapshot`, final
    values), ``response`` (:class:`ResponseSnapshot`, or None for a network error or a stub not
    sent yet), ``error`` (:class:`RequestError` when ``Errored``), ``state``
    (:class:`InterceptionState`), ``request_waited`` / ``response_waited`` (some alias's wait
    yielded it; each alias keeps its own count, so another alias can still yield it),
    ``alias`` (the alias the last wait used), ``stubbed`` (answered by the engine, not the server),
    ``duration_ms`` (arrival until ``Complete`` or ``Errored``), ``timings`` (see there),
    ``request_body_size`` (bytes of the body the page sent, 0 for none) and
    ``response_body_size`` (bytes of the body the page received; None when unknown: no response,
    or a response that went straight to the page and whose body was never read), ``late``
    (True: a request runner only watched got its response after its ``responseTimeout``),
    ``server`` (True: the app's server made it, a request of ``runner.intercept_backend``'s routes).
    CamelCase spellings work too (``browserRequestId``, ``routeId``).
    """

    id: str
    browser_request_id: str
    route_id: str | None
    route_ids: list[str]
    request: RequestSnapshot
    response: ResponseSnapshot | None
    error: RequestError | None
    state: InterceptionState
    request_waited: bool
    response_waited: bool
    alias: str | None
    dynamic_aliases: list[str]
    stubbed: bool
    server: bool  # the app's server made it (runner.intercept_backend), not the page
    started: float  # time.monotonic() when the engine received the request
    arrival: int  # the order requests reached the engine in, across routes
    duration_ms: float | None
    # its response came after `responseTimeout`: a request runner only watched is not cut,
    # so the record keeps the response the page got and says it was late
    late: bool
    request_body_size: int | None
    response_body_size: int | None
    # the bytes themselves, for the run's events (kept by reference, never copied)
    request_body_bytes: bytes | None
    response_body_bytes: bytes | None
    # seconds, written by the chain on the loop thread (a float store needs no lock)
    _queued: float | None
    _handler: float
    _upstream: float

    def __init__(self, *, id: str, browser_request_id: str, request: RequestSnapshot) -> None:
        # one store for all (see RequestSnapshot); the types are declared on the class
        self.__dict__.update(
            id=id, browser_request_id=browser_request_id, route_id=None, route_ids=[], request=request,
            response=None, error=None, state=InterceptionState.RECEIVED, request_waited=False,
            response_waited=False, alias=None, dynamic_aliases=[], stubbed=False, server=False, started=0.0,
            arrival=_arrivals(), duration_ms=None, late=False, request_body_size=None, response_body_size=None,
            request_body_bytes=None, response_body_bytes=None, _queued=None, _handler=0.0, _upstream=0.0,
        )

    def __repr__(self) -> str:
        return f"<Interception {self.id} {self.request.method} {self.request.url} {self.state.value}>"

    @property
    def timings(self) -> dict[str, float | None]:
        """Where the time went, in ms rounded to 0.1: ``queued`` (arrival until the first
        request handler started, the static response was chosen or, when every route reached
        is a spy, the request was sent on), ``handler`` (in the user's request and response
        handlers, summed), ``upstream`` (waiting for the server), ``total`` (arrival until
        ``Complete`` or ``Errored``). ``queued`` and ``total`` are None until known."""
        return {
            "queued": None if self._queued is None else round(self._queued * 1000, 1),
            "handler": round(self._handler * 1000, 1),
            "upstream": round(self._upstream * 1000, 1),
            "total": self.duration_ms,
        }

    def queued_until(self, now: float) -> None:
        """The request reached its first handler or stub (or, every route a spy, was sent on)
        at ``now`` (``time.monotonic()``): its ``queued`` time, unless already known."""
        if self._queued is None:
            self._queued = now - self.started

    def handler_ran(self, seconds: float, waited: float | None = None) -> None:
        """A handler of this request ran for ``seconds``, after ``waited`` seconds for a free
        worker thread (None: it ran on the loop, no wait)."""
        if waited is not None:
            self._queued = (self._queued or 0.0) + waited
        self._handler += seconds

    def upstream_took(self, seconds: float) -> None:
        """The server took ``seconds`` to answer (or to fail)."""
        self._upstream = seconds

    def its(self, path: str) -> Its:
        """The value at a dotted path (``"response.statusCode"``, ``"request.body.name"``), as a
        chainable :class:`Its` that compares equal to the value: ``its("response.statusCode")
        == 200`` and ``its("response.statusCode").should("eq", 200)`` both work; ``.value()`` is
        the plain value. Segments may be camelCase or snake_case; dict keys and list indexes work too.
        Raises CommandError naming the missing segment.
        """
        __tracebackhide__ = True
        return Its(_walk(self, path), path)

    def should(self, chainer: str, *args: Any) -> Interception:
        """Assert on the interception (``should("have.property", "error")``); returns self.

        Raises CommandError with the assertion's message when it does not hold.
        """
        __tracebackhide__ = True
        _should(self, chainer, args)
        return self


def _should(subject: Any, chainer: str, args: tuple[Any, ...]) -> None:
    __tracebackhide__ = True
    outcome = check(subject, chainer, *args)
    if not outcome.ok:
        raise CommandError(outcome.message)


def _walk(current: Any, path: str) -> Any:
    __tracebackhide__ = True
    if not isinstance(path, str) or not path:
        raise UsageError(f"its() needs a dotted path string; found {path!r}.")
    try:
        return walk_path(current, path)
    except PathMissing as err:
        raise CommandError(_missing_message(err)) from None


def _missing_message(err: PathMissing) -> str:
    """What ``its`` says about the segment it could not read (the words depend on where)."""
    walked, part, container = err.walked, err.part, err.container
    if isinstance(container, Mapping):
        return f"its({walked!r}): the key {part!r} does not exist in {show(container)[:200]}."
    if isinstance(container, (list, tuple)):
        return f"its({walked!r}): no item {part!r} in a list of {len(container)}."
    if container is None:
        return f"its({walked!r}): cannot read {part!r} of None."
    return f"its({walked!r}): {type(container).__name__} has no property {part!r}."


class Its:
    """A value read with ``its(path)``: equal to the value, with ``should``/``its`` to chain.

    ``.value()`` is the plain value, spelled as every subject's read is (``wrap(x).value()``,
    ``its(...).value()`` on a DOM subject). The older attribute spelling ``.value`` (no call)
    still works where it was used: it is this chainable value again, which compares equal to
    the value, indexes, iterates and prints like it (for ``is None``, ``isinstance`` or
    arithmetic, call it: ``.value()``).
    """

    __slots__ = ("_value", "path")

    def __init__(self, value: Any, path: str) -> None:
        self._value = value
        self.path = path

    @property
    def value(self) -> Its:
        """Called (``.value()``): the plain value; read as an attribute, this chainable value."""
        return self

    def __call__(self) -> Any:
        return self._value

    def should(self, chainer: str, *args: Any) -> Its:
        """Assert on the value (chai-style); returns self. Raises CommandError when it fails."""
        __tracebackhide__ = True
        _should(self._value, chainer, args)
        return self

    and_ = should

    def its(self, path: str) -> Its:
        __tracebackhide__ = True
        return Its(_walk(self._value, path), f"{self.path}.{path}")

    def __eq__(self, other: object) -> bool:
        return bool(self._value == (other._value if isinstance(other, Its) else other))

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return repr(self._value)

    def __str__(self) -> str:
        return str(self._value)

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self) -> Any:
        return iter(self._value)

    def __contains__(self, item: object) -> bool:
        return item in self._value

    def __getitem__(self, key: Any) -> Any:
        return self._value[key]

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __lt__(self, other: Any) -> bool:
        return bool(self._value < other)

    def __le__(self, other: Any) -> bool:
        return bool(self._value <= other)

    def __gt__(self, other: Any) -> bool:
        return bool(self._value > other)

    def __ge__(self, other: Any) -> bool:
        return bool(self._value >= other)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._value, name)


def lazy_loader(load: Callable[[], Any], loop: asyncio.AbstractEventLoop, timeout_s: float,
                decode: Callable[[bytes], Any]) -> Callable[[], Any]:
    """A loader that runs the coroutine function ``load`` on ``loop`` from another thread."""

    def run() -> Any:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise UsageError(
                "The body of a response that went straight to the page can only be read from the "
                "test, not from a handler on the engine's loop. Use req.on('response', ...) to read it there."
            )
        future = asyncio.run_coroutine_threadsafe(load(), loop)
        try:
            data = future.result(timeout_s)
        except TimeoutError as err:
            future.cancel()
            raise CommandError(
                f"Reading the response body timed out after the `responseTimeout` of {timeout_s * 1000:g}ms."
            ) from err
        except Exception as err:  # noqa: BLE001 - the page or browser went away
            raise CommandError(f"The response body could not be read: {err}") from err
        return decode(data)

    return run


def describe_interceptions(records: list[Interception], most: int = 20) -> str:
    """One line per interception: method, URL, outcome, stubbed or to the server (to the
    service, for a request the app's server made)."""
    lines = []
    for ic in records[:most]:
        if ic.error is not None:
            outcome = f"failed: {ic.error.message}"
        elif ic.response is not None and ic.state.done:
            outcome = str(ic.response.status_code)
        else:
            outcome = ic.state.value
        where = "stubbed" if ic.stubbed else "to the service" if ic.server else "to the server"
        made = "(server) " if ic.server else ""
        lines.append(f"  {made}{ic.request.method} {ic.request.url} ({outcome}, {where})")
    if len(records) > most:
        lines.append(f"  ... and {len(records) - most} more")
    return "\n".join(lines)
