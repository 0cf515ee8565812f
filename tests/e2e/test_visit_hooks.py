"""visit's hooks: on_before_load runs in the visit's document before the app's first script (a
JavaScript string or a Python callable with a window handle), once, for that visit only;
on_load runs after the load event; a hook that throws, raises or hangs fails the visit with one
message naming it, and the page is never left paused."""

from __future__ import annotations

import json
import threading
import time

import pytest
from tests.support.servers import serving

from runner import CommandError, UsageError


def first_script_saw(runner) -> dict:
    """What the app's first script saw (hooks.html shows it)."""
    runner.get("#started").should("not.be.empty")
    return json.loads(runner.get("#started").text())


def test_javascript_statements_run_before_the_apps_first_script(runner):
    runner.visit("/hooks.html", on_before_load="localStorage.setItem('token', 'ada'); window.preset = 7")
    runner.get("#who").should("have.text", "logged in as ada")
    assert first_script_saw(runner)["preset"] == 7


def test_a_javascript_function_is_called_with_the_window(runner):
    runner.visit("/hooks.html", on_before_load="win => win.localStorage.setItem('token', 'bob')")
    runner.get("#who").should("have.text", "logged in as bob")
    runner.visit("/hooks.html", on_before_load="function (win) { win.localStorage.setItem('token', 'cy'); }")
    runner.get("#who").should("have.text", "logged in as cy")


def test_a_python_callable_gets_a_window_handle_before_the_apps_first_script(runner):
    seen = {}

    def log_in(win):
        win.local_storage.set_item("token", "dee")
        win.set("preset", {"lang": "fr"})
        seen["path"] = win.get("location.pathname")
        seen["token"] = win.local_storage.get_item("token")
        seen["app"] = win.evaluate("typeof window.app")  # the app's script has not run yet

    runner.visit("/hooks.html", on_before_load=log_in)
    runner.get("#who").should("have.text", "logged in as dee")
    assert first_script_saw(runner)["preset"] == {"lang": "fr"}
    assert seen == {"path": "/hooks.html", "token": "dee", "app": "undefined"}


def test_the_hook_runs_once_for_that_visit_only(runner):
    count = "localStorage.setItem('runs', String(Number(localStorage.getItem('runs') || 0) + 1))"
    runner.visit("/hooks.html", on_before_load=count)
    assert first_script_saw(runner)["runs"] == "1"
    runner.get("#again").click()  # a navigation of the app's own
    runner.get("#started").should("contain", '"search":"?again=1"')
    assert first_script_saw(runner)["runs"] == "1"
    runner.visit("/hooks.html?third=1")
    assert first_script_saw(runner) == {"token": None, "runs": "1", "search": "?third=1"}


def test_on_load_runs_after_the_load_event(runner):
    seen = {}

    def after(win):
        seen["state"] = win.get("document.readyState")
        seen["greeting"] = win.call("app.greet", "eve")
        win.call("app.greeted.push", "eve")
        seen["greeted"] = win.get("app.greeted")

    runner.visit("/hooks.html", on_load=after)
    assert seen == {"state": "complete", "greeting": "hi eve", "greeted": ["eve"]}
    runner.visit("/hooks.html", on_load="document.getElementById('who').textContent = 'loaded: ' + document.readyState")
    runner.get("#who").should("have.text", "loaded: complete")
    runner.visit("/hooks.html", on_load="new Promise(r => setTimeout(() => { document.title = 'waited'; r(); }, 50))")
    assert runner.title() == "waited"  # the hook's promise was awaited before visit returned


def test_the_command_log_names_each_hook(runner):
    def log_in(win):
        win.local_storage.set_item("token", "fay")

    runner.visit("/hooks.html", on_before_load=log_in, on_load="window.done = true")
    lines = [(e.name, e.message) for e in runner._ctx.log]
    assert lines[-3:] == [
        ("visit", runner.url()),
        ("on_before_load", "<function log_in> ran before the page's scripts"),
        ("on_load", "'window.done = true' ran after the load event"),
    ]


def test_javascript_that_throws_fails_the_visit_naming_the_hook(runner):
    with pytest.raises(CommandError) as caught:
        runner.visit("/hooks.html", on_before_load="nope.token = 1")
    assert str(caught.value) == ("runner.visit(): on_before_load threw in the page: "
                                 "ReferenceError: nope is not defined")
    with pytest.raises(CommandError) as caught:
        runner.visit("/hooks.html", on_load="win => { throw new Error('late') }")
    assert str(caught.value) == "runner.visit(): on_load threw in the page: Error: late"


def test_a_python_hook_that_raises_fails_the_visit_and_the_page_goes_on(runner):
    def broken(win):
        raise ValueError("no token today")

    with pytest.raises(CommandError) as caught:
        runner.visit("/hooks.html", on_before_load=broken)
    assert str(caught.value) == "runner.visit(): on_before_load raised ValueError: no token today"
    assert isinstance(caught.value.__cause__, ValueError)
    runner.get("#who").should("have.text", "logged out")  # the page was let go and loaded


def test_a_visit_that_fails_at_once_is_the_last_line_of_the_command_log(runner):
    # A command that fails without retrying (a hook that raised, a 4xx document) still has its
    # line: the log must not end on the command before it, as if the visit never ran.
    def broken(win):
        raise ValueError("no token today")

    runner.get("body")
    with pytest.raises(CommandError):
        runner.visit("/hooks.html", on_before_load=broken)
    assert [(e.name, e.message) for e in runner._ctx.log][-1] == (
        "failed", "CommandError: runner.visit(): on_before_load raised ValueError: no token today")
    with pytest.raises(CommandError):
        runner.visit("/nothing-here.html")
    last = runner._ctx.log[-1]
    assert (last.name, last.message) == (
        "failed", f"CommandError: runner.visit() failed trying to load: {runner._ctx.resolve_url('/nothing-here.html')}")


