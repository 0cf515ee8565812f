"""The page's own JavaScript as subjects: ``runner.window()``, ``runner.document()`` (:class:`PageValue`),
``runner.hash()`` (:class:`PageHash`), and the page's values as Python data (:func:`from_page`).

A :class:`PageValue` is a :class:`~runner.commands.values.Value` whose value lives in the page: a
root (the window or the document) and a dotted path from it, read again by every ``should`` and
``value()`` until what is asked holds (a path that does not exist yet is retried, as the
original's ``its`` is). ``its`` makes the path longer without reading; ``invoke`` calls the
function at a path there and then, once, with ``this`` the object it was read from.

What the page holds that is not data (the window, the document, DOM nodes, functions, promises,
a cycle) comes back as a :class:`PageObject`, shown as ``<window>``, ``<h1#title>``,
``<function dispatch>``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from runner import expect
from runner.commands.base import CommandsBase
from runner.commands.context import Attempt, retry
from runner.commands.steps import command, show_args
from runner.commands.values import Value, _Missing, _short
from runner.engine.holder import PageError
from runner.errors import CommandError, UsageError

__all__ = ["PageObject", "PageValue", "PageHash", "from_page", "json_arguments", "split_path"]

_MARK = "__runner_js__"
_HAS_PROPERTY = {"have.property": False, "have.own.property": False,
                 "not.have.property": True, "not.have.own.property": True}


@dataclass(frozen=True)
class PageObject:
    """Something of the page that is not data: ``kind`` is ``window``, ``document``, ``node``,
    ``function``, ``promise``, ``error``, ``circular`` or ``cut`` (past the depth or size read)."""

    kind: str
    description: str

    def __repr__(self) -> str:
        text = self.description
        return text if text.startswith(("<", "[")) else f"<{text}>"


def from_page(data: Any) -> Any:
    """The page's data (``page_values.js``'s) as Python values: its markers made PageObjects."""
    if isinstance(data, dict):
        if _MARK in data:
            return PageObject(str(data[_MARK]), str(data.get("description", "")))
        return {key: from_page(value) for key, value in data.items()}
    if isinstance(data, list):
        return [from_page(item) for item in data]
    return data


def split_path(path: Any, what: str) -> list[str]:
    """``"app.items[0].id"`` as its parts (``["app", "items", "0", "id"]``); a UsageError
    naming ``what`` (the call) when it is not a dotted path."""
    if not isinstance(path, str) or not path.strip():
        raise UsageError(f"{what} needs a dotted path string like 'app.store'; found {path!r}.")
    parts = re.sub(r"\[(\d+)\]", r".\1", path.strip()).split(".")
    if any(not part for part in parts):
        raise UsageError(f"{what}: the path {path!r} has an empty part; write it like 'app.items.0.id'.")
    return parts


def json_arguments(values: Any, what: str) -> None:
    """Refuse what cannot cross to the page as JSON (a UsageError naming ``what``)."""
    try:
        json.dumps(values, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise UsageError(
            f"{what}: its arguments must be JSON data (dict, list, str, int, float, bool, None); {err}."
        ) from None


class PageValue(Value):
    """The window or the document, or a value at a dotted path of it: read in the page."""

    _pageless = False  # its commands ask the page

    def __init__(self, commands: CommandsBase, root: str, parts: list[str], label: str) -> None:
        self._root = root
        self._parts = parts
        super().__init__(commands, self._read_page, label)

    @property
    def _path(self) -> str:
        return ".".join([self._root, *self._parts])

    def _read_page(self) -> Any:
        answer = self._ask(self._ctx.browser.page_value(self._root, self._parts), self._label)
        if "missing" in answer:
            raise _Missing(answer["missing"])
        if "threw" in answer:
            thrown = answer["threw"]
            raise CommandError(f"reading {answer['reading']} threw in the page: {_thrown(thrown)}")
        return from_page(answer["value"])

    def _ask(self, verb: Coroutine[Any, Any, dict[str, Any]], label: str) -> dict[str, Any]:
        """The verb's answer; the page's own failure (not a navigation) as one CommandError."""
        __tracebackhide__ = True
        try:
            return self._ctx.run(verb)
        except PageError as err:
            raise CommandError(f"{label}: the page could not be asked: {err}") from None

    @command("its")
    def its(self, path: str) -> PageValue:
        """The value at ``path`` (dotted) from here, read in the page by each ``should`` and
        ``value()``, which wait until the path exists."""
        parts = split_path(path, f"{self._label}.its()")
        self._ctx.add_log("its", "." + ".".join(parts))
        return PageValue(self._commands, self._root, [*self._parts, *parts], f"{self._label}.its({path!r})")

    @command("invoke")
    def invoke(self, method: str, *args: Any, timeout: float | None = None) -> Value:
        """Call the function at the dotted path ``method`` from here (``this`` the object it is
        a property of), once, with the JSON-able ``args``; a promise it returns is awaited.
        Waits (up to ``timeout``, else defaultCommandTimeout) until the path exists."""
        __tracebackhide__ = True
        parts = [*self._parts, *split_path(method, f"{self._label}.invoke()")]
        label = f"{self._label}.invoke({show_args((method, *args), {}, self._ctx.redactor)})"
        json_arguments(list(args), label)
        limit = self._limit(timeout)
        deadline = time.monotonic() + limit / 1000

        def attempt() -> Attempt:
            settle_ms = max((deadline - time.monotonic()) * 1000, 100.0)
            answer = self._ask(self._ctx.browser.call_page_method(self._root, parts, list(args), settle_ms), label)
            if "missing" in answer:
                return Attempt(False, answer["missing"])
            if "notFunction" in answer:
                raise CommandError(f"{label}: {answer['notFunction']}.\n"
                                   "invoke() calls a function: give the dotted path of one, like 'app.store.dispatch'.")
            if "threw" in answer:
                raise CommandError(f"{label} threw in the page: {_thrown(answer['threw'])}")
            if answer.get("pending"):
                raise CommandError(f"{label}: the promise it returned did not settle within {limit:g}ms.\n"
                                   "Pass timeout= to wait longer.")
            if answer.get("navigated"):
                navigated.append(True)
            return Attempt(True, value=from_page(answer["value"]))

        navigated: list[bool] = []
        called = f".{'.'.join(parts[len(self._parts):])}({show_args(args, {}, self._ctx.redactor)})"
        self._ctx.add_log("invoke", called)  # before: a call that fails is in the log too
        result = retry(self._ctx, attempt, limit, label)
        if navigated:
            self._ctx.add_log("invoke", f"{called}: the page navigated away meanwhile, no value")
        return Value(self._commands, lambda: result, label, once=True)  # a copy of what it returned

    @command("should")
    def should(self, chainer: str | Callable[[Any], Any], *args: Any, timeout: float | None = None) -> PageValue:
        """Retry until the chai-style assertion holds of the value read in the page.
        ``have.property`` reads that one property there (the window is not data to walk)."""
        __tracebackhide__ = True
        negated = _HAS_PROPERTY.get(chainer) if isinstance(chainer, str) else None
        if negated is not None and args and isinstance(args[0], str) and len(args) <= 2:
            self._has_property(str(chainer), args, negated, timeout)
        elif chainer in ("exist", "not.exist") and not args:
            self._exists(chainer == "not.exist", timeout)
        else:
            super().should(chainer, *args, timeout=timeout)
        shown = "<callback>" if callable(chainer) else " ".join([chainer, *map(repr, args)])
        self._ctx.add_log("assert", f"{self._label} should {shown}")
        return self

    and_ = should

    def then(self, func: Callable[[PageValue], Any]) -> Any:
        """``func(subject)``: the window or document stays in the page, so ``func`` gets this
        subject (``its``, ``invoke``, ``should``), as a DOM subject's ``then`` gets the subject."""
        result = func(self)
        return self if result is None else result

    def _limit(self, timeout: float | None) -> float:
        return float(timeout if timeout is not None else self._ctx.config.default_command_timeout)

    def _exists(self, negated: bool, timeout: float | None) -> None:
        """``exist``: the path can be read and holds something (not null or undefined)."""
        __tracebackhide__ = True

        def attempt() -> Attempt:
            ok, value, message = self._read()
            if negated:
                return Attempt(not ok or value is None, f"expected {self._path} not to exist, but it is {_short(value, self._ctx.redactor)}")
            if not ok:
                return Attempt(False, message)
            return Attempt(value is not None, f"expected {self._path} to exist, but it is null or undefined")

        verb = "not.exist" if negated else "exist"
        retry(self._ctx, attempt, self._limit(timeout), f"{self._label}.should({verb!r})")

    def _has_property(self, chainer: str, args: tuple[Any, ...], negated: bool, timeout: float | None) -> None:
        """``have.property name [value]`` (or its negation), the one property read in the page."""
        __tracebackhide__ = True
        name = args[0]
        held = PageValue(self._commands, self._root, [*self._parts, name], self._label)

        def attempt() -> Attempt:
            ok, value, message = held._read()
            if len(args) == 1:
                if ok:
                    return Attempt(not negated, f"expected {self._path} not to have property {name!r}, "
                                                f"but it has ({_short(value, self._ctx.redactor)})")
                return Attempt(negated, message)
            if not ok:
                return Attempt(negated, message)
            outcome = expect.check(value, "not.eq" if negated else "eq", args[1])
            return Attempt(outcome.ok, f"{self._path}.{name}: {outcome.message}")

        retry(self._ctx, attempt, self._limit(timeout), f"{self._label}.should({show_args((chainer, *args), {}, self._ctx.redactor)})")


