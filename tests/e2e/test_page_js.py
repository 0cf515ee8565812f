"""The page's own JavaScript: runner.window() / runner.document() (its, invoke, should, read in
the page and retried), runner.hash(), runner.evaluate(), on a real page whose script holds an app."""

from __future__ import annotations

import time

import pytest
from tests.support.runner_reads import log_lines, page_value

from runner import CommandError, UsageError
from runner.commands.page_js import PageObject

APP = """<!doctype html><html><head><title>Store</title></head><body>
<h1 id="title" class="big">Store</h1><ul id="items"></ul>
<script>
  const items = document.getElementById("items");
  window.app = {
    store: {
      state: {count: 0, items: []},
      dispatch(action) {
        if (action.type === "add") {
          this.state.count += 1;
          this.state.items.push(action.name);
          const li = document.createElement("li"); li.textContent = action.name; items.appendChild(li);
        }
        if (action.type === "boom") throw new TypeError("unknown action " + action.type);
        return this.state.count;
      },
      later(ms, value) { return new Promise(resolve => setTimeout(() => resolve(value), ms)); },
      refuse() { return Promise.reject(new RangeError("no way")); },
      never() { return new Promise(() => {}); },
    },
    title: document.getElementById("title"),
  };
  window.app.self = window.app;
  localStorage.setItem("theme", "dark");
  setTimeout(() => { localStorage.setItem("token", "abc123"); window.appReady = true; }, 300);
</script></body></html>"""


def test_its_reads_dotted_paths_and_waits_for_them(runner, server):
    runner.visit(server.page("/app", APP))
    runner.window().its("localStorage.token").should("eq", "abc123")  # set 300 ms after load
    assert runner.window().its("localStorage.theme").value() == "dark"
    assert runner.window().its("app.store.state").value() == {"count": 0, "items": []}
    runner.window().its("app").its("store.state.count").should("eq", 0)
    runner.document().its("title").should("eq", "Store")
    runner.document().its("readyState").should("eq", "complete")
    assert log_lines(runner, "window")[0] == f"window: {server.url}/app"
    assert log_lines(runner, "document")[0] == f"document: {server.url}/app"
    assert log_lines(runner, "its")[0] == "its: .localStorage.token"
    assert "assert: window().its('localStorage.token') should eq 'abc123'" in log_lines(runner)


def test_window_should_have_property_waits_for_a_global(runner, server):
    runner.visit(server.page("/app", APP))
    runner.window().should("have.property", "appReady", True)
    runner.window().should("have.property", "app").and_("not.have.property", "nothere")
    with pytest.raises(CommandError) as caught:
        runner.window().should("have.property", "missing", timeout=300)
    message = str(caught.value)
    assert message.startswith("Timed out retrying after")
    assert "window().should('have.property', 'missing'): window (<window>) has no property \"missing\"" in message


def test_its_of_a_path_that_never_exists_times_out_naming_it(runner, server):
    runner.visit(server.page("/app", APP))
    with pytest.raises(CommandError) as caught:
        runner.window().its("app.store.nope.deeper").should("eq", 1, timeout=300)
    message = str(caught.value)
    assert "window().its('app.store.nope.deeper').should('eq', 1)" in message
    assert "window.app.store (object) has no property \"nope\"" in message
    assert "Traceback" not in message and "playwright" not in message.lower()


def test_what_is_not_data_is_described(runner, server):
    runner.visit(server.page("/app", APP))
    assert runner.window().its("app.title").value() == PageObject("node", "<h1#title.big>")
    assert repr(runner.window().its("app.title").value()) == "<h1#title.big>"
    assert repr(runner.window().its("app.store.dispatch").value()) == "<function dispatch>"
    assert repr(runner.window().value()) == "<window>"
    assert repr(runner.document().value()) == "<document>"
    assert repr(runner.window().its("app.self").value()["self"]) == "[Circular]"
    runner.window().its("app.store.dispatch").should("be.a", PageObject)


