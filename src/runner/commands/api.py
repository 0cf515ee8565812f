"""The ``runner`` fixture: every command a test calls.

Commands run at once and return a value (there is no command queue). Queries return retrying
subjects (``subject.py``). Names follow ``shared/spec/python-api.md``; Python keywords get a
trailing underscore.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from runner.artifacts.screenshots import claim_screenshot_path, safe_file_name
from runner.commands.context import TestContext
from runner.commands.fixtures import read_fixture
from runner.commands.mount import ROOT_ID, MountHost, mount_document
from runner.commands.records import Record
from runner.commands.shell import run_shell
from runner.commands.steps import command
from runner.commands.subject import Subject, Value, _contains_step, _show
from runner.engine.raw_http import INVALID_HTTP
from runner.errors import CommandError, UsageError
from runner.events import LogLine, ScreenshotTaken
from runner.events.cut import LOG_LIMIT, cut_text

if TYPE_CHECKING:
    from runner.usercode.plugins_file import PluginEvents

__all__ = ["RunnerCommands", "VIEWPORT_PRESETS", "safe_file_name"]

VIEWPORT_PRESETS: dict[str, tuple[int, int]] = {
    "macbook-16": (1536, 960), "macbook-15": (1440, 900), "macbook-13": (1280, 800),
    "macbook-11": (1366, 768), "ipad-2": (768, 1024), "ipad-mini": (768, 1024),
    "iphone-xr": (414, 896), "iphone-x": (375, 812), "iphone-6+": (414, 736),
    "iphone-se2": (375, 667), "iphone-8": (375, 667), "iphone-7": (375, 667),
    "iphone-6": (375, 667), "iphone-5": (320, 568), "iphone-4": (320, 480),
    "iphone-3": (320, 480), "samsung-s10": (360, 760), "samsung-note9": (414, 846),
}

_VISIT_OPTIONS = {"timeout", "fail_on_status_code", "qs", "headers", "wait_until"}
_REQUEST_OPTIONS = {"method", "url", "body", "headers", "qs", "auth", "follow_redirect",
                    "fail_on_status_code", "timeout", "form", "log", "encoding"}


def intercept_step_name(row: Mapping[str, Any]) -> str:
    """``intercept GET /api/x (stubbed) as x``: a route of the Routes table as a trace step."""
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
    return f"intercept {shown} ({kind}){alias}"


def _snake_options(options: Mapping[str, Any], allowed: set[str], command: str) -> dict[str, Any]:
    """Accept camelCase or snake_case option names; reject unknown ones with a suggestion."""
    import difflib

    from runner.casing import camel_to_snake

    out: dict[str, Any] = {}
    for key, value in options.items():
        snake = camel_to_snake(key)
        if snake not in allowed:
            close = difflib.get_close_matches(snake, sorted(allowed), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise UsageError(
                f"{command}() does not take the option {key!r}.{hint}\n"
                f"Options it takes: {', '.join(sorted(allowed))}."
            )
        out[snake] = value
    return out


class RunnerCommands:
    """What the ``runner`` fixture gives a test."""

    def __init__(self, ctx: TestContext, *, events: PluginEvents | None = None,
                 interceptor: Callable[[], Any] | None = None, screenshot_dir: Callable[[], Path] | None = None,
                 session_cache: dict[str, Any] | None = None, mount_host: MountHost | None = None) -> None:
        self._ctx = ctx
        self._mount_host = mount_host
        self._events = events
        self._interceptor_getter = interceptor
        self._dom_aliases: dict[str, Subject | Value] = {}
        self._screenshot_dir = screenshot_dir
        self._session_cache: dict[str, Any] = session_cache if session_cache is not None else {}

    def __repr__(self) -> str:
        return f"<runner for {self._ctx.title or 'a test'}>"

    # -- configuration ------------------------------------------------------------------------
    def config(self, name: str | None = None) -> Any:
        """The current test's configuration value (or the whole configuration as a dict)."""
        if name is None:
            return self._ctx.config.as_dict()
        return self._ctx.config[name]

    def env(self, name: str | None = None) -> Any:
        """A value of ``env`` (None when unset), or the whole ``env`` dict."""
        env = self._ctx.config.env
        if name is None:
            return dict(env)
        return env.get(name)

    def log(self, message: Any) -> None:
        """Add a line to the command log (shown with a failing test's error)."""
        text = cut_text(str(message), LOG_LIMIT, "the runner.log() message")  # kept in every report: capped
        self._ctx.add_log("log", text)
        self._ctx.tell(LogLine(nodeid=self._ctx.nodeid, message=text, attempt=self._ctx.attempt))

    # -- navigation ---------------------------------------------------------------------------
    @command("visit")
    def visit(self, url: str, **options: Any) -> None:
        """Load ``url`` (relative to ``baseUrl``) and wait for the load event.

        Options: ``timeout`` (default ``pageLoadTimeout``), ``fail_on_status_code`` (default
        True: a 4xx/5xx document fails the test), ``qs`` (dict added to the query string),
        ``headers`` (extra request headers for the document).
        Raises ``CommandError`` when the page does not load.
        """
        __tracebackhide__ = True
        self._ctx.checkpoint()
        opts = _snake_options(options, _VISIT_OPTIONS, "runner.visit")
        if not isinstance(url, str) or not url:
            raise UsageError(f"runner.visit() needs a URL string; found {url!r}.")
        full = _with_query(self._ctx.resolve_url(url), opts.get("qs"))
        timeout = float(opts.get("timeout", self._ctx.config.page_load_timeout))
        fail_on_status = opts.get("fail_on_status_code", True)
        headers = opts.get("headers")

        extra = {str(k): str(v) for k, v in headers.items()} if headers else None
        self._load(full, timeout, fail_on_status, wait_until=opts.get("wait_until", "load"), headers=extra)
        self._ctx.add_log("visit", full)

    def _load(self, full: str, timeout: float, fail_on_status: bool, *, wait_until: str = "load",
              headers: dict[str, str] | None = None) -> None:
        """Navigate to ``full`` and wait for ``wait_until``; CommandError when it does not load."""
        __tracebackhide__ = True
        status, status_text, error = self._ctx.run(self._ctx.browser.goto(
            full, wait_until=wait_until, timeout_ms=timeout, headers=headers), timeout)
        if error is not None and error.startswith(INVALID_HTTP):
            raise CommandError(
                f"runner.visit() failed trying to load:\n\n  {full}\n\n"
                f"The response was not valid HTTP: {error[len(INVALID_HTTP):]}.\n"
                "The browser forgave it, but a stricter client (and the original runner) does "
                "not: fix what the web server sends."
            )
        if error is not None:
            if "Timeout" in error:
                raise CommandError(
                    f"runner.visit() timed out after {int(timeout)}ms waiting for the load event of:\n\n"
                    f"  {full}\n\nThe page did not fire its load event (pageLoadTimeout). "
                    "Pass timeout= to wait longer."
                )
            raise CommandError(
                f"runner.visit() failed trying to load:\n\n  {full}\n\n"
                f"The request failed without a response: {error}\n"
                "Is your web server running, and is the URL right?"
            )
        if fail_on_status and status is not None and status >= 400:
            raise CommandError(
                f"runner.visit() failed trying to load:\n\n  {full}\n\n"
                f"The response from the web server was:\n\n  > {status}: {status_text}\n\n"
                "This counts as a failure because the status code was not 2xx or 3xx.\n"
                "Pass fail_on_status_code=False if this status is expected."
            )

    @command("mount")
    def mount(self, markup: str, *, stylesheets: Any = (), scripts: Any = (), modules: Any = (),
              title: str = "runner.mount", timeout: float | None = None) -> Subject:
        """Render ``markup`` (HTML: a string, or what your template engine rendered) into a page
        of its own and return the mounted root (``<div id="runner-root">``) as a subject.

        The page is served by runner from ``fileServerFolder``'s origin; ``stylesheets`` (in the
        head), ``scripts`` and ``modules`` (ES modules, after the markup) are URLs relative to
        ``fileServerFolder``, or to the dev server when the plugins file starts one
        (``dev-server:start``). Every command and ``runner.intercept`` work on the page.
        """
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._mount_host is None:
            raise UsageError("runner.mount() needs runner's run: use the `runner` fixture of a run.")
        page = mount_document(markup, stylesheets=stylesheets, scripts=scripts, modules=modules,
                              base=self._mount_host.dev_server(), title=title)
        url = self._mount_host.serve(page)
        limit = float(timeout if timeout is not None else self._ctx.config.page_load_timeout)
        self._load(url, limit, True)
        self._ctx.add_log("mount", f"{len(markup)} characters of markup")
        return Subject(self, [{"op": "get", "selector": f"#{ROOT_ID}"}], "mount()", timeout, None)

    @command("go")
    def go(self, direction: str | int) -> None:
        """Go back or forward in history: ``"back"``, ``"forward"`` or a number of steps."""
        steps = {"back": -1, "forward": 1}.get(direction) if isinstance(direction, str) else direction
        if not isinstance(steps, int) or isinstance(steps, bool) or steps == 0:
            raise UsageError(f"runner.go() expects 'back', 'forward' or a non-zero integer; found {direction!r}.")
        timeout = float(self._ctx.config.page_load_timeout)
        self._ctx.run(self._ctx.browser.history_go(steps, timeout), timeout)

    @command("reload")
    def reload(self, *, timeout: float | None = None) -> None:
        limit = float(timeout if timeout is not None else self._ctx.config.page_load_timeout)
        self._ctx.run(self._ctx.browser.reload(limit), limit)

    @command("url")
    def url(self) -> str:
        url = self._ctx.browser.page_url
        assert url is not None
        return url

    @command("location")
    def location(self, key: str | None = None) -> Any:
        """``window.location`` as a dict (``href``, ``origin``, ``pathname``, ...), or one part."""
        loc = self._ctx.run(self._ctx.browser.location())
        record = Record(loc)
        if key is None:
            return record
        if key not in record:
            raise UsageError(f"runner.location({key!r}): location has no part {key!r}; it has {', '.join(record)}.")
        return record[key]

    @command("title")
    def title(self) -> str:
        return self._ctx.run(self._ctx.browser.title())

    @command("viewport")
    def viewport(self, width: int | str, height: int | str | None = None) -> None:
        """Resize the viewport: ``viewport(1280, 720)``, or a preset ``viewport("iphone-6")``
        (``viewport("iphone-6", "landscape")`` turns it)."""
        if isinstance(width, str):
            preset = VIEWPORT_PRESETS.get(width)
            if preset is None:
                raise UsageError(
                    f"runner.viewport({width!r}): unknown preset.\nPresets: {', '.join(VIEWPORT_PRESETS)}."
                )
            w, h = preset
            if height == "landscape":
                w, h = h, w
            elif height not in (None, "portrait"):
                raise UsageError(f"runner.viewport({width!r}, {height!r}): orientation must be 'portrait' or 'landscape'.")
        else:
            if not (isinstance(width, int) and isinstance(height, int)) or width <= 0 or height <= 0:
                raise UsageError(
                    f"runner.viewport() expects a positive width and height in pixels; found {width!r}, {height!r}."
                )
            w, h = width, height
        self._ctx.run(self._ctx.browser.set_viewport(w, h))

    # -- queries ------------------------------------------------------------------------------
    def get(self, selector: str, *, timeout: float | None = None,
            include_shadow_dom: bool | None = None) -> Any:
        """Query elements by CSS selector, or read an alias: ``get("@name")``, ``"@name.all"``,
        ``"@name.<n>"``. Returns a retrying :class:`Subject` for selectors."""
        if not isinstance(selector, str) or not selector:
            raise UsageError(f"runner.get() needs a selector string; found {selector!r}.")
        if selector.startswith("@"):
            return self._get_alias(selector)
        return Subject(self, [{"op": "get", "selector": selector}], f"get({selector!r})",
                       timeout, include_shadow_dom)

    def _get_alias(self, name: str) -> Any:
        bare = name[1:]
        if bare in self._dom_aliases:
            return self._dom_aliases[bare]
        if self._interceptor_getter is None:
            raise UsageError(f"runner.get({name!r}): no alias {bare!r} was defined in this test.")
        return self._interceptor_getter().get(name)

    def contains(self, content: str | re.Pattern[str] | int, selector: str | None = None, *,
                 match_case: bool = True, timeout: float | None = None) -> Subject:
        """The deepest element containing ``content`` (text or ``re.Pattern``)."""
        if selector is not None and not isinstance(selector, str):
            raise UsageError(f"runner.contains(): selector must be a string; found {selector!r}.")
        step = _contains_step(content, selector, match_case)
        return Subject(self, [step], f"contains({_show(content)})", timeout)  # type: ignore[arg-type]

    def wrap(self, value: Any) -> Value:
        """A retrying subject over any Python value."""
        return Value(self, lambda: value, f"wrap({value!r})"[:80])

    # -- network ------------------------------------------------------------------------------
    @command("intercept", step_after=lambda commands, handle: commands._intercept_step(handle))
    def intercept(self, *args: Any) -> Any:
        """Spy on or stub requests of the page (see docs/interception.md)."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.intercept() is not available in this run.")
        return self._interceptor_getter().intercept(*args)

    def _intercept_step(self, handle: Any) -> Callable[[], str]:
        """The name of an ``intercept`` step, read when it is told (``.as_()`` may follow it)."""
        route_id = handle.id

        def name() -> str:
            assert self._interceptor_getter is not None
            row = next(r for r in self._interceptor_getter().routes_table() if r["id"] == route_id)
            return intercept_step_name(row)

        return name

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
    def record_har(self, path: Any, *, url: Any = None, content: str = "embed") -> Any:
        """Record the page's requests (those ``url`` matches, a glob or regex; all by default) to a
        HAR 1.2 file (relative paths: in fixturesFolder); ``content="omit"`` leaves the bodies
        out. Returns the recording: ``stop()`` writes it, so does the end of a ``with`` block or
        of the test. Only a file runner recorded is ever replaced."""
        __tracebackhide__ = True
        from runner import __version__
        from runner.commands.har import start_recording

        return start_recording(self._ctx, path, url, content, __version__)

    @command("replay_har")
    def replay_har(self, path: Any, *, url: Any = None, not_found: str = "fallback",
                   alias: str | None = None) -> list[Any]:
        """Answer the page's requests from a HAR file (relative paths: in fixturesFolder): a route
        per method and URL of its entries (those ``url`` matches), named ``alias`` when given,
        counted and listed like any route. A request with no entry goes to the server
        (``not_found="fallback"``) or fails, with the test (``"abort"``). Returns the routes' handles."""
        __tracebackhide__ = True
        self._ctx.checkpoint()
        if self._interceptor_getter is None:
            raise UsageError("runner.replay_har() is not available in this run.")
        from runner.commands.har import replay_routes

        return replay_routes(self._ctx, self._interceptor_getter().intercept, path, url, not_found, alias)

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
        opts = _snake_options(options, _REQUEST_OPTIONS, "runner.request")
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

    # -- data and system ----------------------------------------------------------------------
    @command("fixture")
    def fixture(self, path: str, encoding: Any = ...) -> Any:
        """Read a file of ``fixturesFolder``: JSON parsed, images as base64, text as str;
        ``encoding=None`` (or ``"path,null"``) gives bytes."""
        return read_fixture(self._ctx.config.path("fixturesFolder"), path, encoding)

    @command("exec")
    def exec(self, command: str, *, timeout: float | None = None, fail_on_non_zero_exit: bool = True,
             env: Mapping[str, str] | None = None) -> Record:
        """Run a shell command in the project folder; returns ``code``, ``stdout``, ``stderr``.

        Fails on a non-zero exit unless ``fail_on_non_zero_exit=False``, and after
        ``execTimeout`` (or ``timeout``) ms.
        """
        __tracebackhide__ = True
        if not isinstance(command, str) or not command.strip():
            raise UsageError(f"runner.exec() needs a command string; found {command!r}.")
        limit = float(timeout if timeout is not None else self._ctx.config.exec_timeout)
        full_env = {**os.environ, **{k: str(v) for k, v in (env or {}).items()}}
        try:
            done = run_shell(command, cwd=self._ctx.project_root, env=full_env, timeout=limit / 1000)
        except subprocess.TimeoutExpired as err:
            raise CommandError(
                f"runner.exec({command!r}) timed out after {int(limit)}ms (execTimeout); the command "
                "and every process it started were killed.\n"
                "Make the command finish sooner or pass timeout=."
            ) from err
        result = Record(code=done.code, stdout=done.stdout.decode("utf-8", "replace").rstrip("\n"),
                        stderr=done.stderr.decode("utf-8", "replace").rstrip("\n"))
        if fail_on_non_zero_exit and done.code != 0:
            raise CommandError(
                f"runner.exec({command!r}) failed: the command exited with code {done.code}.\n"
                f"stdout: {result.stdout[-2000:] or '(empty)'}\nstderr: {result.stderr[-2000:] or '(empty)'}\n"
                "Pass fail_on_non_zero_exit=False to read the result instead."
            )
        self._ctx.add_log("exec", f"{command} -> {done.code}")
        return result

    @command("task")
    def task(self, name: str, arg: Any = None, *, timeout: float | None = None) -> Any:
        """Run a task registered by the plugins file with ``on("task", {...})``."""
        __tracebackhide__ = True
        if self._events is None:
            from runner.usercode.plugins_file import PluginEvents

            self._events = PluginEvents()
        limit = float(timeout if timeout is not None else self._ctx.config.task_timeout)
        return self._events.run_task(name, arg, limit)

    # -- cookies ------------------------------------------------------------------------------
    def _cookie_url(self) -> str | None:
        url = self._ctx.browser.page_url
        if url is not None and url.startswith(("http://", "https://")):
            return url
        return self._ctx.base_url

    @command("get_cookies")
    def get_cookies(self, *, domain: str | None = None) -> list[Record]:
        """Cookies of the current page's domain (or ``domain``)."""
        cookies = self._ctx.run(self._ctx.browser.cookies(), self._ctx.config.response_timeout)
        host = domain or urlsplit(self._cookie_url() or "").hostname
        out = []
        for c in cookies:
            cd = c.get("domain", "").lstrip(".")
            if host is None or host == cd or host.endswith("." + cd):
                out.append(_cookie_record(c))
        return out

    @command("get_all_cookies")
    def get_all_cookies(self) -> list[Record]:
        return [_cookie_record(c) for c in self._ctx.run(self._ctx.browser.cookies())]

    @command("get_cookie")
    def get_cookie(self, name: str) -> Record | None:
        for cookie in self.get_cookies():
            if cookie["name"] == name:
                return cookie
        return None

    @command("set_cookie")
    def set_cookie(self, name: str, value: str, *, domain: str | None = None, path: str = "/",
                   secure: bool = False, http_only: bool = False, expiry: float | None = None,
                   same_site: str | None = None) -> Record:
        cookie: dict[str, Any] = {"name": name, "value": value, "path": path, "secure": secure,
                                  "httpOnly": http_only}
        if domain:
            cookie["domain"] = domain
        else:
            url = self._cookie_url()
            if url is None:
                raise UsageError(
                    "runner.set_cookie() needs a domain: the page shows no site yet and no baseUrl is set.\n"
                    "Visit a page first or pass domain=."
                )
            cookie["domain"] = urlsplit(url).hostname
        if expiry is not None:
            cookie["expires"] = expiry
        if same_site is not None:
            canonical = {"lax": "Lax", "strict": "Strict", "none": "None", "no_restriction": "None"}.get(same_site.lower())
            if canonical is None:
                raise UsageError(f"runner.set_cookie(): same_site must be 'lax', 'strict' or 'none'; found {same_site!r}.")
            cookie["sameSite"] = canonical
        self._ctx.run(self._ctx.browser.add_cookies([cookie]))
        found = self.get_cookie(name)
        return found if found is not None else _cookie_record(cookie)

    @command("clear_cookie")
    def clear_cookie(self, name: str) -> None:
        self._ctx.run(self._ctx.browser.clear_cookies(name))

    @command("clear_cookies")
    def clear_cookies(self) -> None:
        self._ctx.run(self._ctx.browser.clear_cookies())

    # -- sessions -----------------------------------------------------------------------------
    @command("session")
    def session(self, id: Any, setup: Callable[[], Any], validate: Callable[[], Any] | None = None) -> None:
        """Cache and restore cookies and local storage across tests (``experimentalSessionSupport``).

        The first call with ``id`` runs ``setup`` (e.g. a log-in) and remembers the browser's
        cookies and local storage; later calls (in any test of the run) restore them instead.
        ``validate`` runs after a restore; if it raises, the session is built again with
        ``setup``. Session storage is not part of a session. The page is left at ``about:blank``
        either way, so visit a page next.
        """
        __tracebackhide__ = True
        if not self._ctx.config.experimental_session_support:
            raise UsageError(
                "runner.session() needs experimentalSessionSupport: true in runner.json."
            )
        if not callable(setup) or (validate is not None and not callable(validate)):
            raise UsageError(f"runner.session({id!r}, setup, validate=None) needs functions; found {setup!r}, {validate!r}.")
        key = json.dumps(id, sort_keys=True, default=repr)
        browser = self._ctx.browser
        state = self._session_cache.get(key)
        if state is not None:
            self._ctx.run(browser.restore_storage(state), self._ctx.config.page_load_timeout)
            if validate is None:
                self._ctx.add_log("session", f"{id!r} restored")
                return
            try:
                validate()
                self._ctx.add_log("session", f"{id!r} restored and validated")
                return
            except AssertionError:
                self._ctx.add_log("session", f"{id!r} failed validation; building it again")
        self._ctx.run(browser.clear_storage(), self._ctx.config.page_load_timeout)
        setup()
        state = self._ctx.run(browser.capture_storage(), self._ctx.config.page_load_timeout)
        self._session_cache[key] = state
        # As after a restore: only what the session holds survives (not session storage).
        self._ctx.run(browser.restore_storage(state), self._ctx.config.page_load_timeout)
        self._ctx.add_log("session", f"{id!r} created")

    # -- artifacts ----------------------------------------------------------------------------
    @command("screenshot")
    def screenshot(self, name: str | None = None, *, full_page: bool = True) -> Path:
        """Save a PNG of the page under ``screenshotsFolder/<spec>/<name>.png`` and return its path."""
        path = self._screenshot_path(name)
        self._ctx.run(self._ctx.browser.screenshot(path, full_page=full_page), self._ctx.config.response_timeout)
        self._taken(path)
        return path

    def _element_screenshot(self, subject: Subject, name: str | None) -> Path:
        path = self._screenshot_path(name)
        self._ctx.run(self._ctx.browser.element_screenshot(subject._query_arg(), path),
                      self._ctx.config.response_timeout)
        self._taken(path)
        return path

    def _taken(self, path: Path) -> None:
        self._ctx.add_log("screenshot", str(path))
        self._ctx.screenshots.append(path)
        self._ctx.tell(ScreenshotTaken(nodeid=self._ctx.nodeid, path=str(path), attempt=self._ctx.attempt))

    def _screenshot_path(self, name: str | None) -> Path:
        folder = self._screenshot_dir() if self._screenshot_dir else Path(self._ctx.config.path("screenshotsFolder") or ".")
        base = name or self._ctx.title or "screenshot"
        # "/" in a name makes sub-folders, as in the original; nothing else unsafe survives.
        path = claim_screenshot_path(folder, base, taken=self._ctx.screenshot_paths, attempt=self._ctx.attempt,
                                     subfolders=True)
        from runner.artifacts.folders import make_artifact_folder

        make_artifact_folder(path.parent, option="screenshotsFolder", what=f"The screenshot {path.name!r}",
                             root=self._ctx.config.path("screenshotsFolder") or folder)
        return path


def _with_query(url: str, qs: Mapping[str, Any] | None) -> str:
    if not qs:
        return url
    parts = urlsplit(url)
    extra = urlencode({k: v for k, v in qs.items()}, doseq=True)
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def _cookie_record(c: Mapping[str, Any]) -> Record:
    return Record(
        name=c.get("name"), value=c.get("value"), domain=c.get("domain"), path=c.get("path", "/"),
        expiry=c.get("expires") if c.get("expires", -1) != -1 else None,
        http_only=c.get("httpOnly", False), secure=c.get("secure", False),
        same_site=(c.get("sameSite") or "").lower() or None,
    )

