"""visit, go, reload, url, location, title, viewport: against runner's file server and real servers."""

from __future__ import annotations

import pytest

from runner import CommandError, UsageError


def test_visit_resolves_relative_urls_against_the_file_server(runner):
    runner.visit("/index.html")
    assert runner.title() == "Home"
    assert runner.location("pathname") == "/index.html"
    assert runner.url().endswith("/index.html")


def test_visit_fails_on_a_4xx_document_with_the_status(runner, server):
    with pytest.raises(CommandError) as caught:
        runner.visit(server.url + "/status/404")
    message = str(caught.value)
    assert "404" in message and "fail_on_status_code=False" in message


def test_visit_can_accept_an_error_status(runner, server):
    runner.visit(server.url + "/status/500", fail_on_status_code=False)
    runner.contains("status 500").should("exist")


def test_visit_says_when_nothing_answers(runner):
    import socket

    with socket.socket() as s:  # a port nothing listens on (bound, then closed)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(CommandError) as caught:
        runner.visit(f"http://127.0.0.1:{port}/", timeout=5000)
    assert "Is your web server running" in str(caught.value)


def test_visit_timeout_names_the_argument_that_set_it(runner, server):
    with pytest.raises(CommandError) as caught:
        runner.visit(server.url + "/slow?ms=3000", timeout=300)
    message = str(caught.value)
    assert "runner.visit() timed out after 300ms" in message
    assert "(its timeout= argument). Pass a larger timeout=" in message
    assert "pageLoadTimeout" not in message


@pytest.mark.runner(pageLoadTimeout=300)
def test_visit_timeout_from_the_option_names_the_option(runner, server):
    with pytest.raises(CommandError) as caught:
        runner.visit(server.url + "/slow?ms=3000")
    assert "did not fire its load event (pageLoadTimeout). Pass timeout=" in str(caught.value)


def test_mount_timeout_names_mount_and_its_argument(runner, server):
    # the mounted page's stylesheet never comes in time: its load event does not fire
    with pytest.raises(CommandError) as caught:
        runner.mount("<p>hi</p>", stylesheets=[server.url + "/slow?ms=3000"], timeout=300)
    message = str(caught.value)
    assert "runner.mount() timed out after 300ms" in message and "(its timeout= argument)" in message


def test_visit_rejects_unknown_options_with_a_suggestion(runner):
    with pytest.raises(UsageError) as caught:
        runner.visit("/index.html", failOnStatus=False)
    assert "fail_on_status_code" in str(caught.value)


def test_visit_adds_query_parameters(runner):
    runner.visit("/index.html", qs={"a": "1", "b": "x y"})
    assert runner.location("search") == "?a=1&b=x+y"


def test_go_back_and_forward(runner):
    runner.visit("/index.html")
    runner.get("#to-forms").click()
    runner.get("#name").should("exist")
    runner.go("back")
    runner.get("#title").should("have.text", "Welcome")
    runner.go("forward")
    assert runner.title() == "Forms"


def test_reload_keeps_the_url(runner):
    runner.visit("/index.html?x=1")
    runner.reload()
    assert runner.location("search") == "?x=1"


def test_viewport_sizes_and_presets(runner):
    runner.visit("/index.html")
    runner.viewport(320, 480)
    assert runner.wrap(None) is not None
    width = runner._ctx.run(runner._ctx.browser.page.evaluate("() => window.innerWidth"))
    assert width == 320
    runner.viewport("iphone-6", "landscape")
    assert runner._ctx.browser.page.viewport_size == {"width": 667, "height": 375}
    with pytest.raises(UsageError):
        runner.viewport("no-such-phone")


@pytest.mark.runner(viewportWidth=500, viewportHeight=400)
def test_viewport_from_the_mark(runner):
    runner.visit("/index.html")
    assert runner._ctx.browser.page.viewport_size == {"width": 500, "height": 400}


def test_viewport_is_reset_for_the_next_test(runner):
    assert runner._ctx.browser.page.viewport_size == {"width": 1000, "height": 660}