def test_invoke_calls_with_this_bound_and_changes_the_page(runner, server):
    runner.visit(server.page("/app", APP))
    count = runner.window().invoke("app.store.dispatch", {"type": "add", "name": "milk"})
    assert count.value() == 1
    runner.window().its("app.store").invoke("dispatch", {"type": "add", "name": "eggs"}).should("eq", 2)
    assert page_value(runner, "() => [...document.querySelectorAll('#items li')].map(li => li.textContent)") == [
        "milk", "eggs"]
    runner.window().its("app.store.state.items").should("deep.equal", ["milk", "eggs"])
    assert "invoke: .app.store.dispatch({'type': 'add', 'name': 'milk'})" in log_lines(runner)
    assert "invoke: .dispatch({'type': 'add', 'name': 'eggs'})" in log_lines(runner)
    assert runner.document().invoke("querySelector", "#title").value() == PageObject("node", "<h1#title.big>")


def test_what_invoke_returned_is_asserted_once_and_fails_at_once(runner, server):
    # it was called once and copied out as data: it cannot change, so waiting could only time out
    runner.visit(server.page("/app", APP))
    theme = runner.window().invoke("localStorage.getItem", "theme")
    theme.should("include", "dar").its("length").should("eq", 4)
    started = time.monotonic()
    with pytest.raises(CommandError) as caught:
        theme.should("include", "light")
    with pytest.raises(CommandError) as its_caught:
        theme.its("length").should("eq", 5)
    with pytest.raises(CommandError) as dom_caught:  # a DOM method's result too
        runner.get("#title").invoke("getAttribute", "class").should("eq", "small")
    assert time.monotonic() - started < 1.5  # not one of them waited out the 2000 ms timeout
    assert str(caught.value) == (
        "Asserted once, not retried (the value was read once and cannot change): "
        "window().invoke('localStorage.getItem', 'theme').should('include', 'light'): "
        "expected 'dark' to contain 'light'"
    )
    assert "its('length').should('eq', 5): expected 4 to equal 5" in str(its_caught.value)
    assert str(dom_caught.value).startswith("Asserted once, not retried")
    # a read in the page is read again: the token is set 300 ms after the load
    runner.window().its("localStorage.token").should("eq", "abc123")


def test_spread_of_what_invoke_returned_is_tried_once(runner, server):
    # a copy of what the page returned cannot become a list: spread() fails at once, as should() does
    runner.visit(server.page("/app", APP))
    assert runner.window().invoke("app.store.later", 0, ["a", "b"]).spread() == ("a", "b")
    started = time.monotonic()
    with pytest.raises(CommandError) as caught:
        runner.window().invoke("localStorage.getItem", "theme").spread()
    assert time.monotonic() - started < 1.5  # it did not wait out the 2000 ms timeout
    assert str(caught.value) == (
        "Asserted once, not retried (the value was read once and cannot change): "
        "window().invoke('localStorage.getItem', 'theme').spread(): spread() needs a list or tuple; "
        "the value is 'dark'"
    )


def test_invoke_awaits_a_promise(runner, server):
    runner.visit(server.page("/app", APP))
    assert runner.window().invoke("app.store.later", 50, {"done": True}).value() == {"done": True}


def test_invoke_misuses_and_page_errors_say_so_once(runner, server):
    runner.visit(server.page("/app", APP))
    with pytest.raises(CommandError) as caught:
        runner.window().invoke("app.store.dispatch", {"type": "boom"})
    assert str(caught.value) == (
        "window().invoke('app.store.dispatch', {'type': 'boom'}) threw in the page: TypeError: unknown action boom")
    with pytest.raises(CommandError, match=r"threw in the page: RangeError: no way$"):
        runner.window().invoke("app.store.refuse")
    assert log_lines(runner, "invoke")[-2:] == ["invoke: .app.store.dispatch({'type': 'boom'})", "invoke: .app.store.refuse()"]
    with pytest.raises(CommandError, match=r"window.app.store.state.count is not a function \(it is number 0\)"):
        runner.window().invoke("app.store.state.count")
    with pytest.raises(CommandError, match=r"did not settle within 300ms"):
        runner.window().invoke("app.store.never", timeout=300)
    with pytest.raises(CommandError, match=r"Timed out retrying after \d+ms: .*has no property \"absent\""):
        runner.window().invoke("app.absent", timeout=300)
    with pytest.raises(UsageError, match="arguments must be JSON data"):
        runner.window().invoke("app.store.dispatch", object())
    with pytest.raises(UsageError, match="needs a dotted path string"):
        runner.window().its("")
    with pytest.raises(UsageError, match="has an empty part"):
        runner.window().its("app..store")


