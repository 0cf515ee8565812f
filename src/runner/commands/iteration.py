"""A subject's elements one by one: ``each(fn)``, ``spread()`` and unpacking.

``each`` calls ``fn(element, index)`` for every element, in order (``fn(element)`` works too);
``fn`` returning ``False`` stops it, as in the original. ``spread(fn)`` calls ``fn`` with every
element as its own argument, ``spread()`` returns them, and a subject unpacks the same way:
``first, second = runner.get("li").should("have.length", 2)``. Each element is the subject
narrowed to it (``eq(i)``), a recipe that is read again whenever it is used, so the commands of
``fn`` retry as any others do (and are told in the command log, after the ``each`` line).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any, Self

from runner.commands.steps import command
from runner.commands.traversal import Traversal
from runner.errors import UsageError

__all__ = ["Iteration"]


def _positional_count(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` takes (2 when it takes any number)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: give it both
        return 2
    count = 0
    for p in parameters:
        if p.kind is p.VAR_POSITIONAL:
            return 2
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


class Iteration(Traversal):
    """The subject's elements, each as a subject of its own."""

    def _count(self, verb: str, timeout: float | None) -> int:
        """Wait for the elements (up to the timeout); how many there are now."""
        __tracebackhide__ = True
        count = len(self._existing(timeout, f"to {verb}").elements)
        self._ctx.add_log(verb, f"{self._label} ({count} element{'s' if count != 1 else ''})")
        return count

    @command("each")
    def _each_count(self, fn: Callable[..., Any], timeout: float | None = None) -> int:
        __tracebackhide__ = True
        if not callable(fn):
            raise UsageError(f"{self._label}.each() takes a function fn(element, index); found {fn!r}.")
        return self._count("each", timeout)

    @command("spread")
    def _spread_count(self, *fn: Callable[..., Any], timeout: float | None = None) -> int:
        __tracebackhide__ = True
        if fn and not callable(fn[0]):
            raise UsageError(f"{self._label}.spread() takes a function fn(*elements); found {fn[0]!r}.")
        return self._count("spread", timeout)

    def each(self, fn: Callable[..., Any], *, timeout: float | None = None) -> Self:
        """Call ``fn(element, index)`` for each element, in order; ``False`` from ``fn`` stops.
        Waits for at least one element (up to the timeout)."""
        __tracebackhide__ = True
        # the count is told as the command; fn's own commands are told after it, one by one
        count = self._each_count(fn, **_given(timeout))
        takes = _positional_count(fn)
        for index in range(count):
            element = self.eq(index)
            if (fn(element, index) if takes >= 2 else fn(element)) is False:
                break
        return self

    def spread(self, fn: Callable[..., Any] | None = None, *, timeout: float | None = None) -> Any:
        """``fn(*elements)``'s result, or (without ``fn``) the elements as a tuple of subjects.
        Waits for at least one element (up to the timeout)."""
        __tracebackhide__ = True
        count = self._spread_count(*(() if fn is None else (fn,)), **_given(timeout))
        elements = tuple(self.eq(i) for i in range(count))
        return elements if fn is None else fn(*elements)

    def __iter__(self) -> Iterator[Self]:
        """The elements as subjects, once at least one exists: ``a, b = runner.get("li")``."""
        return iter(self.spread())


def _given(timeout: float | None) -> dict[str, Any]:
    """``timeout=`` as the command log shows it: only when the test gave one."""
    return {} if timeout is None else {"timeout": timeout}
