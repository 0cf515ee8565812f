/* runner's HTML report. Plain JavaScript, no library, nothing from the network.
 *
 * The data comes as scripts that call the functions registered below (a page opened from disk
 * may load scripts but not fetch() files): data/index.js (the run and one row per test) when the
 * page loads, data/t/<n>.js when test n is opened. Everything that came from the app or the user
 * is put in the page as text (textContent), never as HTML.
 */
(function () {
  "use strict";

  var state = {
    index: null,
    tests: {},        // number -> the test's page data, once loaded
    waiting: {},      // number -> the callbacks of a load under way
    rows: [],         // one per test: {n, spec, title, state, ms, attempts, flaky, nodeid, at, headline, slow, el, hay}
    byNodeid: {},
    groups: [],       // one per spec: {spec, el, rows}
    visible: [],      // the rows shown, in order
    status: "all",
    text: "",
    selected: -1,     // index in visible
    selectedRow: null,
    openNumber: null,
    attemptShown: {}, // number -> attempt shown
  };

  // Test row fields, in the order data/index.js writes them (report.py).
  var F = { n: 0, spec: 1, title: 2, state: 3, ms: 4, attempts: 5, flaky: 6, nodeid: 7, at: 8, headline: 9, slow: 10 };

  var registry = {
    index: function (data) { if (state.index === null) { state.index = data; } },
    test: function (number, data) {
      if (typeof number !== "number" || state.tests[number]) { return; }
      state.tests[number] = data;
      var waiting = state.waiting[number];
      if (waiting) { delete state.waiting[number]; waiting.forEach(function (w) { w.ok(data); }); }
    },
  };
  Object.freeze(registry);
  Object.defineProperty(window, "__runnerReport", { value: registry, writable: false, configurable: false });

  // -- small helpers ----------------------------------------------------------------------------
  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (key) {
        var value = props[key];
        if (value === undefined || value === null || value === false) { return; }
        if (key === "text") { node.textContent = String(value); }
        else if (key === "cls") { node.className = value; }
        else if (key === "href" || key === "src") { node[key] = safePath(value); }
        else if (key === "on") { Object.keys(value).forEach(function (ev) { node.addEventListener(ev, value[ev]); }); }
        else if (key.indexOf("data-") === 0 || key.indexOf("aria-") === 0 || key === "role" || key === "title"
                 || key === "download" || key === "target" || key === "rel" || key === "type" || key === "tabindex") {
          node.setAttribute(key, String(value === true ? "" : value));
        }
        else { node[key] = value; }
      });
    }
    for (var i = 2; i < arguments.length; i++) { append(node, arguments[i]); }
    return node;
  }

  function append(node, child) {
    if (child === null || child === undefined || child === false) { return; }
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }

  // Links and sources are the report's own files (written by runner) or fragments; anything else
  // (a javascript: URL in a crafted data file) is dropped.
  function safePath(value) {
    var text = String(value);
    if (/^#/.test(text) || /^data:image\/svg\+xml;charset=utf-8,/.test(text)) { return text; }
    if (/^(?:[\w][\w.() -]*\/)*[\w][\w.() -]*(?:[?#][^\s]*)?$/.test(text) && text.indexOf("..") < 0) { return text; }
    if (/^https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?\//.test(text)) { return text; }
    return "#";
  }

  function ms(value) {
    if (value === null || value === undefined) { return "–"; }
    if (value < 1000) { return Math.round(value) + "ms"; }
    if (value < 60000) { return (value / 1000).toFixed(value < 10000 ? 2 : 1) + "s"; }
    var minutes = Math.floor(value / 60000);
    return minutes + "m " + Math.round((value % 60000) / 1000) + "s";
  }

  function bytes(n) {
    if (n === null || n === undefined) { return "size unknown"; }
    if (n < 1024) { return n + " B"; }
    if (n < 1024 * 1024) { return (n / 1024).toFixed(1) + " KB"; }
    return (n / 1024 / 1024).toFixed(1) + " MB";
  }

  function when(epoch) {
    if (!epoch) { return "–"; }
    var d = new Date(epoch * 1000);
    return d.toLocaleString() + " (" + d.toISOString().replace(/\.\d+Z$/, "Z") + ")";
  }

  function titleText(title) { return (title || []).join(" › "); }

  function clock(seconds) {
    var m = Math.floor(seconds / 60), s = seconds - m * 60;
    return m + ":" + (s < 10 ? "0" : "") + s.toFixed(1);
  }

  var ICON = { passed: "✓", failed: "✗", pending: "○", skipped: "–", unfinished: "…", flaky: "≈", not_run: "⊘" };

  function stateBadge(stateName, flaky) {
    var name = flaky ? "flaky" : stateName;
    return el("span", { cls: "badge s-" + name, text: (ICON[name] || "?") + " " + name.replace("_", " ") });
  }

  // "quarantined" and its reason (as text, never markup); null for a test not quarantined
  function quarantineTag(nodeid, long) {
    var reasons = state.index.quarantine || {};
    if (!Object.prototype.hasOwnProperty.call(reasons, nodeid)) { return null; }
    var why = String(reasons[nodeid]);
    return el("span", { cls: "tag quarantined", title: why, text: long ? "quarantined: " + why : "quarantined" });
  }

  // -- the summary ------------------------------------------------------------------------------
  function renderSummary() {
    var run = state.index.run, t = run.totals;
    // a quarantined test's failure is shown (its row, its chip) but does not fail the run
    // --fail-on-flaky: a flaky test (passed on a retry) fails the run too
    var failed = t.failed - (t.quarantinedFailed || 0) > 0 || t.specErrors > 0 || !!run.error ||
      (t.failedAsFlaky || 0) > 0;
    var verdict = document.getElementById("verdict");
    verdict.className = "badge big s-" + (failed ? "failed" : run.interrupted ? "unfinished" : "passed");
    verdict.textContent = failed ? "failed" : run.interrupted ? "interrupted" : "passed";
    var summary = document.getElementById("summary");
    var chips = [
      ["tests", t.tests], ["passed", t.passed], ["failed", t.failed], ["flaky", t.flaky],
      ["skipped", t.skipped], ["pending", t.pending],
    ];
    if (t.quarantinedFailed) { chips.push(["quarantined", t.quarantinedFailed]); }
    // --fail-on-flaky: the flaky tests that fail the run, and the flag that made them
    if (t.failedAsFlaky) { chips.push(["flaky failing (--fail-on-flaky)", t.failedAsFlaky]); }
    if (t.unfinished) { chips.push(["unfinished", t.unfinished]); }
    if (t.notRun) { chips.push(["not run", t.notRun]); }
    if (t.specErrors) { chips.push(["spec errors", t.specErrors]); }
    append(summary, el("div", { cls: "chips" }, chips.map(function (c) {
      return el("span", { cls: "chip c-" + c[0].split(" (")[0].replace(/ /g, "-") }, el("b", { text: c[1] }), " " + c[0]);
    })));
    append(summary, el("div", { cls: "facts" },
      el("span", null, "Duration ", el("b", { text: ms(run.durationMs) })),
      el("span", null, "Started ", el("b", { text: when(run.startedAt) })),
      el("span", null, "Browser ", el("b", { text: (run.browser || "unknown") + (run.browserVersion ? " " + run.browserVersion : "") })),
      el("span", null, "runner ", el("b", { text: run.runnerVersion || "unknown" })),
      run.interrupted ? el("span", { cls: "badge s-unfinished", text: "interrupted" }) : null,
      run.error ? el("span", { cls: "badge s-failed", text: run.error }) : null,
      run.stopped ? el("span", { cls: "badge s-not_run", text: run.stopped }) : null));
    var notes = document.getElementById("notes");
    (run.notes || []).forEach(function (text) { append(notes, el("p", { cls: "note warn", text: text })); });
    (run.pluginErrors || []).forEach(function (text) {
      append(notes, el("p", { cls: "note warn", text: "A plugins file listener raised: " + text }));
    });
    var info = document.getElementById("runInfo");
    var facts = [
      ["run id", run.runId], ["runner version", run.runnerVersion], ["browser", run.browser],
      ["browser version", run.browserVersion], ["project", run.projectRoot], ["mode", run.mode],
      ["started", when(run.startedAt)], ["ended", when(run.endedAt)], ["duration", ms(run.durationMs)],
      ["interrupted", run.interrupted ? "yes" : "no"], ["report written", when(run.generatedAt)],
    ];
    (run.browsers || []).forEach(function (b) {
      facts.push(["browser launch " + b.launch, b.name + " " + b.version + " " + b.path + (b.headless ? " (headless)" : "")]);
    });
    append(info, table(["", ""], facts.map(function (f) { return [f[0], f[1] === null || f[1] === undefined ? "–" : f[1]]; }), "facts-table"));
    if ((run.servers || []).length) {
      // webServer: each entry, started by runner (how long it took to answer) or reused, and a
      // death while the tests ran with its last lines, all as text
      append(info, el("h3", { text: "The app's servers (webServer)" }));
      append(info, table(["entry", "command", "waited for", "started", "ended"], run.servers.map(function (s) {
        var started = s.reused ? "reused (it answered already; runner did not start it)"
          : "started by runner, answered in " + ms(s.tookMs) + (s.pid ? " (pid " + s.pid + ")" : "");
        var ended = s.exited ? el("div", { cls: "server-died" }, el("b", { cls: "badge s-failed", text: s.exited + " while the tests ran" }),
          s.output.length ? el("pre", { cls: "server-output", text: s.output.join("\n") }) : el("div", { text: "no output kept" }))
          : (s.reused ? "not stopped by runner" : "stopped by runner at the end");
        return [s.name, el("code", { text: s.command }), s.target || "–", started, ended];
      }), "servers-table"));
    }
    if (run.onlyChanged) {
      // --only-changed: which specs ran and why, as the terminal's line said it
      var changed = run.onlyChanged;
      append(info, el("h3", { text: "Only changed since " + changed.ref + " (--only-changed)" }));
      append(info, el("p", { cls: "only-changed", text: changed.notice }));
      if ((changed.specs || []).length) {
        append(info, table(["spec", "why it ran"], changed.specs.map(function (s) {
          return [el("code", { text: s.spec }), s.why];
        }), "only-changed-table"));
      }
    }
    append(info, el("h3", { text: "Configuration (value and where it came from)" }));
    append(info, table(["option", "value", "source"], (run.config || []).map(function (c) {
      return [c[0], el("code", { text: JSON.stringify(c[1]) }), el("span", { cls: "src src-" + String(c[2]).replace(/\W/g, ""), text: c[2] || "" })];
    }), "config-table"));
  }

  function table(head, rows, cls) {
    var t = el("table", { cls: cls || "" });
    if (head.some(function (h) { return h; })) {
      t.appendChild(el("thead", null, el("tr", null, head.map(function (h) { return el("th", { text: h }); }))));
    }
    var body = el("tbody");
    rows.forEach(function (r) {
      body.appendChild(el("tr", null, r.map(function (cell) {
        return el("td", null, cell === null || cell === undefined ? "" : cell);
      })));
    });
    t.appendChild(body);
    return el("div", { cls: "scroll" }, t);
  }

  // -- the list ---------------------------------------------------------------------------------
  var pending = false;  // a text filter typed and not yet applied (applied once per frame)

  function buildList() {
    var specs = state.index.specs, tests = state.index.tests;
    var list = document.getElementById("list");
    var fragment = document.createDocumentFragment();
    var groups = specs.map(function (spec) {
      var head = el("div", { cls: "spec" }, el("span", { cls: "spec-name", text: spec.name }));
      if (spec.error) {
        head.appendChild(el("div", { cls: "spec-error" },
          el("span", { cls: "badge s-failed", text: "✗ could not be loaded" }), " ",
          el("span", { text: spec.errorMessage || "" }),
          el("details", null, el("summary", { text: "the error" }), el("pre", { cls: "error", text: spec.error }))));
      }
      var box = el("div", { cls: "group" }, head);
      fragment.appendChild(box);
      return { spec: spec, el: box, head: head, rows: [] };
    });
    for (var i = 0; i < tests.length; i++) {
      var r = tests[i];
      var row = {
        n: r[F.n], spec: r[F.spec], title: r[F.title], state: r[F.state], ms: r[F.ms], attempts: r[F.attempts],
        flaky: !!r[F.flaky], nodeid: r[F.nodeid], at: r[F.at], headline: r[F.headline], slow: !!r[F.slow],
      };
      var group = groups[row.spec];
      row.hay = (titleText(row.title) + "\n" + (group ? group.spec.name : "") + "\n" + row.nodeid).toLowerCase();
      row.el = el("div", { cls: "row s-" + (row.flaky ? "flaky" : row.state), role: "option", "data-n": row.n, "aria-selected": "false" },
        el("span", { cls: "icon", "aria-hidden": "true", text: ICON[row.flaky ? "flaky" : row.state] || "?" }),
        el("span", { cls: "title", text: titleText(row.title) }),
        el("span", { cls: "meta" },
          quarantineTag(row.nodeid),
          row.flaky ? el("span", { cls: "tag flaky", text: "flaky" }) : null,
          acrossRuns(row.nodeid),
          row.attempts > 1 ? el("span", { cls: "tag", text: row.attempts + " attempts" }) : null,
          row.slow ? el("span", { cls: "tag", text: "slow" }) : null,
          el("span", { cls: "dur", text: ms(row.ms) }),
          historyStrip(row.nodeid)),
        row.headline ? el("span", { cls: "headline", text: row.headline }) : null);
      state.rows.push(row);
      if (!(row.nodeid in state.byNodeid)) { state.byNodeid[row.nodeid] = row; }
      if (group) { group.rows.push(row); group.el.appendChild(row.el); }
    }
    state.groups = groups;
    list.appendChild(fragment);
    list.addEventListener("click", function (event) {
      var target = event.target.closest ? event.target.closest(".row") : null;
      if (!target) { return; }
      var row = rowByNumber(Number(target.getAttribute("data-n")));
      if (row) { select(state.visible.indexOf(row)); openRow(row); }
    });
  }

  // -- the history: this test's outcome in the last runs (run/history.py's report_data) ----------
  var HISTORY_WORD = { passed: "passed", failed: "failed", flaky: "passed on a retry", skipped: "skipped",
                       pending: "pending" };

  function historyOf(nodeid) {
    var h = state.index.history;
    return h && h.tests && Object.prototype.hasOwnProperty.call(h.tests, nodeid) ? h.tests[nodeid] : null;
  }

  function historyStrip(nodeid) {
    var outcomes = historyOf(nodeid);
    if (!outcomes) { return null; }
    var words = outcomes.map(function (o) { return HISTORY_WORD[o] || "not run"; });
    var label = "the last " + outcomes.length + " run" + (outcomes.length === 1 ? "" : "s") +
      ", oldest first: " + words.join(", ");
    return el("span", { cls: "hist", role: "img", title: label, "aria-label": label },
      outcomes.map(function (o) { return el("i", { cls: "h-" + (HISTORY_WORD[o] ? o : "none") }); }));
  }

  function acrossRuns(nodeid) {
    var h = state.index.history;
    if (!h || !h.flaky || !Object.prototype.hasOwnProperty.call(h.flaky, nodeid)) { return null; }
    return el("span", { cls: "tag flaky across", text: "flaky across runs",
                        title: h.flaky[nodeid] + " (the last " + h.runs + " runs)" });
  }

  function rowByNumber(n) {
    for (var i = 0; i < state.rows.length; i++) { if (state.rows[i].n === n) { return state.rows[i]; } }
    return null;
  }

  function matches(row) {
    var s = state.status;
    // a flaky row is in "Flaky" only, as it is counted (not in "Passed" too)
    if (s !== "all" && (row.flaky ? "flaky" : row.state) !== s) { return false; }
    return !state.text || row.hay.indexOf(state.text) >= 0;
  }

  function applyFilters() {
    pending = false;
    var shownBefore = state.selectedRow;
    state.visible = [];
    state.groups.forEach(function (group) {
      var any = false;
      group.rows.forEach(function (row) {
        var show = matches(row);
        if (row.el.hidden === show) { row.el.hidden = !show; }
        if (show) { state.visible.push(row); any = true; }
      });
      var showGroup = any || (!!group.spec.error && state.status !== "passed" && (!state.text
        || group.spec.name.toLowerCase().indexOf(state.text) >= 0));
      if (group.el.hidden === showGroup) { group.el.hidden = !showGroup; }
    });
    document.getElementById("count").textContent =
      "Showing " + state.visible.length + " of " + state.rows.length + " tests";
    var keep = state.visible.indexOf(shownBefore);
    select(keep >= 0 ? keep : -1, true);
  }

  function renderStatusFilters() {
    var box = document.getElementById("statusFilters");
    var t = state.index.run.totals;
    [["all", "All", t.tests], ["passed", "Passed", t.passed], ["failed", "Failed", t.failed],
     ["flaky", "Flaky", t.flaky], ["skipped", "Skipped", t.skipped], ["pending", "Pending", t.pending]]
      .concat(t.notRun ? [["not_run", "Not run", t.notRun]] : [])
      .forEach(function (f) {
        box.appendChild(el("button", {
          type: "button", cls: "filter f-" + f[0], "data-status": f[0], "aria-pressed": f[0] === state.status ? "true" : "false",
          on: { click: function () { setStatus(f[0]); } },
        }, f[1] + " ", el("span", { cls: "n", text: f[2] })));
      });
  }

  function setStatus(status) {
    state.status = status;
    Array.prototype.forEach.call(document.querySelectorAll("#statusFilters button"), function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-status") === status ? "true" : "false");
    });
    applyFilters();
  }

  function select(index, quiet) {
    var before = state.selectedRow;
    if (before) { before.el.classList.remove("selected"); before.el.setAttribute("aria-selected", "false"); }
    state.selected = index;
    var row = state.visible[index];
    state.selectedRow = row || null;
    if (row) {
      row.el.classList.add("selected");
      row.el.setAttribute("aria-selected", "true");
      if (!quiet) { row.el.scrollIntoView({ block: "nearest" }); }
    }
  }

  function move(step) {
    if (pending) { applyFilters(); }  // typed just before: the list must be the filtered one
    if (!state.visible.length) { return; }
    var next = state.selected < 0 ? (step > 0 ? 0 : state.visible.length - 1)
      : Math.max(0, Math.min(state.visible.length - 1, state.selected + step));
    select(next);
    if (state.openNumber !== null) { openRow(state.visible[next]); }
  }

  // -- opening a test ---------------------------------------------------------------------------
  function openRow(row) {
    var hash = "#test=" + encodeURIComponent(row.nodeid);
    if (location.hash !== hash) { location.hash = hash; } else { show(row); }
  }

  function closeTest() {
    state.openNumber = null;
    var detail = document.getElementById("detail");
    detail.hidden = true;
    detail.textContent = "";
    document.body.classList.remove("open");
    if (location.hash) { history.replaceState(null, "", location.pathname + location.search); }
    var row = state.visible[state.selected];
    if (row) { row.el.scrollIntoView({ block: "nearest" }); }
  }

  function fromHash() {
    var match = /^#test=(.*)$/.exec(location.hash);
    if (!match) { if (state.openNumber !== null) { closeTest(); } return; }
    var nodeid;
    try { nodeid = decodeURIComponent(match[1]); } catch (e) { nodeid = match[1]; }
    var row = state.byNodeid[nodeid];
    var detail = document.getElementById("detail");
    if (!row) {
      openPane();
      detail.textContent = "";
      append(detail, closeBar(), el("p", { cls: "note warn", text: "This report has no test " + nodeid + "." }));
      return;
    }
    if (state.visible.indexOf(row) < 0) { state.status = "all"; state.text = ""; document.getElementById("filter").value = ""; setStatus("all"); }
    select(state.visible.indexOf(row));
    show(row);
  }

  function openPane() {
    var detail = document.getElementById("detail");
    detail.hidden = false;
    document.body.classList.add("open");
  }

  function loadTest(n) {
    return new Promise(function (ok, fail) {
      if (state.tests[n]) { ok(state.tests[n]); return; }
      var waiting = state.waiting[n];
      if (waiting) { waiting.push({ ok: ok }); return; }
      state.waiting[n] = [{ ok: ok }];
      var script = document.createElement("script");
      script.src = "data/t/" + n + ".js";
      script.onerror = function () {
        delete state.waiting[n];
        script.remove();
        fail(new Error("data/t/" + n + ".js could not be loaded: the report folder is incomplete."));
      };
      script.onload = function () {
        script.remove();
        if (!state.tests[n]) { delete state.waiting[n]; fail(new Error("data/t/" + n + ".js does not hold test " + n + ".")); }
      };
      document.head.appendChild(script);
    });
  }

  function closeBar() {
    return el("div", { cls: "closebar" },
      el("button", { type: "button", cls: "close", "aria-label": "Close the test (Esc)", on: { click: closeTest } }, "✕ Close"));
  }

  function show(row) {
    state.openNumber = row.n;
    openPane();
    var detail = document.getElementById("detail");
    detail.textContent = "";
    append(detail, closeBar(), el("h2", { cls: "test-title", text: titleText(row.title) }), el("p", { cls: "hint", text: "Loading…" }));
    loadTest(row.n).then(function (data) {
      if (state.openNumber !== row.n) { return; }
      detail.textContent = "";
      renderTest(detail, data, row);
      detail.scrollTop = 0;
    }, function (err) {
      if (state.openNumber !== row.n) { return; }
      detail.textContent = "";
      append(detail, closeBar(), el("h2", { cls: "test-title", text: titleText(row.title) }),
        el("p", { cls: "note warn", text: err.message }));
    });
  }

  function renderTest(detail, data, row) {
    var spec = state.index.specs[row.spec] || {};
    append(detail, closeBar());
    append(detail, el("h2", { cls: "test-title", text: titleText(data.title) }));
    append(detail, el("div", { cls: "facts" },
      stateBadge(data.state, data.flaky),
      el("span", null, "Spec ", el("b", { text: spec.name || data.spec })),
      el("span", null, "Duration ", el("b", { text: ms(data.durationMs) })),
      el("span", null, "Attempts ", el("b", { text: String(data.attempts.length) })),
      data.slow ? el("span", { cls: "tag", text: "slow" }) : null,
      data.verdict ? el("span", { cls: "verdict" }, "Retry strategy ", el("b", { text: data.verdict })) : null,
      quarantineTag(data.nodeid, true),
      el("a", { href: "#test=" + encodeURIComponent(data.nodeid), cls: "permalink", text: "Link to this test" })));
    append(detail, el("p", { cls: "nodeid" }, el("code", { text: data.nodeid })));
    var attempts = data.attempts || [];
    var chosen = state.attemptShown[data.number];
    if (chosen === undefined) { chosen = attempts.length - 1; }
    var body = el("div", { cls: "attempt" });
    if (attempts.length > 1) {
      var tabs = el("div", { cls: "tabs", role: "tablist" });
      attempts.forEach(function (a, i) {
        tabs.appendChild(el("button", {
          type: "button", role: "tab", cls: "tab s-" + a.state, "aria-selected": i === chosen ? "true" : "false",
          on: { click: function () { state.attemptShown[data.number] = i; detail.textContent = ""; renderTest(detail, data, row); } },
        }, "Attempt " + a.attempt + " ", el("span", { text: (ICON[a.state] || "") + " " + a.state })));
      });
      append(detail, tabs);
    }
    append(detail, body);
    if (!attempts.length && data.state === "not_run") {  // no attempt: why it did not run
      append(body, el("p", { cls: "note", text: "Not run: " + (row && row.headline || "the run stopped before this test.") }));
    }
    if (attempts[chosen]) { renderAttempt(body, attempts[chosen], data, spec); }
  }

  function section(title, content, open) {
    return el("section", { cls: "part" }, el("h3", { text: title }), content);
  }

  function renderAttempt(box, a, data, spec) {
    var head = [stateBadge(a.state, false), " ", el("span", { text: "attempt " + a.attempt + " · " + ms(a.durationMs) })];
    append(box, el("p", { cls: "attempt-head" }, head));
    if (a.error || a.message) {
      append(box, section("Error", [a.message ? el("p", { cls: "message", text: a.message }) : null, a.error && a.error.trim() !== a.message ? errorBlock(a.error) : null]));
    } else if (a.state === "unfinished") {
      append(box, el("p", { cls: "note warn", text: "This attempt did not end: the run stopped during it." }));
    }
    var media = [];
    (a.screenshots || []).forEach(function (shot) {
      if (shot.file) {
        media.push(el("figure", { cls: "shot" },
          el("a", { href: shot.file, target: "_blank", rel: "noopener" }, el("img", { src: shot.file, alt: "screenshot " + shot.name, loading: "lazy" })),
          el("figcaption", { text: (shot.failure ? "failure screenshot: " : "") + shot.name })));
      } else {
        media.push(el("p", { cls: "missing", text: "screenshot missing: " + shot.missing + " (" + shot.why + ")" }));
      }
    });
    var video = videoPart(spec, a, data);
    if (video) { media.push(video); }
    if (media.length) { append(box, section("Screenshots and video", el("div", { cls: "media" }, media))); }
    var snaps = a.snapshots || [];
    if (snaps.length) { append(box, section("Snapshots (" + snaps.length + ")", snaps.map(snapshotPart))); }
    var trace = tracePart(a);
    if (trace) { append(box, section("Trace", trace)); }
    append(box, section("Command log", commandsPart(a)));
    if ((a.a11y || []).length) { append(box, section("Accessibility (" + a.a11y.length + ")", a11yPart(a))); }
    append(box, section("Routes (" + (a.routes || []).length + ")", routesPart(a)));
    append(box, section("Requests (" + (a.requests || []).length + ")", requestsPart(a)));
  }

  // One match.screenshot / match.aria_snapshot: its outcome and words; a failed picture's expected,
  // actual and diff side by side, and a slider that uncovers the actual over the expected.
  function snapshotPart(s) {
    var what = s.what === "aria" ? "aria snapshot" : "screenshot";
    var part = el("div", { cls: "snapshot " + (s.passed ? "ok" : "bad"), "data-name": s.name },
      el("p", { cls: "snapshot-head" }, el("b", { text: s.name }), " ",
        el("span", { cls: "tag", text: what + " · " + s.outcome }), " ", el("code", { text: s.baseline })));
    if (!s.passed && s.message) { append(part, el("p", { cls: "message", text: s.message })); }
    var images = ["expected", "actual", "diff"].map(function (kind) {
      var file = s[kind];
      if (!file) { return null; }
      if (!file.file) { return el("p", { cls: "missing", text: kind + " missing: " + file.missing + " (" + file.why + ")" }); }
      return el("figure", { cls: "shot snap-" + kind },
        el("a", { href: file.file, target: "_blank", rel: "noopener" }, el("img", { src: file.file, alt: kind + " " + s.name })),
        el("figcaption", { text: kind }));
    }).filter(Boolean);
    if (images.length) { append(part, el("div", { cls: "media" }, images)); }
    if (s.expected && s.expected.file && s.actual && s.actual.file) { append(part, comparer(s)); }
    if (s.diffText) {
      var pre = el("pre", { cls: "unified" });
      s.diffText.split("\n").forEach(function (line) {
        var cls = /^(\+\+\+|---)/.test(line) ? "where" : /^\+/.test(line) ? "add" : /^-/.test(line) ? "del" : "";
        pre.appendChild(el("span", { cls: "line " + cls, text: line + "\n" }));
      });
      append(part, pre);
    }
    return part;
  }

  // two views of the actual picture over the expected one: a slider that uncovers it from the
  // left, or an onion skin that fades it in
  function comparer(s) {
    var top = el("img", { src: s.actual.file, alt: "actual " + s.name });
    var over = el("div", { cls: "over" }, top);
    var slider = el("input", { type: "range", min: 0, max: 100, value: 50, cls: "slider", "aria-label": "actual over expected, in %" });
    var hint = el("p", { cls: "hint" });
    var onion = false;
    function show() {
      over.style.width = onion ? "100%" : slider.value + "%";
      top.style.opacity = onion ? String(slider.value / 100) : "1";
      over.classList.toggle("onion", onion);
      hint.textContent = onion ? "Onion skin: the actual picture faded in over the expected one."
                               : "Slide: the actual picture (left of the line) over the expected one.";
    }
    var modes = el("div", { cls: "modes", role: "group", "aria-label": "comparison view" },
      el("button", { type: "button", cls: "mode-slider", text: "Slider", on: { click: function () { onion = false; show(); } } }),
      el("button", { type: "button", cls: "mode-onion", text: "Onion skin", on: { click: function () { onion = true; show(); } } }));
    slider.addEventListener("input", show);
    show();
    return el("div", { cls: "comparer" }, modes, hint,
      el("div", { cls: "stack" }, el("img", { src: s.expected.file, alt: "expected " + s.name }), over), slider);
  }

  function errorBlock(text) {
    var pre = el("pre", { cls: "error" });
    String(text).split("\n").forEach(function (line) {
      var cls = /^>/.test(line) ? "hl" : /^E\s/.test(line) ? "err" : /^\S.*:\d+: \w/.test(line) ? "where" : "";
      pre.appendChild(el("span", { cls: "line " + cls, text: line + "\n" }));
    });
    return pre;
  }

  function videoPart(spec, a, data) {
    var video = spec.video;
    if (!video) { return null; }
    if (!video.file) { return el("p", { cls: "missing", text: "the spec's video is missing: " + video.missing + " (" + video.why + ")" }); }
    var startedAt = spec.videoStartedAt;
    var at = a.startedAt || data.startedAt;
    if (typeof startedAt !== "number" || startedAt <= 0 || !at) {
      return el("p", { cls: "hint" }, "The spec's video (this test's moment in it is not known): ",
        el("a", { href: video.file, target: "_blank", rel: "noopener", text: video.file }));
    }
    var offset = Math.max(0, at - startedAt);
    var player = el("video", { controls: true, preload: "metadata", muted: true, src: video.file + "#t=" + offset.toFixed(2) });
    player.addEventListener("loadedmetadata", function () {
      if (Math.abs(player.currentTime - offset) > 0.2) { player.currentTime = offset; }
    });
    return el("figure", { cls: "video" }, player,
      el("figcaption", { text: "The spec's video from this attempt's start (" + clock(offset) + ")" }));
  }

  function tracePart(a) {
    var trace = a.trace;
    if (!trace) { return null; }
    if (!trace.file) { return el("p", { cls: "missing", text: "trace missing: " + trace.missing + " (" + trace.why + ")" }); }
    var download = el("a", { href: trace.file, download: true, text: "download the trace (" + trace.file + ")" });
    if (location.protocol === "file:") {
      return el("p", null, "The trace viewer needs the report served over http: open the report with ",
        el("code", { text: "runner show-report" }), " to view the trace. Or ", download, ".");
    }
    if (!state.index.traceViewer) {
      return el("p", null, "This report holds no trace viewer (the installed Playwright has none): ", download, ".");
    }
    var url = new URL(trace.file, location.href).href;
    return el("p", null,
      el("a", { cls: "button", href: "trace/index.html?trace=" + encodeURIComponent(url), target: "_blank", rel: "noopener", text: "Open the trace" }),
      " in Playwright's trace viewer · ", download);
  }

  function commandsPart(a) {
    var commands = a.commands || [];
    if (!commands.length) {
      if (a.log && a.log.length) {
        return [el("p", { cls: "hint", text: "This run recorded no command events for this test (its tests ran in pytest-xdist workers, say): the attempt's own log." }),
          el("ol", { cls: "log" }, a.log.map(function (line) { return el("li", { text: line }); }))];
      }
      return el("p", { cls: "hint", text: "No commands." });
    }
    var rows = commands.map(function (c, i) {
      var what = c.kind === "log" ? el("span", { cls: "cmd" }, el("b", { text: "log " }), el("span", { text: c.args }))
        : c.kind === "request" ? el("span", { cls: "cmd request" }, el("b", { text: "(" + c.name + ") " }), el("span", { text: c.args }),
          el("span", { cls: "req-alias", text: (c.aliases || []).map(function (a) { return " @" + a; }).join("") }),
          el("span", { cls: "req-mark", text: (c.stubbed ? " stubbed" : c.server ? " to the service" : " to the server") + requestNote(c) }))
        : el("span", { cls: "cmd" }, c.depth ? el("span", { cls: "nested", text: "\u00a0\u00a0".repeat(c.depth - 1) + "\u21b3 " }) : null,
          c.subject ? el("span", { cls: "subject", text: c.subject + "." }) : null,
          el("b", { text: c.name }), el("span", { text: "(" + (c.args || "") + ")" }),
          c.result ? el("span", { cls: "cmd-result", text: " \u2192 " + c.result }) : null);
      var cell = [what];
      if (c.error) { cell.push(el("div", { cls: "cmd-error", text: c.error })); }
      return { cells: [String(i + 1), cell, c.file ? c.file + (c.line ? ":" + c.line : "") : "",
        c.at === null || c.at === undefined ? "" : "+" + ms(Math.max(0, c.at)), c.kind === "log" ? "" : ms(c.durationMs),
        el("span", { cls: "st s-" + c.state, text: c.state })], state: c.state };
    });
    var wrap = table(["#", "command", "where", "at", "took", ""], rows.map(function (r) { return r.cells; }), "commands");
    var trs = wrap.querySelectorAll("tbody tr");
    rows.forEach(function (r, i) { trs[i].className = "s-" + r.state; });
    return wrap;
  }

  // axe's help pages are named, never fetched: a link only to an https address, opened by the reader.
  function helpLink(url) {
    var text = String(url || "");
    if (!/^https:\/\/[^\s"'<>`]+$/.test(text)) { return el("code", { text: text || "–" }); }
    var link = el("a", { text: text, target: "_blank", rel: "noopener noreferrer" });
    link.setAttribute("href", text);
    return link;
  }

  function a11yPart(a) {
    return a.a11y.map(function (check) {
      var where = check.scope || "the document";
      var limits = check.impact ? "fails at " + check.impact + " and up" : "nothing fails (warn)";
      if (check.warn) { limits += ", warns at " + check.warn + " and up"; }
      var head = el("p", { cls: "a11y-head" }, el("b", { text: "check_a11y" }), " (command " + check.command + ") on " + where + ": " +
        check.violations.length + " violation" + (check.violations.length === 1 ? "" : "s") + " · " + limits +
        (check.ignored ? " · " + check.ignored + " under the thresholds not counted" : "") + (check.axe ? " · axe-core " + check.axe : ""));
      if (!check.violations.length) { return el("div", { cls: "a11y-check" }, head); }
      var wrap = table(["rule", "impact", "elements", "help"], check.violations.map(function (v) {
        var nodes = (v.nodes || []).map(function (n) {
          return el("li", null, el("code", { cls: "a11y-target", text: n.target }), " ", el("code", { cls: "a11y-html", text: n.html }));
        });
        if ((v.elements || 0) > nodes.length) { nodes.push(el("li", { text: "and " + (v.elements - nodes.length) + " more" })); }
        return [el("code", { text: v.rule }), el("span", { cls: "st a11y-" + v.outcome, text: v.impact + (v.outcome === "warned" ? " (warned)" : "") }),
          el("ul", { cls: "a11y-nodes" }, nodes), el("div", null, el("span", { text: v.help }), el("br"), helpLink(v.help_url))];
      }), "a11y");
      return el("div", { cls: "a11y-check" }, head, wrap);
    });
  }

  function routesPart(a) {
    var routes = a.routes || [];
    if (!routes.length) { return el("p", { cls: "hint", text: "No routes." }); }
    return table(["method", "route matcher", "stubbed", "alias", "handler", "#"], routes.map(function (r) {
      return [r.method, el("code", { text: r.matcher }), r.stubbed ? "yes" : "no", r.alias || "–",
        (r.handler || "") + (r.server ? " (the app's server)" : ""), r.matches === null || r.matches === undefined ? "–" : String(r.matches)];
    }), "routes");
  }

  function requestsPart(a) {
    var requests = a.requests || [];
    if (!requests.length) { return el("p", { cls: "hint", text: "No intercepted requests." }); }
    var span = Math.max(a.durationMs || 0, 1);
    requests.forEach(function (r) {
      var end = (r.at || 0) + ((r.timings && r.timings.total) || 0);
      if (end > span) { span = end; }
    });
    var box = el("div", { cls: "requests" });
    if (a.requestsFrom === "attempt") {
      box.appendChild(el("p", { cls: "hint", text: "These rows come from the attempt's own table (no request events were recorded for it): no bodies, no times on the attempt's time line." }));
    }
    var list = el("div", { cls: "req-list" });
    box.appendChild(el("div", { cls: "req-head" }, el("span", { text: "request" }), el("span", { text: "status" }),
      el("span", { text: "by" }), el("span", { text: "took" }), el("span", { cls: "wf-scale", text: "0 … " + ms(span) })));
    requests.forEach(function (r) {
      var total = r.timings ? r.timings.total : null;
      var status = r.status === null || r.status === undefined ? (r.error ? "error" : r.open ? "open" : "–") : String(r.status);
      var summary = el("summary", { cls: "req" },
        el("span", { cls: "req-what" }, el("b", { text: (r.server ? "(server) " : "") + r.method + " " }), el("span", { cls: "url", text: r.url })),
        el("span", { cls: "req-status" + (r.status >= 400 || r.error ? " bad" : ""), text: status }),
        el("span", { cls: "req-by " + (r.stubbed ? "stub" : "server"), text: r.stubbed ? "stubbed" : "server" }),
        el("span", { cls: "req-took", text: ms(total) }),
        waterfall(r, span));
      var details = el("details", { cls: "req-item" }, summary, el("div", { cls: "req-body" }));
      details.addEventListener("toggle", function () {
        var inner = details.querySelector(".req-body");
        if (details.open && !inner.firstChild) { requestDetails(inner, r, a); }
      });
      list.appendChild(details);
    });
    box.appendChild(list);
    return box;
  }

  // a request still in flight when its test ended, or whose response came after responseTimeout
  function requestNote(r) {
    return (r.open ? " (still in flight when the test ended)" : "") + (r.late ? " (late: after its responseTimeout)" : "");
  }

  function waterfall(r, span) {
    var t = r.timings || {};
    var total = t.total || 0;
    var bar = el("span", { cls: "wf", title: "queued " + ms(t.queued) + " · handler " + ms(t.handler) + " · upstream " + ms(t.upstream) + " · total " + ms(t.total) });
    var track = el("span", { cls: "wf-bar" + (r.at === null || r.at === undefined ? " unplaced" : "") });
    track.style.left = (Math.max(0, r.at || 0) / span * 100).toFixed(2) + "%";
    track.style.width = Math.max(0.5, total / span * 100).toFixed(2) + "%";
    var parts = [["queued", t.queued], ["handler", t.handler], ["upstream", t.upstream]];
    var used = 0;
    parts.forEach(function (p) {
      if (!p[1] || !total) { return; }
      var seg = el("span", { cls: "seg " + p[0] });
      seg.style.width = Math.min(100, p[1] / total * 100).toFixed(2) + "%";
      used += p[1];
      track.appendChild(seg);
    });
    bar.appendChild(track);
    return bar;
  }

  function requestDetails(box, r, a) {
    var t = r.timings || {};
    append(box, el("p", { cls: "facts" },
      el("span", null, "state ", el("b", { text: (r.state || "–") + requestNote(r) })),
      r.error ? el("span", { cls: "cmd-error", text: r.error }) : null,
      el("span", null, "type ", el("b", { text: r.resourceType || "–" })),
      r.aliases && r.aliases.length ? el("span", null, "aliases ", el("b", { text: r.aliases.map(function (x) { return "@" + x; }).join(" ") })) : null,
      el("span", null, "queued ", el("b", { text: ms(t.queued) })),
      el("span", null, "handler ", el("b", { text: ms(t.handler) })),
      el("span", null, "upstream ", el("b", { text: ms(t.upstream) })),
      el("span", null, "total ", el("b", { text: ms(t.total) })),
      r.at !== null && r.at !== undefined ? el("span", null, "started at ", el("b", { text: "+" + ms(Math.max(0, r.at)) })) : null));
    append(box, el("p", { cls: "url-full" }, el("code", { text: r.url })));
    append(box, el("div", { cls: "sides" },
      el("div", { cls: "side" }, el("h4", { text: "Request headers" }), headers(r.requestHeaders),
        el("h4", { text: "Request body" }), bodyPart(r.requestBody, a, "request")),
      el("div", { cls: "side" }, el("h4", { text: "Response headers" }), headers(r.responseHeaders),
        el("h4", { text: "Response body" }), bodyPart(r.responseBody, a, "response"))));
  }

  function headers(map) {
    var names = Object.keys(map || {});
    if (!names.length) { return el("p", { cls: "hint", text: "none" }); }
    return table(["", ""], names.map(function (k) { return [el("b", { text: k }), el("code", { text: map[k] })]; }), "headers");
  }

  function bodyPart(b, a, which) {
    if (!b || b.state === "none") { return el("p", { cls: "hint", text: "no body" }); }
    if (b.state === "unrecorded") {
      var why = a.requestsFrom === "attempt" ? "not recorded: this run's events hold no bodies for this attempt"
        : which === "response" ? "not recorded: the test did not read this server response" : "not recorded";
      return el("p", { cls: "hint unrecorded", text: why + (a.trace && a.trace.file ? "; the trace has it" : "") +
        (b.size ? " (" + bytes(b.size) + ")" : "") });
    }
    var meta = [b.type || "no content type", bytes(b.size)];
    if (b.recordCut) { meta.push("runner recorded only its first 1 MiB"); }
    if (b.shownCut) { meta.push("showing the first 64 KB"); }
    var out = [el("p", { cls: "body-meta" }, meta.join(" · "), b.file ? [" · ", el("a", { href: b.file, download: true, text: "download the whole recorded body" })] : null)];
    if (b.kind === "image" && b.image) {
      out.push(el("img", { cls: "body-image", src: b.image, alt: "image body" }));
    } else if (b.kind === "svg" && typeof b.text === "string" && !b.shownCut && !b.recordCut) {
      out.push(el("img", { cls: "body-image", src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(b.text), alt: "SVG body" }));
      out.push(el("pre", { cls: "body", text: b.text }));
    } else if (b.kind === "binary") {
      out.push(el("p", { cls: "hint", text: "binary body: download it to look at it" }));
    } else if (typeof b.text === "string") {
      var text = b.text;
      if (b.kind === "json" && !b.shownCut && !b.recordCut) {
        try { text = JSON.stringify(JSON.parse(b.text), null, 2); } catch (e) { /* not JSON after all: as it is */ }
      }
      out.push(el("pre", { cls: "body" + (b.kind === "json" ? " json" : ""), text: text }));
    }
    return out;
  }

  // -- keys -------------------------------------------------------------------------------------
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var filter = document.getElementById("filter");
    var inField = event.target === filter || /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName || "");
    var key = event.key;
    if (inField) {
      if (key === "Escape") { if (filter.value) { filter.value = ""; onFilter(); } else { filter.blur(); } event.preventDefault(); }
      else if (key === "ArrowDown" || key === "Enter") {
        filter.blur();
        if (pending) { applyFilters(); }
        if (key === "Enter" && state.visible.length) { select(state.selected < 0 ? 0 : state.selected); openRow(state.visible[state.selected]); }
        else { move(1); }
        event.preventDefault();
      }
      return;
    }
    if (key === "/") { filter.focus(); filter.select(); event.preventDefault(); }
    else if (key === "j" || key === "ArrowDown") { move(1); event.preventDefault(); }
    else if (key === "k" || key === "ArrowUp") { move(-1); event.preventDefault(); }
    else if (key === "Enter" && event.target.tagName !== "BUTTON" && event.target.tagName !== "A" && event.target.tagName !== "SUMMARY") {
      var row = state.visible[state.selected];
      if (row) { openRow(row); event.preventDefault(); }
    }
    else if (key === "Escape") { if (state.openNumber !== null) { closeTest(); event.preventDefault(); } }
  }

  function onFilter() {
    state.text = document.getElementById("filter").value.trim().toLowerCase();
    if (pending) { return; }
    pending = true;
    requestAnimationFrame(function () { if (pending) { applyFilters(); } });
  }

  // -- start ------------------------------------------------------------------------------------
  function start() {
    var loading = document.getElementById("loading");
    if (!state.index) {
      loading.textContent = "data/index.js could not be loaded: this folder does not hold a whole runner report.";
      loading.className = "note warn";
      return;
    }
    renderSummary();
    renderStatusFilters();
    buildList();
    loading.hidden = true;
    document.getElementById("main").hidden = false;
    applyFilters();
    document.getElementById("filter").addEventListener("input", onFilter);
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", fromHash);
    fromHash();
    document.documentElement.setAttribute("data-ready", String(Math.round(performance.now())));
  }

  document.addEventListener("DOMContentLoaded", start);
})();