def test_hash_is_a_string_and_its_should_waits(runner, server):
    page = """<!doctype html><body><script>
      setTimeout(() => { location.hash = '#/users/7'; }, 300);
    </script></body>"""
    runner.visit(server.page("/hash", page))
    assert runner.hash() == ""
    assert runner.hash().should("eq", "#/users/7") == "#/users/7"
    assert runner.hash() == "#/users/7"
    assert isinstance(runner.hash(), str)
    with pytest.raises(CommandError, match=r"Timed out retrying after \d+ms: hash\(\).should\('eq', '#/x'\)"):
        runner.hash().should("eq", "#/x", timeout=200)
    assert "hash: '#/users/7'" in log_lines(runner)


def test_evaluate_runs_expressions_and_functions(runner, server):
    runner.visit(server.page("/app", APP))
    assert runner.evaluate("document.title") == "Store"
    assert runner.evaluate("n => window.app.store.dispatch({type: 'add', name: 'x' + n})", 7) == 1
    assert page_value(runner, "() => document.querySelector('#items li').textContent") == "x7"
    assert runner.evaluate("async () => { await new Promise(r => setTimeout(r, 20)); return [1, 'a', null]; }") == [
        1, "a", None]
    assert runner.evaluate("() => document.body.children[0]") == PageObject("node", "<h1#title.big>")
    assert runner.evaluate("() => undefined") is None
    assert "evaluate: n => window.app.store.dispatch({type: 'add', name: 'x' + n})" in log_lines(runner)


def test_evaluate_errors_name_the_script_and_the_page_error(runner, server):
    runner.visit(server.page("/app", APP))
    with pytest.raises(CommandError) as caught:
        runner.evaluate("() => {\n  window.app.nothing.here();\n}")
    assert str(caught.value) == (
        "runner.evaluate('() => { …') threw in the page: TypeError: Cannot read properties of undefined "
        "(reading 'here')")
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    with pytest.raises(CommandError, match=r"^runner.evaluate\('1 \+'\) threw in the page: SyntaxError: .*\n"
                                           r"The script must be a JavaScript expression"):
        runner.evaluate("1 +")
    with pytest.raises(CommandError, match=r"did not end within 200ms"):
        runner.evaluate("() => new Promise(() => {})", timeout=200)
    with pytest.raises(UsageError, match="must be JSON data"):
        runner.evaluate("x => x", {1, 2})
    with pytest.raises(UsageError, match="needs JavaScript source"):
        runner.evaluate("")
    with pytest.raises(UsageError, match=r"found a Python callable.\nTo work with the window from Python, use runner.window"):
        runner.evaluate(lambda win: win)
    assert runner.evaluate("1 + 1") == 2  # the page is still fine


def test_log_shows_what_a_subject_holds_now(runner, server):
    runner.visit(server.page("/app", APP))
    runner.window().invoke("app.store.dispatch", {"type": "add", "name": "tea"})
    runner.log(runner.window().its("app.store.state"))
    runner.log(runner.wrap({"a": [1, 2]}).its("a"))
    runner.log(runner.get("h1"))
    runner.log(runner.get("#items li"))
    runner.log(runner.get(".nothing"))
    runner.log(runner.window().its("app.nope"))
    runner.log("plain words")
    assert log_lines(runner, "log") == [
        "log: window().its('app.store.state'): {'count': 1, 'items': ['tea']}",
        "log: wrap({'a': [1, 2]}).its('a'): [1, 2]",
        "log: get('h1'): <h1#title.big> 'Store'",
        "log: get('#items li'): <li> 'tea'",
        "log: get('.nothing'): no element matches",
        "log: window().its('app.nope'): (not readable now: window.app (object) has no property \"nope\")",
        "log: plain words",
    ]


