"""visit() fails on a response that is not valid HTTP, as the original does, though Chromium
forgives it and renders the page (before: the visit passed). Each server is a real socket on
127.0.0.1 that writes the raw bytes given, then closes."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from runner import CommandError

BODY = b"<!doctype html><title>raw</title><h1 id='h'>served</h1>"


@contextmanager
def raw_server(head: bytes) -> Iterator[str]:
    """Answers every connection with ``head`` and BODY, then closes it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(10)

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # closed, or 10 s without a connection
                return
            with connection:
                connection.settimeout(5)
                try:
                    connection.recv(65536)
                    connection.sendall(head + BODY)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        try:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() waiting in the thread
        except OSError:
            pass
        listener.close()
        thread.join(10)


# (A status line with no code at all, "HTTP/1.1 abc", is not here: Chromium rewrites it as
# "HTTP/1.1 200" before anyone can read it, so it cannot be told from a valid one.)
INVALID = [
    (b"HTTP/1.1 99 Low\r\nContent-Type: text/html\r\n\r\n", "its status line 'HTTP/1.1 99 Low' is not"),
    (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nBad Header Line\r\n\r\n",
     "its header line 'Bad Header Line' is not 'Name: value'"),
    (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: abc\r\n\r\n",
     "its Content-Length 'abc' is not a number"),
]


@pytest.mark.parametrize(("head", "why"), INVALID, ids=["two-digit-status", "header-line", "content-length"])
def test_a_visit_to_invalid_http_fails_and_says_why(runner, head, why):
    with raw_server(head) as url:
        with pytest.raises(CommandError) as caught:
            runner.visit(url)
    message = str(caught.value)
    assert message.startswith(f"runner.visit() failed trying to load:\n\n  {url}\n\nThe response was not valid HTTP: ")
    assert why in message


@pytest.mark.parametrize("head", [b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
                                  b"HTTP/1.1 200\r\nContent-Type: text/html\r\n\r\n"],
                         ids=["reason", "no-reason-phrase"])
def test_a_visit_to_valid_raw_http_passes(runner, head):
    with raw_server(head) as url:
        runner.visit(url)
        runner.get("#h").should("have.text", "served")


def test_the_checked_response_is_the_page_not_its_subresources(runner, server):
    with raw_server(b"HTTP/1.1 abc\r\n\r\n") as url:
        page = f"<!doctype html><img src='{url}x.png'><h1 id='h'>page</h1>"
        runner.visit(server.page("/with-bad-image", page))
        runner.get("#h").should("have.text", "page")


def test_a_valid_redirect_to_invalid_http_fails(runner, server):
    with raw_server(INVALID[1][0]) as url:
        with pytest.raises(CommandError, match="its header line 'Bad Header Line' is not 'Name: value'"):
            runner.visit(f"{server.url}/redirect?to={url}")


def test_an_invalid_redirect_to_a_valid_page_fails(runner, server):
    target = server.page("/landing", "<!doctype html><h1 id='h'>landing</h1>")
    with raw_server(f"HTTP/1.1 302 Found\r\nLocation: {target}\r\nBad Redirect Line\r\n\r\n".encode()) as url:
        with pytest.raises(CommandError, match="its header line 'Bad Redirect Line' is not 'Name: value'"):
            runner.visit(url)


def test_the_check_stops_listening_once_the_documents_head_is_in(runner, server, monkeypatch):
    """The Network domain of the check's session is off before the page's own requests start:
    a script the document waits for is held by the server until the session has answered a call
    sent after the domain was turned off, and the 8 fetches that script makes are not heard."""
    from runner.engine.document_heads import DocumentHeads

    released = threading.Event()
    heard: list[str] = []
    sessions: list[object] = []

    def hear(event):
        heard.append(event["request"]["url"])
    original_init, original_close = DocumentHeads.__init__, DocumentHeads.close

    def counting_init(self, session, main_frame):
        original_init(self, session, main_frame)
        if not sessions:  # a listener of the test's that the check never removes
            sessions.append(session)
            session.on("Network.requestWillBeSent", hear)

    def releasing_close(self):
        first = not getattr(self, "_closed", False)
        original_close(self)
        if first:
            async def release_when_off() -> None:
                await self._session.send("Runtime.evaluate", {"expression": "0"})
                released.set()
            asyncio.ensure_future(release_when_off())

    def held_script(h):
        released.wait(10)  # bounded: without the early stop, the visit waits here
        h.send(200, "for (let i = 0; i < 8; i++) fetch('/echo?fetch=' + i);", content_type="text/javascript")

    monkeypatch.setattr(DocumentHeads, "__init__", counting_init)
    monkeypatch.setattr(DocumentHeads, "close", releasing_close)
    server.route("/held.js", held_script)
    page = server.page("/holds", "<!doctype html><h1 id='h'>page</h1><script src='/held.js'></script>")
    try:
        runner.visit(page)
        runner.get("#h").should("have.text", "page")
        assert released.is_set()
        assert [url for url in heard if "/echo?fetch=" in url] == []
        assert any(url.endswith("/holds") for url in heard)  # it did listen while the document came
    finally:
        for session in sessions:
            session.remove_listener("Network.requestWillBeSent", hear)
