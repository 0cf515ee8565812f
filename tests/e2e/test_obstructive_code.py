"""modifyObstructiveCode (on by default): a framed page's framebusting does not take the test's
page away; the page's own code is left as it is."""

from __future__ import annotations

APP = """<html><body><h1>app</h1><p id="status">waiting</p><iframe src="/framed"></iframe>
<script>addEventListener("message", (e) => { document.getElementById("status").textContent = e.data; });</script>
</body></html>"""

INLINE = """<html><body>framed<script>
if (top !== self) { top.location = "/busted"; }
parent.postMessage("framed page ran", "*");
</script></body></html>"""

EXTERNAL = """<html><body>framed<script src="/bust.js"></script></body></html>"""
BUST_JS = """if (window.top != window.self) { window["top"].location.href = "/busted"; }
parent.postMessage("framed script ran", "*");"""


def test_an_inline_framebuster_stays_in_its_frame(runner, server):
    server.page("/framed", INLINE)
    server.page("/busted", "<h1>busted</h1>")
    runner.visit(server.page("/app", APP))
    runner.get("#status").should("have.text", "framed page ran")
    assert runner.url().endswith("/app")
    assert not [r for r in server.received if r["path"] == "/busted"]


def test_a_framebusting_script_file_stays_in_its_frame(runner, server):
    server.page("/framed", EXTERNAL)
    server.route("/bust.js", lambda h: h.send(200, BUST_JS, content_type="application/javascript"))
    server.page("/busted", "<h1>busted</h1>")
    runner.visit(server.page("/app", APP))
    runner.get("#status").should("have.text", "framed script ran")
    assert runner.url().endswith("/app")


def test_the_pages_own_code_is_not_rewritten(runner, server):
    own = """<html><body><p id="out"></p><script>
    document.getElementById("out").textContent = String(top === self) + " " + typeof window.top;
    </script></body></html>"""
    runner.visit(server.page("/own", own))
    runner.get("#out").should("have.text", "true object")


def test_with_routes_defined_too(runner, server):
    server.page("/framed", INLINE)
    runner.intercept("/api/**", {"body": "x"})  # Playwright's routing beside the guard
    runner.intercept("/framed").as_("framed")
    runner.visit(server.page("/app", APP))
    runner.get("#status").should("have.text", "framed page ran")
    assert runner.wait("@framed").response.status_code == 200
    assert runner.url().endswith("/app")


def test_a_page_without_frames_leaves_the_guard_off_and_a_framed_one_keeps_it(runner, server):
    guard = runner._ctx.browser.frame_guard
    runner.visit(server.page("/plain", "<html><body><h1>plain</h1></body></html>"))
    assert guard.state == "off"  # fetches of this page are never paused
    server.page("/framed", INLINE)
    runner.visit(server.page("/app", APP))
    runner.get("#status").should("have.text", "framed page ran")
    assert guard.state == "framed" and guard.rewritten >= 1
    runner.visit(server.url + "/plain")  # and off again once a page without frames loads
    assert guard.state == "off"


def test_a_frame_a_script_adds_arms_the_guard_for_what_it_loads_next(runner, server):
    server.page("/framed", EXTERNAL)
    server.route("/bust.js", lambda h: h.send(200, BUST_JS, content_type="application/javascript"))
    dynamic = """<html><body><p id="status">waiting</p>
    <script>addEventListener("message", (e) => { document.getElementById("status").textContent = e.data; });
    const f = document.createElement("iframe"); f.src = "/framed"; document.body.append(f);</script></body></html>"""
    runner.visit(server.page("/dynamic", dynamic))
    runner.get("#status").should("have.text", "framed script ran")  # its script came after the arming
    assert runner.url().endswith("/dynamic")
