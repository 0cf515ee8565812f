"""``runner.check_a11y(subject=None, rules=..., impact=..., warn=...)``: axe-core run in the page.

The arguments are checked here, before the page is asked anything (a misuse is a ``UsageError``
naming what was found); the engine (``engine/a11y_verbs.py``) runs axe and returns its
violations; here they are sorted into those that fail the command and those only warned of,
told in the command log (one line each) and in the run's events (``a11y.checked``, which the
HTML report and ``runner open`` show as a table), and a failure names each one.

The subject is waited for as every command waits for its subject (until it exists, within the
command's timeout); axe runs once, with no retry: accessibility is a state of the page, not a
wait (see docs/accessibility.md).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.dom_query import DomQuery
from runner.commands.frames import Frame
from runner.commands.steps import command
from runner.errors import CommandError, UsageError
from runner.events import A11yChecked

__all__ = ["A11yCommands", "IMPACTS", "plan_of", "shorten_html"]

#: axe-core's impacts, lowest first.
IMPACTS = ("minor", "moderate", "serious", "critical")

#: How much of an element's HTML a violation shows (the rest is cut with "…").
HTML_SHOWN = 160
#: How many elements of one violation the message and the log name (the events keep 20).
ELEMENTS_SHOWN = 5
_ELEMENTS_KEPT = 20
_TEXT_KEPT = 1000  # a node's selector and axe's summary of what to fix, in the events


def shorten_html(html: str, limit: int = HTML_SHOWN) -> str:
    """An element's HTML on one line, cut at ``limit`` characters."""
    flat = " ".join(html.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _impact(value: Any, name: str) -> str:
    if isinstance(value, str) and value in IMPACTS:
        return value
    raise UsageError(f"runner.check_a11y(): {name} must be one of {', '.join(map(repr, IMPACTS))}; "
                     f"found {value!r}.")


def plan_of(rules: Any) -> dict[str, Any]:
    """The engine's plan for ``rules``: None (axe's default rules), a list of rule ids and tags
    (only those run: ``{"only": [...]}``) or a dict of rule id to bool (rules switched on or
    off: ``{"rules": {...}}``). Raises ``UsageError`` for any other shape."""
    if rules is None:
        return {}
    if isinstance(rules, str):
        raise UsageError(f"runner.check_a11y(): rules must be a list of rule ids or tags, or a dict of "
                         f"rule id to True/False; found the string {rules!r}. Write rules=[{rules!r}] to run "
                         f"only it, or rules={{{rules!r}: False}} to switch it off.")
    if isinstance(rules, Mapping):
        for key, value in rules.items():
            if not isinstance(key, str) or not isinstance(value, bool):
                raise UsageError(f"runner.check_a11y(): rules as a dict maps a rule id to True (on) or False "
                                 f"(off); found {key!r}: {value!r}.")
        return {"rules": dict(rules)}
    if isinstance(rules, Sequence) and not isinstance(rules, bytes):
        names = list(rules)
        bad = [n for n in names if not isinstance(n, str) or not n]
        if bad or not names:
            found = f"{bad[0]!r} in it" if bad else "an empty list"
            raise UsageError(f"runner.check_a11y(): rules as a list names the rule ids or tags to run "
                             f"(e.g. ['image-alt', 'wcag2a']); found {found}.")
        return {"only": names}
    raise UsageError(f"runner.check_a11y(): rules must be a list of rule ids or tags, or a dict of rule id "
                     f"to True/False; found {type(rules).__name__} {rules!r}.")


def _thresholds(impact: Any, warn: Any) -> tuple[str | None, str | None]:
    """The lowest impact that fails (None: none does) and the lowest that is only warned of
    (None: none is). ``warn=True``: every violation at or above ``impact`` is warned of."""
    fail = _impact(impact, "impact")
    if warn is None or warn is False:
        return fail, None
    if warn is True:
        return None, fail
    low = _impact(warn, "warn")
    if IMPACTS.index(low) >= IMPACTS.index(fail):
        raise UsageError(f"runner.check_a11y(): warn={low!r} is the lowest impact warned of, so it must be "
                         f"below impact={fail!r} (the lowest that fails); found it at or above. "
                         f"Use warn=True to warn of every violation instead of failing.")
    return fail, low


def _rank(impact: Any) -> int:
    return IMPACTS.index(impact) if impact in IMPACTS else 0  # axe leaves some without one: the least


def _unknown_rules(found: Mapping[str, Any], plan: Mapping[str, Any]) -> UsageError:
    known = list(found.get("known") or [])
    tags = list(found.get("tags") or []) if "only" in plan else []
    lines = []
    for name in found.get("unknown") or []:
        close = difflib.get_close_matches(str(name), known + tags, n=1)
        lines.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    what = "rule id or tag" if "only" in plan else "rule id"
    return UsageError(f"runner.check_a11y(): axe-core knows no {what} {', '.join(lines)}. Its rules: "
                      f"{', '.join(known[:12])}, … (axe's rule descriptions list them all).")


class A11yCommands(CommandsBase):
    """``check_a11y``: the page (or a subject) checked by axe-core."""

    @command("check_a11y")
    def check_a11y(self, subject: Any = None, *, rules: Any = None, impact: str = "minor",
                   warn: bool | str | None = None, timeout: float | None = None) -> list[dict[str, Any]]:
        """Run axe-core on the document (or ``subject``: a selector or a subject; its elements,
        waited for until they exist) and fail with each violation at or above ``impact``.
        ``rules``: a list of rule ids or tags (only those run) or a dict of rule id to bool (on or
        off). ``warn``: True (violations are logged, nothing fails) or the lowest impact logged
        as a warning under ``impact``. Returns the violations counted, as the events tell them.

        Raises ``UsageError`` for a misuse, ``CommandError`` when violations fail the check."""
        __tracebackhide__ = True
        ctx = self._ctx
        fail, low = _thresholds(impact, warn)
        plan = plan_of(rules)
        if ctx.browser.page_url in (None, "", "about:blank"):
            # the page before any visit: axe would tell an empty document's violations (no title,
            # no lang), which say nothing of the app
            raise UsageError(f"runner.check_a11y(): the page is at {ctx.browser.page_url or 'about:blank'}: "
                             "nothing was visited yet, so there is no app to check. Call runner.visit(...) "
                             "(or runner.mount(...)) first.")
        query, scope = self._a11y_scope(subject, timeout)
        found = ctx.run(ctx.browser.a11y_audit(query, plan), ctx.config.response_timeout)
        if found.get("unknown"):
            raise _unknown_rules(found, plan)
        counted, ignored = _sorted(found.get("violations") or [], fail, low)
        where = scope or "the document"
        failed = [v for v in counted if v["outcome"] == "failed"]
        summary = _summary(counted, ignored, where, found.get("elements"))
        ctx.add_log("check_a11y", summary)
        for violation in counted:
            ctx.add_log("warning" if violation["outcome"] == "warned" else "a11y", _line(violation))
        ctx.tell(A11yChecked(nodeid=ctx.nodeid, command=ctx.commands_told, scope=scope, impact=fail,
                             warn=low, rules=None if rules is None else repr(rules), violations=counted,
                             ignored=ignored, axe=str(found.get("version") or ""), attempt=ctx.attempt))
        ctx.command_result = summary
        if failed:
            raise CommandError(_message(failed, where, fail))
        return counted

    def _a11y_scope(self, subject: Any, timeout: float | None) -> tuple[dict[str, Any] | None, str | None]:
        """The engine's query for ``subject`` (its elements waited for) and its label."""
        if subject is None:
            return None, None
        if isinstance(subject, str):
            subject = self.get(subject, timeout=timeout)  # type: ignore[attr-defined]
        if isinstance(subject, Frame):  # the frame's whole document, not only its <body>
            subject._existing(timeout)
            return {"steps": [s for s in subject._steps if s.get("op") == "frame"], "shadow": False}, subject._label
        if isinstance(subject, DomQuery):
            subject._existing(timeout)
            return subject._query_arg(), subject._label
        raise UsageError(f"runner.check_a11y(): subject must be a selector or a subject (runner.get(...), "
                         f"runner.frame(...)); found {type(subject).__name__} {subject!r}.")


def _sorted(violations: list[dict[str, Any]], fail: str | None, low: str | None) -> tuple[list[dict[str, Any]], int]:
    """The violations counted (each with its ``outcome``), worst first, and how many fell
    under both thresholds."""
    counted: list[dict[str, Any]] = []
    ignored = 0
    for raw in violations:
        rank = _rank(raw.get("impact"))
        if fail is not None and rank >= IMPACTS.index(fail):
            outcome = "failed"
        elif low is not None and rank >= IMPACTS.index(low):
            outcome = "warned"
        else:
            ignored += 1
            continue
        nodes = [{"target": shorten_html(str(n.get("target") or ""), _TEXT_KEPT),
                  "html": shorten_html(str(n.get("html") or "")),
                  "summary": str(n.get("summary") or "")[:_TEXT_KEPT]} for n in (raw.get("nodes") or [])[:_ELEMENTS_KEPT]]
        counted.append({"rule": str(raw.get("id")), "impact": raw.get("impact"), "help": str(raw.get("help") or ""),
                        "help_url": str(raw.get("helpUrl") or ""), "outcome": outcome, "nodes": nodes,
                        "elements": len(raw.get("nodes") or [])})
    counted.sort(key=lambda v: (v["outcome"] != "failed", -_rank(v["impact"]), v["rule"]))
    return counted, ignored


def _summary(counted: list[dict[str, Any]], ignored: int, where: str, elements: int | None) -> str:
    failed = sum(v["outcome"] == "failed" for v in counted)
    warned = len(counted) - failed
    if not counted:
        text = f"{where}: no violations"
    else:
        parts = [f"{n} {word}" for n, word in ((failed, "failed"), (warned, "warned")) if n]
        text = f"{where}: {len(counted)} violation{'s' * (len(counted) != 1)} ({', '.join(parts)})"
    if elements == 0:
        text += " (the subject has no element)"
    if ignored:
        text += f", {ignored} under the thresholds not counted"
    return text


def _elements(violation: Mapping[str, Any]) -> list[str]:
    shown = [f"{n['target']} {n['html']}".strip() for n in violation["nodes"][:ELEMENTS_SHOWN]]
    more = violation["elements"] - len(shown)
    return shown + ([f"and {more} more"] if more > 0 else [])


def _line(violation: Mapping[str, Any]) -> str:
    """A violation in one line of the command log."""
    return (f"{violation['rule']} ({violation['impact']}): {violation['help']} — "
            f"{'; '.join(_elements(violation))} — {violation['help_url']}")


def _message(failed: list[dict[str, Any]], where: str, fail: str | None) -> str:
    """The failure: each violation with its elements and help link."""
    head = (f"runner.check_a11y(): {len(failed)} accessibility violation{'s' * (len(failed) != 1)} "
            f"(impact {fail!r} and up) in {where}:")
    lines = [head]
    for number, violation in enumerate(failed, 1):
        lines.append(f"  {number}. {violation['rule']} ({violation['impact']}): {violation['help']}")
        lines += [f"       {element}" for element in _elements(violation)]
        lines.append(f"       {violation['help_url']}")
    return "\n".join(lines)
