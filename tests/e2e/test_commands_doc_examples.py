"""The Python examples of docs/commands.md added by issue 25, run as written (adapted only to the
pages of tests/e2e/site: doc-examples.html, doc-store.html, doc-signin.html, doc-checkout.html),
each asserting what the docs say it does. A doc example that stops running fails here."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from tests.support.runner_reads import log_lines, page_value

from runner import UsageError, add_command
from runner.commands import custom

# --- Traversal ---------------------------------------------------------------------------------

def test_traversal_examples(runner):
    runner.visit("/doc-examples.html")
    runner.get("#menu li.active").next().should("have.text", "Pricing")
    runner.get("td.total").parents("tr").should("have.class", "invoice")
    runner.get("#step-2").prev_all().should("have.length", 1)


# --- contains ----------------------------------------------------------------------------------

def test_contains_examples(runner):
    runner.visit("/doc-examples.html")
    runner.contains("li", content="Save").should("have.text", "Save")
    runner.contains(selector="li", content="Save").should("have.text", "Save")
    runner.get("#cart").contains("li", "Total").should("have.text", "Total 42")
    runner.contains("Pricing").should("have.text", "Pricing")


# --- Selectors ---------------------------------------------------------------------------------

def test_selector_examples(runner):
    runner.visit("/doc-examples.html")
    runner.get("li:first").should("have.text", "Home")
    runner.get("ul li:eq(1)").should("have.text", "Pricing")
    runner.get("#menu li:not(:first)").should("have.length", 2)
    runner.get("#menu li").filter(":even").should("have.length", 2)
    runner.get("#menu").find("> li").should("have.length", 3)
    with pytest.raises(UsageError) as caught:
        runner.get("div[").should("exist")
    assert str(caught.value).startswith("runner.get('div[').should(): 'div[' is not a valid selector.")


# --- Pointer, scrolling and files -----------------------------------------------------------------

def test_scroll_to_and_select_file_examples(runner):
    runner.visit("/doc-examples.html")
    assert runner.scroll_to("bottom")["top"] > 0
    runner.get("#panel").scroll_to(0, "50%")
    assert page_value(runner, "document.getElementById('panel').scrollTop") > 0
    assert "scroll_to: window 'bottom'" in log_lines(runner)
    assert "scroll_to: get('#panel') 0, '50%'" in log_lines(runner)
    assert runner.scroll_to("top", duration=50, easing="linear")["top"] == 0
    assert "scroll_to: window 'top', duration=50, easing='linear'" in log_lines(runner)
    runner.get("#avatar").select_file({"contents": b"id,name\n1,Ada\n", "fileName": "people.csv"})
    runner.get("#files li").should("have.text", "people.csv:text/csv:id,name\n1,Ada\n")
    runner.get("#avatar").select_file("note.txt")  # read from fixturesFolder
    runner.get("#files li").should("have.length", 2)


# --- Within, each and unpacking -------------------------------------------------------------------

def test_within_example(runner):
    runner.visit("/doc-examples.html")
    with runner.within(runner.get("form#signup")):
        runner.get("input[name=email]").type("ada@example.com")
        runner.contains("Sign up").click()
    runner.get("#joined").should("have.text", "joined as ada@example.com")
    runner.get("#outside button").should("have.text", "Sign up")  # the button outside was not clicked
    assert "within: get('form#signup')" in log_lines(runner)


def test_unpacking_and_spread_examples(runner):
    runner.visit("/doc-examples.html")
    first, second = runner.get("#pair li").should("have.length", 2)
    first.should("have.text", "first")
    second.should("have.text", "second")
    assert runner.wrap([1, 2]).spread() == (1, 2)
    assert runner.wrap([1, 2]).spread(lambda a, b: a + b) == 3
    runner.wrap({"n": 3}).its("n").as_("n")  # a value subject's alias
    runner.get("@n").should("eq", 3)
    seen = []
    runner.get("#pair li").each(lambda li, i: seen.append((i, li.text())))
    assert seen == [(0, "first"), (1, "second")]


# --- The page's own JavaScript ---------------------------------------------------------------------

def test_window_and_document_examples(runner):
    runner.visit("/doc-store.html")
    runner.window().its("localStorage.token").should("eq", "abc123")   # waits until it is set
    runner.window().should("have.property", "appReady", True)          # a global the app sets
    count = runner.window().invoke("app.store.dispatch", {"type": "add", "name": "milk"})
    assert count.value() == 1
    runner.window().its("app.store.state.items").should("deep.equal", ["milk"])
    runner.window().its("app.store").invoke("dispatch", {"type": "clear"})
    runner.window().its("app.store.state.items").should("have.length", 0)
    runner.document().its("title").should("eq", "Store")
    assert "its: .localStorage.token" in log_lines(runner)
    assert "invoke: .app.store.dispatch({'type': 'add', 'name': 'milk'})" in log_lines(runner)
    assert "assert: window().its('localStorage.token') should eq 'abc123'" in log_lines(runner)


def test_window_then_example(runner):
    runner.visit("/doc-store.html")
    runner.window().invoke("app.add", 2)
    runner.window().then(lambda win: win.invoke("app.reset"))
    runner.window().its("app.added").should("eq", 0)


def test_hash_examples(runner):
    runner.visit("/doc-store.html")
    assert runner.hash() == ""
    runner.get("#user-7").click()
    assert runner.hash().should("eq", "#/users/7") == "#/users/7"
    assert runner.hash() == "#/users/7"


def test_evaluate_examples(runner):
    runner.visit("/doc-store.html")
    assert runner.evaluate("document.title") == "Store"
    assert runner.evaluate("n => window.app.add(n)", 3) == 3
    assert runner.evaluate("async () => { await new Promise(r => setTimeout(r, 10)); return 'later'; }") == "later"
    assert "evaluate: n => window.app.add(n)" in log_lines(runner)


def test_value_and_log_examples(runner):
    runner.visit("/doc-store.html")
    runner.window().invoke("app.store.dispatch", {"type": "add", "name": "tea"})
    runner.log(runner.window().its("app.store.state"))
    runner.log(runner.get("h1"))
    runner.log(runner.get(".x"))
    logged = log_lines(runner, "log")
    assert "log: window().its('app.store.state'): {'count': 1, 'items': ['tea']}" in logged
    assert "log: get('h1'): <h1#title.big> 'Store'" in logged
    assert "log: get('.x'): no element matches" in logged
    assert runner.get("h1").value() is None  # a DOM subject's value(): its element's value
    with pytest.raises(UsageError):
        bool(runner.wrap(1).value == 1)  # the attribute without the call


def test_the_value_of_an_interceptions_its(runner):
    runner.intercept("POST", "/api/save", {"statusCode": 201, "body": {}}).as_("save")
    runner.visit("/doc-store.html")
    runner.evaluate("fetch('/api/save', {method: 'POST'}).then(r => r.status)")
    assert runner.wait("@save").its("response.statusCode").value() == 201
    older = runner.get("@save").its("response.statusCode").value  # the older spelling: compares, prints
    assert older == 201 and str(older) == "201"


# --- Visit hooks and storage -------------------------------------------------------------------------

def test_signed_in_example(runner):
    runner.visit("/doc-signin.html", on_before_load=lambda win: win.local_storage.set_item("token", "abc"))
    runner.get("#who").should("have.text", "Signed in as Ada")


def test_signed_in_by_a_javascript_hook(runner):
    runner.visit("/doc-signin.html", on_before_load="win => win.localStorage.setItem('token', 'abc')")
    runner.get("#who").should("have.text", "Signed in as Ada")


def test_sign_in_through_storage_then_reload(runner):
    runner.visit("/doc-signin.html")
    runner.get("#who").should("have.text", "Signed out")
    runner.set_local_storage("token", "abc")
    runner.reload()
    runner.get("#who").should("have.text", "Signed in as Ada")
    assert runner.get_local_storage("token") == "abc"
    runner.set_local_storage("cart1", "x")
    runner.set_local_storage("cart2", "y")
    runner.clear_local_storage(re.compile("^cart"))
    assert runner.get_local_storage() == {"token": "abc"}


# --- Tabs and popups ----------------------------------------------------------------------------------

def test_the_receipt_opens_in_a_new_tab(runner):
    runner.intercept("/api/receipt", {"body": {"total": 42}}).as_("receipt")
    runner.visit("/doc-checkout.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()          # target=_blank, or a window.open(...) button
    tab.value.get("h1").should("have.text", "Receipt")
    tab.value.wait("@receipt")                        # the popup's request, the test's alias
    tab.value.get("#total").should("have.text", "total 42")
    assert tab.value.url().endswith("/doc-receipt.html")
    tab.value.close()                                 # optional: the reset closes it anyway
    runner.get("#done").click()                       # runner still drives the first page
    runner.get("#done").should("have.text", "done")


# --- Helpers and custom commands ---------------------------------------------------------------------

@pytest.fixture
def no_custom_commands(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(custom, "_commands", {})
    yield


def test_the_add_command_example(runner, no_custom_commands):
    @add_command                      # or @add_command("sign_in"), or add_command("sign_in", fn)
    def sign_in(runner, name, password):
        runner.visit("/doc-examples.html")
        runner.get("#name").type(name)
        runner.get("#password").type(password, log=False)
        runner.get("form button[type=submit]").click()

    runner.sign_in("ann", "pw")
    runner.get("#who").should("have.text", "signed in as ann")
    assert "sign_in: 'ann', 'pw'" in log_lines(runner)
    runner.sign_in("bob", "secret", log=False)
    assert "sign_in: [redacted], [redacted], log=False" in log_lines(runner)
    assert runner._ctx.redactor is not None and "secret" not in runner._ctx.redactor.text("bob secret")


# --- What the docs say the command log and the errors show --------------------------------------------

def test_the_log_lines_and_messages_the_docs_quote(runner):
    runner.visit("/doc-examples.html")
    runner.get("#menu").hover()
    runner.get("#avatar").select_file("note.txt")
    runner.get("#menu li").each(lambda li: None)
    runner.get("#pair li").spread()
    logged = log_lines(runner)
    assert "hover: get('#menu')" in logged
    assert "select_file: get('#avatar') 'note.txt'" in logged
    assert "each: get('#menu li') (3 elements)" in logged
    assert "spread: get('#pair li') (2 elements)" in logged
    with runner.within(runner.get("form#signup")):
        heading = runner.get("h2", timeout=200)
    with pytest.raises(Exception) as caught:
        heading.click(timeout=200)
    assert "expected to find element within(get('form#signup')).get('h2'), but never found it" in str(caught.value)
    with pytest.raises(UsageError):
        bool(runner.get("#name").value == "")  # the attribute without the call
    with pytest.raises(Exception) as caught:
        runner.evaluate("() => { return window.nothing.here }")
    assert str(caught.value) == ("runner.evaluate('() => { return window.nothing.here }') threw in the page: "
                                 "TypeError: Cannot read properties of undefined (reading 'here')")


def test_hash_and_evaluate_log_lines(runner):
    runner.visit("/doc-store.html#/users/7")
    runner.hash()
    assert "hash: '#/users/7'" in log_lines(runner)


def test_a_custom_command_is_a_command_of_a_popups_runner_too(runner, no_custom_commands):
    @add_command
    def heading(runner):
        return runner.get("h1").text()

    runner.intercept("/api/receipt", {"body": {"total": 1}})
    runner.visit("/doc-checkout.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    assert tab.value.heading() == "Receipt"
    with pytest.raises(AttributeError):
        runner.get("h1").heading()  # not of subjects


# --- Options the docs name ------------------------------------------------------------------------------

def test_visit_wait_until_takes_playwrights_events_and_refuses_others(runner):
    runner.visit("/doc-examples.html", wait_until="domcontentloaded")
    runner.get("#menu li").should("have.length", 3)
    with pytest.raises(UsageError) as caught:
        runner.visit("/doc-examples.html", wait_until="bogus")
    assert str(caught.value) == ("runner.visit(wait_until=...) takes one of 'load', 'domcontentloaded', "
                                 "'networkidle', 'commit'; found 'bogus'.")


def test_unpacking_the_wrong_number_and_a_missing_file_say_so(runner):
    runner.visit("/doc-examples.html")
    with pytest.raises(ValueError, match="not enough values to unpack"):
        a, b, c = runner.get("#pair li")
    with pytest.raises(ValueError, match="too many values to unpack"):
        (a,) = runner.get("#pair li")
    with pytest.raises(Exception) as caught:
        runner.get("#avatar").select_file("face.png")
    first, second = str(caught.value).splitlines()[:2]
    assert first == "get('#avatar').select_file() failed because the file does not exist: 'face.png'."
    assert second.startswith("Looked for: ") and second.endswith("/face.png")


def test_scroll_into_view_block_and_click_count(runner):
    runner.visit("/doc-examples.html")
    runner.get("#panel").scroll_into_view(block="center")
    # the panel's middle is the window's: the page scrolled to center it (it starts higher)
    assert page_value(runner, "(() => { const r = document.getElementById('panel').getBoundingClientRect();"
                         " return Math.abs(r.top + r.height / 2 - innerHeight / 2) <= 1 && scrollY > 0; })()")
    page_value(runner, "window.clicks = []; document.querySelector('#pair li')"
                  ".addEventListener('click', (e) => window.clicks.push(e.detail))")
    runner.get("#pair li").first().click(click_count=2)
    assert page_value(runner, "window.clicks") == [1, 2]  # two clicks, the second one a double click's
    with pytest.raises(UsageError) as caught:
        runner.get("#panel").scroll_into_view(block="middle")
    assert str(caught.value) == ("get('#panel').scroll_into_view(block=...) takes one of 'start', 'center', "
                                 "'end', 'nearest'; found 'middle'.")
