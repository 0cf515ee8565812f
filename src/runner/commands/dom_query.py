"""A DOM subject's recipe (its query steps) and its reading in the page: the base of ``Subject``.

A subject is a list of query steps (``dom.js`` runs them) rather than a handle: each read,
assertion or action runs them again. :class:`DomQuery` holds the steps and their options
(timeout, shadow DOM) and reads what they find now (:meth:`DomQuery._snap`) or waits until they
find something (:meth:`DomQuery._existing`); the subject's families build on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, Self

from runner import expect
from runner.commands.base import CommandsBase
from runner.commands.context import Attempt, TestContext, retry
from runner.commands.selectors import Selector, SelectorSyntaxError, compile_selector
from runner.commands.steps import command, show_args
from runner.engine.element_verbs import InvalidSelector
from runner.errors import CommandError, UsageError

__all__ = ["DomQuery", "checked_selector"]


def _snapshot(raw: Mapping[str, Any]) -> expect.ElementSnapshot:
    return expect.ElementSnapshot(
        tag=raw["tag"],
        text=raw["text"],
        inner_text=raw["inner_text"],
        html=raw["html"],
        value=raw["value"],
        visible=raw["visible"],
        attrs=dict(raw["attrs"]),
        classes=tuple(raw["classes"]),
        checked=raw["checked"],
        selected=raw["selected"],
        disabled=raw["disabled"],
        focused=raw["focused"],
        css=dict(raw["css"]),
        props=dict(raw["props"]),
        description=raw["description"],
    )


class DomQuery:
    """The query steps of a subject, its label and options, and their reading in the page."""

    # contains(selector, content) with a str content: the two, to tell a call written in the old
    # order (content first) when it finds nothing (see _order_hint)
    _swapped: tuple[str, str] | None = None

    def __init__(self, commands: CommandsBase, steps: list[dict[str, Any]], label: str,
                 timeout: float | None = None, include_shadow_dom: bool | None = None) -> None:
        self._commands = commands
        self._ctx: TestContext = commands._ctx
        self._steps = steps
        self._label = label
        self._timeout = timeout
        self._shadow = include_shadow_dom

    def __repr__(self) -> str:
        return f"<Subject {self._label}>"

    def _derive(self, step: dict[str, Any], label: str) -> Self:
        """This subject with one more step (its label extended with ``label``)."""
        return type(self)(self._commands, [*self._steps, step], f"{self._label}.{label}",
                          self._timeout, self._shadow)

    def _timeout_ms(self, timeout: float | None = None) -> float:
        if timeout is not None:
            return float(timeout)
        if self._timeout is not None:
            return float(self._timeout)
        return float(self._ctx.config.default_command_timeout)

    def _shadow_on(self) -> bool:
        if self._shadow is not None:
            return self._shadow
        return bool(self._ctx.config.include_shadow_dom)

    def _query_arg(self) -> dict[str, Any]:
        """The query the engine's element verbs take."""
        return {"mode": "elements", "steps": self._steps, "shadow": self._shadow_on()}

    def _snap(self, css: Sequence[str] = (), props: Sequence[str] = (),
              limit: int | None = None) -> expect.DomSubject:
        """The elements as they are now; with ``limit``, only the first ``limit`` are read (and
        all are counted: ``DomSubject.count``)."""
        if not self._ctx.command_depth:
            # a read that is no command (count(), snapshot()): what the page's errors name
            self._ctx.command = f"runner.{self._label}"
        raw = self._ctx.run(self._ctx.browser.dom({
            "mode": "snapshot", "steps": self._steps, "shadow": self._shadow_on(),
            "css": list(css), "props": list(props), "limit": limit,
        }, untraced=self._ctx.quiet_read()))
        if limit is None:
            return expect.DomSubject(self._label, tuple(_snapshot(r) for r in raw))
        return expect.DomSubject(self._label, tuple(_snapshot(r) for r in raw["elements"]),
                                     total=int(raw["total"]))

    def _existing(self, timeout: float | None = None, what: str = "to exist") -> expect.DomSubject:
        """Retry until at least one element matches; returns the snapshot."""
        __tracebackhide__ = True

        def attempt() -> Attempt:
            snap = self._snap()
            if snap.elements:
                return Attempt(True, value=snap)
            return Attempt(False, f"expected to find element {self._label}, but never found it")

        return self._retry(attempt, self._timeout_ms(timeout), f"{self._label} {what}")

    def _retry(self, attempt: Callable[[], Attempt], timeout_ms: float, what: str) -> Any:
        """``retry`` of a read of this subject: its failure says when the arguments of its
        ``contains`` look swapped."""
        __tracebackhide__ = True
        try:
            return retry(self._ctx, attempt, timeout_ms, what)
        except CommandError as err:
            hint = self._order_hint()
            if not hint:
                raise
            raise CommandError(f"{err}\n{hint}") from None

    def _order_hint(self) -> str:
        """``did you mean contains('#filters a', 'All')?`` when this subject is a
        ``contains(selector, content)`` whose selector finds nothing while its content is a
        selector that finds elements (asked of the page only now, on the failure path)."""
        if self._swapped is None:
            return ""
        selector, content = self._swapped
        try:
            as_selector = compile_selector(content)
        except SelectorSyntaxError:
            return ""
        if self._found_by(compile_selector(selector)) or not self._found_by(as_selector):
            return ""
        return f"did you mean contains({content!r}, {selector!r})? (the selector comes first, as in the original)"

    def _found_by(self, selector: Selector) -> int:
        """How many elements ``selector`` finds where this subject's ``contains`` looked (none
        when the browser cannot read it as a selector: content such as ``'Hello world!'``)."""
        outer = self._steps[:-1]  # the steps before the contains: a subject, a within block
        step = {"op": "find" if outer else "get", "selector": selector}
        browser = self._ctx.browser

        async def count() -> int:
            # caught here, not by ctx.run: there it would be the query's failure, "not a valid selector"
            try:
                raw = await browser.dom({"mode": "snapshot", "steps": [*outer, step], "shadow": self._shadow_on(),
                                         "css": [], "props": [], "limit": 0})
            except InvalidSelector:
                return 0
            return int(raw["total"])

        found: int = self._ctx.run(count())
        return found


