"""Network commands: intercept, intercept_ws, wait, requests, assert_no_request, HAR, request.

The page's requests intercepted, waited for and recorded, and HTTP sent by the test itself
(``request``).

The interception engine itself is ``runner.net``; these commands hand it the test's calls.
Commands that shape the page's traffic (network conditions, the app's backend) belong here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from runner.commands.base import CommandsBase, snake_options
from runner.commands.records import Record
from runner.commands.steps import command
from runner.commands.values import Value
from runner.errors import CommandError, UsageError
from runner.events import LogLine

__all__ = ["NetworkCommands", "intercept_step_name"]

_REQUEST_OPTIONS = {"method", "url", "body", "headers", "qs", "auth", "follow_redirect",
                    "fail_on_status_code", "timeout", "form", "log", "encoding"}


def intercept_step_name(row: Mapping[str, Any]) -> str:
    """``intercept GET /api/x (stubbed) as x`` (``intercept_backend ...`` for a route of the app's
    server's requests): a route of the Routes table as a trace step."""
    matcher = str(row.get("matcher", ""))
    try:
        fields = json.loads(matcher)
    except ValueError:
        fields = None
    if isinstance(fields, dict) and isinstance(fields.get("url"), str) and set(fields) <= {"method", "url"}:
        matcher = fields["url"]  # the method is shown on its own
    kind = "stubbed" if row.get("stubbed") else "handler" if row.get("handler") == "function" else "spy"
    alias = f" as {row['alias']}" if row.get("alias") else ""
    method = str(row.get("method") or "*")
    shown = matcher if method == "*" else f"{method} {matcher}"
    name = "intercept_backend" if row.get("server") else "intercept"
    return f"{name} {shown} ({kind}){alias}"


class NetworkCommands(CommandsBase):
    """The page's requests intercepted, awaited and recorded, and the test's own requests."""

    @command("intercept", step_after=lambda commands, handle: commands._intercept_step(handle))
    def intercept(self, *args: Any) -> Any:
        """Spy on or stub requests of the page (see docs/interception.md)."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.intercept() is not available in this run.")
        interceptor = self._interceptor_getter()
        handle = interceptor.intercept(*args)
        warning = interceptor.stub_warning(args)
        if warning is not None:  # in the command log now, on the terminal when the test ends
            if self._ctx.redactor is not None:  # it shows the stub: the run's secrets hidden, as in its args
                warning = self._ctx.redactor.text(warning)
            self._ctx.add_log("warning", warning)
            self._ctx.tell(LogLine(nodeid=self._ctx.nodeid, message=f"warning: {warning}", attempt=self._ctx.attempt))
            self._ctx.closers.append(lambda: warning)
        return handle

    def _intercept_step(self, handle: Any) -> Callable[[], str]:
        """The name of an ``intercept`` step, read when it is told (``.as_()`` may follow it)."""
        route_id = handle.id

        def name() -> str:
            assert self._interceptor_getter is not None
            row = next(r for r in self._interceptor_getter().routes_table() if r["id"] == route_id)
            return intercept_step_name(row)

        return name

    @command("intercept_backend", step_after=lambda commands, handle: commands._intercept_step(handle))
    def intercept_backend(self, *args: Any) -> Any:
        """Spy on or stub the requests the app's server makes (through runner's proxy), with the
        arguments of ``intercept`` (see docs/app-server.md)."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.intercept_backend() is not available in this run.")
        if self._backend_proxy is None or not self._backend_proxy():
            raise UsageError(
                "runner.intercept_backend() found no app server sending its requests through runner's proxy in "
                "this process: start the server with runner's proxy in its environment "
                f"(`Runner.backend_environment()`) in the process that runs the test.{self._web_server_hint()} "
                "Under `--workers` each worker has its own proxy: a server started once for the whole run "
                "cannot be pointed at them all (docs/app-server.md)."
            )
        return self._interceptor_getter().intercept_backend(*args)

    def _web_server_hint(self) -> str:
        """Why the project's ``webServer`` did not do it: the servers it starts get the proxy only
        from a ``runner run`` that runs the tests in its own process, and from ``runner open``."""
        if not self._ctx.config.web_server:
            return ""
        return (" The servers of `webServer` get runner's proxy when `runner open` starts them, or `runner run` "
                "runs the tests in its own process (without `--workers`); a server `runner run` reuses "
                "(`reuseExistingServer`) and those of `--workers` get none, so this test's server calls go by unseen.")

    @command("wait")
    def wait(self, target: Any, *rest: Any, **options: Any) -> Any:
        """``wait(ms)`` pauses; ``wait("@alias")`` / ``wait(["@a", "@b"])`` wait for requests."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if isinstance(target, (int, float)) and not isinstance(target, bool):
            if target < 0 or target != target or target == float("inf"):
                raise UsageError(f"runner.wait() needs a finite number of milliseconds ≥ 0; found {target!r}.")
            time.sleep(target / 1000)
            self._ctx.checkpoint()
            return None
        if rest:
            if isinstance(rest[0], str):
                raise UsageError(
                    "runner.wait() was passed invalid arguments. You cannot pass multiple strings. "
                    "If you're trying to wait for multiple routes, use a list."
                )
            if callable(rest[0]):
                raise UsageError(
                    "runner.wait() was passed invalid arguments. You cannot pass a function. "
                    "To use the result of runner.wait(), use its return value."
                )
            raise UsageError(f"runner.wait() takes one target; found extra arguments {rest!r}.")
        if self._interceptor_getter is None:
            raise UsageError("runner.wait() on an alias is not available in this run.")
        try:
            result = self._interceptor_getter().wait(target, **options)
        except CommandError as err:
            try:
                self._ctx.check_loop()  # when a handler blocks runner's loop, that is why
            except CommandError as blocked:
                raise blocked from err
            raise
        self._ctx.checkpoint()
        return result

    @command("intercept_ws")
    def intercept_ws(self, url: Any, handler: Any = None, *, server: bool = True) -> Any:
        """Spy on, stub or rewrite the page's WebSockets whose URL matches ``url`` (a glob or a
        regex); see docs/interception.md, WebSockets. Returns a handle (``.as_(alias)``,
        ``connections``, ``messages``)."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.intercept_ws() is not available in this run.")
        return self._interceptor_getter().intercept_ws(url, handler, server=server)

    @command("requests")
    def requests(self, alias: str) -> Value:
        """A retrying subject over every request an alias recorded so far, oldest first:
        ``runner.requests("@users").should("have.length", 3)`` (never consumes them)."""
        __tracebackhide__ = True
        if not isinstance(alias, str) or not alias.startswith("@") or len(alias) < 2:
            raise UsageError(f"runner.requests() takes an alias written with a leading `@`, e.g. '@users'; found {alias!r}.")
        if self._interceptor_getter is None:
            raise UsageError("runner.requests() is not available in this run.")
        from runner.net.interception import describe_interceptions  # loaded once a test intercepts

        name = alias[:-4] if alias.endswith(".all") else alias
        interceptor = self._interceptor_getter()
        interceptor.get(f"{name}.all")  # an unknown alias fails now, with the known ones listed
        return Value(self, lambda: interceptor.get(f"{name}.all"), f"requests({name!r})",
                     detail=lambda seen: f"The requests of {name} ({len(seen)}):\n{describe_interceptions(seen)}"
                     if seen else f"{name} has recorded no request.")

    @command("assert_no_request")
    def assert_no_request(self, *target: Any, within: float = 0) -> None:
        """Fail if a request matches ``target`` within ``within`` ms (as soon as one does):
        an alias (``"@name"`` or a list; what it recorded before counts too) or a request
        matcher (a URL glob, string or regex, a RouteMatcher dict, or a method and a URL; only
        the window is watched)."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.assert_no_request() is not available in this run.")
        self._interceptor_getter().assert_no_request(*target, within=within)
        self._ctx.checkpoint()

    @command("record_har")
    def record_har(self, path: Any, *, url: Any = None, content: str = "embed", redact: Any = None) -> Any:
        """Record the page's requests (those ``url`` matches, a glob or regex; all by default) to a
        HAR 1.2 file (relative paths: in fixturesFolder); ``content="omit"`` leaves the bodies
        out; ``redact``: a function each entry passes before it is written (it returns the entry
        changed, or None to leave it out); the run's secrets are hidden after it. Returns the
        recording: ``stop()`` writes it, so does the end of a ``with`` block or of the test.
        Only a file runner recorded is ever replaced."""
        __tracebackhide__ = True
        from runner import __version__
        from runner.commands.har import start_recording

        return start_recording(self._ctx, path, url, content, __version__, redact)

    @command("replay_har")
    def replay_har(self, path: Any, *, url: Any = None, not_found: str = "fallback",
                   alias: str | None = None, update: str | None = None, ignore_query: Any = None,
                   ignore_json_keys: Any = None, redact: Any = None) -> list[Any]:
        """Answer the page's requests from a HAR file (relative paths: in fixturesFolder): a route
        per method and URL of its entries (those ``url`` matches), named ``alias`` when given,
        counted and listed like any route. A request with no entry goes to the server
        (``not_found="fallback"``) or fails, with the test (``"abort"``). ``update="missing"``
        adds what went to the server to the file when the test ends; ``"all"`` replays nothing
        and records every request again (``redact`` as for record_har). ``ignore_query`` /
        ``ignore_json_keys``: query parameters and JSON body keys a request may differ in and
        still match an entry. Returns the routes' handles."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.replay_har() is not available in this run.")
        from runner import __version__
        from runner.commands.har import replay_routes

        return replay_routes(self._ctx, self._interceptor_getter().intercept, path, url, not_found, alias,
                             update=update, ignore_query=ignore_query, ignore_json_keys=ignore_json_keys,
                             redact=redact, version=__version__)

    @command("request")
    def request(self, *args: Any, **options: Any) -> Record:
        """Make an HTTP request from the test (never intercepted).

        ``request(url)``, ``request(method, url)``, ``request(method, url, body)`` or
        ``request(url=..., method=..., body=...)``. Options: ``headers``, ``qs``, ``auth``
        (``{"username", "password"}`` or ``{"bearer"}``), ``form`` (body as form data),
        ``follow_redirect`` (default True), ``fail_on_status_code`` (default True),
        ``timeout`` (default ``responseTimeout``).
        Returns a record with ``status`` (also ``status_code``), ``status_text``, ``headers``,
        ``body`` (parsed when JSON), ``duration`` (ms), ``url`` and ``redirected_to``.
        """
        __tracebackhide__ = True
        self._ctx.checkpoint()
        opts = snake_options(options, _REQUEST_OPTIONS, "runner.request")
        if len(args) == 1:
            opts.setdefault("url", args[0])
        elif len(args) in (2, 3):
            opts.setdefault("method", args[0])
            opts.setdefault("url", args[1])
            if len(args) == 3:
                opts.setdefault("body", args[2])
        elif len(args) > 3:
            raise UsageError(f"runner.request() takes at most (method, url, body); found {len(args)} arguments.")
        url = opts.get("url")
        if not isinstance(url, str) or not url:
            raise UsageError(f"runner.request() needs a url string; found {url!r}.")
        from runner.commands.http import perform_request

        record = perform_request(self._ctx, opts)
        self._ctx.add_log("request", f"{record.method} {record.url} -> {record.status}")
        return record