class PageHash(str):
    """``runner.hash()``: the URL's hash (``"#/users"``, ``""`` when none), a ``str`` read when
    called; ``should``/``and_`` read it again until the assertion holds (as the original's
    ``cy.hash().should(...)`` does) and return the hash that held."""

    _commands: CommandsBase

    @classmethod
    def read(cls, commands: CommandsBase) -> PageHash:
        __tracebackhide__ = True
        ctx = commands._ctx
        made = cls(ctx.run(ctx.browser.location())["hash"])
        made._commands = commands
        return made

    def should(self, chainer: str | Callable[[Any], Any], *args: Any, timeout: float | None = None) -> PageHash:
        __tracebackhide__ = True
        commands = self._commands
        given = {} if timeout is None else {"timeout": timeout}  # told as written: no "timeout=None"
        # the Value's should tells the command log its "assert: hash() should ..." line
        Value(commands, lambda: str(PageHash.read(commands)), "hash()").should(chainer, *args, **given)
        return PageHash.read(commands)

    and_ = should


def _thrown(thrown: Any) -> str:
    """``TypeError: x is not a function``: the page's error, as its ``name: message``."""
    if isinstance(thrown, dict):
        name, message = str(thrown.get("name") or ""), str(thrown.get("message") or "")
        return f"{name}: {message}" if name else message
    return str(thrown)
