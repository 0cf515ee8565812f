"""runner.intercept_ws end to end: a real page's WebSockets, a real WebSocket server."""

from __future__ import annotations

import threading
import time

import pytest
from tests.support.ws_server import ws_serving

from runner import CommandError, InterceptError, UsageError

PAGE = """<html><body><ul id="log"></ul><script>
window.openSocket = (url) => new Promise((resolve) => {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  window.sock = ws;
  ws.onmessage = (e) => {
    const li = document.createElement("li");
    li.textContent = typeof e.data === "string" ? e.data : "bytes:" + Array.from(new Uint8Array(e.data)).join(",");
    document.getElementById("log").append(li);
  };
  ws.onopen = () => resolve("open");
  ws.onclose = (e) => { document.body.dataset.closed = String(e.code); resolve("closed"); };
});
</script></body></html>"""


@pytest.fixture
def ws_server():
    with ws_serving() as server:
        yield server


def open_socket(runner, server, ws_server):
    runner.visit(server.page("/ws-app", PAGE))
    return runner._ctx.run(runner._ctx.browser.page.evaluate(f"window.openSocket({ws_server.url!r})"))


def send(runner, data):
    runner._ctx.run(runner._ctx.browser.page.evaluate("(d) => window.sock.send(d)", data))


def test_a_spy_records_both_ways_and_waits_by_alias(runner, server, ws_server):
    socket = runner.intercept_ws("**/ws").as_("live")
    assert open_socket(runner, server, ws_server) == "open"
    send(runner, "ping")
    hello, ping, echo = runner.wait("@live", count=3)
    assert (hello.direction, hello.data) == ("to_page", "hello")
    assert (ping.direction, ping.data) == ("to_server", "ping")
    assert (echo.direction, echo.data) == ("to_page", "echo:ping")
    runner.get("#log li").should("have.length", 2).last().should("have.text", "echo:ping")
    assert ws_server.received == ["ping"]
    assert socket.call_count == 1 and len(socket.messages) == 3
    assert [m.data for m in runner.get("@live.all")] == ["hello", "ping", "echo:ping"]


def test_a_stub_answers_without_a_server(runner, server, ws_server):
    def fake(conn):
        conn.send_to_page("welcome")
        conn.on_page_message(lambda m: conn.send_to_page("fake:" + m.data))

    runner.intercept_ws("**/ws", fake, server=False).as_("fake")
    open_socket(runner, server, ws_server)
    send(runner, "hi")
    runner.get("#log li").should("have.length", 2).last().should("have.text", "fake:hi")
    assert ws_server.received == []  # the server never saw the socket
    assert [(m.direction, m.data, m.injected) for m in runner.get("@fake.all")] == [
        ("to_page", "welcome", True), ("to_server", "hi", False), ("to_page", "fake:hi", True)]


def test_callbacks_rewrite_and_drop_messages_both_ways(runner, server, ws_server):
    def rewrite(conn):
        def outgoing(message):
            if message.data == "secret":
                message.drop()
            else:
                message.data = message.data.upper()

        def incoming(message):
            message.data = message.data.replace("echo:", "served:")

        conn.on_page_message(outgoing)
        conn.on_server_message(incoming)

    runner.intercept_ws("**/ws", rewrite).as_("rw")
    open_socket(runner, server, ws_server)
    send(runner, "secret")
    send(runner, "abc")
    runner.get("#log li").should("have.length", 2).last().should("have.text", "served:ABC")
    assert ws_server.received == ["ABC"]  # the dropped one never left
    dropped = runner.get("@rw.all")[1]
    assert dropped.dropped and dropped.data == "secret"
    changed = runner.get("@rw.all")[2]
    assert (changed.original, changed.data) == ("abc", "ABC")


def test_binary_messages_and_closing_from_the_test(runner, server, ws_server):
    socket = runner.intercept_ws("**/ws").as_("bin")
    open_socket(runner, server, ws_server)
    runner._ctx.run(runner._ctx.browser.page.evaluate("window.sock.send(new Uint8Array([1, 2, 3]))"))
    _hello, sent, back = runner.wait("@bin", count=3)
    assert sent.data == b"\x01\x02\x03" and back.data == b"\x03\x02\x01"
    runner.get("#log li").should("have.length", 2).last().should("have.text", "bytes:3,2,1")
    socket.connections[0].close(4000, "done")
    runner.get("body").should("have.attr", "data-closed", "4000")


def test_a_socket_no_route_takes_connects_as_usual(runner, server, ws_server):
    runner.intercept_ws("**/other").as_("other")
    open_socket(runner, server, ws_server)
    send(runner, "plain")
    runner.get("#log li").should("have.length", 2).last().should("have.text", "echo:plain")
    assert runner.get("@other.all") == []


def test_a_wait_that_times_out_says_what_came(runner, server, ws_server):
    runner.intercept_ws("**/ws").as_("live")
    open_socket(runner, server, ws_server)
    with pytest.raises(CommandError) as caught:
        runner.wait("@live", count=3, timeout=400)
    message = str(caught.value)
    assert "timed out waiting 400ms for 3 messages of the WebSocket route `live`: 1 came." in message
    assert "<WsMessage server -> page 'hello'>" in message


