// runner open's time travel: a test's trace in Playwright's own trace viewer (the one the
// installed Playwright ships, served by runner open under /viewer/), embedded in an iframe of
// the UI, opened at one command's step with the page as it was before or after it.
//
// The viewer takes only `?trace=URL`; it has no address for a step. So this script selects the
// step the way a person would, through the viewer's page (same origin as the UI):
// - the action list is a tree ([role=tree]); each runner command is one top-level step (a
//   [role=treeitem] directly in the tree: its children, Playwright's own calls, are in a
//   [role=group]), in the order the commands ran: command number N is top-level step N;
// - selecting a step is a click on its entry (.tree-view-entry), and the snapshot pane's tabs
//   ([role=tab] named "Before" and "After") show the page before and after it.
// This is tied to the installed viewer's markup (Playwright 1.5x): when it changes, showStep
// returns false and the UI says to pick the step in the viewer by hand; it never throws.
"use strict";
(function () {
  const LOAD_BOUND_MS = 20000;
  const STEP_BOUND_MS = 5000;

  function until(check, bound) {
    return new Promise((resolve) => {
      const started = Date.now();
      (function poll() {
        let value = null;
        try { value = check(); } catch (e) { value = null; }
        if (value) return resolve(value);
        if (Date.now() - started > bound) return resolve(null);
        setTimeout(poll, 50);
      })();
    });
  }

  function viewerDoc(iframe) {
    try { return iframe.contentDocument; } catch (e) { return null; }
  }

  function topSteps(doc) {
    return Array.from(doc.querySelectorAll("[role=treeitem]")).filter(
      (item) => item.parentElement && item.parentElement.getAttribute("role") === "tree");
  }

  function titleText(title) {
    // the title's text without the duration the viewer puts beside it
    const copy = title.cloneNode(true);
    for (const d of copy.querySelectorAll("[class*=duration]")) d.remove();
    return copy.textContent.trim();
  }

  function stepTitle(item) {
    const title = item.querySelector(".action-title");
    return title ? titleText(title) : "";
  }

  function click(node) {
    for (const type of ["mousedown", "mouseup", "click"]) {
      node.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: node.ownerDocument.defaultView }));
    }
  }

  window.RunnerTimeTravel = {
    // Load the trace at traceUrl in the viewer (viewerUrl: its index.html). Resolves true once
    // its steps are listed, false when that did not happen within the bound.
    open(iframe, viewerUrl, traceUrl) {
      iframe.src = viewerUrl + "?trace=" + encodeURIComponent(traceUrl);
      return new Promise((resolve) => {
        iframe.addEventListener("load", async () => {
          const ok = await until(() => { const d = viewerDoc(iframe); return d && topSteps(d).length; }, LOAD_BOUND_MS);
          resolve(Boolean(ok));
        }, { once: true });
        setTimeout(() => resolve(false), LOAD_BOUND_MS + 1000);
      });
    },
    // Select step {index} (0-based, the command's number - 1), or, when the trace has no such
    // step, the first whose title starts with {title}; then the "before" or "after" tab.
    async showStep(iframe, step, which) {
      try {
        const doc = await until(() => { const d = viewerDoc(iframe); return d && topSteps(d).length ? d : null; }, STEP_BOUND_MS);
        if (!doc) return false;
        const steps = topSteps(doc);
        let item = Number.isInteger(step.index) ? steps[step.index] : null;
        if (!item && step.title) item = steps.find((s) => stepTitle(s).startsWith(step.title)) || null;
        if (!item) return false;
        const entry = item.querySelector(".tree-view-entry") || item;
        click(entry);
        entry.scrollIntoView({ block: "nearest" });
        const name = which === "before" ? "Before" : "After";
        const tab = await until(() => Array.from(doc.querySelectorAll("[role=tab]")).find((t) => t.textContent.trim() === name), STEP_BOUND_MS);
        if (!tab) return false;
        click(tab);
        return true;
      } catch (e) {
        return false;
      }
    },
    // What the viewer shows now: the selected step's title and the snapshot tab ("Before",
    // "After", "Action"), read from its page; null when it cannot be read.
    async shown(iframe) {
      try {
        const doc = viewerDoc(iframe);
        if (!doc) return null;
        const got = await until(() => {
          const entry = doc.querySelector("[role=tree] .tree-view-entry.selected .action-title");
          const tab = doc.querySelector("[role=tab][aria-selected=true]");
          return entry && tab ? { step: titleText(entry), tab: tab.textContent.trim() } : null;
        }, STEP_BOUND_MS);
        return got;
      } catch (e) {
        return false;
      }
    },
  };
})();