def test_a_python_hook_that_hangs_is_given_up_and_the_page_is_let_go(runner):
    release, finished = threading.Event(), threading.Event()
    calls = []

    def stuck(win):
        release.wait(30)
        try:
            win.local_storage.set_item("token", "late")
        except CommandError as err:
            calls.append(str(err))
        finally:
            finished.set()

    try:
        with pytest.raises(CommandError) as caught:
            runner.visit("/hooks.html", on_before_load=stuck)
        assert str(caught.value).startswith(
            "runner.visit(): on_before_load did not return within 2000ms (defaultCommandTimeout); "
            "the page was let go without it.")
        runner.get("#who").should("have.text", "logged out")
    finally:
        release.set()
    assert finished.wait(10)
    assert calls == ["win.local_storage.set_item() threw in the page: the hook's time is over: the page was let go"]
    runner.visit("/hooks.html", on_before_load="localStorage.setItem('token', 'next')")
    runner.get("#who").should("have.text", "logged in as next")


def test_a_window_call_that_throws_names_the_hook(runner):
    with pytest.raises(CommandError) as caught:
        runner.visit("/hooks.html", on_before_load=lambda win: win.call("app.greet", "x"))
    assert str(caught.value) == (
        "runner.visit(): on_before_load failed: win.call('app.greet') threw in the page: "
        "TypeError: cannot read \"greet\" of undefined in \"app.greet\"")


@pytest.mark.parametrize("hook", [42, "", ["localStorage"]])
def test_a_hook_that_is_neither_javascript_nor_callable_is_refused(runner, hook):
    with pytest.raises(UsageError, match="on_before_load must be JavaScript"):
        runner.visit("/hooks.html", on_before_load=hook)


def test_a_hook_of_a_visit_that_makes_no_new_document_says_so(runner):
    runner.visit("/hooks.html")
    with pytest.raises(CommandError) as caught:
        runner.visit("/hooks.html#part", on_before_load="localStorage.setItem('token', 'x')")
    full = runner._ctx.base_url.rstrip("/") + "/hooks.html#part"
    first = (f"runner.visit({full!r}): on_before_load did not run: the visit loaded no new document "
             "(a hash change, or a download), so there was no start to run it before.")
    assert str(caught.value).splitlines() == [first, "Visit a page that loads, or drop on_before_load."]
    assert runner._ctx.log[-1].message == f"CommandError: {first}"  # the log line says it whole


def test_an_apps_own_debugger_statement_does_not_hold_a_hooked_visit(runner, server):
    page = server.page("/debugger", "<!doctype html><html><head><script>debugger; window.seen ="
                                    " localStorage.getItem('token');</script></head><body><p id='p'></p>"
                                    "<script>debugger; document.getElementById('p').textContent = window.seen;"
                                    "</script></body></html>")
    runner.visit(page, on_before_load="localStorage.setItem('token', 'gus')", timeout=5000)
    runner.get("#p").should("have.text", "gus")


def test_the_hook_runs_in_the_document_a_cross_site_redirect_lands_on(runner, server):
    with serving() as other:
        # localhost and 127.0.0.1 are two sites: Chromium may give the landing page a new process
        landing = other.page("/landing", "<!doctype html><html><head><script>window.seen ="
                                         " localStorage.getItem('token');</script></head><body><p id='p'>"
                                         "</p><script>document.getElementById('p').textContent ="
                                         " location.host + ' ' + window.seen;</script></body></html>")
        landing = landing.replace("127.0.0.1", "localhost")
        server.route("/go", lambda h: h.send(302, b"", headers={"Location": landing}))
        runner.visit(server.url + "/go", on_before_load=lambda win: win.local_storage.set_item("token", "hal"))
        runner.get("#p").should("have.text", f"localhost:{other.port} hal")


def test_a_hooked_visit_of_a_stubbed_document(runner):
    runner.intercept("http://stubbed.test/**", {"body": "<html><head><script>document.title ="
                                                " localStorage.getItem('token')</script></head></html>",
                                                "headers": {"content-type": "text/html"}})
    runner.visit("http://stubbed.test/app", on_before_load="localStorage.setItem('token', 'ivy')")
    assert runner.title() == "ivy"


def test_a_hooked_visit_that_waits_for_commit_only_runs_its_hook(runner):
    # Found in the last read: with wait_until="commit" the navigation ended before the new
    # document reached its first script, and the pause was settled at once: the hook never ran
    # and the visit failed saying the visit loaded no new document
    for _ in range(5):
        runner.visit("/hooks.html", wait_until="commit",
                     on_before_load="localStorage.setItem('token', 'eve'); window.preset = 8")
        runner.get("#who").should("have.text", "logged in as eve")
        assert first_script_saw(runner)["preset"] == 8
    # a hash change at its commit: no document to hold, said so at once (not after the hook's bound)
    began = time.monotonic()
    with pytest.raises(CommandError, match="on_before_load did not run: the visit loaded no new document"):
        runner.visit("/hooks.html#there", wait_until="commit", on_before_load="window.preset = 9")
    assert time.monotonic() - began < 2


def test_on_load_with_an_earlier_wait_until_does_not_claim_the_load_event(runner):
    runner.visit("/hooks.html", wait_until="domcontentloaded", on_load="window.done = true")
    assert runner._ctx.run(runner._ctx.browser.page.evaluate("window.done")) is True
    assert (runner._ctx.log[-1].name, runner._ctx.log[-1].message) == (
        "on_load", "'window.done = true' ran after DOMContentLoaded (wait_until: its load event may be still to come)")
