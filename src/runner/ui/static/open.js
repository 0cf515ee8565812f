// runner open: the page. It mirrors what the server tells over one WebSocket (see ui/server.py)
// and sends the person's choices back. Everything that came from the app, the specs or the
// configuration is put in the page as text (textContent), never as markup.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const S = {
    config: {}, specs: [], specStatus: {}, testStatus: {}, tests: new Map(), order: [],
    selected: null, follow: true, run: { state: "idle" }, studio: null, filter: "",
    travel: null, frameSize: null, requestOpen: null, servers: [],
  };
  let ws = null;
  let renderQueued = false;

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "text") node.textContent = String(v);
      else if (k === "className") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
    return node;
  }
  function ms(v) { return typeof v === "number" ? (v >= 1000 ? (v / 1000).toFixed(2) + " s" : Math.round(v) + " ms") : ""; }
  function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }
  function notice(text, level) {
    const n = el("div", { className: "notice " + (level || "info"), text });
    $("notices").prepend(n);
    while ($("notices").children.length > 4) $("notices").lastChild.remove();
    setTimeout(() => n.remove(), level === "error" ? 20000 : 6000);
  }
  function queueRender() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => { renderQueued = false; render(); });
  }

  // -- the tests the server keeps ---------------------------------------------------------
  function newTest(key, nodeid, spec, title, run) {
    return { key, nodeid, spec, title, run, events: [], traces: new Set() };
  }
  function addEvent(key, ev, run) {
    let t = S.tests.get(key);
    if (!t) {
      if (ev.kind !== "test.started") return;
      t = newTest(key, ev.nodeid, ev.spec, ev.title || [], run);
      S.tests.set(key, t);
      S.order.push(key);
    }
    t.events.push(ev);
    if (ev.kind === "attempt.ended" && ev.trace) t.traces.add(ev.attempt || 1);
    if (ev.kind === "test.started" && S.follow) S.selected = key;
  }
  function dropTest(key) {
    S.tests.delete(key);
    S.order = S.order.filter((k) => k !== key);
    if (S.selected === key) S.selected = S.order[S.order.length - 1] || null;
    if (S.travel && S.travel.key === key) showLive();  // its trace is deleted with it
  }
  // pytest's report of a failure, each line a span: the failing line (">") marked, its "E" lines
  // (the error and the explanation) and the file:line it points at styled as the HTML report does
  function errorBlock(text) {
    const pre = el("pre", { className: "error" });
    for (const line of String(text).split("\n")) {
      const cls = /^>/.test(line) ? "hl" : /^E\s/.test(line) ? "err" : /^\S.*:\d+: \w/.test(line) ? "where" : "";
      pre.append(el("span", { className: "line " + cls, text: line + "\n" }));
    }
    return pre;
  }
  function testView(t) {
    // commands of the last attempt (or the one running), routes with their match counts, requests
    const v = { attempt: 1, commands: new Map(), logs: [], routes: new Map(), requests: [], snapshots: [], state: "running", error: null, duration: null };
    for (const ev of t.events) {
      const attempt = ev.attempt || 1;
      if (attempt > v.attempt && ev.kind !== "test.ended") {
        v.attempt = attempt; v.commands = new Map(); v.routes = new Map(); v.requests = []; v.snapshots = []; v.logs = []; v.error = null; v.errorText = null;
      }
      switch (ev.kind) {
        case "command.started": {
          // a command a custom command ran (parent) is a step inside the custom command's: the
          // trace viewer lists top-level steps, so time travel goes by the top-level one (top)
          const parent = ev.parent != null ? v.commands.get(ev.parent) : null;
          const top = parent ? parent.top : [...v.commands.values()].filter((c) => c.kind === "command" && !c.depth).length;
          v.commands.set(ev.id, { id: ev.id, name: ev.name, args: ev.args, subject: ev.subject, file: ev.file, line: ev.line, state: "running", kind: "command",
            depth: parent ? parent.depth + 1 : 0, top: top, topTitle: parent ? parent.topTitle : (ev.subject ? ev.subject + "." : "") + ev.name + "(" + (ev.args || "") + ")" });
          break;
        }
        case "command.ended": { const c = v.commands.get(ev.id); if (c) { c.state = ev.state; c.duration = ev.duration_ms; c.error = ev.error; c.result = ev.result; } break; }
        case "a11y.checked": { const c = v.commands.get(ev.command); if (c) c.a11y = ev; break; }
        case "log": v.commands.set("log" + v.commands.size, { kind: "log", message: ev.message, file: ev.file, line: ev.line }); break;
        case "route.added": v.routes.set(ev.route_id, { method: ev.method, matcher: ev.matcher, stubbed: ev.stubbed, alias: ev.alias, handler: ev.handler, server: !!ev.server, count: 0 }); break;
        case "route.aliased": { const r = v.routes.get(ev.route_id); if (r) r.alias = ev.alias; break; }
        case "request.intercepted":
          v.requests.push(ev);
          if (ev.log !== false) v.commands.set("request" + ev.id, { kind: "request", ev: ev });
          for (const id of ev.route_ids || []) { const r = v.routes.get(id); if (r) r.count += 1; }
          break;
        case "snapshot.compared": v.snapshots.push(ev); break;
        case "attempt.ended": v.error = ev.error ? (ev.message || ev.error) : null; v.errorText = ev.error || null; v.attemptState = ev.state; break;
        case "test.ended": v.state = ev.state; v.duration = ev.duration_ms; break;
      }
    }
    return v;
  }

  // -- rendering ----------------------------------------------------------------------------
  function render() {
    $("project").textContent = S.config.project || "runner";
    const rs = $("run-state");
    rs.dataset.state = S.run.state;
    rs.dataset.run = S.run.number || "";  // which run it tells of: a re-run's end is told apart from the last
    rs.textContent = runWords(S.run);
    $("stop").disabled = !(S.run.state === "running");
    $("watching").textContent = S.config.watch ? "re-runs on save" : "";
    $("scaffold").hidden = !S.config.scaffold;
    $("scaffold-why").textContent = S.config.problem || "";
    const problem = $("problem");
    problem.hidden = !S.config.problem || S.config.scaffold;
    problem.textContent = S.config.problem || "";
    renderSpecs();
    renderTests();
    renderSelected();
    renderStudio();
    renderServers();
  }

  // webServer: a line per server runner open started or reused, and a death with its last lines
  function renderServers() {
    const box = $("servers");
    box.hidden = !S.servers.length;
    box.replaceChildren(...S.servers.map((s) => {
      const head = s.name + ": " + JSON.stringify(s.command) + " · " + (s.target || "");
      if (s.exited) {
        return el("div", { className: "server", dataset: { state: "died" } },
          el("span", { text: head + " · " + s.exited + " while runner open ran: the tests after this have no server" }),
          el("pre", { className: "server-output", text: s.output.length ? s.output.join("\n") : "(no output kept)" }));
      }
      return el("div", { className: "server", dataset: { state: s.reused ? "reused" : "up" },
        text: head + " · " + (s.reused ? "reused: it answered already (runner did not start it)" : "started, answered in " + ms(s.tookMs)) });
    }));
  }

  // the status bar: what the run is doing or how it ended, in words (the server sends the words
  // of an ended run; never an exit status)
  const RUN_LABELS = { running: "running", stopping: "stopping", done: "done", stopped: "stopped", "not-run": "not run" };
  function runWords(run) {
    const label = RUN_LABELS[run.state];
    if (!label) return "idle";
    const what = run.test ? run.spec + " › " + run.test : (run.spec || "all specs");
    const ended = run.state === "done" || run.state === "stopped" || run.state === "not-run";
    return label + ": " + what + (ended && run.summary ? " · " + run.summary : "");
  }

  function statusDot(state) { return el("span", { className: "dot " + (state || "none"), title: state || "not run", "aria-label": state || "not run" }); }

  function renderSpecs() {
    const tree = $("spec-tree");
    tree.replaceChildren();
    const filter = S.filter.toLowerCase();
    const testsBySpec = {};
    for (const [nodeid, st] of Object.entries(S.testStatus)) (testsBySpec[st.spec] = testsBySpec[st.spec] || []).push([nodeid, st]);
    let lastFolder = null;
    for (const spec of S.specs) {
      if (filter && !spec.toLowerCase().includes(filter)) continue;
      const slash = spec.lastIndexOf("/");
      const folder = slash >= 0 ? spec.slice(0, slash) : "";
      if (folder && folder !== lastFolder) tree.append(el("li", { className: "folder", text: folder + "/" }));
      lastFolder = folder;
      const st = S.specStatus[spec] || {};
      const li = el("li", { className: "spec", dataset: { spec } },
        el("div", { className: "spec-row" },
          statusDot(st.state),
          el("button", { type: "button", className: "run-spec", title: "run " + spec, text: "▶", onclick: () => send({ t: "run", spec }) }),
          el("button", { type: "button", className: "spec-name", title: "run " + spec, text: slash >= 0 ? spec.slice(slash + 1) : spec, onclick: () => send({ t: "run", spec }) }),
          el("span", { className: "duration", text: ms(st.duration_ms) })));
      if (st.error) li.append(el("div", { className: "spec-error", text: st.error }));
      const tests = el("ul", { className: "spec-tests" });
      for (const [nodeid, ts] of testsBySpec[spec] || []) {
        const testId = nodeid.split("::").slice(1).join("::");
        const row = el("li", { className: "test-row", dataset: { nodeid } }, statusDot(ts.state),
          el("button", { type: "button", className: "run-test", title: "run this test", text: "▶", onclick: () => send({ t: "run", spec, test: testId }) }),
          el("span", { className: "test-name", text: (ts.title || []).join(" › ") || testId }),
          ts.quarantine ? el("span", { className: "quarantined", title: ts.quarantine, text: "quarantined" }) : null,
          el("span", { className: "duration", text: ms(ts.duration_ms) }));
        if (S.config.studio) row.append(el("button", { type: "button", className: "studio-test", title: "add commands to this test with studio", text: "✚ studio", onclick: () => send({ t: "studio-start", spec, test: testId }) }));
        tests.append(row);
      }
      li.append(tests);
      tree.append(li);
    }
    // a configuration that cannot be read lists no spec: #problem says why, not "no specs found"
    if (!S.specs.length && !S.config.scaffold && !S.config.problem) tree.append(el("li", { className: "empty", text: "no specs found" }));
  }

  function renderTests() {
    const box = $("tests");
    box.replaceChildren();
    for (const key of S.order) {
      const t = S.tests.get(key);
      const v = testView(t);
      box.append(el("button", { type: "button", className: "test-tab" + (key === S.selected ? " selected" : ""), dataset: { key, state: v.state, nodeid: t.nodeid },
        title: t.spec + " › " + (t.title || []).join(" › "),
        onclick: () => { S.selected = key; S.follow = key === S.order[S.order.length - 1]; queueRender(); } },
        statusDot(v.state), el("span", { text: (t.title || []).join(" › ") }),
        t.run !== S.run.number ? el("span", { className: "run-number", title: "kept from an earlier run", text: "run " + t.run }) : null));
    }
  }

  function renderSelected() {
    const t = S.selected ? S.tests.get(S.selected) : null;
    const list = $("commands");
    list.replaceChildren();
    const routes = $("routes").tBodies[0];
    routes.replaceChildren();
    const reqs = $("requests");
    reqs.replaceChildren();
    if (!t) {
      list.append(el("li", { className: "empty", text: S.config.keep === 0 ? "numTestsKeptInMemory is 0: no command log is kept." : "run a spec to see its commands" }));
      return;
    }
    const v = testView(t);
    if (v.attempt > 1) list.append(el("li", { className: "attempt", text: "attempt " + v.attempt }));
    for (const c of v.commands.values()) {
      const where = c.file ? c.file.split("/").pop() + ":" + c.line : "";
      if (c.kind === "log") {
        list.append(el("li", { className: "log" }, "log " + c.message + " ",
          where ? el("span", { className: "where", text: where }) : null));
        continue;
      }
      if (c.kind === "request") {
        const r = c.ev;
        list.append(el("li", { className: "request-line", dataset: { stubbed: r.stubbed ? "yes" : "no" } },
          el("span", { className: "cmd-name", text: "(" + (r.server ? "server" : r.resource_type || "request") + ")" }),
          el("span", { className: "cmd-args", text: r.method + " " + (r.status != null ? r.status : (r.error || r.state)) + " " + r.url +
            (r.aliases || []).map((a) => " @" + a).join("") + (r.stubbed ? " stubbed" : r.server ? " to the service" : " to the server") }),
          el("span", { className: "duration", text: ms(r.timings && r.timings.total) })));
        continue;
      }
      const li = el("li", { className: "command " + c.state, dataset: { id: c.id, state: c.state }, tabindex: 0,
        title: c.state === "running" ? "running" : "click to see the page before and after this command" },
        el("span", { className: "num", text: c.id }),
        el("span", { className: "cmd-name", text: "\u00a0\u00a0".repeat(Math.max(0, c.depth - 1)) + (c.depth ? "\u21b3 " : "") + (c.subject ? c.subject + "." : "") + c.name }),
        el("span", { className: "cmd-args", text: (c.args || "") + (c.result ? " \u2192 " + c.result : "") }),
        el("span", { className: "duration", text: ms(c.duration) }),
        el("span", { className: "where", text: where }));
      if (c.error) li.append(el("div", { className: "cmd-error", text: c.error }));
      if (c.a11y && c.a11y.violations.length) li.append(a11yTable(c.a11y));
      if (c.state !== "running") {
        li.addEventListener("click", () => travel(t, v.attempt, c, "after"));
        li.addEventListener("keydown", (e) => { if (e.key === "Enter") travel(t, v.attempt, c, "after"); });
      }
      if (S.travel && S.travel.key === t.key && S.travel.id === c.id) li.classList.add("travelled");
      list.append(li);
    }
    // the failure as the report shows it: its line, then the code frame and pytest's explanation
    if (v.error) {
      list.append(el("li", { className: "test-error" }, el("p", { className: "message", text: v.error }),
        v.errorText && v.errorText !== v.error ? errorBlock(v.errorText) : null));
    }
    // a failed match.screenshot's expected, actual and diff; a failed aria snapshot's diff
    for (const s of v.snapshots) {
      if (s.passed) continue;
      const urls = s.urls || {};
      const figures = ["expected", "actual", "diff"].filter((k) => urls[k]).map((k) =>
        el("figure", { className: "snap-" + k }, el("img", { src: urls[k], alt: k + " " + s.name }), el("figcaption", { text: k })));
      list.append(el("li", { className: "snapshot-failure", dataset: { name: s.name } },
        el("p", { className: "message", text: s.name + " (" + (s.what === "aria" ? "aria snapshot" : "screenshot") + ", " + s.outcome + "): " + s.baseline }),
        figures.length ? el("div", { className: "snapshot-images" }, ...figures) : null,
        s.diff_text ? el("pre", { className: "error", text: s.diff_text }) : null));
    }
    for (const r of v.routes.values()) {
      routes.append(el("tr", {}, el("td", { text: r.method }), el("td", { text: r.matcher + (r.server ? " (the app's server)" : "") }),
        el("td", { text: r.stubbed ? "yes" : "no" }), el("td", { text: r.alias || "-" }), el("td", { className: "count", text: r.count })));
    }
    if (!v.routes.size) routes.append(el("tr", {}, el("td", { colspan: 5, className: "empty", text: "no routes" })));
    v.requests.forEach((r, i) => {
      const li = el("li", { className: "request", dataset: { stubbed: r.stubbed ? "yes" : "no", server: r.server ? "yes" : "no" }, tabindex: 0 },
        el("span", { className: "fill " + (r.stubbed ? "stubbed" : "filled"), title: wentTo(r),
          text: r.stubbed ? "○" : "●" }),
        r.server ? el("span", { className: "made-by", title: "made by the app's server (runner.intercept_backend)", text: "(server)" }) : null,
        el("span", { className: "method", text: r.method }),
        el("span", { className: "status", text: r.status === null || r.status === undefined ? (r.error ? "error" : "-") : r.status }),
        el("span", { className: "url", text: r.url }),
        el("span", { className: "alias", text: (r.aliases || []).map((a) => "@" + a).join(" ") }),
        el("span", { className: "duration", text: ms((r.timings || {}).total) }));
      li.addEventListener("click", () => { S.requestOpen = i; queueRender(); });
      reqs.append(li);
    });
    const detail = $("request-detail");
    detail.replaceChildren();
    const open = S.requestOpen !== null ? v.requests[S.requestOpen] : null;
    if (open) detail.append(requestDetail(open));
  }

  // runner.check_a11y's violations under its command: the help address is text, never fetched
  function a11yTable(check) {
    const rows = check.violations.map((v) => el("tr", { className: "a11y-" + v.outcome },
      el("td", {}, el("code", { text: v.rule })),
      el("td", { text: v.impact + (v.outcome === "warned" ? " (warned)" : "") }),
      el("td", {}, ...(v.nodes || []).map((n) => el("div", {}, el("code", { text: n.target }), " ", el("code", { className: "a11y-html", text: n.html })))),
      el("td", {}, el("div", { text: v.help }), el("div", { className: "a11y-url", text: v.help_url }))));
    return el("table", { className: "a11y" },
      el("thead", {}, el("tr", {}, ...["rule", "impact", "elements", "help"].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows));
  }

  function headersTable(h) {
    const table = el("table", { className: "headers" });
    for (const [k, val] of Object.entries(h || {})) table.append(el("tr", {}, el("th", { text: k }), el("td", { text: val })));
    return table;
  }
  function bodyBlock(b, which) {
    if (!b) return el("p", { className: "empty " + which, text: "(no body kept)" });
    const text = b.encoding === "base64" ? "(" + b.size + " bytes, binary)" : b.data;
    return el("pre", { className: "body " + which, text: text + (b.cut ? "\n… (cut: " + b.size + " bytes in all)" : "") });
  }
  // where a request went: a request of the app's server went on to the service it called
  function wentTo(r) {
    return r.stubbed ? "stubbed by runner" : r.server ? "went to the service (the app's server made it)" : "went to the server";
  }
  function requestDetail(r) {
    const t = r.timings || {};
    return el("div", { className: "detail" },
      el("h3", { text: r.method + " " + r.url }),
      el("p", { text: wentTo(r) + " · status " + (r.status ?? "-") +
        (r.error ? " · error: " + r.error : "") + " · queued " + ms(t.queued) + " · handler " + ms(t.handler) +
        " · upstream " + ms(t.upstream) + " · total " + ms(t.total) }),
      el("h4", { text: "Request headers" }), headersTable(r.request_headers),
      el("h4", { text: "Request body" }), bodyBlock(r.request_body, "request-body"),
      el("h4", { text: "Response headers" }), headersTable(r.response_headers),
      el("h4", { text: "Response body" }), bodyBlock(r.response_body, "response-body"));
  }

  function renderStudio() {
    const box = $("studio");
    const st = S.studio;
    box.hidden = !st;
    if (!st) return;
    $("studio-state").textContent = st.test + " — " + ({ starting: "running the test…", recording: "recording: use the app below", done: "recording ended", saved: "saved", unavailable: st.reason || "not available", ended: "the run ended", "input-error": st.reason || "" }[st.state] || st.state);
    const list = $("studio-actions");
    list.replaceChildren();
    for (const a of st.actions || []) {
      list.append(el("li", { className: "studio-action", text: a.kind + " " + a.selector + (a.value !== null && a.value !== undefined ? " " + JSON.stringify(a.value) : "") }));
    }
    for (const line of st.lines || []) list.append(el("li", { className: "studio-line", text: "line " + line }));
    $("studio-save").disabled = !(st.actions || []).length || st.state === "saved";
  }

  // -- the app's view and time travel ---------------------------------------------------------
  function showLive() {
    S.travel = null;
    $("travel-status").textContent = "";
    $("viewer").hidden = true;
    $("screen-box").hidden = false;
    $("travel-controls").hidden = true;
    $("view-title").textContent = "The app (live)";
    queueRender();
  }
  async function travel(t, attempt, c, which) {
    if (!t.traces.has(attempt)) {
      notice(S.config.keep === 0 ? "numTestsKeptInMemory is 0: no trace is kept to travel back in." : "this test's trace is not ready yet (it is written when the test ends).", "info");
      return;
    }
    const iframe = $("viewer");
    const traceUrl = location.origin + "/traces/" + encodeURIComponent(t.key) + "/" + attempt + ".zip";
    const opened = S.travel && S.travel.traceUrl === traceUrl;
    S.travel = { key: t.key, id: c.id, attempt, traceUrl, title: (c.subject ? c.subject + "." : "") + c.name + "(" + (c.args || "") + ")" };
    $("screen-box").hidden = true;
    iframe.hidden = false;
    $("travel-controls").hidden = false;
    $("view-title").textContent = "Time travel: #" + c.id + " " + S.travel.title;
    queueRender();
    const TT = window.RunnerTimeTravel;
    if (!TT) return;
    try {
      if (!opened) await TT.open(iframe, S.config.viewer, traceUrl);
      const found = await TT.showStep(iframe, { index: c.top, title: c.topTitle }, which);
      if (!found) notice("this step could not be selected in the trace viewer: pick it in the viewer's list.", "info");
      else if (c.depth) notice("a command of a custom command: the page is shown at the custom command's step (its own step is inside it in the viewer's list).", "info");
      const shown = found ? await TT.shown(iframe) : null;
      $("travel-status").textContent = shown ? shown.step + " · " + shown.tab : "";
    } catch (err) {
      notice("the trace viewer could not open the trace: " + err, "error");
    }
  }
  function travelWhich(which) {
    if (!S.travel) return;
    const t = S.tests.get(S.travel.key);
    if (!t) return showLive();
    const v = testView(t);
    const c = v.commands.get(S.travel.id);
    if (c) travel(t, S.travel.attempt, c, which);
  }

  // A frame is decoded aside and shown only once it decoded: an empty or torn one (the stream
  // ending with the run) leaves the last good picture in place, never a broken image; until the
  // first picture the pane says so in words.
  let framesAsked = 0;
  let framesShown = 0;
  function showFrame(msg) {
    if (typeof msg.data !== "string" || !msg.data) return;
    const number = ++framesAsked;
    const probe = new Image();
    probe.onload = () => {
      if (number < framesShown || !probe.naturalWidth) return;  // a newer one is shown already
      framesShown = number;
      const img = $("screen");
      img.src = probe.src;
      img.hidden = false;
      $("screen-none").hidden = true;
      if (msg.width && msg.height) S.frameSize = { width: msg.width, height: msg.height };
    };
    probe.src = "data:image/jpeg;base64," + msg.data;
  }
  function pageXY(e) {
    const img = $("screen");
    const r = img.getBoundingClientRect();
    const size = S.frameSize || { width: img.naturalWidth, height: img.naturalHeight };
    return { x: (e.clientX - r.left) * size.width / r.width, y: (e.clientY - r.top) * size.height / r.height };
  }
  function studioRecording() { return S.studio && S.studio.state === "recording"; }

  // -- the connection -------------------------------------------------------------------------
  function connect() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    $("connection").dataset.state = "connecting";
    ws.onopen = () => { $("connection").dataset.state = "open"; $("connection").textContent = "connected"; };
    ws.onclose = () => {
      $("connection").dataset.state = "closed";
      $("connection").textContent = "disconnected: reconnecting…";
      setTimeout(connect, 1000);
    };
    ws.onmessage = (m) => {
      let msg;
      try { msg = JSON.parse(m.data); } catch (e) { return; }
      switch (msg.t) {
        case "hello":
          S.config = msg.config || {}; S.specs = msg.specs || []; S.run = msg.run || { state: "idle" };
          S.specStatus = msg.state.specStatus || {}; S.testStatus = msg.state.testStatus || {};
          S.tests = new Map(); S.order = [];
          for (const t of msg.state.tests || []) {
            const rec = newTest(t.key, t.nodeid, t.spec, t.title, t.run);
            for (const ev of t.events) { rec.events.push(ev); }
            for (const a of t.traces || []) rec.traces.add(a);
            S.tests.set(t.key, rec); S.order.push(t.key);
          }
          if (!S.tests.has(S.selected)) S.selected = S.order[S.order.length - 1] || null;
          $("output").textContent = (msg.state.output || []).join("\n");
          S.studio = msg.studio || null;
          S.servers = msg.servers || [];
          break;
        case "event": {
          const ev = msg.event;
          if (msg.key) addEvent(msg.key, ev, msg.run);
          if (ev.kind === "spec.started") S.specStatus[ev.spec] = { state: "running" };
          if (ev.kind === "spec.ended") S.specStatus[ev.spec] = { state: ev.error ? "failed" : specState(ev.spec), duration_ms: ev.duration_ms, error: ev.error_message || ev.error };
          if (ev.kind === "test.started") S.testStatus[ev.nodeid] = { state: "running", spec: ev.spec, title: ev.title };
          if (ev.kind === "test.ended") S.testStatus[ev.nodeid] = { state: ev.state, duration_ms: ev.duration_ms, spec: ev.spec, title: ev.title, quarantine: ev.quarantine };
          break;
        }
        case "drop": dropTest(msg.key); break;
        case "forget": for (const nodeid of msg.nodeids || []) delete S.testStatus[nodeid]; break;
        case "frame": showFrame(msg); return;
        case "run": S.run = msg.run; if (msg.run.state === "running") { S.follow = true; } break;
        case "output": {
          const out = $("output");
          out.textContent += (out.textContent ? "\n" : "") + msg.line;
          if (out.textContent.length > 200000) out.textContent = out.textContent.slice(-150000);
          break;
        }
        case "studio": S.studio = msg.studio && msg.studio.state !== "cancelled" ? msg.studio : null; break;
        case "notice": notice(msg.message, msg.level); break;
        case "specs": S.specs = msg.specs || []; break;
        case "servers": S.servers = msg.servers || []; break;
      }
      queueRender();
    };
  }
  function specState(spec) {
    const states = Object.values(S.testStatus).filter((s) => s.spec === spec).map((s) => s.state);
    return states.includes("failed") ? "failed" : "passed";
  }

  // -- the person's input ---------------------------------------------------------------------
  document.addEventListener("DOMContentLoaded", () => {
    $("run-all").addEventListener("click", () => send({ t: "run" }));
    $("stop").addEventListener("click", () => send({ t: "stop" }));
    $("scaffold-go").addEventListener("click", () => send({ t: "scaffold" }));
    $("filter").addEventListener("input", (e) => { S.filter = e.target.value; queueRender(); });
    $("back-live").addEventListener("click", showLive);
    $("show-before").addEventListener("click", () => travelWhich("before"));
    $("show-after").addEventListener("click", () => travelWhich("after"));
    $("studio-save").addEventListener("click", () => send({ t: "studio-save" }));
    $("studio-cancel").addEventListener("click", () => send({ t: "studio-cancel" }));
    for (const tab of document.querySelectorAll(".tabs [data-tab]")) {
      tab.addEventListener("click", () => {
        for (const other of document.querySelectorAll(".tabs [data-tab]")) {
          other.setAttribute("aria-selected", other === tab ? "true" : "false");
          $("tab-" + other.dataset.tab).hidden = other !== tab;
        }
      });
    }
    const screen = $("screen");
    screen.addEventListener("click", (e) => { if (studioRecording()) { const p = pageXY(e); send({ t: "input", kind: "click", x: p.x, y: p.y }); $("screen-box").focus(); } });
    screen.addEventListener("wheel", (e) => { if (studioRecording()) { const p = pageXY(e); send({ t: "input", kind: "wheel", x: p.x, y: p.y, dx: e.deltaX, dy: e.deltaY }); e.preventDefault(); } }, { passive: false });
    $("screen-box").addEventListener("keydown", (e) => {
      if (!studioRecording() || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key.length === 1) send({ t: "input", kind: "text", text: e.key });
      else send({ t: "input", kind: "key", key: e.key });
      e.preventDefault();
    });
    connect();
  });
})();