def test_value_is_read_with_a_call_and_says_so_without_one(runner, server):
    runner.visit(server.page("/app", APP))
    assert runner.window().its("app.store.state.count").value() == 0
    assert runner.wrap({"a": 1}).its("a").value() == 1
    assert runner.get("h1").value() is None  # an element's value (a heading has none)
    with pytest.raises(UsageError, match=r"<Value wrap\(\{'a': 1\}\).its\('a'\)>.value is a method: call it, "
                                         r"\.value\(\), to read the value"):
        assert runner.wrap({"a": 1}).its("a").value == 1
    with pytest.raises(UsageError, match=r"\.value is a method"):
        bool(runner.window().its("app").value)


def test_each_command_is_told_with_its_arguments(runner, server, told):
    from runner.events import CommandEnded, CommandStarted

    runner.visit(server.page("/app", APP))
    runner.window().its("localStorage.theme").should("eq", "dark")
    runner.window().invoke("app.store.dispatch", {"type": "add", "name": "milk"})
    runner.document().its("title")
    runner.evaluate("document.title")
    runner.hash()
    runner.hash().should("eq", "")
    runner.hash().should("eq", "", timeout=500)
    started = [(e.name, e.subject, e.args) for e in told if isinstance(e, CommandStarted)]
    assert started == [
        ("visit", None, repr(server.url + "/app")),
        ("window", None, ""),
        ("its", "window()", "'localStorage.theme'"),
        ("should", "window().its('localStorage.theme')", "'eq', 'dark'"),
        ("window", None, ""),
        ("invoke", "window()", "'app.store.dispatch', {'type': 'add', 'name': 'milk'}"),
        ("document", None, ""),
        ("its", "document()", "'title'"),
        ("evaluate", None, "'document.title'"),
        ("hash", None, ""),
        ("hash", None, ""),
        ("should", "hash()", "'eq', ''"),  # no "timeout=None" it was not given
        ("hash", None, ""),
        ("should", "hash()", "'eq', '', timeout=500"),
    ]
    assert all(e.state == "passed" for e in told if isinstance(e, CommandEnded))
    # the command log has one line a command, as the events: not two for a hash's should
    assert log_lines(runner, "assert")[-2:] == ["assert: hash() should eq ''", "assert: hash() should eq ''"]
    assert len(log_lines(runner, "assert")) == 3


def test_exist_waits_for_the_path_and_then_hands_on_the_subject(runner, server):
    runner.visit(server.page("/app", APP))
    runner.window().its("appReady").should("exist")  # set 300 ms after load
    runner.window().its("app.nothing").should("not.exist")
    with pytest.raises(CommandError) as caught:
        runner.window().its("app.ghost").should("exist", timeout=200)
    assert str(caught.value).endswith(
        "window().its('app.ghost').should('exist'): window.app (object) has no property \"ghost\"")
    with pytest.raises(CommandError, match=r"expected window.app.store not to exist, but it is \{'state'"):
        runner.window().its("app.store").should("not.exist", timeout=200)
    runner.window().then(lambda win: win.invoke("app.store.dispatch", {"type": "add", "name": "jam"}))
    assert page_value(runner, "() => window.app.store.state.items") == ["jam"]


