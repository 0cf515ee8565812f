"""runner.popup(): a page the test's page opens (target=_blank, window.open) driven by a runner of
its own, its requests through the test's routes, while ``runner`` keeps the test's page."""

from __future__ import annotations

from typing import Any

import pytest

from runner import CommandError, UsageError
from runner.events import CommandEnded, CommandStarted


def pages(runner: Any) -> int:
    """How many pages the browser context has open now (asked on the engine's loop)."""
    context = runner._ctx.browser.context

    async def count() -> int:
        return len(context.pages)

    return runner._ctx.run(count())


def test_a_target_blank_link_opens_a_tab_the_test_drives_and_the_first_page_stays(runner):
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    tab.value.get("h1").should("have.text", "Receipt")
    tab.value.get("#total").should("have.text", "total 5")  # the server's file: no route
    assert tab.value.url().endswith("/receipt.html")
    assert tab.value.title() == "Receipt"
    # the test's runner still drives the first page
    assert runner.url().endswith("/tabs.html")
    runner.get("h1").should("have.text", "Shop")
    runner.get("#count").click()
    runner.get("#count").should("have.text", "clicked 1")
    tab.value.get("#again").click()  # and the tab stays drivable too
    tab.value.get("#total").should("have.text", "total 5")
    assert pages(runner) == 2


def test_a_window_open_popup_meets_the_routes_from_its_first_request(runner):
    runner.intercept("/stubbed-page.html", {"body": "<h1>From the routes</h1>",
                                            "headers": {"content-type": "text/html"}}).as_("doc")
    runner.intercept("/receipt-data.json", {"body": {"total": 42}}).as_("receipt")
    runner.visit("/tabs.html")
    with runner.popup() as stubbed:
        runner.get("#open-stubbed").click()
    stubbed.value.get("h1").should("have.text", "From the routes")  # the page itself was stubbed
    assert runner.wait("@doc").request.url.endswith("/stubbed-page.html")
    with runner.popup() as tab:
        runner.get("#open-window").click()
    tab.value.get("#total").should("have.text", "total 42")
    interception = tab.value.wait("@receipt")  # the same aliases and records from the tab
    assert interception.response.body == {"total": 42}
    assert interception.request.url.endswith("/receipt-data.json")
    runner.get("#count").click()
    runner.get("#count").should("have.text", "clicked 1")


def test_a_route_added_after_the_popup_opened_takes_its_requests(runner):
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#open-window").click()
    tab.value.get("#total").should("have.text", "total 5")
    tab.value.intercept("/receipt-data.json", {"body": {"total": 7}}).as_("late")
    tab.value.get("#again").click()
    tab.value.wait("@late")
    tab.value.get("#total").should("have.text", "total 7")
    assert runner.get("@late").response.body == {"total": 7}  # one test: its aliases are shared


def test_a_spy_sees_the_popups_requests(runner):
    runner.intercept("/receipt-data.json").as_("data")  # a spy: the page is watched, not routed
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    spied = runner.wait("@data")
    assert spied.response.status_code == 200 and spied.response.body == {"total": 5}
    tab.value.get("#total").should("have.text", "total 5")


def test_a_tabs_javascript_and_storage_are_the_tabs(runner):
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    assert tab.value.evaluate("document.title") == "Receipt"
    assert tab.value.hash() == ""
    tab.value.window().its("location.pathname").should("eq", "/receipt.html")
    tab.value.document().its("title").should("eq", "Receipt")
    tab.value.set_session_storage("seen", "tab")  # a tab's own session storage
    assert tab.value.get_session_storage("seen") == "tab"
    assert runner.get_session_storage("seen") is None
    assert runner.evaluate("document.title") == "Shop"
    runner.window().its("clicks").should("eq", 0)


def test_two_popups_are_two_tabs(runner):
    runner.visit("/tabs.html")
    with runner.popup() as first:
        runner.get("#receipt-link").click()
    with runner.popup() as second:
        runner.get("#open-window").click()
    first.value.get("#again").click()
    second.value.get("h1").should("have.text", "Receipt")
    assert repr(first.value._ctx.page_label) == "'tab[1]'" and second.value._ctx.page_label == "tab[2]"
    second.value.visit("/index.html")  # a tab navigates like the test's page
    second.value.get("h1").should("have.text", "Welcome")
    second.value.go("back")
    second.value.get("h1").should("have.text", "Receipt")
    first.value.close()
    second.value.get("#total").should("have.text", "total 5")
    runner.get("h1").should("have.text", "Shop")
    assert pages(runner) == 2


