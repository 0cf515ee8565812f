"""Quarantine in the test process: a test's ``@pytest.mark.quarantine(reason=...)`` or its entry
in ``quarantine``, read once and carried on its reports, so the controller of a pytest-xdist run
(which has no items) learns it as it learns the test's outcome.

A quarantined test runs as any other; its failure does not fail the run (the reporters and the
exit status read ``test.ended``'s ``quarantine``). A mark needs a reason, a non-empty string, so
that whoever reads the report knows why the test is excused and when to lift it: a mark without
one fails the test with a message that says so.
"""

from __future__ import annotations

from typing import Any

import pytest

from runner.config.quarantine import QuarantineList
from runner.plugin.frames import mark_line
from runner.plugin.outcomes import QUARANTINE_ATTR

__all__ = ["MARKER_LINE", "QuarantineRules", "mark_problem"]

MARKER_LINE = ("quarantine(reason): the test runs and is reported, but its failure does not fail "
               "the run (docs/flakes.md)")

_REASON_KEY = pytest.StashKey["str | None"]()  # the test's quarantine reason, once read (item.stash)


def _mark_reason(mark: pytest.Mark) -> str | None:
    """The mark's reason: ``reason=`` or one positional string; None when it has no usable one."""
    if set(mark.kwargs) - {"reason"} or len(mark.args) > 1 or (mark.args and "reason" in mark.kwargs):
        return None
    reason = mark.kwargs["reason"] if "reason" in mark.kwargs else (mark.args[0] if mark.args else None)
    return reason.strip() if isinstance(reason, str) and reason.strip() else None


def mark_problem(item: pytest.Item) -> str | None:
    """What is wrong with ``item``'s quarantine mark, as the message its failure shows (None: it
    has no such mark, or a good one)."""
    found = item.iter_markers_with_node("quarantine")
    for node, mark in found:
        if _mark_reason(mark) is None:
            given = ", ".join([*map(repr, mark.args), *(f"{k}={v!r}" for k, v in mark.kwargs.items())])
            return (f"@pytest.mark.quarantine on {node.nodeid} {_what_is_wrong(mark)}; it was given ({given}).\n\n"
                    f"{mark_line(node, mark, item.config.rootpath)}")
    return None


def _what_is_wrong(mark: pytest.Mark) -> str:
    """Why a quarantine mark has no usable reason, in the words that point at the fix."""
    unknown = sorted(set(mark.kwargs) - {"reason"})
    if unknown:
        names = ", ".join(f"`{name}`" for name in unknown)
        return f"has an unknown keyword{'s' if len(unknown) > 1 else ''} {names} (expected `reason=`)"
    if len(mark.args) > 1 or (mark.args and "reason" in mark.kwargs):
        return "takes one reason, as `reason=\"...\"` or one string, not several"
    return ("needs a reason: why the test is quarantined, a non-empty string "
            "(quarantine(reason=\"...\"))")


class QuarantineRules:
    """The run's quarantine: the configuration's entries, and the tests' marks."""

    def __init__(self, config: Any) -> None:
        self.listed = QuarantineList(config.quarantine, config.source_detail("quarantine"))

    def reason(self, item: pytest.Item) -> str | None:
        """Why ``item`` is quarantined (its nearest mark's reason first), or None."""
        if _REASON_KEY in item.stash:
            return item.stash[_REASON_KEY]
        mark = item.get_closest_marker("quarantine")
        if mark_problem(item) is not None:
            reason = None  # the bad mark fails the test: it must show, not be excused
        elif mark is not None:
            reason = _mark_reason(mark)
        else:
            reason = self.listed.reason_for(item.nodeid)
        item.stash[_REASON_KEY] = reason
        return reason

    def tell(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Carry ``item``'s quarantine on ``report`` (plain data: it crosses to xdist's controller)."""
        reason = self.reason(item)
        if reason is not None:
            setattr(report, QUARANTINE_ATTR, reason)
