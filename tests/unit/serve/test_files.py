"""The file server serves the application's folder and nothing else: real HTTP requests over raw
sockets (so the Host header and the request target are exactly what the test writes), real
files and real symbolic links."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner.serve.files import FileServer

BOUND = 5.0  # seconds: every connection and read of these tests


def request(server: FileServer, target: str, host: str | None = "default", method: str = "GET") -> tuple[int, bytes]:
    """Send one raw HTTP/1.1 request; return the status and the body (``host=None``: no Host
    header at all; ``"default"``: 127.0.0.1:<port>)."""
    if host == "default":
        host = f"127.0.0.1:{server.port}"
    lines = [f"{method} {target} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    lines += ["Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND) as sock:
        sock.sendall("\r\n".join(lines).encode("latin-1"))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1."), f"no HTTP response to {target!r}: {data[:200]!r}"
    return int(head.split(b" ", 2)[1]), body


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """project/ with the app in project/app, a secret beside the app and runner's own files."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET-OUTSIDE")
    project = tmp_path / "project"
    app = project / "app"
    (app / "sub").mkdir(parents=True)
    (app / "index.html").write_text("<h1>home</h1>")
    (app / "page.txt").write_text("a page")
    (app / "sub" / "data.json").write_text('{"ok": true}')
    (project / "secret.txt").write_text("TOP-SECRET-PROJECT")
    return project


@pytest.fixture
def serve(site: Path) -> Iterator[FileServer]:
    server = FileServer(site / "app")
    yield server
    server.close()


def test_serves_the_folder(serve: FileServer) -> None:
    assert request(serve, "/page.txt") == (200, b"a page")
    assert request(serve, "/") == (200, b"<h1>home</h1>")
    assert request(serve, "/sub/data.json") == (200, b'{"ok": true}')
    assert request(serve, "/page.txt", host=f"localhost:{serve.port}") == (200, b"a page")
    assert request(serve, "/page.txt", host=f"LOCALHOST:{serve.port}") == (200, b"a page")


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",  # DNS rebinding: the attacker's name, resolved to 127.0.0.1
        "evil.example",
        "127.0.0.1",  # the right name on another port is another server
        "127.0.0.1:1",
        "localhost",
        "127.0.0.1:{port}.evil.example",
        "127.0.0.2:{port}",
        "",
        None,  # no Host header at all
    ],
)
def test_a_foreign_host_is_refused(serve: FileServer, host: str | None) -> None:
    status, body = request(serve, "/page.txt", host=None if host is None else host.format(port=serve.port))
    assert status == 403
    assert b"a page" not in body
    assert f"127.0.0.1:{serve.port}".encode() in body  # says which Host it answers


@pytest.mark.parametrize(
    "target",
    [
        "/../secret.txt",
        "/../../outside/secret.txt",
        "/sub/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/.%2e/secret.txt",
        "/%2e./secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt",
        "/%2e%2e%5csecret.txt",
        "/..\\secret.txt",
        "/%252e%252e/secret.txt",  # encoded twice: decoded once, it is a name, not ".."
        "/%c0%ae%c0%ae/secret.txt",  # overlong UTF-8 for "."
        "/sub/%2e%2e/%2e%2e/secret.txt",
        "//../secret.txt",
        "/./../secret.txt",
        "http://127.0.0.1/../secret.txt",
    ],
)
def test_dot_dot_never_leaves_the_folder(serve: FileServer, target: str) -> None:
    status, body = request(serve, target)
    assert b"TOP-SECRET" not in body
    assert status in (400, 404)


def test_a_symlink_to_a_file_outside_is_not_served(site: Path, serve: FileServer) -> None:
    (site / "app" / "leak.txt").symlink_to(site / "secret.txt")
    (site / "app" / "far.txt").symlink_to(site.parent / "outside" / "secret.txt")
    (site / "app" / "inside.txt").symlink_to(site / "app" / "page.txt")  # stays inside: fine
    for target in ("/leak.txt", "/far.txt"):
        status, body = request(serve, target)
        assert (status, b"TOP-SECRET" in body) == (404, False), target
    assert request(serve, "/inside.txt") == (200, b"a page")


