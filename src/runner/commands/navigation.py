"""Navigation commands: visit, mount, go, reload.

What loads or leaves a document belongs here (tabs and popups too); what reads or resizes the
page that is loaded is in ``page.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from runner.commands.base import CommandsBase, snake_options
from runner.commands.hooks import WindowHandle, before_load, check_hook, describe_hook, hook_failure
from runner.commands.mount import ROOT_ID, mount_document
from runner.commands.steps import command
from runner.commands.subject import Subject
from runner.config.network_conditions import NetworkConditions
from runner.engine.raw_http import INVALID_HTTP
from runner.engine.visit_hooks import BeforeLoad, PageScriptError
from runner.errors import CommandError, UsageError

__all__ = ["NavigationCommands"]

_VISIT_OPTIONS = {"timeout", "fail_on_status_code", "qs", "headers", "wait_until", "on_before_load", "on_load"}
_WAIT_UNTIL = ("load", "domcontentloaded", "networkidle", "commit")  # Playwright's goto(wait_until=)
# when on_load ran, by the visit's wait_until: its log line says which point the page had reached
_ON_LOAD_AFTER = {"load": "after the load event", "networkidle": "after the network went idle",
                  "domcontentloaded": "after DOMContentLoaded (wait_until: its load event may be still to come)",
                  "commit": "once the document was committed (wait_until: before its load event)"}


class NavigationCommands(CommandsBase):
    """``visit``, ``mount``, ``go``, ``reload``: the commands that load a document."""

    @command("visit")
    def visit(self, url: str, **options: Any) -> None:
        """Load ``url`` (relative to ``baseUrl``) and wait for the load event.

        Options: ``timeout`` (default ``pageLoadTimeout``), ``fail_on_status_code`` (default
        True: a 4xx/5xx document fails the test), ``qs`` (dict added to the query string),
        ``headers`` (extra request headers for the document), ``wait_until`` (``"load"``, or
        ``"domcontentloaded"``, ``"networkidle"``, ``"commit"``: Playwright's), ``on_before_load`` and
        ``on_load`` (JavaScript or a Python callable taking the window: ``hooks.py``).
        Raises ``CommandError`` when the page does not load or a hook fails.
        """
        __tracebackhide__ = True
        self._ctx.checkpoint()
        opts = snake_options(options, _VISIT_OPTIONS, "runner.visit")
        if not isinstance(url, str) or not url:
            raise UsageError(f"runner.visit() needs a URL string; found {url!r}.")
        full = _with_query(self._ctx.resolve_url(url), opts.get("qs"))
        timeout = float(opts.get("timeout", self._ctx.config.page_load_timeout))
        fail_on_status = opts.get("fail_on_status_code", True)
        headers = opts.get("headers")
        early, late = opts.get("on_before_load"), opts.get("on_load")
        wait_until = opts.get("wait_until", "load")
        if wait_until not in _WAIT_UNTIL:
            raise UsageError(f"runner.visit(wait_until=...) takes one of {', '.join(map(repr, _WAIT_UNTIL))}; "
                             f"found {wait_until!r}.")
        check_hook("on_before_load", early)
        check_hook("on_load", late)

        extra = {str(k): str(v) for k, v in headers.items()} if headers else None
        bound_s = min(self._ctx.config.default_command_timeout, timeout) / 1000
        hook = before_load(early, bound_s) if early is not None else None
        self._load(full, timeout, fail_on_status, wait_until=wait_until, headers=extra,
                   hook=hook, bound_by=_bound_by("visit", "timeout" in opts))
        self._ctx.add_log("visit", full)
        if early is not None:
            self._ctx.add_log("on_before_load", f"{describe_hook(early)} ran before the page's scripts")
        if late is not None:
            self._on_load(late, wait_until)

    def _on_load(self, hook: Any, wait_until: str) -> None:
        """Run ``on_load`` on the loaded page (a callable on this thread, with a window handle),
        once the visit's ``wait_until`` is reached."""
        __tracebackhide__ = True
        browser = self._ctx.browser
        try:
            if isinstance(hook, str):
                self._ctx.run(browser.evaluate_on_page(hook, []))
            else:
                hook(WindowHandle("on_load", lambda js, args: self._ctx.run(browser.evaluate_on_page(js, args))))
        except PageScriptError as err:
            raise hook_failure("on_load", err, 0) from None
        except Exception as err:
            raise hook_failure("on_load", err, 0) from err
        self._ctx.add_log("on_load", f"{describe_hook(hook)} ran {_ON_LOAD_AFTER[wait_until]}")

    def _load(self, full: str, timeout: float, fail_on_status: bool, *, bound_by: tuple[str, str],
              wait_until: str = "load", headers: dict[str, str] | None = None,
              hook: BeforeLoad | None = None) -> None:
        """Navigate to ``full`` and wait for ``wait_until``; CommandError when it does not load.

        ``bound_by`` is the command's name and where ``timeout`` came from (:func:`_bound_by`),
        which a timeout's message names."""
        __tracebackhide__ = True
        name, source = bound_by
        status, status_text, error = self._ctx.run(self._ctx.browser.goto(
            full, wait_until=wait_until, timeout_ms=timeout, headers=headers, before_load=hook), timeout)
        if hook is not None and hook.error is not None:
            hook_bound = ("the visit's timeout" if timeout < self._ctx.config.default_command_timeout
                          else "defaultCommandTimeout")
            failure = hook_failure("on_before_load", hook.error, hook.bound_s, hook_bound)
            raise failure from (None if isinstance(hook.error, PageScriptError) else hook.error)
        if error is not None and error.startswith(INVALID_HTTP):
            raise CommandError(
                f"runner.{name}() failed trying to load:\n\n  {full}\n\n"
                f"The response was not valid HTTP: {error[len(INVALID_HTTP):]}.\n"
                "The browser forgave it, but a stricter client (and the original runner) does "
                "not: fix what the web server sends."
            )
        if error is not None:
            if "Timeout" in error:
                raise CommandError(
                    f"runner.{name}() timed out after {int(timeout)}ms waiting for the load event of:\n\n"
                    f"  {full}\n\nThe page did not fire its load event ({source}). "
                    + ("Pass a larger timeout= to wait longer." if source != "pageLoadTimeout"
                       else "Pass timeout= to wait longer.")
                    + _slowed(self._ctx.browser.network_conditions)
                )
            conditions = self._ctx.browser.network_conditions
            raise CommandError(
                f"runner.{name}() failed trying to load:\n\n  {full}\n\n"
                f"The request failed without a response: {error}\n"
                + ("The test's network is offline (runner.network_conditions(), or the networkConditions option)."
                   if conditions is not None and conditions.offline else
                   "Is your web server running, and is the URL right?")
            )
        if fail_on_status and status is not None and status >= 400:
            raise CommandError(
                f"runner.{name}() failed trying to load:\n\n  {full}\n\n"
                f"The response from the web server was:\n\n  > {status}: {status_text}\n\n"
                "This counts as a failure because the status code was not 2xx or 3xx."
                + ("\nPass fail_on_status_code=False if this status is expected." if name == "visit" else "")
            )
        if hook is not None and not hook.ran:
            # the first line is the log line: it says the whole of it
            raise CommandError(
                f"runner.visit({full!r}): on_before_load did not run: the visit loaded no new document "
                "(a hash change, or a download), so there was no start to run it before.\n"
                "Visit a page that loads, or drop on_before_load."
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
        self._load(url, limit, True, bound_by=_bound_by("mount", timeout is not None))
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


def _with_query(url: str, qs: Mapping[str, Any] | None) -> str:
    if not qs:
        return url
    parts = urlsplit(url)
    extra = urlencode({k: v for k, v in qs.items()}, doseq=True)
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def _bound_by(name: str, passed: bool) -> tuple[str, str]:
    """The command and the source of its page-load timeout, for its message: the ``timeout=``
    the test passed, or the ``pageLoadTimeout`` option (saying the option when the argument set
    the bound sends the user to the wrong place)."""
    return name, ("its timeout= argument" if passed else "pageLoadTimeout")


def _slowed(conditions: NetworkConditions | None) -> str:
    """What a visit that timed out is told of the network conditions that slowed it."""
    if conditions is None or conditions.offline:
        return ""
    return f"\nThe test's network is slowed ({conditions.describe()}): runner.network_conditions() or networkConditions."
