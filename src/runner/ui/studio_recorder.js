// runner open's studio: records what a person does in the app as runner commands.
//
// Evaluated in the app's page (and, as an init script, in every document it loads). Defines
// window.__runnerStudioStart(options) and window.__runnerStudioStop(). While started, it reports
// each action by calling window[options.report](JSON text) (a binding the child exposes) with
// {"kind": "click"|"type"|"clear"|"check"|"uncheck"|"select", "selector": css, "value": ...}.
//
// What is recorded, as the original studio does:
// - a click on an element (on the button or link a click lands in, not the text inside it); a
//   click on a text field is recorded too (it focuses it), a click on a checkbox, a radio, a
//   <select> or an <option> is not (its change is);
// - a text field or textarea: when its value changed (on change, or when recording stops while
//   it has focus): "clear" first when it held a value before, then "type" with the new value;
// - a checkbox: "check" / "uncheck"; a radio: "check"; a <select>: "select" with the chosen
//   option's value (a list for <select multiple>);
// - only events of a person (isTrusted): the app's own synthetic events are not.
// Selectors: the first strategy of options.selectorPriority whose selector matches exactly that
// element in the document: attribute names (data-cy, data-test, data-testid, name, any other)
// give [attr="value"], "id" #id (or [id="..."] when it is not a plain identifier), "class"
// tag.class (one class, then all), "tag" the tag name, "attributes" any other attribute,
// "nth-child" a path of :nth-child steps; that path is the fallback of every list.
"use strict";
(function () {
  if (window.__runnerStudioStart) return;
  const DEFAULT_PRIORITY = ["data-cy", "data-test", "data-testid", "id", "name", "class", "tag", "attributes", "nth-child"];
  const TEXT_TYPES = new Set(["", "text", "email", "password", "search", "tel", "url", "number", "date",
    "datetime-local", "month", "week", "time", "color", "range"]);
  const IDENT = /^-?[A-Za-z_][A-Za-z0-9_-]*$/;
  let options = null;
  const before = new WeakMap(); // text field -> its value when it got focus

  function report(action) {
    if (!options) return;
    try { window[options.report](JSON.stringify(action)); } catch (e) { /* the child is gone */ }
  }

  function quote(value) {
    return '"' + String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ") + '"';
  }

  function unique(selector, el) {
    try {
      const found = el.ownerDocument.querySelectorAll(selector);
      return found.length === 1 && found[0] === el;
    } catch (e) {
      return false;
    }
  }

  function nthPath(el) {
    const steps = [];
    let node = el;
    while (node && node.nodeType === 1 && node.parentElement) {
      const index = Array.prototype.indexOf.call(node.parentElement.children, node) + 1;
      steps.unshift(node.tagName.toLowerCase() + ":nth-child(" + index + ")");
      const candidate = steps.join(" > ");
      if (unique(candidate, el)) return candidate;
      node = node.parentElement;
    }
    return steps.length ? "html > " + steps.join(" > ") : el.tagName.toLowerCase();
  }

  function candidates(strategy, el) {
    const tag = el.tagName.toLowerCase();
    switch (strategy) {
      case "id":
        return el.id ? [IDENT.test(el.id) ? "#" + el.id : "[id=" + quote(el.id) + "]"] : [];
      case "class": {
        const classes = Array.from(el.classList).filter((c) => IDENT.test(c));
        const out = classes.map((c) => tag + "." + c);
        if (classes.length > 1) out.push(tag + "." + classes.join("."));
        return out;
      }
      case "tag":
        return [tag];
      case "attributes":
        return Array.from(el.attributes)
          .filter((a) => !["id", "class", "style"].includes(a.name) && !a.name.startsWith("on"))
          .map((a) => tag + "[" + a.name + "=" + quote(a.value) + "]");
      case "nth-child":
        return [nthPath(el)];
      default: {
        const value = el.getAttribute(strategy);
        return value === null ? [] : ["[" + strategy + "=" + quote(value) + "]"];
      }
    }
  }

  function selectorFor(el) {
    const priority = (options && options.selectorPriority) || DEFAULT_PRIORITY;
    for (const strategy of priority) {
      for (const selector of candidates(strategy, el)) {
        if (unique(selector, el)) return selector;
      }
    }
    return nthPath(el);
  }

  function isTextField(el) {
    if (el instanceof HTMLTextAreaElement) return true;
    return el instanceof HTMLInputElement && TEXT_TYPES.has((el.getAttribute("type") || "").toLowerCase());
  }

  function isChoice(el) {
    return el instanceof HTMLSelectElement || el instanceof HTMLOptionElement ||
      (el instanceof HTMLInputElement && ["checkbox", "radio"].includes(el.type));
  }

  function actionable(target) {
    const el = target instanceof Element ? target : target && target.parentElement;
    if (!el) return null;
    return el.closest("button, a, input, select, textarea, option, label, summary, [role=button], [role=link], [onclick]") || el;
  }

  function typed(el) {
    const old = before.has(el) ? before.get(el) : el.defaultValue;
    const now = el.value;
    if (now === old) return;
    const selector = selectorFor(el);
    if (old) report({ kind: "clear", selector, value: null });
    if (now) report({ kind: "type", selector, value: now });
    before.set(el, now);
  }

  function onFocus(e) {
    const el = e.composedPath()[0];
    if (el instanceof Element && isTextField(el) && !before.has(el)) before.set(el, el.value);
  }

  function onClick(e) {
    if (!e.isTrusted) return;
    const el = actionable(e.composedPath()[0]);
    if (!el || isChoice(el)) return;
    if (el instanceof HTMLLabelElement && el.control && isChoice(el.control)) return; // its change is
    report({ kind: "click", selector: selectorFor(el), value: null });
  }

  function onChange(e) {
    if (!e.isTrusted) return;
    const el = e.composedPath()[0];
    if (!(el instanceof Element)) return;
    if (el instanceof HTMLInputElement && el.type === "checkbox") {
      report({ kind: el.checked ? "check" : "uncheck", selector: selectorFor(el), value: null });
    } else if (el instanceof HTMLInputElement && el.type === "radio") {
      if (el.checked) report({ kind: "check", selector: selectorFor(el), value: null });
    } else if (el instanceof HTMLSelectElement) {
      const chosen = Array.from(el.selectedOptions).map((o) => o.value);
      report({ kind: "select", selector: selectorFor(el), value: el.multiple ? chosen : (chosen[0] || "") });
    } else if (isTextField(el)) {
      typed(el);
    }
  }

  window.__runnerStudioStart = function (opts) {
    options = Object.assign({ report: "__runnerStudioReport" }, opts || {});
    if (window.__runnerStudioListening) return;
    window.__runnerStudioListening = true;
    document.addEventListener("focusin", onFocus, true);
    document.addEventListener("click", onClick, true);
    document.addEventListener("change", onChange, true);
    const active = document.activeElement;
    if (active && isTextField(active)) before.set(active, active.value);
  };

  window.__runnerStudioStop = function () {
    const active = document.activeElement;
    if (options && active && isTextField(active)) typed(active); // typed but not yet committed
    document.removeEventListener("focusin", onFocus, true);
    document.removeEventListener("click", onClick, true);
    document.removeEventListener("change", onChange, true);
    window.__runnerStudioListening = false;
    options = null;
  };
})();
