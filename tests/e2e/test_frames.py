"""runner.frame(selector): subjects inside iframes, same origin and cross origin, nested, retried.

The site's frames.html embeds frames/form.html (#pay, same origin) and frames/outer.html (#outer,
which embeds frames/inner.html as #inner). A frame of another origin is the same form served by
the test server: on 127.0.0.1 with another port (another origin, the same site) or on localhost
(another site: Chromium runs it in a process of its own).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest

from runner import CommandError, UsageError

FRAME_PAGES = Path(__file__).parent / "site" / "pages" / "frames"


def serve_form(server, host: str) -> str:
    """The site's frame form served by the test server; its URL on ``host``."""
    server.page("/frames/form.html", (FRAME_PAGES / "form.html").read_text())
    server.page("/frames/form-done.html", (FRAME_PAGES / "form-done.html").read_text())
    return f"http://{host}:{server.port}/frames/form.html"


def test_a_same_origin_frame_is_queried_typed_into_and_clicked(runner):
    runner.visit("/frames.html")
    pay = runner.frame("#pay")
    pay.get("input[name=card]").type("4242 4242")
    pay.get("#pay-button").click()
    pay.get("#out").should("have.text", "paid:4242 4242")
    pay.contains("Pay now").should("have.attr", "type", "submit")
    pay.find("h2").should("have.text", "Card")
    pay.get("#month").select("February").should("have.value", "02")
    pay.get("input[name=card]").clear().type("1")
    pay.get("#pay-button").click(force=True)  # Playwright's own click, through the frame
    pay.get("#out").should("have.text", "paid:1")
    # the page's own document has none of the frame's elements: the queries ran in the frame
    assert runner.get("input[name=card]").count() == 0
    runner.get("#top-out").should("have.text", "top page")
    assert pay.its("document.title").value() == "Pay"
    pay.its("app.state.step").should("eq", "card")


def test_reads_events_and_screenshots_of_elements_in_a_cross_origin_frame(runner, server):
    runner.visit(f"/frames.html?cross={serve_form(server, 'localhost')}")
    card = runner.frame("#cross").get("input[name=card]")
    card.invoke("setAttribute", "data-seen", "yes")
    card.should("have.attr", "data-seen", "yes")
    card.invoke("val").should("eq", "")
    runner.frame("#cross").get("#card-form").trigger("submit")
    runner.frame("#cross").get("#out").should("have.text", "paid:")
    shot = runner.frame("#cross").get("h2").screenshot("frame-heading")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert runner.frame("#cross").find("p").count() == 2


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"], ids=["other-port", "other-site"])
def test_a_cross_origin_frame_is_queried_typed_into_and_clicked(runner, server, host):
    url = serve_form(server, host)
    runner.visit(f"/frames.html?cross={url}")
    cross = runner.frame("#cross")
    cross.its("location.origin").should("eq", f"http://{host}:{server.port}")
    cross.get("input[name=card]").type("5555{enter}")
    cross.get("#out").should("have.text", "paid:5555")
    cross.contains("Pay now").click()
    cross.get("#out").should("have.text", "paid:5555")
    cross.get("input[name=card]").clear().type("42").should("have.value", "42")
    # the page cannot read the frame's document (another origin): the engine reached it anyway
    assert runner.get("#cross").its("contentDocument").value() is None


def test_within_and_hover_in_a_cross_origin_frame(runner, server):
    runner.visit(f"/frames.html?cross={serve_form(server, 'localhost')}")
    with runner.within(runner.frame("#cross").get("#card-form")):
        runner.get("input").type("77{enter}")
        runner.contains("Pay now").should("have.attr", "id", "pay-button")
    runner.frame("#cross").get("#out").should("have.text", "paid:77")
    runner.frame("#cross").get("#tip").hover().should("have.text", "hovered")
    runner.frame("#cross").get("li:first").should("not.exist")  # jQuery's extensions in a frame's get


def test_a_click_waits_while_the_page_covers_the_iframe(runner):
    runner.visit("/frames.html?cover=1")
    with pytest.raises(CommandError) as caught:
        runner.frame("#pay").get("#pay-button").click(timeout=400)
    assert "<button#pay-button> is being covered by another element: <div#cover>" in str(caught.value)
    runner.frame("#pay").get("#out").should("have.text", "")  # the click did not land in the frame
    runner.get("#cover").click()
    runner.frame("#pay").get("#pay-button").click()
    runner.frame("#pay").get("#out").should("have.text", "paid:")


def test_nested_frames(runner):
    runner.visit("/frames.html")
    inner = runner.frame("#outer").frame("#inner")
    inner.get("#inner-button").click().should("have.text", "inner clicked")
    runner.frame("#outer").get("#outer-text").should("have.text", "outer document")
    assert inner.its("document.title").value() == "Inner"


def test_nested_frames_of_another_site(runner, server):
    for name in ("outer.html", "inner.html"):
        server.page(f"/frames/{name}", (FRAME_PAGES / name).read_text())
    runner.visit(f"/frames.html?cross=http://localhost:{server.port}/frames/outer.html")
    inner = runner.frame("#cross").frame("#inner")
    inner.its("location.origin").should("eq", f"http://localhost:{server.port}")
    inner.get("#inner-button").click().should("have.text", "inner clicked")