def test_one_action_opening_two_pages_fills_two_blocks(runner):
    runner.visit("/tabs.html")
    with runner.popup() as one, runner.popup() as other:
        runner.get("#open-two").click()
    # the pages come up in their own order: which block gets which is not promised
    urls = sorted(tab.value.url().rsplit("/", 1)[1] for tab in (one, other))
    assert urls == ["receipt.html?n=1", "tabs.html?n=2"]
    receipt, shop = (one, other) if one.value.url().endswith("n=1") else (other, one)
    receipt.value.get("h1").should("have.text", "Receipt")
    shop.value.get("h1").should("have.text", "Shop")
    with shop.value.popup() as inner:  # a popup of the popup
        shop.value.get("#receipt-link").click()
    inner.value.get("h1").should("have.text", "Receipt")
    assert inner.value._ctx.page_label == "tab[3]"
    assert pages(runner) == 4


def test_a_tabs_commands_are_told_as_the_tabs(runner, told):
    runner.visit("/tabs.html")
    with runner.popup(timeout=3000) as tab:
        runner.get("#receipt-link").click()
    tab.value.get("h1").should("have.text", "Receipt")
    tab.value.url()
    runner.get("h1").should("have.text", "Shop")
    started = [(e.subject, e.name, e.args) for e in told if isinstance(e, CommandStarted)]
    assert started == [
        (None, "visit", "'/tabs.html'"),
        ("get('#receipt-link')", "click", ""),
        (None, "popup", "timeout=3000"),
        ("tab[1].get('h1')", "should", "'have.text', 'Receipt'"),
        ("tab[1]", "url", ""),
        ("get('h1')", "should", "'have.text', 'Shop'"),
    ]
    lines = [f"{e.name}: {e.message}" for e in runner._ctx.log]  # the log a failing test prints
    assert "click: get('#receipt-link')" in lines and "tab[1] assert: get('h1') should have.text 'Receipt'" in lines, lines
    assert any(line.startswith("popup: tab[1] http://") and line.endswith("/receipt.html") for line in lines), lines
    numbers = [e.id for e in told if isinstance(e, CommandStarted)]
    assert numbers == sorted(set(numbers))  # one count for the test's commands and the tab's
    assert all(e.state == "passed" for e in told if isinstance(e, CommandEnded))


def test_a_custom_command_of_a_tab_is_told_as_the_tabs(runner, told, monkeypatch):
    from runner import add_command
    from runner.commands import custom

    monkeypatch.setattr(custom, "_commands", {})

    @add_command
    def heading_is(runner, text):
        runner.get("h1").should("have.text", text)

    runner.visit("/tabs.html")
    with runner.popup(timeout=3000) as tab:
        runner.get("#receipt-link").click()
    tab.value.heading_is("Receipt")
    started = [(e.subject, e.name, e.args) for e in told if isinstance(e, CommandStarted)]
    assert started[-2:] == [
        ("tab[1]", "heading_is", "'Receipt'"),  # the tab's, as its commands are
        ("tab[1].get('h1')", "should", "'have.text', 'Receipt'"),
    ]


def test_a_popup_that_never_opens_fails_when_the_block_ends(runner, told):
    runner.visit("/tabs.html")
    with pytest.raises(CommandError) as caught:
        with runner.popup(timeout=300) as tab:
            runner.get("#open-nothing").click()
    message = str(caught.value)
    assert message.startswith("runner.popup() waited 300ms (timeout: 300ms) for a popup or new tab, and none opened.")
    assert "target=_blank" in message and "popup(timeout=...)" in message
    ended = [e for e in told if isinstance(e, CommandEnded) and e.name == "popup"]
    assert len(ended) == 1 and ended[0].state == "failed" and "none opened" in (ended[0].error or "")
    with pytest.raises(UsageError, match="once the `with runner.popup"):
        tab.value  # noqa: B018 - reading it is the point
    runner.get("#said").should("have.text", "no popup")


