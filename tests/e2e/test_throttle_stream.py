"""throttleKbps and res.set_throttle stream the body: the page reads it as it arrives."""

from __future__ import annotations

import pytest

READ = """async (url) => {
    const started = performance.now();
    const response = await fetch(url);
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
        const {done, value} = await reader.read();
        if (done) break;
        size += value.length;
        chunks.push([Math.round(performance.now() - started), size]);
    }
    return {status: response.status, type: response.headers.get("content-type"), size,
            chunks, total: Math.round(performance.now() - started)};
}"""


def read(runner, url):
    return runner._ctx.run(runner._ctx.browser.page.evaluate(READ, url), 20000)


def assert_streamed(result, size, seconds):
    assert result["status"] == 200 and result["size"] == size
    first_ms, first_size = result["chunks"][0]
    assert first_size < size / 2 and first_ms < seconds * 1000 / 2  # the first part came early
    assert len(result["chunks"]) >= 4  # several parts, as they arrived
    assert seconds * 1000 * 0.7 <= result["total"] <= seconds * 1000 * 3  # at about the rate


def test_a_throttled_stub_streams_its_body(runner, server):
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    runner.intercept("/big", {"body": "x" * 12000, "headers": {"content-type": "text/plain"},
                              "throttleKbps": 64}).as_("big")  # 8000 bytes a second: 1.5 s
    result = read(runner, "/big")
    assert_streamed(result, 12000, 1.5)
    assert result["type"] == "text/plain"
    interception = runner.wait("@big")
    assert interception.response.throttle_kbps == 64 and interception.state == "Complete"


def test_set_throttle_streams_what_the_server_sent(runner, server):
    server.route("/data", lambda h: h.send(200, "d" * 9000, content_type="text/csv"))
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    runner.intercept("/data", lambda req: req.continue_(lambda res: res.set_throttle(48))).as_("data")
    result = read(runner, "/data")  # 6000 bytes a second: 1.5 s
    assert_streamed(result, 9000, 1.5)
    assert result["type"] == "text/csv"
    assert runner.wait("@data").response.status_code == 200


@pytest.mark.parametrize("kbps", [0])
def test_a_zero_throttle_sends_the_body_at_once(runner, server, kbps):
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    runner.intercept("/fast", {"body": "z" * 5000, "throttleKbps": kbps})
    result = read(runner, "/fast")
    assert result["size"] == 5000 and result["total"] < 1000


def test_a_page_that_stops_reading_a_stream_errors_the_interception(runner, server):
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    runner.intercept("/big", {"body": "x" * 40000, "throttleKbps": 64}).as_("big")  # 5 s of body
    outcome = runner._ctx.run(runner._ctx.browser.page.evaluate("""async () => {
        const controller = new AbortController();
        const response = await fetch("/big", {signal: controller.signal});
        const reader = response.body.getReader();
        await reader.read();
        controller.abort();
        try { await reader.read(); return "read on"; } catch (e) { return "aborted"; }
    }"""))
    assert outcome == "aborted"
    interception = runner.wait("@big", timeout=8000)
    assert interception.state == "Errored"
