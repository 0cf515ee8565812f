"""The run's network: what the browser's requests go through, and the browser's routing kept in step.

Three things decide whether the page is routed: ``runner.intercept``'s routes (the interceptor of
``runner/net``, made on first use), ``blockHosts`` (per test) and ``clientCertificates`` (read once,
when the run starts). :class:`RunNetwork` owns them, hands the engine the
:class:`~runner.engine.routing.RoutingTarget` that reads them, and turns the page's routing on or
off when the routes change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from runner.commands.context import TestContext
from runner.commands.fixtures import read_fixture_bytes
from runner.config import Config
from runner.config.paths import resolve_path
from runner.engine.loop import EngineLoop, EngineTimeout
from runner.engine.routing import RoutingTarget
from runner.errors import ConfigError
from runner.events import Event
from runner.match import compile_pattern, pattern_list
from runner.run.browser_host import BrowserHost
from runner.run.route_events import RouteEvents

__all__ = ["RunNetwork", "client_certificate_entries"]

# Turning routing on or off between tests (or with no test to bound it).
END_WAIT_S = 10
# The longest a test's end waits for the requests its routes took and that are still in flight
# (bounded by the test's responseTimeout too): one still open then is recorded as open.
_SETTLE_MS = 2000.0


class RunNetwork:
    """The interceptor, the blocked hosts and the client certificates of a run, and the page's
    routing turned on exactly while one of them needs it."""

    def __init__(self, *, host: BrowserHost, config: Callable[[], Config],
                 current: Callable[[], TestContext | None], publish: Callable[[Event], None],
                 warn: Callable[[str], None]) -> None:
        self._host = host
        self._config = config  # the run's configuration (a test's own comes from current())
        self._current = current
        self._publish = publish
        self._warn = warn
        self._interceptor: Any = None
        self._interceptor_loop: Any = None  # the engine loop the interceptor serves on
        self._proxy: Any = None  # runner's proxy for the app's server (runner/backend), made on first use
        self._block_hosts: list[Any] = []
        self._certificates: list[Any] = []  # clientCertificates, ready (see load_certificates)

    def load_certificates(self, config: Config) -> None:
        """Read ``clientCertificates``' files now: a missing or broken one stops the run before
        any test, with one message naming the entry."""
        entries = client_certificate_entries(config)
        if not entries:
            return
        from runner.engine.client_certs import CertificateError, load_client_certificates

        try:
            self._certificates = load_client_certificates(entries)
        except CertificateError as err:
            raise ConfigError(str(err)) from err

    def _certificate_for(self, url: str) -> Any:
        from runner.engine.client_certs import certificate_for

        return certificate_for(self._certificates, url)

    def routing_target(self) -> RoutingTarget:
        """What the engine's route handler reads from the run (made when the browser launches)."""
        return RoutingTarget(
            interceptor=lambda: self._interceptor, blocked=self.blocked,
            certificate=self._certificate_for if self._certificates else (lambda url: None),
            response_timeout_ms=lambda: float(self._test_config().response_timeout),
            warn=self._warn)

    def _test_config(self) -> Config:
        ctx = self._current()
        return ctx.config if ctx is not None else self._config()

    @property
    def interceptor(self) -> Any:
        """The interceptor of ``runner.intercept``'s routes, made on first use."""
        if self._interceptor is None:
            from runner.net import Interceptor

            self._interceptor_loop = self._host.loop.loop
            self._interceptor = Interceptor(
                loop=self._interceptor_loop,
                config=lambda key: self._test_config()[key],
                load_fixture=self._load_fixture,
                report_error=self._report_error,
                on_change=self._routes_changed,
                observer=RouteEvents(self._publish, self._current),
            )
        return self._interceptor

    def backend_environment(self, *, ca: Path | None = None) -> dict[str, str]:
        """The environment that sends a server's HTTP and HTTPS through runner's proxy, where
        ``runner.intercept_backend``'s routes see it (the proxy starts on first call and lives
        until the run ends; ``ca``: the CA it signs with, made before: ``runner open``'s
        session's). Raises ConfigError when the proxy cannot start."""
        from runner.backend import BackendProxy, ProxyError

        if self._proxy is None:
            self._proxy = BackendProxy(self._backend_target, ca=ca)
        try:
            return self._proxy.environment()
        except (ProxyError, OSError) as err:
            raise ConfigError(str(err)) from err

    @property
    def backend_proxy_port(self) -> int | None:
        """The port of runner's proxy for the app's server, once started."""
        return int(self._proxy.port) if self._proxy is not None and self._proxy.port is not None else None

    @property
    def backend_proxy_started(self) -> bool:
        """Whether runner's proxy for the app's server runs in this process."""
        return self._proxy is not None and bool(self._proxy.started)

    def _backend_target(self) -> Any:
        """The interceptor and its loop, for the proxy's thread (None: no test intercepts)."""
        interceptor, loop = self._interceptor, self._interceptor_loop
        return None if interceptor is None or loop is None else (interceptor, loop)

    @property
    def interceptor_in_use(self) -> Any:
        """The interceptor when one was made (reading the test's tables makes none), else None."""
        return self._interceptor

    def forget_interceptor(self) -> None:
        """The engine's loop was given up: the interceptor, bound to it, goes with it."""
        self._interceptor = None
        self._interceptor_loop = None

    def clear(self) -> None:
        """Drop the routes and requests of the test that ended."""
        if self._interceptor is not None:
            self._interceptor.clear()

    def _load_fixture(self, spec: str) -> bytes:
        data, _path = read_fixture_bytes(self._test_config().path("fixturesFolder"), spec)
        return data

    def _report_error(self, error: BaseException) -> None:
        ctx = self._current()
        if ctx is not None:
            ctx.report_async_error(error)

    def begin_test(self, config: Config) -> bool:
        """Take the test's ``blockHosts``. Returns whether the page must be routed from the start
        (a blocked host or a client certificate: routes added later turn routing on by
        themselves)."""
        self._block_hosts = [compile_pattern(p) for p in pattern_list(config.block_hosts)]
        return bool(self._block_hosts) or bool(self._certificates)

    def _routes_changed(self) -> None:
        browser = self._host.launched
        if browser is None or not browser.alive:
            return  # the next reset replaces the page, routes off
        interceptor = self._interceptor
        route = bool(self._block_hosts) or bool(self._certificates) or bool(interceptor and interceptor.needs_routing())
        watch = bool(interceptor and interceptor.wants_requests())
        preflights = bool(interceptor and interceptor.takes_preflights())
        sockets = bool(interceptor and interceptor.has_ws_routes())

        async def apply() -> None:
            if sockets:
                await browser.route_web_sockets()
            # Spies only watch (no interception, HTTP cache kept); anything else routes, and
            # watches only the hops after a redirect, which Playwright does not route: once
            # routed, quietly (the driver sends those hops unasked), never leaving a gap.
            browser.set_watching(watch, revalidations=not route)
            await browser.watching_ready()
            await browser.set_routing(route, preflights=preflights)
            if route and watch:
                browser.set_watching(watch, revalidations=False, routed=True)

        loop = self._host.loop
        ctx = self._current()
        if loop.in_loop_thread:
            loop.loop.create_task(apply())
        elif ctx is not None:
            ctx.run(apply())  # bounded, and says so when the page does not answer
        else:
            try:
                loop.run(apply(), END_WAIT_S)
            except EngineTimeout:
                browser.stopped_responding("The page did not answer when its routes changed.")

    def blocked(self, url: str) -> bool:
        """Whether ``url``'s host is one of the running test's ``blockHosts``."""
        if not self._block_hosts:
            return False
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = parts.netloc.rsplit("@", 1)[-1]
        return any(match(host) or match(netloc) for match in self._block_hosts)

    def settle(self) -> None:
        """The test's last command returned: wait (at most ``_SETTLE_MS``, and the test's
        ``responseTimeout``) for the requests its routes took, and record them in the test,
        those still in flight as open (see ``Interceptor.finish``). Later requests belong to no
        test."""
        ctx, interceptor = self._current(), self._interceptor
        if ctx is None or interceptor is None:
            return
        bound_ms = min(_SETTLE_MS, max(float(ctx.config["responseTimeout"]), 0.0))
        interceptor.finish(bound_ms / 1000)

    def close(self, loop: EngineLoop | None) -> None:
        """Close the client certificates' connection pools (they live on the engine's loop) and
        stop the app's server's proxy (its CA removed)."""
        proxy, self._proxy = self._proxy, None
        if proxy is not None:
            proxy.stop()
        certificates, self._certificates = self._certificates, []
        for certificate in certificates:
            if loop is not None:
                try:
                    loop.run(certificate.close(), 10)
                except Exception:  # noqa: BLE001 - closing must not raise
                    pass


def client_certificate_entries(config: Config) -> list[dict[str, Any]]:
    """``clientCertificates`` with every path made absolute (relative to the project root)."""
    root = config.project_root
    out: list[dict[str, Any]] = []
    for entry in config.get("clientCertificates") or []:
        certs = []
        for cert in entry.get("certs", []):
            certs.append({key: resolve_path(root, value) for key, value in cert.items() if value})
        out.append({"url": entry["url"], "ca": [resolve_path(root, ca) for ca in entry.get("ca") or []],
                    "certs": certs})
    return out