def checked_selector(owner: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                     selector: Any, *, required: bool = False) -> Selector | None:
    """``selector`` as the step of the query ``name`` (called on ``owner``, the runner or a
    subject, with ``args`` and ``kwargs``) carries it (``selectors.compile_selector``); None
    stays None unless ``required``. A selector that is surely wrong fails the query at once,
    told as a failed command (the command log, the events, the trace): ``UsageError``."""
    if selector is None and not required:
        return None
    if not isinstance(selector, str) or not selector.strip():
        _refuse(owner, name, args, kwargs, f"needs a selector string; found {selector!r}.")
    try:
        return compile_selector(selector)
    except SelectorSyntaxError as err:
        why = str(err)
    _refuse(owner, name, args, kwargs, why)  # (outside the except: the compiler's frames are runner's)


def _refuse(owner: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], why: str) -> NoReturn:
    """Fail the query ``name`` with ``why``, told as the command it would have been part of."""
    label = getattr(owner, "_label", None)
    ctx = getattr(owner, "_ctx", None)
    call = f"{name}({show_args(args, kwargs, getattr(ctx, 'redactor', None))})"
    message = f"runner.{label}.{call}: {why}" if label else f"runner.{call}: {why}"

    def fail(self: Any, *_: Any, **__: Any) -> NoReturn:
        __tracebackhide__ = True
        self._ctx.add_log("failed", message)
        raise UsageError(message)

    __tracebackhide__ = True
    command(name)(fail)(owner, *args, **kwargs)
    raise AssertionError("unreachable")  # fail() raised
