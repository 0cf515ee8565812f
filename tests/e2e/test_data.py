"""fixture, request, exec, env, cookies, screenshot, downloads, isolation between tests."""

from __future__ import annotations

import base64
import json
import time

import pytest
from tests.support.procs import left_after, pid_in

from runner import CommandError, Runner, UsageError


def test_fixture_json_text_image_and_bytes(runner):
    assert runner.fixture("data.json") == {"name": "fixture data", "items": [1, 2, 3]}
    assert runner.fixture("data") == {"name": "fixture data", "items": [1, 2, 3]}
    assert runner.fixture("note.txt") == "plain text fixture\n"
    png = runner.fixture("dot.png")
    assert base64.b64decode(png).startswith(b"\x89PNG")
    assert runner.fixture("dot.png,null").startswith(b"\x89PNG")
    assert runner.fixture("data.json", encoding=None).startswith(b"{")
    with pytest.raises(CommandError) as caught:
        runner.fixture("missing.json")
    assert "fixturesFolder" in str(caught.value)


def test_request_get_json_and_post_body(runner, server):
    response = runner.request(server.url + "/echo?x=1")
    assert response.status == 200 and response.status_code == 200
    assert response.body["method"] == "GET" and response.body["path"] == "/echo?x=1"
    assert response.duration >= 0
    posted = runner.request("POST", server.url + "/echo", {"name": "Ada"})
    assert json.loads(posted.body["body"]) == {"name": "Ada"}
    assert posted.body["headers"]["content-type"] == "application/json"


def test_request_options_headers_qs_auth_form(runner, server):
    response = runner.request(url=server.url + "/echo", method="PUT", body={"a": "1"}, form=True,
                              headers={"X-Test": "yes"}, qs={"q": "v"},
                              auth={"username": "u", "password": "p:w"})
    echoed = response.body
    assert echoed["method"] == "PUT" and echoed["path"] == "/echo?q=v"
    assert echoed["headers"]["x-test"] == "yes"
    assert echoed["headers"]["authorization"] == "Basic " + base64.b64encode(b"u:p:w").decode()
    assert echoed["body"] == "a=1"


def test_request_fails_on_error_status_unless_told(runner, server):
    with pytest.raises(CommandError) as caught:
        runner.request(server.url + "/status/503")
    assert "503" in str(caught.value) and "fail_on_status_code=False" in str(caught.value)
    assert runner.request(server.url + "/status/503", fail_on_status_code=False).status == 503


@pytest.mark.parametrize(("content_type", "data", "expected"), [
    ("image/png", b"\x89PNG\r\n\x1a\n\x00\x00", b"\x89PNG\r\n\x1a\n\x00\x00"),  # binary: bytes
    ("application/octet-stream", b"ab\x00cd", b"ab\x00cd"),  # a NUL byte: not text
    ("application/vnd.api+json", b'{"id": 1}', {"id": 1}),  # any +json type is parsed
    ("application/json", b"{not json", "{not json"),  # invalid JSON stays text
    ("text/plain; charset=utf-8", b"caf\xc3\xa9", "caf\u00e9"),
])
def test_request_bodies_decode_as_intercepted_bodies_do(runner, server, content_type, data, expected):
    server.route("/body", lambda h: h.send(200, data, content_type=content_type,
                                           headers={"Access-Control-Allow-Origin": "*"}))
    assert runner.request(server.url + "/body").body == expected
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    runner.intercept("/body").as_("body")
    runner._ctx.run(runner._ctx.browser.page.evaluate("url => fetch(url).then(r => r.arrayBuffer())",
                                                      server.url + "/body"))
    assert runner.wait("@body").response.body == expected


def test_request_redirects_followed_or_not(runner, server):
    assert runner.request(server.url + "/redirect?to=/echo").status == 200
    not_followed = runner.request(server.url + "/redirect?to=/echo", follow_redirect=False)
    assert not_followed.status == 302 and not_followed.redirected_to == "/echo"


def test_request_timeout_names_its_timeout_argument(runner, server):
    started = time.monotonic()
    with pytest.raises(CommandError) as caught:
        runner.request(server.url + "/slow?ms=2000", timeout=200)
    assert "waiting 200ms" in str(caught.value) and "(its timeout= argument)" in str(caught.value)
    assert "responseTimeout" not in str(caught.value)
    assert time.monotonic() - started < 1.5


@pytest.mark.runner(responseTimeout=200)
def test_request_timeout_from_the_option_names_response_timeout(runner, server):
    with pytest.raises(CommandError) as caught:
        runner.request(server.url + "/slow?ms=2000")
    assert "waiting 200ms" in str(caught.value) and "(responseTimeout)" in str(caught.value)


def test_request_relative_to_the_file_server_and_shares_cookies(runner, server):
    assert "Welcome" in runner.request("/index.html").body
    runner.request(server.url + "/cookie")
    again = runner.request(server.url + "/cookie")
    assert again.body["cookie"] == "fromServer=yes"


