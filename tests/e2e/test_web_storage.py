"""localStorage and sessionStorage: read, set and cleared for the page's origin, and for every
origin (the original's getAllLocalStorage, clearAllSessionStorage, ...), each with its command-log
line; what the page itself reads back is what the commands wrote."""

from __future__ import annotations

import re

import pytest
from tests.support.runner_reads import page_value

from runner import UsageError

READ = ("<!doctype html><html><body><p id='seen'></p><script>"
        "document.getElementById('seen').textContent = JSON.stringify("
        "{local: {...localStorage}, session: {...sessionStorage}});</script></body></html>")


def shown(runner) -> str:
    runner.get("#seen").should("not.be.empty")
    return runner.get("#seen").text()


def last_log(runner, count: int = 1) -> list[tuple[str, str]]:
    return [(e.name, e.message) for e in runner._ctx.log[-count:]]


def test_set_and_get_local_and_session_storage_of_the_page(runner, server):
    url = server.page("/read", READ)
    runner.visit(url)
    runner.set_local_storage("token", "abc")
    assert last_log(runner) == [("set_local_storage", f"'token' = 'abc' on {server.url}")]
    runner.set_local_storage("prefs", {"dark": True})
    runner.set_session_storage("tab", "2")
    assert runner.get_local_storage() == {"token": "abc", "prefs": '{"dark": true}'}
    assert runner.get_local_storage("token") == "abc"
    assert runner.get_local_storage("missing") is None
    assert runner.get_session_storage() == {"tab": "2"}
    assert last_log(runner) == [("get_session_storage", f"1 key(s) of {server.url}")]
    runner.reload()
    assert shown(runner) == '{"local":{"token":"abc","prefs":"{\\"dark\\": true}"},"session":{"tab":"2"}}'


def test_clear_local_storage_by_key_by_pattern_or_all(runner, server):
    runner.visit(server.page("/read", READ))
    for key in ("a1", "a2", "b1", "keep"):
        runner.set_local_storage(key, key)
    runner.set_session_storage("s", "1")
    runner.clear_local_storage("b1")
    assert last_log(runner) == [("clear_local_storage", f"'b1' of {server.url}")]
    runner.clear_local_storage(re.compile(r"^a"))
    assert last_log(runner) == [("clear_local_storage", f"'a1', 'a2' of {server.url}")]
    runner.reload()
    assert shown(runner) == '{"local":{"keep":"keep"},"session":{"s":"1"}}'
    runner.clear_local_storage()
    assert last_log(runner) == [("clear_local_storage", f"every key of {server.url}")]
    runner.clear_session_storage("s")
    runner.reload()
    assert shown(runner) == '{"local":{},"session":{}}'


def test_every_origins_local_storage_is_read_and_cleared(runner, server):
    site = runner._ctx.resolve_url("/storage.html")  # runner's own site: another origin
    site_origin = re.match(r"https?://[^/]+", site).group(0)
    runner.visit(site)  # its page stores k=set in both storages
    runner.visit(server.page("/read", READ))
    runner.set_local_storage("token", "abc")
    runner.set_session_storage("tab", "1")
    assert runner.get_all_local_storage() == {site_origin: {"k": "set"}, server.url: {"token": "abc"}}
    assert last_log(runner) == [("get_all_local_storage", f"2 origin(s): {', '.join(sorted([site_origin, server.url]))}")]
    runner.clear_all_local_storage()
    assert last_log(runner) == [("clear_all_local_storage", ", ".join(sorted([site_origin, server.url])))]
    assert runner.get_all_local_storage() == {}
    runner.reload()
    # the tab's session storage is not local storage: it stays
    assert shown(runner) == '{"local":{},"session":{"tab":"1"}}'
    runner.visit(site)
    runner.get("#seen").should("have.text", "local=none session=set cookie=k=set")


def test_every_shown_origins_session_storage_is_read_and_cleared(runner, server):
    site = runner._ctx.resolve_url("/storage.html")
    site_origin = re.match(r"https?://[^/]+", site).group(0)
    frame = f"<iframe id='f' src='{site}'></iframe>"
    runner.visit(server.page("/framed", f"<!doctype html><html><body>{frame}</body></html>"))
    runner.set_session_storage("tab", "1")  # the frame's script ran: visit waits for its load too
    assert runner.get_all_session_storage() == {server.url: {"tab": "1"}, site_origin: {"k": "set"}}
    assert last_log(runner) == [("get_all_session_storage", f"2 origin(s): {', '.join(sorted([site_origin, server.url]))}")]
    runner.clear_all_session_storage()
    assert last_log(runner) == [("clear_all_session_storage", f"{server.url}, {site_origin}")]
    assert runner.get_all_session_storage() == {}
    assert page_value(runner, "sessionStorage.length") == 0  # as the page itself reads it
    assert runner.get_all_local_storage() == {site_origin: {"k": "set"}}  # local storage stays


def test_storage_commands_need_a_page_of_a_site(runner):
    with pytest.raises(UsageError) as caught:
        runner.get_local_storage()
    assert str(caught.value).startswith("runner.get_local_storage() needs a page of a site, and the page is 'about:blank'.")
    with pytest.raises(UsageError, match=r"set_session_storage\(\) needs a page of a site"):
        runner.set_session_storage("a", "b")


def test_storage_commands_refuse_a_key_they_cannot_use(runner):
    runner.visit("/index.html")
    with pytest.raises(UsageError, match=r"set_local_storage\(key, value\) needs a key string; found 3"):
        runner.set_local_storage(3, "x")
    with pytest.raises(UsageError, match=r"clear_local_storage\(key=None\) takes a key string or a compiled re pattern; found 3"):
        runner.clear_local_storage(3)


def test_clear_all_local_storage_is_no_request_of_the_test(runner, server):
    # runner's own tab (to each origin's placeholder) is not a popup of the test's page: a spy
    # on every request (the page only watched) recorded runner's placeholder requests as the test's
    runner.visit(server.page("/read", READ))
    runner.set_local_storage("token", "abc")
    runner.intercept("**/__runner_storage__*").as_("own")
    runner.clear_all_local_storage()
    assert runner.get_all_local_storage() == {}
    runner.requests("@own").should("have.length", 0)
    assert runner._interceptor_getter().requests_log() == []


def test_set_storage_refuses_a_value_that_is_not_json_in_one_message(runner):
    runner.visit("/index.html")
    with pytest.raises(UsageError) as caught:
        runner.set_session_storage("tags", {"a", "b"})
    assert str(caught.value).startswith(
        "runner.set_session_storage(key, value) stores a string, or JSON data (dict, list, str, int, float, "
        "bool, None); found {"), str(caught.value)
    assert runner.get_session_storage("tags") is None  # nothing was stored


def test_a_secret_of_the_run_is_hidden_in_the_log_lines_that_show_it(runner, server):
    # the pytest section "runner command log" prints these lines as they are: a value the run
    # knows as secret (typed with log=False, a secret env value) must not be there in clear
    runner.visit("/forms.html")
    runner.get("#name").type("S3cretTok", log=False)
    runner.visit(server.page("/read", READ))
    runner.set_local_storage("token", "S3cretTok")
    assert runner.evaluate("localStorage.getItem('token') + ''") == "S3cretTok"  # the page got it whole
    assert last_log(runner, 2)[0] == ("set_local_storage", "'token' = '[redacted]' on " + url_origin(runner))
    assert not [e.line for e in runner._ctx.log if "S3cretTok" in e.line]


def url_origin(runner) -> str:
    url = runner.url()
    return url[: url.index("/", len("http://"))]