def test_a_broken_callback_fails_the_test_and_the_message_goes_on(runner, server, ws_server):
    def broken(conn):
        conn.on_server_message(lambda m: 1 / 0)

    runner.intercept_ws("**/ws", broken)
    open_socket(runner, server, ws_server)
    with pytest.raises(InterceptError, match="ZeroDivisionError"):
        runner.get("#log li").should("have.length", 1)
    assert runner._ctx.take_async_error() is None


def test_intercept_ws_misuse(runner, server):
    runner.visit(server.page("/ws-app", PAGE))
    with pytest.raises(UsageError, match="takes a URL glob or a regular expression"):
        runner.intercept_ws(42)
    with pytest.raises(UsageError, match="the handler is a function of the connection"):
        runner.intercept_ws("**/ws", "nope")
    with pytest.raises(UsageError, match="`server` is True or False"):
        runner.intercept_ws("**/ws", server="no")


def test_sockets_are_rows_of_the_routes_and_requests_tables_and_events(runner, server, ws_server, request):
    from runner.events import RequestIntercepted, RouteAdded, RouteAliased
    from runner.plugin import _SESSION_KEY

    seen: list = []
    unsubscribe = request.config.stash[_SESSION_KEY].bus.subscribe(
        seen.append, (RouteAdded, RouteAliased, RequestIntercepted))
    try:
        runner.intercept_ws("**/ws").as_("live")
        runner.intercept_ws("**/other", server=False)
        assert open_socket(runner, server, ws_server) == "open"
        runner.wait("@live")  # the server's hello
    finally:
        unsubscribe()
    interceptor = runner._interceptor_getter()
    live, other = interceptor.routes_table()
    assert (live["method"], live["matcher"], live["alias"], live["matches"], live["stubbed"], live["handler"]) == \
        ("WS", '{"url": "**/ws"}', "live", 1, False, "spy")
    assert (other["matches"], other["stubbed"], other["handler"]) == (0, True, "static")
    (handshake,) = interceptor.requests_log()
    assert (handshake["method"], handshake["url"], handshake["status"], handshake["resource_type"]) == \
        ("GET", ws_server.url, 101, "websocket")
    assert handshake["route_ids"] == [live["id"]] and handshake["aliases"] == ["live"]
    added = [e for e in seen if isinstance(e, RouteAdded)]
    assert [(e.method, e.matcher) for e in added] == [("WS", '{"url": "**/ws"}'), ("WS", '{"url": "**/other"}')]
    assert [e.alias for e in seen if isinstance(e, RouteAliased)] == ["live"]
    (ended,) = [e for e in seen if isinstance(e, RequestIntercepted)]
    assert ended.log_line() == f"(websocket) GET 101 {ws_server.url} @live to the server"
    assert any(entry.message == ended.log_line() for entry in runner._ctx.log)


def test_what_arrives_while_the_handler_runs_waits_for_it(runner, server, ws_server):
    def slow(conn):
        time.sleep(0.3)  # the server's greeting arrives meanwhile
        conn.on_server_message(lambda m: setattr(m, "data", m.data.upper()))

    runner.intercept_ws("**/ws", slow).as_("live")
    open_socket(runner, server, ws_server)
    runner.get("#log li").should("have.text", "HELLO")
    assert [(m.data, m.original) for m in runner.get("@live.all")] == [("HELLO", "hello")]


@pytest.mark.runner(defaultCommandTimeout=400)
def test_a_callback_that_never_returns_is_given_up_on(runner, server, ws_server):
    release = threading.Event()

    def stuck(conn):
        conn.on_page_message(lambda m: release.wait(10))

    runner.intercept_ws("**/ws", stuck)
    open_socket(runner, server, ws_server)
    try:
        send(runner, "ping")
        with pytest.raises(InterceptError, match=r"ran past defaultCommandTimeout \(400ms\); it was given up on"):
            runner.get("#log li").should("have.length", 2, timeout=3000)  # the message went on as it came
    finally:
        release.set()
    # the message goes on once the callback is given up on, after the failure was reported: on
    # its way, not necessarily arrived, when should() raised
    assert ws_server.wait_received(1) == ["ping"]


def test_waits_take_each_message_once_whatever_order_they_are_recorded_in(runner, server, ws_server):
    handle: dict = {}

    def slow_out(conn):
        handle["conn"] = conn
        conn.on_page_message(lambda m: time.sleep(0.3))

    runner.intercept_ws("**/ws", slow_out).as_("live")
    open_socket(runner, server, ws_server)
    assert runner.wait("@live").data == "hello"
    send(runner, "a")  # its callback takes 300 ms; "b" is recorded first
    handle["conn"].send_to_page("b")
    assert runner.wait("@live").data == "b"
    assert [m.data for m in runner.wait("@live", count=2)] == ["a", "echo:a"]
