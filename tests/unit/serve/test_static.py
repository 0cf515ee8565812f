"""runner's static server (serve/static.py): content types, Range requests, an extra file outside the
folder, and the folder's rules (Host, no listing). Real sockets, real files."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner.serve.static import StaticServer

BOUND = 5.0


def get(server: StaticServer, target: str, headers: dict[str, str] | None = None,
        method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 request: the status, the headers (lower-case names) and the body."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{server.port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    found = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines)}
    return int(status_line.split(" ", 2)[1]), found, body


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    for name, text in {"index.html": "<h1>viewer</h1>", "app.js": "1", "app.css": "b{}", "m.webmanifest": "{}",
                       "data.json": "{}", "logo.svg": "<svg/>", "font.ttf": "ttf", "v.webm": "webm",
                       "v.mp4": "mp4", "assets/x.js": "2"}.items():
        (site / name).write_text(text)
    (site / "big.zip").write_bytes(bytes(range(256)) * 4)
    return site


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = elsewhere / "the test.zip"
    path.write_bytes(b"PK" + bytes(range(100)))
    return path


@pytest.fixture
def server(folder: Path, trace: Path) -> Iterator[StaticServer]:
    srv = StaticServer(folder, extra={"/runner-trace/the test.zip": trace})
    yield srv
    srv.close()


@pytest.mark.parametrize(("name", "kind"), [
    ("app.js", "text/javascript"), ("assets/x.js", "text/javascript"), ("app.css", "text/css"),
    ("m.webmanifest", "application/manifest+json"), ("data.json", "application/json"),
    ("logo.svg", "image/svg+xml"), ("font.ttf", "font/ttf"), ("v.webm", "video/webm"), ("v.mp4", "video/mp4"),
    ("big.zip", "application/zip"), ("index.html", "text/html"),
])
def test_each_file_has_its_content_type(server: StaticServer, name: str, kind: str) -> None:
    status, headers, _ = get(server, f"/{name}")
    assert status == 200
    assert headers["content-type"].split(";")[0] == kind


def test_range_requests_get_the_part_asked_for(server: StaticServer, folder: Path) -> None:
    whole = (folder / "big.zip").read_bytes()
    status, headers, body = get(server, "/big.zip", {"Range": "bytes=10-19"})
    assert (status, body) == (206, whole[10:20])
    assert headers["content-range"] == f"bytes 10-19/{len(whole)}" and headers["content-length"] == "10"
    status, headers, body = get(server, "/big.zip", {"Range": "bytes=1000-"})  # to the end
    assert (status, body) == (206, whole[1000:])
    status, headers, body = get(server, "/big.zip", {"Range": "bytes=-5"})  # the last five
    assert (status, body) == (206, whole[-5:])
    assert headers["content-range"] == f"bytes {len(whole) - 5}-{len(whole) - 1}/{len(whole)}"
    status, headers, body = get(server, "/big.zip", {"Range": "bytes=5000-6000"})
    assert (status, body) == (416, b"") and headers["content-range"] == f"bytes */{len(whole)}"
    status, headers, body = get(server, "/big.zip")
    assert (status, body) == (200, whole) and headers["accept-ranges"] == "bytes"
    status, _, body = get(server, "/big.zip", {"Range": "bytes=0-1,5-6"})  # several: the whole file
    assert (status, body) == (200, whole)


def test_the_extra_file_is_served_at_its_url_only(server: StaticServer, trace: Path) -> None:
    status, headers, body = get(server, "/runner-trace/the%20test.zip")
    assert (status, body) == (200, trace.read_bytes()) and headers["content-type"] == "application/zip"
    status, _, body = get(server, "/runner-trace/the%20test.zip", {"Range": "bytes=0-1"})
    assert (status, body) == (206, b"PK")
    assert get(server, "/runner-trace/")[0] == 404
    assert get(server, "/runner-trace/other.zip")[0] == 404
    assert get(server, "/../elsewhere/the%20test.zip")[0] in (400, 404)


def test_folders_are_never_listed_and_a_foreign_host_is_refused(server: StaticServer) -> None:
    assert get(server, "/")[2] == b"<h1>viewer</h1>"
    status, _, body = get(server, "/assets/")
    assert status == 404 and b"x.js" not in body
    assert get(server, "/assets")[0] == 301  # to "/assets/", which has no index either
    assert get(server, "/app.js", method="HEAD")[0] == 200
    with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND) as sock:
        sock.sendall(b"GET /app.js HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n")
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 403")


def test_a_busy_port_is_an_os_error(server: StaticServer, folder: Path) -> None:
    with pytest.raises(OSError):
        StaticServer(folder, server.port)


def test_an_unchanged_file_is_not_sent_again(server: StaticServer) -> None:
    status, headers, _ = get(server, "/app.js")
    modified = headers["last-modified"]
    assert get(server, "/app.js", {"If-Modified-Since": modified})[:3:2] == (304, b"")
    assert get(server, "/app.js", {"If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"})[0] == 200
    assert get(server, "/app.js", {"If-Modified-Since": "not a date"})[0] == 200