def test_a_symlink_to_a_folder_outside_is_not_served(site: Path, serve: FileServer) -> None:
    (site / "app" / "escape").symlink_to(site.parent / "outside", target_is_directory=True)
    (site.parent / "outside" / "index.html").write_text("TOP-SECRET-INDEX")
    for target in ("/escape/secret.txt", "/escape/", "/escape"):
        status, body = request(serve, target)
        assert (status, b"TOP-SECRET" in body) == (404, False), target


def test_an_index_that_links_outside_is_not_served(site: Path, serve: FileServer) -> None:
    (site / "app" / "linked").mkdir()
    (site / "app" / "linked" / "index.html").symlink_to(site / "secret.txt")
    status, body = request(serve, "/linked/")
    assert (status, b"TOP-SECRET" in body) == (404, False)


def test_the_served_folder_may_itself_be_a_link(site: Path, tmp_path: Path) -> None:
    link = tmp_path / "app-link"
    link.symlink_to(site / "app", target_is_directory=True)
    server = FileServer(link)
    try:
        assert request(server, "/page.txt") == (200, b"a page")
        assert request(server, "/../secret.txt")[0] == 404
    finally:
        server.close()


def test_runner_files_are_never_served(site: Path) -> None:
    """runner.json and runner.env.json by name anywhere; the configuration, plugins and support
    files given to the server by real path, also through a link with another name."""
    app = site / "app"
    (app / "runner.json").write_text('{"TOP-SECRET": 1}')
    (app / "runner.env.json").write_text('{"token": "TOP-SECRET-TOKEN"}')
    (app / "sub" / "runner.env.json").write_text('{"token": "TOP-SECRET-TOKEN"}')
    (app / "RUNNER.ENV.JSON").write_text('{"token": "TOP-SECRET-TOKEN"}')
    (app / "ci.json").write_text('{"TOP-SECRET": "config given with --config-file"}')
    (app / "runner").mkdir()
    (app / "runner" / "plugins.py").write_text("TOKEN = 'TOP-SECRET-PLUGINS'")
    (app / "runner" / "support.py").write_text("TOKEN = 'TOP-SECRET-SUPPORT'")
    (app / "innocent.json").symlink_to(app / "runner.env.json")
    (app / "innocent.py").symlink_to(app / "runner" / "plugins.py")
    server = FileServer(app, hidden=[app / "ci.json", app / "runner" / "plugins.py",
                                     app / "runner" / "support.py"])
    try:
        for target in ("/runner.json", "/runner.env.json", "/sub/runner.env.json", "/RUNNER.ENV.JSON",
                       "/ci.json", "/runner/plugins.py", "/runner/support.py", "/innocent.json",
                       "/innocent.py", "/%72unner.env.json"):
            status, body = request(server, target)
            assert (status, b"TOP-SECRET" in body) == (404, False), target
        assert request(server, "/page.txt") == (200, b"a page")  # the app's files still are
    finally:
        server.close()


def test_no_directory_listing_without_an_index(site: Path, serve: FileServer) -> None:
    status, body = request(serve, "/sub/")
    assert status == 404
    assert b"data.json" not in body
    assert request(serve, "/sub/data.json")[0] == 200
    status, _ = request(serve, "/sub")  # a folder without its slash is redirected, as before
    assert status == 301
    (site / "app" / "sub" / "index.htm").write_text("sub index")
    assert request(serve, "/sub/") == (200, b"sub index")


def test_a_nul_byte_is_not_found_and_the_server_goes_on(serve: FileServer) -> None:
    status, _ = request(serve, "/page.txt%00.html")
    assert status == 404
    assert request(serve, "/page.txt") == (200, b"a page")


