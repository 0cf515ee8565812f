"""A subject's reads: text, attr, value, count, snapshot, its, invoke, as_, then.

What the subject yields now (``text``, ``attr``, ``value``, ``count``, ``snapshot``), the
retrying :class:`Value` s it leads to (``its``, ``invoke``), and the chain's own steps (``as_``
names it, ``then`` hands it on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from runner import expect
from runner.commands.context import Attempt, retry
from runner.commands.dom_query import DomQuery
from runner.commands.steps import command, show_args
from runner.commands.values import Value, _Missing, alias_name, lookup_path, read_method
from runner.errors import CommandError, UsageError

__all__ = ["Reads"]


class Reads(DomQuery):
    """What the subject's elements hold, read now or as a retrying value."""

    def its(self, path: str) -> Value:
        """A property of the elements: ``length``, or a DOM property of the first element."""
        head, _, rest = str(path).partition(".")

        def getter() -> Any:
            if head == "length":
                value: Any = self._snap(limit=0).count
            else:
                snap = self._existing()
                full = self._snap(props=[head]) if snap.elements else snap
                if not full.elements:
                    raise _Missing(f"{self._label} has no elements")
                value = full.elements[0].props.get(head)
            return lookup_path(value, rest, self._ctx.redactor) if rest else value

        return Value(self._commands, getter, f"{self._label}.its({path!r})")

    @command("invoke")
    def invoke(self, method: str, *args: Any, timeout: float | None = None) -> Value:
        """Call a jQuery-like method (``text``, ``val``, ``attr``, ``prop``, ``html``, ``css``)
        or a DOM method of the first element, now, and yield what it returns.

        Like every command it runs when called: it waits (up to the timeout) for the subject
        to exist and fails when it never does. A DOM method (``setAttribute``, ``focus``...) is
        called once, there and then; a jQuery-like read is read again by a ``should()`` on
        its value, until the assertion holds.
        """
        __tracebackhide__ = True
        if not isinstance(method, str) or not method:
            raise UsageError(f"{self._label}.invoke() needs a method name; found {method!r}.")
        label = f"{self._label}.invoke({show_args((method, *args), {}, self._ctx.redactor)})"
        read = self._reader(method, args)
        if read is not None:
            self._existing(timeout, f"to invoke {method!r}")
            return Value(self._commands, read, label)
        query = self._query_arg()

        def attempt() -> Attempt:
            try:
                answer = self._ctx.run(self._ctx.browser.call_method(query, method, list(args)))
            except (CommandError, UsageError):
                raise  # the page stopped responding, or broke; the selector is not one
            except Exception as err:  # the method threw in the page: said once, not retried
                raise CommandError(f"{label} threw in the page: {str(err).splitlines()[0]}") from err
            if answer.get("gone"):
                return Attempt(False, f"expected to find element {self._label}, but never found it")
            if "missing" in answer:
                raise CommandError(
                    f"{label}: the element has no method {method!r} (it is {answer['missing']}).\n"
                    "Pass the name of a function of the DOM element (setAttribute, focus, ...) or one "
                    "of text, val, attr, prop, html, css."
                )
            return Attempt(True, value=answer.get("value"))

        result = retry(self._ctx, attempt, self._timeout_ms(timeout), f"{label} (to exist)")
        self._ctx.add_log("invoke", label)
        return Value(self._commands, lambda: result, label, once=True)  # a copy of what it returned

    def _reader(self, method: str, args: tuple[Any, ...]) -> Callable[[], Any] | None:
        """The getter of a jQuery-like read (reads the page again at each call), else None."""
        if method not in ("text", "val", "value", "html", "attr", "prop", "css"):
            return None

        def getter() -> Any:
            snap = self._existing()
            first = snap.elements[0]
            if method == "text":
                return "".join(e.text for e in snap.elements)
            if method in ("val", "value"):
                return first.value
            if method == "html":
                return first.html
            if method == "attr":
                return first.attrs.get(args[0]) if args else dict(first.attrs)
            if method == "prop":
                return self._snap(props=[args[0]]).elements[0].props.get(args[0])
            return self._snap(css=[args[0]]).elements[0].css.get(args[0])

        return getter

    @command("text")
    def text(self, timeout: float | None = None) -> str:
        """The text of the elements (``textContent`` joined), once they exist."""
        return "".join(e.text for e in self._existing(timeout).elements)

    @command("attr")
    def attr(self, name: str, timeout: float | None = None) -> str | None:
        return self._existing(timeout).elements[0].attrs.get(name)

    def count(self) -> int:
        """How many elements match now (no waiting)."""
        return self._snap(limit=0).count

    @read_method
    @command("value")
    def value(self, timeout: float | None = None) -> str | None:
        return self._existing(timeout).elements[0].value

    def snapshot(self) -> expect.DomSubject:
        return self._snap()
    def as_(self, alias: str) -> Self:
        self._commands._dom_aliases[alias_name(alias)] = self
        return self

    def then(self, func: Callable[[Self], Any]) -> Any:
        result = func(self)
        return self if result is None else result