def test_frames_without_a_src_srcdoc_and_one_the_page_writes(runner):
    runner.visit("/frames.html")
    runner.frame("#doc").get("#inline").should("have.text", "from srcdoc")
    runner.frame("#editor").contains("written by the page").should("have.id", "editable")


def test_the_iframe_may_appear_late_and_its_document_load_late(runner, server):
    url = serve_form(server, "localhost")
    runner.visit(f"/frames.html?late={url}")
    runner.frame("#late").get("input[name=card]").type("1")  # the iframe is added after 300 ms
    runner.frame("#late").get("input[name=card]").should("have.value", "1")


def test_each_command_finds_the_frame_again_after_it_navigates(runner, server):
    runner.visit("/frames.html")
    pay = runner.frame("#pay")
    pay.get("input[name=card]").should("exist")
    pay.get("#next").click()
    pay.get("#done").should("have.text", "Thank you")
    pay.its("document.title").should("eq", "Done")


def test_requests_of_a_cross_origin_frame_go_through_the_tests_routes(runner, server):
    server.route("/api/x", lambda h: h.send(200, "from the server", content_type="text/plain"))
    url = serve_form(server, "localhost")
    runner.intercept("**/api/x", {"body": "stubbed for the frame"}).as_("x")
    runner.visit(f"/frames.html?cross={url}")
    runner.frame("#cross").get("#fetch").click()
    runner.frame("#cross").get("#api").should("have.text", "stubbed for the frame")
    assert runner.wait("@x").request.url == f"http://localhost:{server.port}/api/x"
    assert not [r for r in server.received if r["path"] == "/api/x"]  # the server was never asked


def test_the_command_log_shows_the_frame(runner, started):
    runner.visit("/frames.html")
    runner.frame("#pay").get("input[name=card]").type("4242")
    runner.frame("#outer").frame("#inner").get("#inner-button").should("exist")
    lines = [(e.name, e.args, e.subject) for e in started]
    assert ("frame", "'#pay'", None) in lines
    assert ("type", "'4242'", "frame('#pay').get('input[name=card]')") in lines
    assert ("should", "'exist'", "frame('#outer').frame('#inner').get('#inner-button')") in lines
    log = [(entry.name, entry.message) for entry in runner._ctx.log]
    assert ("type", "frame('#pay').get('input[name=card]') '4242'") in log


def test_no_iframe_matched_is_told_with_the_frame(runner):
    runner.visit("/frames.html")
    with pytest.raises(CommandError) as caught:
        runner.frame("#nope").get("input").should("exist", timeout=300)
    assert "frame('#nope'): no iframe matched '#nope'" in str(caught.value)
    with pytest.raises(CommandError) as caught:
        runner.frame("#outer").frame("#nope").get("input").click(timeout=300)
    assert "frame('#outer').frame('#nope'): no iframe matched '#nope' in frame('#outer')" in str(caught.value)


def test_a_selector_that_is_not_an_iframe_is_told(runner):
    runner.visit("/frames.html")
    with pytest.raises(CommandError) as caught:
        runner.frame("#plain").get("input").should("exist", timeout=300)
    assert "frame('#plain'): '#plain' is not an iframe: it matched <div#plain>" in str(caught.value)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"], ids=["other-port", "other-site"])
def test_a_frame_that_never_loads_its_document_is_told(runner, server, host):
    answer = threading.Event()

    def held(h):  # answers once the test is done with it (the browser may have left by then)
        answer.wait(10)
        with contextlib.suppress(OSError):
            h.send(200, "<p>late</p>", content_type="text/html")

    server.route("/held", held)
    # added once the page loaded (visit waits for the documents of the frames it starts with)
    runner.visit(f"/frames.html?late=http://{host}:{server.port}/held")
    try:
        with pytest.raises(CommandError) as caught:
            runner.frame("#late").get("p").should("exist", timeout=2000)
    finally:
        answer.set()
    message = str(caught.value)
    assert message.startswith("Timed out retrying after")
    assert "frame('#late'): the iframe never loaded its document" in message
    assert "Traceback" not in message


def test_several_iframes_or_a_bad_selector_fail_at_once(runner):
    runner.visit("/frames.html")
    with pytest.raises(CommandError) as caught:
        runner.frame("iframe").get("input").should("exist", timeout=5000)
    assert "frame('iframe'): 4 elements matched 'iframe'" in str(caught.value)
    with pytest.raises(CommandError) as caught:
        runner.frame("#pay[").get("input").should("exist")
    assert "'#pay[' is not a valid CSS selector" in str(caught.value)
    with pytest.raises(UsageError, match="needs the CSS selector of an iframe"):
        runner.frame("")


def test_a_frame_of_a_popup_is_the_popups(runner):
    runner.visit("/frames.html")
    with runner.popup() as tab:
        runner.evaluate("() => { window.open('/frames.html?n=2'); }")
    tab.value.frame("#pay").get("input[name=card]").type("9")
    tab.value.frame("#pay").get("input[name=card]").should("have.value", "9")
    runner.frame("#pay").get("input[name=card]").should("have.value", "")  # the first page's frame
