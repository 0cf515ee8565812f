"""A subject's assertions: ``should`` (and ``and_``), retried until they hold.

A chai-style chainer (``runner.expect``) holds on the elements as they are, or a callback
passes on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from runner import expect
from runner.commands.context import Attempt
from runner.commands.dom_query import DomQuery
from runner.commands.snapshots import SNAPSHOT_CHAINERS, match_snapshot
from runner.commands.steps import command
from runner.errors import UsageError

__all__ = ["DomAssertions"]


class DomAssertions(DomQuery):
    """``should``: what must hold of the subject's elements, retried."""

    @command("should")
    def should(self, chainer: str | Callable[..., Any], *args: Any, timeout: float | None = None,
               **options: Any) -> Self:
        """Retry until the chai-style assertion holds, e.g. ``should("have.length", 3)``.

        A callable is called with the snapshot (``DomSubject``) and holds when it returns
        without raising ``AssertionError``. ``match.screenshot`` and ``match.aria_snapshot``
        compare the first element with a baseline file (``options``: the screenshot's mask and
        thresholds; docs/snapshots.md).
        """
        __tracebackhide__ = True
        if isinstance(chainer, str) and chainer in SNAPSHOT_CHAINERS:
            # its log line says what became of the baseline (matched, written, updated)
            match_snapshot(self._commands, self._query_arg(), self._label, chainer, args, options,
                           self._timeout_ms(timeout))
            return self
        if options:
            raise UsageError(f"should({chainer!r}) takes no keyword options but timeout; found "
                             f"{', '.join(sorted(options))} (they belong to 'match.screenshot').")
        if callable(chainer):
            func = chainer

            def attempt_fn() -> Attempt:
                snap = self._snap()
                try:
                    func(snap)
                except AssertionError as err:
                    return Attempt(False, str(err) or "the callback's assertion failed")
                return Attempt(True)

            self._retry(attempt_fn, self._timeout_ms(timeout), f"{self._label}.should(<callback>)")
            return self
        expect.validate_chainer(chainer, *args)
        css = expect.css_properties_needed(chainer, *args)
        props = expect.props_needed(chainer, *args)
        limit = expect.LISTED if expect.counts_only(chainer) else None

        def attempt() -> Attempt:
            snap = self._snap(css, props, limit)
            outcome = expect.check(snap, chainer, *args)
            return Attempt(outcome.ok, outcome.message)

        shown = ", ".join(repr(a) for a in (chainer, *args))
        self._retry(attempt, self._timeout_ms(timeout), f"{self._label}.should({shown})")
        self._ctx.add_log("assert", f"{self._label} should {chainer} {' '.join(map(repr, args))}".strip())
        return self

    and_ = should