def test_lists_and_host_objects_are_shown_sensibly(runner, server):
    runner.visit(server.page("/app", APP))
    runner.window().invoke("app.store.dispatch", {"type": "add", "name": "a"})
    assert runner.evaluate("() => document.querySelectorAll('#items li, h1')") == [
        PageObject("node", "<h1#title.big>"), PageObject("node", "<li>")]
    assert runner.window().its("navigator").value() == PageObject("object", "Navigator object")
    assert runner.window().its("navigator.userAgent").value().startswith("Mozilla/")
    assert runner.window().its("localStorage").value()["theme"] == "dark"
    runner.evaluate("() => sessionStorage.clear()")
    assert runner.window().its("sessionStorage").value() == {}
    assert runner.evaluate("() => ({when: new Date(0), nan: NaN, set: new Set([1]), map: new Map([['k', 2]])})") == {
        "when": "1970-01-01T00:00:00.000Z", "nan": "NaN", "set": [1], "map": {"k": 2}}


def test_invoke_of_a_function_that_navigates_away_runs_once(runner, server):
    page = """<!doctype html><body><script>
      window.app = {leave() {
        sessionStorage.n = (+sessionStorage.n || 0) + 1;
        location.href = '/after';
        return new Promise(() => {});
      }};
    </script></body>"""
    server.page("/after", "<!doctype html><title>after</title><body>after</body>")
    runner.visit(server.page("/before", page))
    assert runner.window().invoke("app.leave").value() is None
    runner.document().its("title").should("eq", "after")
    assert page_value(runner, "() => sessionStorage.n") == "1"
    assert log_lines(runner, "invoke") == ["invoke: .app.leave()", "invoke: .app.leave(): the page navigated away meanwhile, no value"]


def test_what_throws_while_read_is_told_in_the_pages_words(runner, server):
    page = """<!doctype html><body><script>
      window.app = {ok: 1, get boom() { throw new Error("getter broke"); }};
      window.trap = new Proxy({}, {ownKeys() { throw new TypeError("no keys here"); }});
    </script></body>"""
    runner.visit(server.page("/throws", page))
    assert runner.window().its("app").value() == {"ok": 1, "boom": PageObject("error", "Error: getter broke")}
    assert runner.window().its("trap").value() == PageObject("error", "TypeError: no keys here")
    with pytest.raises(CommandError) as caught:
        runner.window().its("app.boom").should("eq", 1, timeout=200)
    assert str(caught.value).endswith("reading window.app.boom threw in the page: Error: getter broke")


def test_hash_and_location_wait_out_a_navigation_under_way(runner, server):
    # A page that reloads itself again and again: hash() and location() read while a document
    # replaces another (right after a click on a link, say) wait it out, as every read does,
    # instead of failing with Playwright's "Execution context was destroyed".
    page = """<!doctype html><body><script>
      const n = +(sessionStorage.getItem('n') || 0);
      if (n < 60) { sessionStorage.setItem('n', n + 1); setTimeout(() => location.reload(), 2); }
    </script></body>"""
    runner.visit(server.page("/again", page))
    for _ in range(150):
        assert runner.hash() == ""
        assert runner.location("pathname") == "/again"
        runner.title()  # mid-reload the page may have no title yet: it is read, not failed


def test_title_read_while_a_slow_document_loads_is_that_documents(runner, server):
    # Found in review: title() right after a click that reloads the page answered Playwright's
    # placeholder, "Loading http://127.0.0.1:.../again", while the new document was on its way.
    served: list[str] = []

    def page(h: object) -> None:
        served.append("again")
        if len(served) > 1:
            time.sleep(0.4)  # the server is slow with the reloaded document: it is on its way a while
        h.send(200, f"<!doctype html><title>App, load {len(served)}</title>"  # type: ignore[attr-defined]
               "<button onclick='location.reload()'>again</button>", content_type="text/html; charset=utf-8")

    server.route("/again", page)
    runner.visit(server.url + "/again")
    assert runner.title() == "App, load 1"
    runner.get("button").click()
    assert runner.title() == "App, load 2"  # the new document's, read once it came
    assert runner.location("pathname") == "/again" and runner.url() == server.url + "/again"
    assert len(served) == 2