def test_misuse_is_told(runner):
    runner.visit("/tabs.html")
    with pytest.raises(UsageError, match=r"popup\(timeout=\.\.\.\) takes milliseconds"):
        runner.popup(timeout="soon")
    with pytest.raises(UsageError, match=r"tab\.value\.close\(\)"):
        runner.close()
    with runner.popup() as tab:
        with pytest.raises(UsageError, match="once the `with runner.popup"):
            tab.value  # noqa: B018 - inside the block the page is not open yet
        runner.get("#receipt-link").click()
    with pytest.raises(CommandError, match=r"Timed out retrying after \d+ms: tab\[1\]\.get\('#nowhere'\)"):
        tab.value.get("#nowhere").should("exist", timeout=200)
    tab.value.get("#close-me").click()  # the popup closes itself
    with pytest.raises(CommandError, match=r"The popup tab\[1\] is closed"):
        tab.value.get("h1").should("exist")
    runner.get("h1").should("have.text", "Shop")


def test_an_error_in_the_block_is_the_tests_and_no_wait_follows(runner):
    runner.visit("/tabs.html")
    with pytest.raises(ZeroDivisionError):
        with runner.popup(timeout=60_000):
            1 / 0  # noqa: B018
    runner.get("h1").should("have.text", "Shop")  # at once: the block's end waited for nothing


def test_a_popup_opened_without_a_block_is_left_alone_and_closed_by_the_reset(runner):
    runner.visit("/tabs.html")
    runner.get("#receipt-link").click()
    runner.get("#count").click()
    runner.get("#count").should("have.text", "clicked 1")  # runner stays on the first page
    # the popup opens in its own time; the reset between tests closes whatever is open
    def two_pages(_: Any) -> None:
        assert pages(runner) == 2

    runner.wrap(None).should(two_pages)
    runner._ctx.run(runner._ctx.browser.reset((1000, 660)))
    assert pages(runner) == 1


def test_a_tabs_visit_runs_its_on_load_hook_in_the_tab(runner):
    # Found in the last read: the page's evaluation for on_load went through the test's page's
    # DevTools session, which a tab's view has not (an AssertionError, not the hook run)
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    tab.value.visit("/tabs.html", on_load="window.loaded = document.title")
    assert tab.value.evaluate("window.loaded") == "Shop"
    assert runner.evaluate("typeof window.loaded") == "undefined"  # the test's page untouched


def test_a_tabs_failing_command_ends_the_log_with_one_failed_line(runner):
    runner.visit("/tabs.html")
    with runner.popup(timeout=3000) as tab:
        runner.get("#receipt-link").click()
    logged = len(runner._ctx.log)
    with pytest.raises(CommandError):
        tab.value.get("#nowhere").should("exist", timeout=200)
    lines = [e.line for e in runner._ctx.log[logged:]]
    failed = [line for line in lines if line.startswith("tab[1] failed")]
    # the retry's own line says it; the command adds none of its own on top (as the test's page's do)
    assert len(failed) == 1, lines
    assert failed[0].startswith("tab[1] failed: get('#nowhere').should('exist') (after "), lines


def test_a_click_that_closes_its_own_page_has_been_done(runner):
    # the page goes away between the mouse going down and up: Playwright's mouse then fails
    # with "Target page ... has been closed", which is the click's effect, not a failure
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    tab.value.get("#close-on-press").click()
    with pytest.raises(CommandError, match=r"The popup tab\[1\] is closed"):
        tab.value.get("h1").should("exist")
    runner.get("h1").should("have.text", "Shop")


def test_only_the_pages_own_closing_is_taken_for_a_done_action():
    # the race above is the browser's to win or lose; the rule that decides it is checked here
    # on real Playwright errors: one from a closed page, one from a page that is still open
    from playwright.sync_api import Error, sync_playwright

    from runner.engine.browser import QUIET_FLAGS
    from runner.engine.discovery import find_browser
    from runner.engine.element_verbs import closed_by_the_action

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=find_browser().path, args=list(QUIET_FLAGS),
                                      chromium_sandbox=False)
        try:
            gone, open_page = chromium.new_page(), chromium.new_page()
            gone.close()
            with pytest.raises(Error) as closed:
                gone.mouse.click(1, 1)
            assert closed_by_the_action(gone, closed.value)  # type: ignore[arg-type]
            with pytest.raises(Error) as thrown:
                open_page.evaluate("() => { throw new Error('the app failed') }")
            assert not closed_by_the_action(open_page, thrown.value)  # type: ignore[arg-type]
            assert not closed_by_the_action(None, closed.value)
        finally:
            chromium.close()
