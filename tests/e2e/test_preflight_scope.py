"""What the CORS preflight guard pauses on a routed page (engine/preflights.py, issue 26): the
page's calls to its own origin pass it without a pause; every request that can be a preflight is
still handed to the routes, and a cross-origin request the server's preflight refuses is refused
as without runner, whoever sends it (the page, a frame of another origin, a sandboxed document, a
document reached by a redirect, a data: document). Real Chromium, real servers on 127.0.0.1."""

from __future__ import annotations

import time

from tests.e2e.test_intercept_details import _PUT, _cors_server_routes, _preflights
from tests.support.page_fetch import fetch, open_page

_EVERY = "*"


def _guard(runner):
    return runner._ctx.browser.preflights


def _scope_becomes(runner, wanted, within_s=5.0):
    """The guard's scope once it is ``wanted`` (it follows the page's events), or what it was."""
    deadline = time.monotonic() + within_s
    while _guard(runner).scope != wanted and time.monotonic() < deadline:
        time.sleep(0.01)
    return _guard(runner).scope


def _refused_like_without_runner(server, result, path="/cors/closed"):
    assert "error" in result, result  # the server's preflight answer refuses the PUT
    assert len(_preflights(server, path)) == 1  # the browser's own preflight reached the server
    assert not [r for r in server.received if r["method"] == "PUT" and r["path"] == path]


def _stubbed(runner):
    runner.intercept("/api/*", {"body": {"stub": True}}).as_("api")  # the page is routed


def test_the_pages_calls_to_its_own_origin_pass_the_guard_without_a_pause(runner, server):
    other = _cors_server_routes(server)
    open_page(runner, server)
    _stubbed(runner)
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    paused = _guard(runner).paused
    for n in range(5):
        assert fetch(runner, f"/api/items?n={n}")["text"] == '{"stub":true}'
    assert _guard(runner).paused == paused  # none of the five was held by the guard
    _refused_like_without_runner(server, fetch(runner, other + "/cors/closed", _PUT))
    assert _guard(runner).paused > paused  # another origin's request still meets the guard
    assert fetch(runner, other + "/cors/open", _PUT)["status"] == 200


def test_the_guard_narrows_to_the_origin_of_each_new_document(runner, server):
    _cors_server_routes(server)
    _stubbed(runner)
    open_page(runner, server)
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    elsewhere = f"http://localhost:{server.port}"
    runner.visit(elsewhere + server.page("/there", "<html><body>there</body></html>").removeprefix(server.url))
    assert _scope_becomes(runner, elsewhere + "/") == elsewhere + "/"
    # 127.0.0.1 is now another origin: its preflight is the server's again
    _refused_like_without_runner(server, fetch(runner, server.url + "/cors/closed", _PUT))


def test_a_frame_of_another_origin_makes_the_guard_pause_every_request(runner, server):
    _cors_server_routes(server)
    _stubbed(runner)
    elsewhere = f"http://localhost:{server.port}"
    server.page("/framed", "<html><body>framed</body></html>")
    runner.visit(server.page("/host", f'<html><body><iframe src="{elsewhere}/framed"></iframe></body></html>'))
    assert _scope_becomes(runner, _EVERY) == _EVERY
    frame = runner._ctx.run(_frame_fetch(runner, server.url + "/cors/closed"))
    # the frame's PUT to the page's origin is cross-origin for the frame: its preflight goes to
    # the server, which refuses it (Playwright would have allowed it without the guard)
    _refused_like_without_runner(server, frame)


async def _frame_fetch(runner, url):
    page = runner._ctx.browser.page
    frame = next(f for f in page.frames if f.parent_frame is not None)
    return await frame.evaluate("""async ([url, init]) => {
        try { const r = await fetch(url, init); return {status: r.status, text: await r.text()}; }
        catch (e) { return {error: String(e)}; }
    }""", [url, _PUT])


