"""Accessibility audits: axe-core put in the page (or a frame's document) and run there.

axe-core is not copied into runner: its script is read from the installed package that ships it
(``axe-playwright-python``'s ``axe.min.js``), once per process, and evaluated in the document to
check when that document does not have this very version yet. The evaluation is a call internal
to Playwright's driver (:func:`evaluate_untraced`), so a recorded trace does not hold half a
megabyte of script per check. Only the in-page half of that package is used: its Python wrapper
drives a page of its own, runner's verbs take and return plain data.

:meth:`A11yVerbs.a11y_audit` takes a query (a subject's, or only frame steps: that frame's whole
document; None: the page's document) and a plan (``{"only": [...]}``: the rule ids and tags to
run; ``{"rules": {id: bool}}``: rules switched on or off) and returns axe's violations as data,
or the names of the plan that axe does not know (``{"unknown": [...], "known": [...]}``).
axe's ``iframes`` option is off: a check covers one document; a frame's content is checked by
giving a subject inside it.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from playwright.async_api import Frame, Page

from runner.engine.element_verbs import DOM_SCRIPT, evaluate_untraced
from runner.engine.frames import split_frames
from runner.engine.holder import BrowserHolder

__all__ = ["A11yVerbs", "axe_script", "AXE_PACKAGE"]

#: The installed package whose ``axe.min.js`` is axe-core (a dependency in pyproject.toml).
AXE_PACKAGE = "axe_playwright_python"

# axe's version in the document, or null: the script is evaluated only when it differs
_VERSION_IN_PAGE = "() => (window.axe && typeof window.axe.run === 'function') ? String(window.axe.version) : null"

# Runs axe on `els` (the subject's elements; null: the whole document) with the plan; the names
# of the plan axe does not know come back instead of a run.
_AUDIT = """async (els, plan) => {
  const axe = window.axe;
  const known = axe.getRules();
  const ids = new Set(known.map(r => r.ruleId));
  const tags = new Set(known.flatMap(r => r.tags));
  const asked = plan.only ? plan.only : Object.keys(plan.rules || {});
  const unknown = asked.filter(n => !ids.has(n) && !(plan.only && tags.has(n)));
  if (unknown.length) return {unknown, known: [...ids].sort(), tags: [...tags].sort()};
  const options = {resultTypes: ['violations'], iframes: false};
  if (plan.only) {
    // axe's own meaning: tags run the rules carrying them that are on by default, and a rule
    // named by its id runs even when it is off by default
    const onlyIds = plan.only.filter(n => ids.has(n));
    const onlyTags = plan.only.filter(n => !ids.has(n));
    if (onlyTags.length) {
      options.runOnly = {type: 'tag', values: onlyTags};
      options.rules = Object.fromEntries(onlyIds.map(id => [id, {enabled: true}]));
    } else {
      options.runOnly = {type: 'rule', values: onlyIds};
    }
  }
  if (plan.rules) {
    options.rules = {};
    for (const [id, on] of Object.entries(plan.rules)) options.rules[id] = {enabled: on};
  }
  if (els !== null && !els.length) return {violations: [], version: axe.version, elements: 0};
  const context = els === null ? document : {include: Array.from(els)};
  // under runner.clock(), axe's own timers run on the browser's (the natives kept aside), or a
  // paused clock would hold the check up; the app's timers are its clock's again right after
  const native = globalThis.__runnerNative;
  const names = ['setTimeout', 'clearTimeout', 'requestAnimationFrame'];
  const kept = native ? Object.fromEntries(names.map(n => [n, window[n]])) : null;
  if (kept) for (const n of names) window[n] = native[n];
  let result;
  try {
    result = await axe.run(context, options);
  } finally {
    if (kept) Object.assign(window, kept);
  }
  const flat = t => Array.isArray(t) ? t.map(flat).join(' >>> ') : String(t);
  return {
    version: axe.version,
    elements: els === null ? null : els.length,
    violations: result.violations.map(v => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, description: v.description,
      nodes: v.nodes.map(n => ({target: n.target.map(flat).join(' '), html: n.html,
                                summary: n.failureSummary || ''})),
    })),
  };
}"""


@functools.cache
def axe_script() -> str:
    """axe-core's script, as the installed package ships it (read once)."""
    return (resources.files(AXE_PACKAGE) / "axe.min.js").read_text(encoding="utf-8")


@functools.cache
def axe_version() -> str:
    """The version of the shipped axe-core, from the banner at the head of its script."""
    head = axe_script()[:200]
    marker = "axe v"
    start = head.find(marker)
    return head[start + len(marker):].split()[0] if start >= 0 else ""


class A11yVerbs(BrowserHolder):
    """axe-core in the page: a document (or a subject's elements) checked."""

    async def a11y_audit(self, query: dict[str, Any] | None, plan: dict[str, Any]) -> dict[str, Any]:
        """Run axe on ``query``'s elements (its frame's document when it has only frame steps;
        the page's document for None) with ``plan``; axe's violations as data.

        Raises ``frames.FrameUnavailable`` when the query's frame cannot be reached now."""
        path, rest = split_frames(query) if query is not None else ([], {"steps": []})

        async def audit(target: Page | Frame) -> Any:
            if await target.evaluate(_VERSION_IN_PAGE) != axe_version():
                await evaluate_untraced(target, axe_script(), None)
            if not rest.get("steps"):
                return await target.evaluate(f"plan => ({_AUDIT})(null, plan)", plan)
            handle = await target.evaluate_handle(DOM_SCRIPT, {**rest, "mode": "elements"})
            try:
                return await handle.evaluate(_AUDIT, plan)
            finally:
                await handle.dispose()

        found: dict[str, Any] = await self._in_page(audit, path)
        return found
