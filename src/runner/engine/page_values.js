// The page's own values as data: a dotted path read from the window or the document, a method
// at such a path called (its promise awaited), a value made JSON-able (engine/script_verbs.py).
//
// What is not data (the window, the document, DOM nodes, functions, promises, a cycle) becomes a
// marker {"__runner_js__": kind, "description": words}, which the commands show as <window>,
// <function dispatch>, <h1#title>, ...; the commands never see a Playwright handle.
//
// Modes (the one argument's `mode`):
//   read:  {root, parts}                 -> {value} | {missing}
//   call:  {root, parts, args, timeout}  -> {value} | {missing} | {notFunction} | {threw} | {pending}
//   data:  handle.evaluate(this, {mode: "data"}): the handle's value (first argument) made data
(first, second) => {
  const MARK = "__runner_js__";
  const MAX_DEPTH = 20;
  let budget = 20000;  // values made data at most, so a huge graph cannot flood the test

  const describeNode = (n) => {
    if (n.nodeType === 9) return "<document>";
    if (n.nodeType === 3) return `<text ${JSON.stringify((n.textContent || "").slice(0, 40))}>`;
    if (n.nodeType !== 1) return `<${n.nodeName.toLowerCase()}>`;
    let text = n.tagName.toLowerCase();
    if (n.id) text += "#" + n.id;
    for (const c of Array.from(n.classList || []).slice(0, 3)) text += "." + c;
    return `<${text}>`;
  };
  const isWindow = (v) => { try { return v != null && v.window === v && v.self === v; } catch (e) { return true; } };
  const describe = (v) => {
    if (v === null) return "null";
    if (v === undefined) return "undefined";
    if (typeof v === "function") return `function ${v.name || "(anonymous)"}`;
    if (isWindow(v)) return "<window>";
    if (typeof Node !== "undefined" && v instanceof Node) return describeNode(v);
    if (typeof v === "object") {
      const name = v.constructor && v.constructor.name;
      return name && name !== "Object" ? `${name} object` : "object";
    }
    return `${typeof v} ${String(v).slice(0, 60)}`;
  };
  const marker = (kind, description) => ({[MARK]: kind, description});
  const errorText = (e) => {
    if (e instanceof Error || (e && typeof e === "object" && "message" in e)) {
      return {name: String(e.name || "Error"), message: String(e.message)};
    }
    return {name: "", message: (() => { try { return JSON.stringify(e); } catch (x) { return String(e); } })()};
  };

  const toData = (v, depth, seen) => {
    try {
      return toDataUnsafe(v, depth, seen);
    } catch (e) {  // a cross-origin window, a proxy whose traps throw, ...: said, not fatal
      const err = errorText(e);
      return marker("error", `${err.name}: ${err.message}`);
    }
  };
  const toDataUnsafe = (v, depth, seen) => {
    budget -= 1;
    if (v === undefined || v === null) return null;
    const t = typeof v;
    if (t === "string" || t === "boolean") return v;
    if (t === "number") return Number.isFinite(v) ? v : String(v);
    if (t === "bigint") return v.toString();
    if (t === "symbol") return v.toString();
    if (t === "function") return marker("function", describe(v));
    if (isWindow(v)) return marker("window", "<window>");
    if (typeof Node !== "undefined" && v instanceof Node) return marker(v.nodeType === 9 ? "document" : "node", describeNode(v));
    if (typeof v.then === "function") return marker("promise", "<Promise>");
    if (seen.has(v)) return marker("circular", "[Circular]");
    if (depth >= MAX_DEPTH || budget <= 0) return marker("cut", describe(v));
    if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Error) return marker("error", `${v.name}: ${v.message}`);
    seen.add(v);
    try {
      const listLike = typeof v.length === "number" && typeof v[Symbol.iterator] === "function";  // NodeList, ...
      if (Array.isArray(v) || ArrayBuffer.isView(v) || v instanceof Set || listLike) {
        return Array.from(v, (x) => toData(x, depth + 1, seen));
      }
      const proto = Object.getPrototypeOf(v);
      const isData = v instanceof Map || (typeof Storage !== "undefined" && v instanceof Storage);  // {} when empty
      if (!isData && proto !== Object.prototype && proto !== null && Object.keys(v).length === 0) {
        return marker("object", describe(v));  // navigator, a class instance without own data: named
      }
      const out = {};
      const entries = v instanceof Map ? Array.from(v.entries()) : Object.keys(v).map((k) => [k, undefined]);
      for (const [key, mapped] of entries) {
        if (budget <= 0) { out["…"] = marker("cut", "more keys"); break; }
        let item;
        try {
          item = v instanceof Map ? mapped : v[key];
        } catch (e) {  // a getter that throws
          const err = errorText(e);
          out[String(key)] = marker("error", `${err.name}: ${err.message}`);
          continue;
        }
        out[String(key)] = toData(item, depth + 1, seen);
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  const data = (v) => toData(v, 0, new Set());

  if (second && second.mode === "data") return data(first);
  const {mode, root, parts, args, timeout} = first;
  let current = root === "document" ? document : window;
  let owner;
  let walked = root;
  for (const part of parts) {
    if (current === null || current === undefined) {
      return {missing: `${walked} is ${current === null ? "null" : "undefined"}, so it has no property ${JSON.stringify(part)}`};
    }
    let has;
    try { has = part in Object(current); } catch (e) { has = false; }
    if (!has) return {missing: `${walked} (${describe(current)}) has no property ${JSON.stringify(part)}`};
    owner = current;
    try { current = current[part]; } catch (e) { return {threw: errorText(e), reading: walked + "." + part}; }
    walked += "." + part;
  }
  if (mode === "read") return {value: data(current)};
  if (typeof current !== "function") return {notFunction: `${walked} is not a function (it is ${describe(current)})`};
  return (async () => {
    let result;
    try {
      result = current.apply(owner, args);
      if (result && typeof result.then === "function") {
        const LATE = {};
        let timer;
        const native = globalThis.__runnerNative || globalThis;  // real time, also under runner.clock()
        const late = new Promise((resolve) => { timer = native.setTimeout(() => resolve(LATE), timeout); });
        const settled = await Promise.race([Promise.resolve(result), late]);
        native.clearTimeout(timer);
        if (settled === LATE) return {pending: true};
        result = settled;
      }
    } catch (e) {
      return {threw: errorText(e)};
    }
    return {value: data(result)};
  })();
}