def test_exec_success_failure_and_timeout(runner):
    result = runner.exec("echo out; echo err 1>&2")
    assert (result.code, result.stdout, result.stderr) == (0, "out", "err")
    with pytest.raises(CommandError) as caught:
        runner.exec("exit 3")
    assert "code 3" in str(caught.value)
    assert runner.exec("exit 3", fail_on_non_zero_exit=False).code == 3
    with pytest.raises(CommandError) as caught:
        runner.exec("sleep 5", timeout=200)
    # the bound came from the argument: the option is not named, as if raising it would help
    assert "after 200ms (its timeout= argument)" in str(caught.value)
    assert "execTimeout" not in str(caught.value)


@pytest.mark.runner(execTimeout=200)
def test_exec_timeout_from_the_option_names_the_option(runner):
    with pytest.raises(CommandError) as caught:
        runner.exec("sleep 5")
    assert "after 200ms (execTimeout)" in str(caught.value)


def test_exec_past_its_timeout_kills_what_the_command_started(runner, tmp_path):
    pid_file = tmp_path / "pid"
    with pytest.raises(CommandError) as caught:
        runner.exec(f"sleep 60 & echo $! > {pid_file}; wait", timeout=300)
    child = pid_in(pid_file)
    assert not left_after({child}, 5), f"the command's child {child} kept running after the timeout"
    assert "every process it started were killed" in str(caught.value)


def test_exec_kills_what_the_command_left_in_the_background(runner):
    # one holds the output pipes (runner must not wait for it), one does not (it must not outlive)
    started = time.monotonic()
    held = int(runner.exec("sleep 301 & echo $!", timeout=20000).stdout.split()[-1])
    assert time.monotonic() - started < 5, "exec waited for a background process holding its output"
    quiet = int(runner.exec("sleep 302 >/dev/null 2>&1 & echo $!", timeout=20000).stdout.split()[-1])
    assert not left_after({held, quiet}, 5), "a command's background process outlived the command"


def test_env_and_config_through_fixture_and_global(runner):
    assert runner.env("site") == "e2e"
    assert runner.env("missing") is None
    assert Runner.env("site") == "e2e"
    assert Runner.config("defaultCommandTimeout") == 2000


@pytest.mark.runner(defaultCommandTimeout=1234, env={"extra": 1})
def test_mark_overrides_show_in_config_and_env(runner):
    assert runner.config("defaultCommandTimeout") == 1234
    assert Runner.config("defaultCommandTimeout") == 1234
    assert runner.env() == {"site": "e2e", "extra": 1}


def test_task_without_plugins_file_says_what_to_do(runner):
    from runner import TaskError

    with pytest.raises(TaskError) as caught:
        runner.task("seed")
    assert "not registered" in str(caught.value)


def test_cookies_set_get_clear(runner):
    runner.visit("/index.html")
    runner.set_cookie("session", "abc")
    assert runner.get_cookie("session")["value"] == "abc"
    assert [c.name for c in runner.get_cookies()] == ["session"]
    runner.clear_cookie("session")
    assert runner.get_cookie("session") is None
    runner.set_cookie("a", "1")
    runner.clear_cookies()
    assert runner.get_cookies() == []
    with pytest.raises(UsageError):
        runner.set_cookie("x", "1", same_site="sometimes")


def test_screenshot_writes_a_png_under_the_spec_folder(runner):
    runner.visit("/index.html")
    path = runner.screenshot("home/page")
    assert path.read_bytes().startswith(b"\x89PNG")
    assert path.parts[-3:] == ("test_data.py", "home", "page.png")
    element = runner.get("#title").screenshot("title")
    assert element.read_bytes().startswith(b"\x89PNG")


def test_downloads_are_saved_in_the_downloads_folder(runner, server):
    folder = runner._ctx.config.path("downloadsFolder")
    (folder / "report.csv").unlink(missing_ok=True)
    runner.visit(server.page("/dl", '<a id="d" href="/download">get</a>'))
    runner.get("#d").click()
    deadline = time.monotonic() + 15
    while not (folder / "report.csv").exists() and time.monotonic() < deadline:
        runner.wait(20)
    assert (folder / "report.csv").read_text() == "col1,col2\n1,2\n"


def test_isolation_first_test_leaves_state_behind(runner):
    runner.visit("/storage.html")
    runner.get("#seen").should("have.text", "local=none session=none cookie=none")
    runner.reload()
    runner.get("#seen").should("contain", "local=set")


def test_isolation_second_test_sees_nothing_of_it(runner):
    runner.visit("/storage.html")
    runner.get("#seen").should("have.text", "local=none session=none cookie=none")


def test_log_lines_are_kept_for_the_report(runner):
    runner.log("hello")
    assert runner._ctx.log[-1].message == "hello"
