"""Popups and new tabs: ``with runner.popup() as tab:``, then ``tab.value`` drives the new page.

The block is put around the action that opens the page (a link with ``target=_blank``,
``window.open(...)``); when it ends, runner waits for that page (``timeout=``, else
``defaultCommandTimeout``) and ``tab.value`` is a runner of its own for it: every command, its
subjects retried as usual, its requests through the test's routes, records and aliases (the
engine's ``popups.py``). The test's ``runner`` keeps driving the test's page. The tab's commands
are told as the tab's (``tab[1].get('h1')...``) in the command log and the trace.

A tab's runner shares the test (:class:`PageContext`: the log, the events, the trace, the
configuration) and differs only in its page.
"""

from __future__ import annotations

from dataclasses import fields
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from runner.commands.base import CommandsBase
from runner.commands.context import TestContext
from runner.commands.steps import command
from runner.errors import CommandError, UsageError

if TYPE_CHECKING:
    from runner.engine.popups import PageView

__all__ = ["TabCommands", "Tab", "PageContext"]

R = TypeVar("R", bound="TabCommands")

# What a tab's context has of its own; every other field is the test's (read and written there).
_OWN = frozenset({"browser_getter", "page_label"})
_SHARED = frozenset(f.name for f in fields(TestContext)) - _OWN


class PageContext(TestContext):
    """The test's context bound to another page of it: the fields are the test's own (one log,
    one count of commands, one trace), but ``browser`` is the page's view and ``page_label``
    names it. Its methods are the test context's, run with this page."""

    view: PageView

    def __init__(self, test: TestContext, view: PageView) -> None:
        # not the dataclass's __init__: the fields stay the test's
        object.__setattr__(self, "_test", test)
        object.__setattr__(self, "view", view)
        object.__setattr__(self, "browser_getter", lambda: view)
        object.__setattr__(self, "page_label", view.label)

    def add_log(self, name: str, message: str, *, at: int | None = None) -> None:
        """A line of the test's log, marked as the tab's: ``tab[1] click: get('#again')``."""
        super().add_log(f"{self.page_label} {name}", message, at=at)

    def __getattribute__(self, name: str) -> Any:
        if name in _SHARED:
            return getattr(object.__getattribute__(self, "_test"), name)
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHARED:
            setattr(object.__getattribute__(self, "_test"), name, value)
        else:
            object.__setattr__(self, name, value)


class Tab(Generic[R]):
    """What ``with runner.popup() as tab:`` gives: ``tab.value`` is the new page's runner once
    the block has ended."""

    def __init__(self, opener: R, timeout: float | None) -> None:
        self._opener = opener
        self._timeout = timeout
        self._token: int | None = None
        self._value: R | None = None

    def __repr__(self) -> str:
        return f"<Tab {self._value!r}>" if self._value is not None else "<Tab (waiting for the popup)>"

    @property
    def value(self) -> R:
        """The popup's runner. Raises ``UsageError`` inside the block (the page is not open yet)."""
        if self._value is None:
            raise UsageError(
                "tab.value is the popup's runner once the `with runner.popup() as tab:` block has "
                "ended: the action that opens the page goes inside the block, the commands on the "
                "page after it.")
        return self._value

    def __enter__(self) -> Self:
        if self._token is not None:
            raise UsageError("runner.popup(): a popup() is used in one with-block only; call it again.")
        self._token = self._opener._popup_expect()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        __tracebackhide__ = True
        assert self._token is not None
        if error is not None:
            self._opener._popup_forget(self._token)
            return
        self._value = self._take(**({} if self._timeout is None else {"timeout": self._timeout}))

    @property
    def _ctx(self) -> TestContext:
        return self._opener._ctx  # the command is the opener's (its log line, its page's label)

    @command("popup")
    def _take(self, *, timeout: float | None = None) -> R:
        __tracebackhide__ = True
        assert self._token is not None
        return self._opener._popup_take(self._token, timeout)


class TabCommands(CommandsBase):
    """``popup``: the page the test's page opens, with a runner of its own."""

    def popup(self, *, timeout: float | None = None) -> Tab[Self]:
        """``with runner.popup() as tab:`` around the action that opens a page; after the block
        ``tab.value`` is a runner for it. ``timeout`` (ms, default ``defaultCommandTimeout``):
        how long the block's end waits for the page."""
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or timeout < 0):
            raise UsageError(f"runner.popup(timeout=...) takes milliseconds (a number >= 0); found {timeout!r}.")
        return Tab(self, timeout)

    def _popups(self) -> Any:
        popups = self._ctx.browser.popups
        if popups is None:
            raise CommandError("runner.popup(): the browser has no page open to watch for popups.")
        return popups

    def _popup_expect(self) -> int:
        popups = self._popups()

        async def expect() -> int:
            token: int = popups.expect()
            return token

        return self._ctx.run(expect())

    def _popup_forget(self, token: int) -> None:
        popups = self._popups()

        async def forget() -> None:
            popups.forget(token)

        self._ctx.run(forget())

    def _popup_take(self, token: int, timeout: float | None) -> Self:
        __tracebackhide__ = True
        limit = float(timeout) if timeout is not None else float(self._ctx.config.default_command_timeout)
        view: PageView | None = self._ctx.run(self._popups().take(token, limit), limit)
        if view is None:
            which = f"timeout: {limit:g}ms" if timeout is not None else f"defaultCommandTimeout: {limit:g}ms"
            self._ctx.add_log("failed", f"popup: no page opened ({which})")
            raise CommandError(
                f"runner.popup() waited {limit:g}ms ({which}) for a popup or new tab, and none opened.\n"
                "The action inside the `with runner.popup() as tab:` block must open one (a link with "
                "target=_blank, window.open(...)); give a slow one longer with popup(timeout=...).")
        self._ctx.add_log("popup", f"{view.label} {view.page_url}")
        self._ctx.command_result = f"{view.label} {view.page_url}"  # the report's row tells it too
        return type(self)(PageContext(self._ctx, view), events=self._events,
                          interceptor=self._interceptor_getter, screenshot_dir=self._screenshot_dir,
                          session_cache=self._session_cache)

    @command("close")
    def close(self) -> None:
        """Close a popup's page: ``tab.value.close()``. The test's own page is runner's to close."""
        ctx = self._ctx
        if not isinstance(ctx, PageContext):
            raise UsageError(
                "runner.close() closes a popup's page (tab.value.close()); the test's own page "
                "stays open until the test ends.")
        ctx.run(ctx.view.close_page())
