// The in-page half of runner's queries. Evaluated by Playwright as a function of one argument:
//   {mode: "snapshot" | "elements" | "prepare", steps, shadow, css, props, limit, index, single, scroll,
//    threshold, animationTimeout, checkCovered, checkEnabled}
// "snapshot" returns plain data about the matched elements (one round trip per retry),
// "elements" returns the matched elements themselves (for actions),
// "prepare" scrolls one element into view, waits for it to stop moving and reports where to act.
async (arg) => {
  const shadow = !!arg.shadow;

  function deepAll(root, selector) {
    // querySelectorAll that also looks inside open shadow roots (includeShadowDom).
    const out = [];
    const visit = (node) => {
      if (node.querySelectorAll) {
        for (const el of node.querySelectorAll(selector)) out.push(el);
        for (const el of node.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    if (root.shadowRoot) visit(root.shadowRoot);
    visit(root);
    return Array.from(new Set(out));
  }
  function all(root, selector) {
    return shadow ? deepAll(root, selector) : Array.from(root.querySelectorAll(selector));
  }
  function descendants(root) {
    return all(root, "*");
  }
  function textOf(el) {
    return el.textContent || "";
  }
  function containsText(el, step) {
    const text = step.normalize ? textOf(el).replace(/\s+/g, " ") : textOf(el);
    if (step.regex) return new RegExp(step.regex[0], step.regex[1]).test(text);
    if (step.matchCase === false) return text.toLowerCase().includes(step.text.toLowerCase());
    return text.includes(step.text);
  }
  const skipTags = new Set(["SCRIPT", "STYLE", "HEAD", "TITLE", "META", "LINK", "NOSCRIPT", "TEMPLATE"]);
  // Elements `contains` prefers when several ancestors hold the text, as the original does.
  const preferred = ["input[type=submit]", "button", "a", "label"];

  // A step's selector is CSS (a string, used as it is) or a program of jQuery's extensions
  // (commands/selectors.py: {source, groups: [[{combinator, css, ops}, ...], ...]}).
  function cssOf(sel) {
    const out = [];
    const walk = (s) => {
      if (typeof s === "string") return out.push(s);
      for (const group of s.groups) for (const seg of group) {
        out.push(seg.css);
        for (const op of seg.ops) {
          if (op.op === "css") out.push(op.css);
          if (op.op === "not") walk(op.selector);
        }
      }
    };
    walk(sel);
    return out;
  }
  const probe = document.createDocumentFragment();
  function checkSelectors(steps) {
    // Every selector is checked before any step runs: one the page never reaches (an empty
    // subject's find) is as wrong as one it does, and the error must not wait for elements.
    for (const step of steps) for (const key of ["selector", "until"]) {
      const sel = step[key];
      if (sel === null || sel === undefined) continue;
      for (const css of cssOf(sel)) {
        try {
          probe.querySelector(css);
        } catch (e) {
          throw new Error("runner: invalid selector " + JSON.stringify({
            selector: typeof sel === "string" ? sel : sel.source, part: css, reason: String(e.message || e),
          }));
        }
      }
    }
  }
  function docOrder(list) {
    const out = Array.from(new Set(list));
    const FOLLOWING = Node.DOCUMENT_POSITION_FOLLOWING;
    out.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & FOLLOWING ? -1 : 1));
    return out;
  }
  function related(set, combinator, css) {
    const out = [];
    for (const el of set) {
      if (combinator === " ") {
        for (const c of all(el, css)) out.push(c);
      } else if (combinator === ">") {
        for (const c of el.children) if (c.matches(css)) out.push(c);
      } else if (combinator === "+") {
        const n = el.nextElementSibling;
        if (n && n.matches(css)) out.push(n);
      } else {
        for (let n = el.nextElementSibling; n; n = n.nextElementSibling) if (n.matches(css)) out.push(n);
      }
    }
    return out;
  }
  function applyOps(list, ops) {
    for (const op of ops) {
      const n = list.length;
      const at = (i) => (i < 0 ? i + n : i);
      switch (op.op) {
        case "visible": list = list.filter((el) => isVisible(el)); break;
        case "hidden": list = list.filter((el) => !isVisible(el)); break;
        case "contains": list = list.filter((el) => textOf(el).includes(op.text)); break;
        case "css": list = list.filter((el) => el.matches(op.css)); break;
        case "not": {
          const drop = new Set(winnow(list, op.selector));
          list = list.filter((el) => !drop.has(el));
          break;
        }
        case "first": list = list.slice(0, 1); break;
        case "last": list = list.slice(-1); break;
        case "eq": list = at(op.index) >= 0 && at(op.index) < n ? [list[at(op.index)]] : []; break;
        case "gt": list = list.filter((_, i) => i > at(op.index)); break;
        case "lt": list = list.filter((_, i) => i < at(op.index)); break;
        case "even": list = list.filter((_, i) => i % 2 === 0); break;
        case "odd": list = list.filter((_, i) => i % 2 === 1); break;
        default: throw new Error("runner: unknown selector filter " + op.op);
      }
    }
    return list;
  }
  function runGroup(roots, segments, seed) {
    // The segments in turn, as jQuery runs them: a filter applies to the elements the selector
    // matched so far (in document order), so `li:first span` is the spans of the first li.
    // With a seed (filter(), next(selector), ...), the last segment keeps only its elements,
    // in its order, as jQuery's filter does.
    let set = null;
    segments.forEach((seg, k) => {
      const last = k === segments.length - 1;
      let found;
      if (set === null && seed && last && !seg.combinator) {
        found = seed.filter((el) => el.matches(seg.css));
      } else {
        if (set === null && seg.combinator) found = related(roots, seg.combinator, seg.css);
        else if (set === null) found = [].concat(...roots.map((r) => all(r, seg.css)));
        else found = related(set, seg.combinator, seg.css);
        found = docOrder(found);
        if (seed && last) found = seed.filter((el) => found.includes(el));
      }
      set = applyOps(found, seg.ops);
    });
    return set || [];
  }
  // The elements a selector finds under `roots` (get, find, contains).
  function select(roots, sel) {
    if (typeof sel === "string") {
      if (roots.length === 1) return all(roots[0], sel); // (a page of 200,000 matches: no copy)
      const out = [];
      for (const root of roots) for (const el of all(root, sel)) out.push(el);
      return Array.from(new Set(out));
    }
    return docOrder([].concat(...sel.groups.map((group) => runGroup(roots, group, null))));
  }
  // The elements of `list` a selector keeps, in its order (filter, not, children, next, ...).
  function winnow(list, sel) {
    if (sel === null || sel === undefined) return list;
    if (typeof sel === "string") return list.filter((el) => el.matches(sel));
    const keep = new Set([].concat(...sel.groups.map((group) => runGroup([document], group, list))));
    return list.filter((el) => keep.has(el));
  }
  // Whether an element is one the selector finds in the page (closest, the ...Until steps).
  function matcher(sel) {
    if (typeof sel === "string") return (el) => el.matches(sel);
    const found = new Set(select([document], sel));
    return (el) => found.has(el);
  }
  // The elements `walk` reaches from each element (nearest first), up to one that matches
  // `until` (left out), kept by `sel`, then as jQuery orders them: document order, reversed
  // for the ancestors and the previous siblings (nearest first).
  function walked(current, walk, until, sel, reverse) {
    const stop = until === null || until === undefined ? () => false : matcher(until);
    const out = [];
    for (const el of current) {
      for (let n = walk(el); n && !stop(n); n = walk(n)) out.push(n);
    }
    const kept = docOrder(winnow(out, sel));
    return reverse ? kept.reverse() : kept;
  }
  const nextOf = (el) => el.nextElementSibling;
  const prevOf = (el) => el.previousElementSibling;
  const parentOf = (el) => el.parentElement;

  function applyStep(current, step) {
    switch (step.op) {
      case "get":
        return select([document], step.selector);
      case "find":
        return select(current, step.selector);
      case "contains": {
        const roots = current === null ? [document.documentElement] : current;
        let found = [];
        for (const root of roots) {
          let pool = step.selector ? select([root], step.selector) : [root, ...descendants(root)];
          if (step.selector && winnow([root], step.selector).length) pool = [root, ...pool];
          pool = pool.filter((el) => !skipTags.has(el.tagName) && containsText(el, step));
          if (!step.selector) {
            // The deepest element holding the text, unless a preferred element holds it.
            const deepest = pool.filter((el) => !pool.some((o) => o !== el && el.contains(o)));
            const pick = deepest.map((el) => {
              for (const sel of preferred) {
                const p = el.closest(sel);
                if (p && pool.includes(p)) return p;
              }
              return el;
            });
            pool = pick;
          } else {
            pool = pool.filter((el) => !pool.some((o) => o !== el && el.contains(o)));
          }
          for (const el of pool) found.push(el);
        }
        found = Array.from(new Set(found));
        return found.length ? [found[0]] : [];
      }
      case "first":
        return current.length ? [current[0]] : [];
      case "last":
        return current.length ? [current[current.length - 1]] : [];
      case "eq": {
        const i = step.index < 0 ? current.length + step.index : step.index;
        return i >= 0 && i < current.length ? [current[i]] : [];
      }
      case "filter":
        return winnow(current, step.selector);
      case "not": {
        const drop = new Set(winnow(current, step.selector));
        return current.filter((el) => !drop.has(el));
      }
      case "parent":
        return winnow(Array.from(new Set(current.map(parentOf).filter(Boolean))), step.selector);
      case "children": {
        const out = [];
        for (const el of current) for (const c of el.children) out.push(c);
        return winnow(out, step.selector);
      }
      case "closest": {
        const hit = matcher(step.selector);
        const out = [];
        for (const el of current) {
          for (let n = el; n; n = n.parentElement) if (hit(n)) { out.push(n); break; }
        }
        return Array.from(new Set(out));
      }
      case "next":
        return winnow(current.map(nextOf).filter(Boolean), step.selector);
      case "prev":
        return winnow(current.map(prevOf).filter(Boolean), step.selector);
      case "nextAll":
      case "nextUntil":
        return walked(current, nextOf, step.until, step.selector, false);
      case "prevAll":
      case "prevUntil":
        return walked(current, prevOf, step.until, step.selector, true);
      case "parents":
      case "parentsUntil":
        return walked(current, parentOf, step.until, step.selector, true);
      case "siblings": {
        const out = [];
        for (const el of current) {
          if (!el.parentElement) continue;
          for (const c of el.parentElement.children) if (c !== el) out.push(c);
        }
        return docOrder(winnow(out, step.selector));
      }
      default:
        throw new Error("runner: unknown query step " + step.op);
    }
  }

  checkSelectors(arg.steps);
  let current = null;
  for (const step of arg.steps) current = applyStep(current, step);
  current = current || [];

  function isVisible(el) {
    if (!el.isConnected) return false;
    if (el.tagName === "OPTION" || el.tagName === "OPTGROUP") {
      const sel = el.closest("select");
      return sel ? isVisible(sel) : false;
    }
    if (typeof el.checkVisibility === "function") {
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) return false;
    }
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.visibility === "collapse" || style.display === "none") return false;
    const rect = el.getBoundingClientRect();
    if (rect.width > 0 && rect.height > 0) return true;
    // A zero-size box is still visible when a child overflows it visibly (inline wrappers).
    if (style.overflow !== "hidden") for (const c of el.children) if (isVisible(c)) return true;
    return false;
  }
  function describe(el) {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    if (el.classList && el.classList.length) s += "." + Array.from(el.classList).slice(0, 3).join(".");
    return "<" + s + ">";
  }
  function snapshot(el) {
    const attrs = {};
    for (const a of el.attributes) attrs[a.name] = a.value;
    const style = arg.css && arg.css.length ? getComputedStyle(el) : null;
    const css = {};
    if (style) for (const p of arg.css) css[p] = style.getPropertyValue(p);
    const props = {};
    for (const p of arg.props || []) {
      try {
        const v = el[p];
        props[p] = v === undefined ? null : JSON.parse(JSON.stringify(v));
      } catch (e) {
        props[p] = String(el[p]);
      }
    }
    const root = el.getRootNode();
    return {
      tag: el.tagName.toLowerCase(),
      text: textOf(el),
      inner_text: typeof el.innerText === "string" ? el.innerText : textOf(el),
      html: el.innerHTML,
      value: "value" in el && typeof el.value === "string" && el.tagName !== "LI" && el.tagName !== "BUTTON" ? el.value : null,
      visible: isVisible(el),
      attrs,
      classes: Array.from(el.classList || []),
      checked: !!el.checked,
      selected: !!el.selected,
      disabled: !!el.disabled || el.matches(":disabled"),
      focused: (root.activeElement || document.activeElement) === el,
      css,
      props,
      description: describe(el),
    };
  }

  function named(el) {
    return {
      tag: el.tagName.toLowerCase(), text: "", inner_text: "", html: "", value: null, visible: false,
      attrs: {}, classes: Array.from(el.classList || []), checked: false, selected: false, disabled: false,
      focused: false, css: {}, props: {}, description: describe(el),
    };
  }
  if (arg.mode === "snapshot") {
    // With a limit (an assertion that only counts), the first few are read and all counted.
    // Their names are enough: nothing that makes the page lay itself out (a first layout of
    // 200,000 elements takes seconds) is read.
    if (typeof arg.limit === "number") return { total: current.length, elements: current.slice(0, arg.limit).map(named) };
    return current.map(snapshot);
  }
  if (arg.mode === "elements") return current;

  // mode "prepare": make one element ready for a user action and say where to act. With
  // "single", only when the query finds exactly one element (an action's first look: finding
  // and checking in one evaluation); else nothing is touched and the count is told.
  if (arg.single && current.length !== 1) return { ok: false, reason: "count", count: current.length };
  const el = current[arg.index || 0];
  if (!el) return { ok: false, reason: "gone" };
  if (arg.scroll) el.scrollIntoView({ block: arg.scroll, inline: "nearest" });
  // the browser's own frames and time, also under runner.clock() (which fakes the page's)
  const native = globalThis.__runnerNative || globalThis;
  const frame = () => new Promise((r) => native.requestAnimationFrame(() => r()));
  let rect = el.getBoundingClientRect();
  if (arg.threshold !== null && arg.threshold !== undefined) {
    // Wait until the element moves less than the threshold between two frames. CSS
    // animations and transitions on the element or an ancestor need two more cares: a
    // reading taken outside a frame can be ahead of the next frame's (so both readings are
    // taken in frames), and one that has not started yet (pending: its start time is set
    // when a frame commits, which can be after the next frame's callbacks on a busy
    // machine) holds the element still for a frame or two before it moves.
    const deadline = native.performance.now() + (arg.animationTimeout || 1000);
    const cssMotion = (pendingOnly) => {
      if (!document.getAnimations) return false;
      for (const animation of document.getAnimations()) {
        if (!animation.pending && (pendingOnly || animation.playState !== "running")) continue;
        const target = animation.effect && animation.effect.target;
        const host = target && (target.nodeType === 1 ? target : target.element);
        if (host && host.contains && host.contains(el)) return true;
      }
      return false;
    };
    if (cssMotion(false)) {
      await frame();
      rect = el.getBoundingClientRect();
    }
    for (;;) {
      await frame();
      const next = el.getBoundingClientRect();
      const moved = Math.hypot(next.x - rect.x, next.y - rect.y);
      rect = next;
      if (moved <= arg.threshold && !cssMotion(true)) break;
      if (native.performance.now() > deadline) return { ok: false, reason: "animating", moved };
    }
  }
  if (!isVisible(el)) return { ok: false, reason: "hidden", description: describe(el) };
  // (a pointer over a disabled control is no use of it: hover passes checkEnabled false)
  if (arg.checkEnabled !== false && (el.disabled || (el.matches && el.matches(":disabled")))) {
    return { ok: false, reason: "disabled", description: describe(el) };
  }
  // A centre outside the viewport cannot take a real click (the mouse lands nowhere, and
  // elementFromPoint answers null there, which must not read as "not covered").
  // (visualViewport leaves out the scrollbars, and unlike the root's clientHeight it is the
  // viewport in quirks mode too.)
  const view = window.visualViewport;
  const viewWidth = view ? view.width : window.innerWidth;
  const viewHeight = view ? view.height : window.innerHeight;
  const root = el === document.body || el === document.documentElement;
  const centre = (r) => {
    if (!root) return [r.x + r.width / 2, r.y + r.height / 2];
    // The page's root is always in view: its centre is that of the part the viewport shows.
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, viewWidth), bottom = Math.min(r.bottom, viewHeight);
    return [(left + Math.max(right, left)) / 2, (top + Math.max(bottom, top)) / 2];
  };
  const outside = ([cx, cy]) => cx < 0 || cy < 0 || cx >= viewWidth || cy >= viewHeight;
  let [x, y] = centre(rect);
  if (arg.checkCovered && outside([x, y]) && arg.scroll) {
    // Scrolled as scrollBehavior says, an element taller (or wider) than the viewport can
    // still have its centre outside it: scrolling may bring the centre itself into view.
    el.scrollIntoView({ block: "center", inline: "center" });
    [x, y] = centre(el.getBoundingClientRect());
  }
  if (arg.checkCovered && outside([x, y])) {
    return { ok: false, reason: "outside", description: describe(el), x, y, width: viewWidth, height: viewHeight };
  }
  if (arg.checkCovered) {
    const holds = (a, b) => {
      for (let n = b; n; n = n.parentNode || (n.host ? n.host : null)) if (n === a) return true;
      return false;
    };
    // what takes a pointer event at (px, py) instead of el: null when el (or its label) does
    const cover = (px, py) => {
      let hit = document.elementFromPoint(px, py);
      while (hit && hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(px, py);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      if (!hit) return undefined;
      if (holds(el, hit) || el.tagName === "LABEL" || el.tagName === "OPTION") return null;
      return hit.tagName === "LABEL" && hit.control === el ? null : hit;
    };
    let hit = cover(x, y);
    if (hit === undefined) return { ok: false, reason: "outside", description: describe(el), x, y, width: viewWidth, height: viewHeight };
    if (hit && arg.scroll) {
      // Scrolled to the top (scrollBehavior's default) an element lands under a sticky header;
      // the other alignments a user would scroll to are tried before it counts as covered.
      for (const block of ["center", "end", "nearest"]) {
        if (block === arg.scroll) continue;
        el.scrollIntoView({ block, inline: "nearest" });
        const [ax, ay] = centre(el.getBoundingClientRect());
        if (outside([ax, ay]) || cover(ax, ay) !== null) continue;
        [x, y, hit] = [ax, ay, null];
        break;
      }
    }
    if (hit) return { ok: false, reason: "covered", description: describe(el), by: describe(hit) };
  }
  return { ok: true, x, y, description: describe(el) };
}