def test_a_sandboxed_document_has_no_origin_to_narrow_to(runner, server):
    _cors_server_routes(server)
    server.route("/sandboxed", lambda h: h.send(200, "<html><body>sandboxed</body></html>", content_type="text/html",
                                                 headers={"Content-Security-Policy": "sandbox allow-scripts"}))
    _stubbed(runner)
    runner.visit(server.url + "/sandboxed")
    assert _scope_becomes(runner, _EVERY) == _EVERY
    # an opaque origin: even the page's own server is another origin, and preflighted
    _refused_like_without_runner(server, fetch(runner, server.url + "/cors/closed", _PUT))


def test_a_document_reached_by_a_redirect_narrows_to_its_own_origin(runner, server):
    _cors_server_routes(server)
    elsewhere = f"http://localhost:{server.port}"
    there = server.page("/arrived", "<html><body>arrived</body></html>").removeprefix(server.url)
    server.route("/hop", lambda h: h.send(302, b"", headers={"Location": elsewhere + there}))
    _stubbed(runner)
    runner.visit(server.url + "/hop")
    assert runner._ctx.browser.page.url == elsewhere + there
    assert _scope_becomes(runner, elsewhere + "/") == elsewhere + "/"
    _refused_like_without_runner(server, fetch(runner, server.url + "/cors/closed", _PUT))


def test_a_data_document_fetching_at_once_is_guarded(runner, server):
    _cors_server_routes(server)
    open_page(runner, server)
    _stubbed(runner)
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    script = (f"window.done = fetch('{server.url}/cors/closed', {{method: 'PUT', headers: {{'x-custom': '1'}}, "
              "body: 'x'}).then(r => ({status: r.status}), e => ({error: String(e)}));")
    runner.visit(f"data:text/html,<script>{script}</script>")
    result = runner._ctx.run(runner._ctx.browser.page.evaluate("window.done"))
    _refused_like_without_runner(server, result)


def test_a_second_document_of_the_same_origin_changes_nothing(runner, server):
    _stubbed(runner)
    open_page(runner, server)
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    changes = _guard(runner).changes
    runner.visit(server.page("/second", "<html><body>second</body></html>"))
    runner.reload()
    assert _guard(runner).scope == server.url + "/"
    assert _guard(runner).changes == changes  # Chromium was not told anything new


def test_a_data_document_the_history_brings_back_is_guarded(runner, server):
    _cors_server_routes(server)
    _stubbed(runner)
    script = (f"window.done = fetch('{server.url}/cors/closed', {{method: 'PUT', headers: {{'x-custom': '1'}}, "
              "body: 'x'}).then(r => ({status: r.status}), e => ({error: String(e)}));")
    runner.visit(f"data:text/html,<script>{script}</script>")
    assert "error" in runner._ctx.run(runner._ctx.browser.page.evaluate("window.done"))
    open_page(runner, server)
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    runner.go("back")  # the data: document again, from the history: its script runs again
    result = runner._ctx.run(runner._ctx.browser.page.evaluate("window.done"))
    assert "error" in result, result
    assert len(_preflights(server, "/cors/closed")) == 2  # both times the server's preflight decided
    assert not [r for r in server.received if r["method"] == "PUT" and r["path"] == "/cors/closed"]


def test_going_back_to_a_page_of_the_same_origin_changes_nothing(runner, server):
    _stubbed(runner)
    open_page(runner, server)
    runner.visit(server.page("/next", "<html><body>next</body></html>"))
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    changes = _guard(runner).changes
    runner.go("back")
    runner.go("forward")
    assert _guard(runner).scope == server.url + "/" and _guard(runner).changes == changes


def test_a_3xx_without_a_location_is_a_document_the_guard_sees_coming(runner, server):
    _cors_server_routes(server)
    server.route("/odd", lambda h: h.send(300, "<html><body>choose</body></html>", content_type="text/html"))
    _stubbed(runner)
    open_page(runner, server)
    assert _scope_becomes(runner, server.url + "/") == server.url + "/"
    elsewhere = f"http://localhost:{server.port}"
    runner.visit(elsewhere + "/odd")
    assert "choose" in runner._ctx.run(runner._ctx.browser.page.content())
    assert _scope_becomes(runner, elsewhere + "/") == elsewhere + "/"
    _refused_like_without_runner(server, fetch(runner, server.url + "/cors/closed", _PUT))
