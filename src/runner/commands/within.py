"""``with runner.within(subject):``: the page's queries narrowed to one element, as the original's
``.within`` does.

Inside the block ``runner.get(selector)`` finds inside the subject's element and
``runner.contains(...)`` looks inside it; blocks nest (the inner subject is found inside the outer
one), and leaving a block gives back the scope it started in. The subject is a recipe like any
other: each query inside runs it again. The hook the queries call is :func:`scoped`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.dom_query import DomQuery
from runner.commands.steps import command
from runner.errors import CommandError, UsageError

__all__ = ["WithinCommands", "scoped"]


def scoped(commands: CommandsBase, step: dict[str, Any], label: str) -> tuple[list[dict[str, Any]], str]:
    """The steps and label of a query that starts a chain with ``step`` (``get`` or ``contains``,
    labelled ``label``): inside a ``within`` block, the block's subject's steps first (a ``get``
    made a ``find`` in it) and the label says so: ``within(get('form')).get('input')``."""
    if not commands._scope:
        return [step], label
    steps, scope_label = commands._scope[-1]
    inner = {**step, "op": "find"} if step["op"] == "get" else step
    return [*steps, inner], f"within({scope_label}).{label}"


class WithinCommands(CommandsBase):
    """``runner.within``."""

    @command("within")
    def within(self, subject: DomQuery, *, timeout: float | None = None) -> Any:
        """A context manager: inside its block ``runner.get`` and ``runner.contains`` query inside
        ``subject``'s one element. Waits for the element (up to the timeout) when called;
        raises ``CommandError`` when it never appears or there are several."""
        __tracebackhide__ = True
        if not isinstance(subject, DomQuery):
            raise UsageError(
                f"runner.within() takes a DOM subject (runner.get(...), runner.contains(...)); found {subject!r}."
            )
        snap = subject._existing(timeout, "for within()")
        if len(snap.elements) > 1:
            raise CommandError(
                f"runner.within() can only be called on a single element, but {subject._label} contained "
                f"{len(snap.elements)} elements.\nNarrow the query (first(), eq(n), a more specific selector)."
            )
        self._ctx.add_log("within", subject._label)
        return self._narrowed(subject)

    @contextmanager
    def _narrowed(self, subject: DomQuery) -> Iterator[DomQuery]:
        scope = (subject._steps, subject._label)
        self._scope.append(scope)
        try:
            yield subject
        finally:
            self._scope.remove(scope)