def test_head_follows_the_same_rules(site: Path, serve: FileServer) -> None:
    (site / "app" / "runner.env.json").write_text("{}")
    assert request(serve, "/page.txt", method="HEAD")[0] == 200
    assert request(serve, "/runner.env.json", method="HEAD")[0] == 404
    assert request(serve, "/page.txt", host="evil.example", method="HEAD")[0] == 403


def test_the_run_hides_its_own_files(tmp_path: Path) -> None:
    """The run session hands the file server its configuration file (here given by name, as
    with --config-file), the environment file, and the plugins and support files."""
    from runner.config import load_config
    from runner.run.session import RunSession

    project = tmp_path / "project"
    (project / "tests" / "plugins").mkdir(parents=True)
    (project / "ci.json").write_text(
        '{"pluginsFile": "tests/plugins/setup.py", "supportFile": "tests/support.py", "video": false}'
    )
    (project / "runner.env.json").write_text('{"token": "TOP-SECRET-TOKEN"}')
    (project / "tests" / "plugins" / "setup.py").write_text("TOKEN = 'TOP-SECRET-PLUGINS'\n")
    (project / "tests" / "support.py").write_text("TOKEN = 'TOP-SECRET-SUPPORT'\n")
    (project / "page.txt").write_text("a page")
    session = RunSession(load_config(project, config_file="ci.json", environ={}), mode="pytest")
    try:
        url = session.site.url()
        assert url is not None and session.site.server is not None
        server = session.site.server
        for target in ("/ci.json", "/runner.env.json", "/tests/plugins/setup.py", "/tests/support.py"):
            status, body = request(server, target)
            assert (status, b"TOP-SECRET" in body) == (404, False), target
        assert request(server, "/page.txt") == (200, b"a page")
    finally:
        session.close()


@pytest.mark.parametrize("hosts", [("{ok}", "evil.example"), ("evil.example", "{ok}"), ("{ok}", "{ok}")])
def test_a_request_with_two_host_headers_is_refused(serve: FileServer, hosts: tuple[str, str]) -> None:
    """The check read the first Host; a proxy or cache in front may believe the other one."""
    ok = f"127.0.0.1:{serve.port}"
    lines = ["GET /page.txt HTTP/1.1", *(f"Host: {h.format(ok=ok)}" for h in hosts), "Connection: close", "", ""]
    with socket.create_connection(("127.0.0.1", serve.port), timeout=BOUND) as sock:
        sock.sendall("\r\n".join(lines).encode("latin-1"))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 400 "), data[:200]
    assert b"a page" not in data and b"one Host header" in data
    assert request(serve, "/page.txt") == (200, b"a page")  # one Host: served as before


def test_the_artifact_folders_and_files_given_are_never_served(site: Path) -> None:
    app = site / "app"
    for name in ("report/index.html", "report/data/t1.js", "shots/a.png", ".report.building-7/index.html",
                 "results/events.jsonl", "results/events.2026-01-01T00-00-00.jsonl", "results/junit-ab12cd34.xml",
                 "results/notes.txt"):
        (app / name).parent.mkdir(parents=True, exist_ok=True)
        (app / name).write_text("TOP-SECRET-ARTIFACT" if name != "results/notes.txt" else "notes")
    server = FileServer(app, hidden_folders=[app / "report", app / "shots", site],  # site holds the app: ignored
                        hidden_patterns=[f"{app}/.report.*", f"{app}/results/events.jsonl",
                                         f"{app}/results/events.*.jsonl", f"{app}/results/junit-*.xml"])
    try:
        for target in ("/report/", "/report/index.html", "/report/data/t1.js", "/shots/a.png",
                       "/.report.building-7/index.html", "/results/events.jsonl",
                       "/results/events.2026-01-01T00-00-00.jsonl", "/results/junit-ab12cd34.xml",
                       "/report/../report/index.html", "/%72eport/index.html"):
            status, body = request(server, target)
            assert (status, b"TOP-SECRET" in body) == (404, False), target
        assert request(server, "/results/notes.txt") == (200, b"notes")
        assert request(server, "/page.txt") == (200, b"a page")
    finally:
        server.close()
