"""``webServer``: its messages (the schema's, and url-or-port), its entries read as WebServerSpec,
and what counts as a server that answers (a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from tests.support.servers import serving

from runner.config.validate import problems_of
from runner.config.web_server import DEFAULT_TIMEOUT_MS, WebServerSpec, web_servers
from runner.run.web_server import port_answers, url_answers

ENTRY = ("a web server entry (an object with \"command\" and \"url\" or \"port\"; optionally \"timeout\", "
         "\"reuseExistingServer\", \"cwd\", \"env\", \"stdout\", \"stderr\") or an array of them, or null")

PROBLEMS: list[tuple[Any, list[str]]] = [
    ({"command": "x"},
     ['Expected `webServer` to be a web server entry with `url` or `port`. Instead the value was: `{"command": "x"}` '
      "(it needs `url` or `port`: what runner waits for before the tests start)."]),
    ([{"command": "x", "port": 1, "url": "http://a/"}],
     ['Expected `webServer[0]` to be a web server entry with `url` or `port`. Instead the value was: '
      '`{"command": "x", "port": 1, "url": "http://a/"}` (it has both `url` and `port`: give one of them (`url` to '
      "wait for an HTTP answer, `port` for a TCP connection))."]),
    ({"url": "http://a/"}, ["Missing `webServer.command`: it is required and must be a non-empty string (a shell "
                            "command)."]),
    ({"command": "x", "port": 1, "timout": 5},
     ["Unknown property `webServer.timout`. Did you mean `webServer.timeout`? `webServer` accepts only `command`, "
      "`url`, `port`, `timeout`, `reuseExistingServer`, `cwd`, `env`, `stdout`, `stderr`."]),
    ([{"command": "", "port": 70000}],
     ["Expected `webServer[0].command` to be a non-empty string (a shell command). Instead the value was: `\"\"`",
      "Expected `webServer[0].port` to be a port number (1 to 65535). Instead the value was: `70000`"]),
    ({"command": "x", "url": "localhost:3000", "env": {"A": 1}, "stdout": "inherit", "timeout": 0},
     ["Expected `webServer.url` to be a fully qualified URL (starting with http:// or https://). Instead the value "
      'was: `"localhost:3000"`',
      "Expected `webServer.env.A` to be a string. Instead the value was: `1`",
      'Expected `webServer.stdout` to be "pipe" or "ignore". Instead the value was: `"inherit"`',
      "Expected `webServer.timeout` to be a whole number of milliseconds (1 or more). Instead the value was: `0`"]),
    ("npm start", [f'Expected `webServer` to be {ENTRY}. Instead the value was: `"npm start"`']),
]


@pytest.mark.parametrize(("value", "expected"), PROBLEMS)
def test_each_problem_is_one_message_naming_the_field(value: Any, expected: list[str]) -> None:
    assert [problem.text for problem in problems_of({"webServer": value})] == expected


def test_valid_values_have_no_problem() -> None:
    for value in (None, [], {"command": "x", "port": 3000},
                  [{"command": "a", "url": "https://127.0.0.1:8443/health", "timeout": 5, "reuseExistingServer": True,
                    "cwd": "app", "env": {"A": "1"}, "stdout": "pipe", "stderr": "ignore"}, {"command": "b", "port": 1}]):
        assert problems_of({"webServer": value}) == [], value
    assert problems_of({"e2e": {"webServer": {"command": "x"}}})[0].path == "e2e.webServer"


def test_entries_are_read_with_defaults_and_cwd_from_the_project_root(tmp_path: Path) -> None:
    assert web_servers(None, tmp_path) == []
    (one,) = web_servers({"command": "serve", "port": 3000}, tmp_path)
    assert one == WebServerSpec(index=None, command="serve", cwd=tmp_path, port=3000, timeout_ms=DEFAULT_TIMEOUT_MS)
    assert (one.name, one.target) == ("webServer", "port 3000 (127.0.0.1)")
    first, second = web_servers([{"command": "db", "port": 5432, "cwd": "db"},
                                 {"command": "app", "url": "http://127.0.0.1:8000/", "timeout": 5,
                                  "reuseExistingServer": True, "env": {"A": "b"}, "stdout": "pipe"}], tmp_path)
    assert (first.name, first.cwd) == ("webServer[0]", tmp_path / "db")
    assert (second.name, second.target, second.timeout_ms, second.reuse_existing, dict(second.env), second.stdout) == (
        "webServer[1]", "http://127.0.0.1:8000/", 5, True, {"A": "b"}, "pipe")


@pytest.mark.parametrize(("status", "answers"), [(200, True), (204, True), (302, True), (400, True), (401, True),
                                                  (403, True), (404, False), (500, False), (503, False)])
def test_a_url_answers_with_a_status_below_404(status: int, answers: bool) -> None:
    with serving() as server:
        assert url_answers(f"{server.url}/status/{status}") is answers


def test_nothing_listening_neither_url_nor_port_answers() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: connections are refused
        assert url_answers(f"http://127.0.0.1:{port}/", 0.5) is False
        assert port_answers(port, 0.5) is False
        sock.listen()
        assert port_answers(port, 0.5) is True
