"""Helpers for the interception engine tests: a real event loop in a background thread (as the
engine runs it), a scripted fake of the adapter's Exchange, and an Interceptor wired to both."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any

import pytest

from runner.net import (
    HttpRequest,
    HttpResponse,
    Interceptor,
    UpstreamError,
)

BOUND = 5.0  # seconds: the upper bound of every wait in these tests


class LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def submit(self, coro: Coroutine[Any, Any, Any]) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = BOUND) -> Any:
        return self.submit(coro).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(BOUND)
        self.loop.close()


def upstream_response(status: int = 200, body: bytes | str = b"", headers: dict[str, str] | None = None,
                      url: str = "", status_text: str = "OK") -> HttpResponse:
    data = body.encode() if isinstance(body, str) else body
    return HttpResponse(status=status, status_text=status_text, headers=dict(headers or {}), body=data, url=url)


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> HttpResponse:
    return upstream_response(status, json.dumps(value), {"content-type": "application/json", **(headers or {})})


class Upstream:
    """The server: records what it received; answers with a scripted response or error."""

    def __init__(self) -> None:
        self.received: list[HttpRequest] = []
        self.script: Callable[[HttpRequest], HttpResponse | UpstreamError] = (
            lambda req: upstream_response(200, "from server", {"content-type": "text/plain"}, req.url)
        )

    def answer(self, request: HttpRequest) -> HttpResponse | UpstreamError:
        self.received.append(request)
        result = self.script(request)
        if isinstance(result, HttpResponse) and not result.url:
            result.url = request.url
        return result


class FakeExchange:
    """Records every move of the engine; ``answered`` is set when the page got its answer.

    ``holds_request`` True plays Playwright's adapter (the page waits for the engine's answer);
    ``abandoned``, when set, is what ``fulfill`` says (the page gave the request up)."""

    holds_request = False
    sends_itself = False
    watch_only = False
    streams_body = False
    abandoned: str | None = None

    def __init__(self, raw: HttpRequest, upstream: Upstream) -> None:
        self.raw = raw
        self.upstream = upstream
        self.calls: list[str] = []
        self.passed: list[HttpRequest | None] = []
        self.fetched: list[tuple[HttpRequest, bool, float]] = []
        self.fulfilled: list[HttpResponse] = []
        self.failed: list[str] = []
        self.answered = threading.Event()
        self.body_loads = 0

    def _as_outgoing(self, request: HttpRequest | None) -> HttpRequest:
        if request is not None:
            return request
        r = self.raw
        return HttpRequest(method=r.method, url=r.url, headers=dict(r.headers), body=r.body)

    async def pass_through(self, request: HttpRequest | None) -> HttpResponse | UpstreamError:
        self.calls.append("pass_through")
        self.passed.append(request)
        result = self.upstream.answer(self._as_outgoing(request))
        self.answered.set()
        if isinstance(result, UpstreamError):
            return result

        async def load_body() -> bytes:
            self.body_loads += 1
            return result.body

        return HttpResponse(status=result.status, status_text=result.status_text,
                                headers=result.headers, url=result.url, load_body=load_body)

    async def let_go(self) -> None:
        self.calls.append("let_go")
        await self.pass_through(None)
        self.calls.remove("pass_through")

    async def fetch(self, request: HttpRequest, *, follow_redirect: bool, timeout_ms: float) -> HttpResponse:
        self.calls.append("fetch")
        self.fetched.append((request, follow_redirect, timeout_ms))
        result = self.upstream.answer(request)
        if isinstance(result, UpstreamError):
            raise result
        return result

    async def fulfill(self, response: HttpResponse) -> str | None:
        self.calls.append("fulfill")
        self.fulfilled.append(response)
        self.answered.set()
        return self.abandoned

    async def fail(self, reason: str) -> None:
        self.calls.append("fail")
        self.failed.append(reason)
        self.answered.set()

    @property
    def response(self) -> HttpResponse:
        assert self.fulfilled, f"the page got no fulfilled response; calls: {self.calls}"
        return self.fulfilled[-1]

    @property
    def json(self) -> Any:
        return json.loads(self.response.body)


def raw_request(url: str = "http://localhost:3000/api/users", method: str = "GET",
                headers: dict[str, str] | None = None, body: bytes | str | None = None,
                resource_type: str = "xhr", id: str | None = None, page_url: str | None = None,
                server: bool = False) -> HttpRequest:
    data = body.encode() if isinstance(body, str) else body
    return HttpRequest(id=id or "browser-1", method=method, url=url, headers=dict(headers or {}),
                      body=data, resource_type=resource_type, page_url=page_url, server=server)


class Env:
    """An Interceptor on a real background loop, with config, fixtures and reported errors."""

    def __init__(self, lt: LoopThread, observer: Any = None) -> None:
        self.lt = lt
        self.config: dict[str, Any] = {
            "defaultCommandTimeout": 2000, "requestTimeout": 1000, "responseTimeout": 3000,
        }
        self.fixtures: dict[str, bytes] = {}
        self.errors: list[BaseException] = []
        self.error_event = threading.Event()
        self.changes = 0
        self.upstream = Upstream()
        self.interceptor = Interceptor(
            loop=lt.loop, config=self.config.__getitem__, load_fixture=self._fixture,
            report_error=self._report, on_change=self._changed, observer=observer,
        )
        self.intercept = self.interceptor.intercept
        self.wait = self.interceptor.wait
        self.get = self.interceptor.get
        self._count = 0

    def server(self, status: int = 200, body: Any = b"", headers: dict[str, str] | None = None, *,
               error: UpstreamError | None = None, status_text: str = "OK") -> None:
        """Script the server's answer (a dict or list body is sent as JSON)."""
        if error is not None:
            self.upstream.script = lambda req: error
            return
        if isinstance(body, (dict, list)):
            response = json_response(body, status, headers)
        else:
            response = upstream_response(status, body, headers, status_text=status_text)
        self.upstream.script = lambda req: HttpResponse(
            response.status, response.status_text, dict(response.headers), response.body, req.url)

    def _fixture(self, spec: str) -> bytes:
        path = spec.split(",", 1)[0]
        if path not in self.fixtures:
            raise FileNotFoundError(f"no fixture {path!r}")
        return self.fixtures[path]

    def _report(self, err: BaseException) -> None:
        self.errors.append(err)
        self.error_event.set()

    def _changed(self) -> None:
        self.changes += 1

    def start(self, url: str = "http://localhost:3000/api/users", *, holds: bool = False,
              abandoned: str | None = None, **kwargs: Any) -> tuple[FakeExchange, Future[Any]]:
        """Hand one request to the engine without waiting for it (``holds``: the page's request
        is held, as Playwright's adapter does; ``abandoned``: the page gave it up)."""
        self._count += 1
        kwargs.setdefault("id", f"browser-{self._count}")
        raw = raw_request(url, **kwargs)
        ex = FakeExchange(raw, self.upstream)
        ex.holds_request = holds
        ex.abandoned = abandoned
        return ex, self.lt.submit(self.interceptor.handle(raw, ex))

    def send(self, url: str = "http://localhost:3000/api/users", **kwargs: Any) -> FakeExchange:
        """Hand one request to the engine and wait until it was handled completely."""
        ex, future = self.start(url, **kwargs)
        future.result(BOUND)
        return ex

    @property
    def messages(self) -> list[str]:
        return [str(e) for e in self.errors]


@pytest.fixture(scope="session")
def loop_thread() -> Any:
    lt = LoopThread()
    yield lt
    lt.stop()


@pytest.fixture
def env(loop_thread: LoopThread) -> Any:
    e = Env(loop_thread)
    yield e
    e.interceptor.clear()


@pytest.fixture
def make_env(loop_thread: LoopThread) -> Any:
    """Build an Env with an observer (``make_env(observer)``); each one is cleared at the end."""
    made: list[Env] = []

    def make(observer: Any = None) -> Env:
        e = Env(loop_thread, observer=observer)
        made.append(e)
        return e

    yield make
    for e in made:
        e.interceptor.clear()
