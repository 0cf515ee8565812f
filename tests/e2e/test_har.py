"""runner.record_har and runner.replay_har end to end: a real page, a real server, real files."""

from __future__ import annotations

import base64
import json
import threading

import pytest

from runner import CommandError, InterceptError, UsageError

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def fetch(runner, url, init=None):
    return runner._ctx.run(runner._ctx.browser.page.evaluate(
        """async ([url, init]) => {
            try { const r = await fetch(url, init || {}); return {status: r.status, text: await r.text()}; }
            catch (e) { return {error: String(e)}; }
        }""", [url, init]))


def app(server, users="server"):
    server.route("/api/users", lambda h: h.send(200, {"users": [users]}))
    server.route("/api/save", lambda h: h.send(201, {"saved": json.loads(h.request_body)["name"]}))
    server.route("/pic.png", lambda h: h.send(200, PNG, content_type="image/png"))
    return server.page("/app", "<html><body><h1>app</h1><img id='pic' src='/pic.png'></body></html>")


def record(runner, server, path):
    with runner.record_har(path, url="**/api/**") as recording:
        fetch(runner, "/api/users")
        fetch(runner, "/api/save", {"method": "POST", "body": json.dumps({"name": "Ann"}),
                                    "headers": {"content-type": "application/json"}})
        fetch(runner, "/api/save", {"method": "POST", "body": json.dumps({"name": "Bob"}),
                                    "headers": {"content-type": "application/json"}})
        fetch(runner, "/pic.png")  # outside the url filter
    return recording


def test_record_writes_a_har_of_the_filtered_requests(runner, server, tmp_path):
    runner.visit(app(server))
    recording = record(runner, server, tmp_path / "hars" / "api.har")
    assert recording.entries == 3 and recording.path == tmp_path / "hars" / "api.har"
    har = json.loads(recording.path.read_text())
    assert har["log"]["version"] == "1.2" and har["log"]["creator"]["name"] == "runner"
    entries = har["log"]["entries"]
    assert [(e["request"]["method"], e["request"]["url"].split("/", 3)[3], e["response"]["status"]) for e in entries] == [
        ("GET", "api/users", 200), ("POST", "api/save", 201), ("POST", "api/save", 201)]
    assert json.loads(entries[0]["response"]["content"]["text"]) == {"users": ["server"]}
    assert json.loads(entries[1]["request"]["postData"]["text"]) == {"name": "Ann"}
    assert entries[0]["response"]["content"]["mimeType"] == "application/json"
    assert entries[0]["time"] >= 0 and entries[0]["startedDateTime"].endswith("+00:00")


def test_record_keeps_binary_bodies_as_base64(runner, server, tmp_path):
    runner.visit(app(server))
    with runner.record_har(tmp_path / "pic.har", url="**/*.png"):
        fetch(runner, "/pic.png")
    (entry,) = json.loads((tmp_path / "pic.har").read_text())["log"]["entries"]
    assert entry["response"]["content"]["encoding"] == "base64"
    assert base64.b64decode(entry["response"]["content"]["text"]) == PNG


def test_replay_answers_from_the_har_as_routes_with_an_alias_and_counts(runner, server, tmp_path):
    runner.visit(app(server))
    record(runner, server, tmp_path / "api.har")
    runner.intercept("/nothing")  # a route of the test's own, left as it is
    handles = runner.replay_har(tmp_path / "api.har", alias="har")
    assert len(handles) == 2  # one route per method and URL
    server.received.clear()
    assert json.loads(fetch(runner, "/api/users")["text"]) == {"users": ["server"]}
    bob = fetch(runner, "/api/save", {"method": "POST", "body": json.dumps({"name": "Bob"})})
    ann = fetch(runner, "/api/save", {"method": "POST", "body": '{"name":  "Ann"}'})  # same JSON, other spacing
    assert (bob["status"], json.loads(bob["text"])) == (201, {"saved": "Bob"})
    assert json.loads(ann["text"]) == {"saved": "Ann"}
    assert not [r for r in server.received if "/api/" in r["path"]]  # nothing reached the server
    replayed = runner.wait("@har", count=3)
    assert all(ic.stubbed for ic in replayed)
    rows = {r["id"]: r for r in runner._interceptor_getter().routes_table()}
    assert sorted(rows[h.id]["matches"] for h in handles) == [1, 2]
    assert all(rows[h.id]["alias"] == "har" for h in handles)


def test_replay_fallback_sends_what_the_har_lacks_to_the_server(runner, server, tmp_path):
    runner.visit(app(server))
    record(runner, server, tmp_path / "api.har")
    runner.replay_har(tmp_path / "api.har")
    carl = fetch(runner, "/api/save", {"method": "POST", "body": json.dumps({"name": "Carl"})})
    assert json.loads(carl["text"]) == {"saved": "Carl"}  # the server's answer
    assert fetch(runner, "/pic.png")["status"] == 200


def test_replay_abort_fails_a_request_the_har_lacks_and_the_test(runner, server, tmp_path):
    runner.visit(app(server))
    record(runner, server, tmp_path / "api.har")
    runner.replay_har(tmp_path / "api.har", url="**/api/**", not_found="abort")
    assert fetch(runner, "/pic.png")["status"] == 200  # outside the filter: not replayed, not refused
    result = fetch(runner, "/api/orders")
    assert "error" in result
    with pytest.raises(InterceptError) as caught:
        runner.get("h1").should("exist")
    assert "has no entry for GET http://127.0.0.1:" in str(caught.value)
    assert "/api/orders" in str(caught.value) and "not_found='fallback'" in str(caught.value)


def test_record_keeps_a_request_a_handler_changed_whose_body_the_page_never_read(runner, server, tmp_path):
    # on a routed page the recording heard of such a request only by its response (no request
    # event came): it counted requests in flight from request events alone, and stopped without it
    runner.visit(app(server))
    runner.intercept("**/api/users", lambda req: req.headers.update({"x-added": "yes"}))
    with runner.record_har(tmp_path / "changed.har", url="**/api/**") as recording:
        status = runner._ctx.run(runner._ctx.browser.page.evaluate("fetch('/api/users').then(r => r.status)"))
    assert status == 200 and recording.entries == 1
    (entry,) = json.loads((tmp_path / "changed.har").read_text())["log"]["entries"]
    assert entry["request"]["url"].endswith("/api/users") and entry["response"]["status"] == 200


def test_a_routed_page_request_still_unanswered_when_the_recording_stops_is_recorded_as_pending(runner, server, tmp_path):
    # the page's routes listen to its request events quietly (subscribing to nothing); the
    # recording's listener, added after, did not subscribe either: no request event came, and a
    # request still unanswered when the recording stopped was not in the file
    arrived, released = threading.Event(), threading.Event()

    def held(h):
        arrived.set()
        released.wait(10)
        h.send(200, {"late": True})

    server.route("/api/held", held)
    runner.visit(app(server))
    runner.intercept("**/api/held", lambda req: None)  # a handler that lets it through: runner fetches it
    try:
        with runner.record_har(tmp_path / "held.har", url="**/api/**") as recording:
            runner._ctx.run(runner._ctx.browser.page.evaluate(
                "() => { window.held = fetch('/api/held', {method: 'POST', body: 'x=1'}); }"))
            assert arrived.wait(10)  # the page made it (runner fetched it for the handler)
    finally:
        released.set()
    assert recording.entries == 1
    (entry,) = json.loads((tmp_path / "held.har").read_text())["log"]["entries"]
    assert entry["_pending"] is True and "_answeredBy" not in entry
    assert (entry["request"]["method"], entry["request"]["url"].split("/", 3)[3]) == ("POST", "api/held")
    assert entry["request"]["postData"]["text"] == "x=1" and entry["response"]["status"] == 0
    assert runner._ctx.run(runner._ctx.browser.page.evaluate("window.held.then(r => r.json())")) == {"late": True}


def test_the_lines_a_har_writes_outside_a_command_are_told_as_log_events(runner, server, tmp_path, request):
    # the report and runner open draw the command log from the events: a line only in the
    # attempt's log (a recording stopped by its with block, what update added at the test's end)
    # was in the terminal's log and nowhere else
    from runner.events import LogLine
    from runner.plugin import _SESSION_KEY

    told: list[str] = []
    unsubscribe = request.config.stash[_SESSION_KEY].bus.subscribe(lambda e: told.append(e.message), (LogLine,))
    try:
        runner.visit(app(server))
        with runner.record_har(tmp_path / "told.har", url="**/api/**"):
            fetch(runner, "/api/users")
        runner.replay_har(tmp_path / "grown.har", url="**/api/**", update="missing")
        fetch(runner, "/api/users")
        assert runner._ctx.end_error() is None  # what the test's end does: the file is written
    finally:
        unsubscribe()
    assert told == [f"record_har: 1 request to {tmp_path / 'told.har'}", "replay_har: 1 entry added to grown.har"]


def test_two_writers_of_one_file_in_a_test_are_refused(runner, server, tmp_path):
    # each would replace what the other wrote when it ends: the second is refused, naming the first
    runner.visit(app(server))
    recording = runner.record_har(tmp_path / "one.har", url="**/api/**")
    with pytest.raises(UsageError, match=r"record_har\(.*one\.har.*\): this test writes .*one\.har already "
                                         r"\(runner\.record_har, until it stops\)"):
        runner.record_har(tmp_path / "one.har")
    with pytest.raises(UsageError, match=r"replay_har\(.*\): this test writes .*one\.har already"):
        runner.replay_har(tmp_path / "one.har", update="missing")
    recording.stop()
    runner.replay_har(tmp_path / "one.har", update="missing")  # stopped: the file is free again
    with pytest.raises(UsageError, match=r"\(runner\.replay_har\(update='missing'\), when the test ends\)"):
        runner.record_har(tmp_path / "one.har")


def test_record_never_replaces_a_file_runner_did_not_write(runner, server, tmp_path):
    runner.visit(app(server))
    mine = tmp_path / "mine.har"
    mine.write_text('{"log": {"creator": {"name": "someone"}, "entries": []}}')
    with pytest.raises(CommandError, match="exists and was not recorded by runner: it is left alone"):
        runner.record_har(mine)
    assert "someone" in mine.read_text()
    again = tmp_path / "again.har"
    runner.record_har(again).stop()
    runner.record_har(again).stop()  # its own recording may be replaced


def test_har_misuse_and_bad_files(runner, server, tmp_path):
    runner.visit(app(server))
    with pytest.raises(UsageError, match="`content` is 'embed'"):
        runner.record_har(tmp_path / "x.har", content="attach")
    with pytest.raises(UsageError, match="`not_found` is 'fallback'"):
        runner.replay_har(tmp_path / "x.har", not_found="ignore")
    with pytest.raises(CommandError, match="no such file. Record one with runner.record_har()"):
        runner.replay_har(tmp_path / "missing.har")
    (tmp_path / "bad.har").write_text("{not json")
    with pytest.raises(CommandError, match=r"bad.har'\): is not JSON"):
        runner.replay_har(tmp_path / "bad.har")
    (tmp_path / "nohar.har").write_text('{"entries": []}')
    with pytest.raises(CommandError, match="is not a HAR file: expected an object with log.entries"):
        runner.replay_har(tmp_path / "nohar.har")


def test_replay_sets_every_cookie_of_a_recorded_response(runner, server, tmp_path):
    runner.visit(server.page("/app", "<html><body>app</body></html>"))
    har = {"log": {"version": "1.2", "entries": [{
        "request": {"method": "POST", "url": f"{server.url}/api/login", "headers": []},
        "response": {"status": 200, "statusText": "OK", "content": {"text": "ok", "mimeType": "text/plain"},
                     "headers": [{"name": "Set-Cookie", "value": "session=abc; Path=/"},
                                 {"name": "Set-Cookie", "value": "theme=dark; Path=/"}]}}]}}
    (tmp_path / "login.har").write_text(json.dumps(har))
    runner.replay_har(str(tmp_path / "login.har"), alias="login")
    assert fetch(runner, "/api/login", {"method": "POST"}) == {"status": 200, "text": "ok"}
    runner.wait("@login")
    cookies = runner._ctx.run(runner._ctx.browser.page.evaluate("document.cookie"))
    assert sorted(cookies.split("; ")) == ["session=abc", "theme=dark"]


def har_of(server, *entries):
    """A HAR written by hand: (method, path, request body or None, response text) each."""
    return {"log": {"version": "1.2", "entries": [{
        "request": {"method": method, "url": f"{server.url}{path}", "headers": [],
                    **({"postData": {"mimeType": "application/json", "text": post}} if post is not None else {})},
        "response": {"status": 200, "statusText": "OK", "content": {"text": text, "mimeType": "text/plain"},
                     "headers": [{"name": "Content-Type", "value": "text/plain"}]}}
        for method, path, post, text in entries]}}


def test_replay_ignores_volatile_query_parameters_and_json_keys(runner, server, tmp_path):
    runner.visit(app(server))
    server.route("/api/search", lambda h: h.send(200, "the server"))
    (tmp_path / "v.har").write_text(json.dumps(har_of(
        server, ("GET", "/api/search?q=a&ts=1&nonce=x", None, "q=a from the file"),
        ("GET", "/api/search?ts=5", None, "no query from the file"),
        ("POST", "/api/save", json.dumps({"name": "Ann", "meta": {"requestId": "r1", "n": 1}}), "Ann from the file"))))
    runner.replay_har(tmp_path / "v.har", ignore_query=["ts", "nonce"], ignore_json_keys=["requestId"])
    server.received.clear()
    assert fetch(runner, "/api/search?nonce=y&q=a&ts=2")["text"] == "q=a from the file"  # any order, any value
    assert fetch(runner, "/api/search?q=a")["text"] == "q=a from the file"  # or absent
    assert fetch(runner, "/api/search")["text"] == "no query from the file"
    assert fetch(runner, "/api/search?ts=9")["text"] == "no query from the file"
    same = fetch(runner, "/api/save", {"method": "POST", "body": json.dumps({"meta": {"n": 1, "requestId": "r9"}, "name": "Ann"})})
    assert same["text"] == "Ann from the file"
    assert not [r for r in server.received if "/api/" in r["path"]]  # none of them reached the server
    # what is not ignored still counts: another value of q, another n
    assert fetch(runner, "/api/search?q=b&ts=2")["text"] == "the server"
    other = fetch(runner, "/api/save", {"method": "POST", "body": json.dumps({"name": "Bob", "meta": {"requestId": "r1", "n": 1}})})
    assert json.loads(other["text"]) == {"saved": "Bob"}
    assert [r["path"] for r in server.received if "/api/" in r["path"]] == ["/api/search?q=b&ts=2", "/api/save"]


def test_a_hidden_secret_in_a_recorded_url_answers_the_secret_only(runner, server, tmp_path):
    # a recording holds [redacted] where the request sent the run's secret: the secret matches it,
    # another value does not (alone in its group, the entry used to be a static route on a
    # pattern that took any value there)
    runner.visit(app(server))
    runner._ctx.redactor.learn("planted-key-7")
    server.route("/api/key", lambda h: h.send(200, "the server"))
    (tmp_path / "k.har").write_text(json.dumps(har_of(server, ("GET", "/api/key?k=[redacted]", None, "from the file"))))
    runner.replay_har(tmp_path / "k.har")
    server.received.clear()
    assert fetch(runner, "/api/key?k=planted-key-7")["text"] == "from the file"
    assert fetch(runner, "/api/key?k=another")["text"] == "the server"
    assert [r["path"] for r in server.received if "/api/" in r["path"]] == ["/api/key?k=another"]


def test_record_hides_secret_headers_and_cookies_and_passes_each_entry_to_the_hook(runner, server, tmp_path):
    runner.visit(app(server))
    server.route("/api/login", lambda h: h.send(200, {"ok": True}, headers={"Set-Cookie": "sid=planted-cookie-1; Path=/"}))
    seen = []

    def scrub(entry):
        seen.append(entry["request"]["url"])
        if entry["request"]["url"].endswith("/api/users"):
            return None  # left out of the file
        entry["request"]["headers"].append({"name": "X-Scrubbed", "value": "yes"})
        return entry

    with runner.record_har(tmp_path / "login.har", url="**/api/**", redact=scrub) as recording:
        fetch(runner, "/api/users")
        fetch(runner, "/api/login", {"method": "POST", "headers": {"Authorization": "Bearer planted-token-2"}})
    assert recording.entries == 1 and len(seen) == 2
    text = (tmp_path / "login.har").read_text()
    assert "planted-token-2" not in text and "planted-cookie-1" not in text
    (entry,) = json.loads(text)["log"]["entries"]
    sent = {h["name"].lower(): h["value"] for h in entry["request"]["headers"]}
    got = {h["name"].lower(): h["value"] for h in entry["response"]["headers"]}
    assert sent["authorization"] == "[redacted]" and sent["x-scrubbed"] == "yes"
    assert got["set-cookie"] == "[redacted]" and got["content-type"] == "application/json"
    # replayed, the hidden cookie is not set as a cookie named [redacted]
    runner.clear_cookies()
    runner.replay_har(tmp_path / "login.har")
    assert json.loads(fetch(runner, "/api/login", {"method": "POST"})["text"]) == {"ok": True}
    assert runner._ctx.run(runner._ctx.browser.page.evaluate("document.cookie")) == ""


def test_a_raising_hook_is_one_error_naming_it_and_the_request_and_the_file_is_untouched(runner, server, tmp_path):
    runner.visit(app(server))
    target = tmp_path / "api.har"
    runner.record_har(target, url="**/api/**").stop()  # runner's file, which a recording may replace
    before = target.read_text()

    def broken_hook(entry):
        raise ValueError("no idea what to hide")

    recording = runner.record_har(target, url="**/api/**", redact=broken_hook)
    fetch(runner, "/api/users")
    with pytest.raises(CommandError) as caught:
        recording.stop()
    message = str(caught.value)
    assert "the redact hook " in message and "broken_hook raised ValueError: no idea what to hide" in message
    assert f"on the entry of GET {server.url}/api/users" in message and "the file is as it was" in message
    assert target.read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == ["api.har"]

    recording = runner.record_har(target, url="**/api/**", redact=lambda entry: "not an entry")
    fetch(runner, "/api/users")
    with pytest.raises(CommandError, match=r"returned 'not an entry' for the entry of GET .*expected the entry"):
        recording.stop()
    assert target.read_text() == before


def test_har_update_and_matching_misuse(runner, server, tmp_path):
    runner.visit(app(server))
    (tmp_path / "a.har").write_text(json.dumps(har_of(server, ("GET", "/api/users", None, "x"))))
    har = tmp_path / "a.har"
    with pytest.raises(UsageError, match=r"`update` is 'missing' \(record what the file lacks\), 'all' .* found 'yes'"):
        runner.replay_har(har, update="yes")
    with pytest.raises(UsageError, match="update='missing' sends what the file lacks to the server"):
        runner.replay_har(har, update="missing", not_found="abort")
    with pytest.raises(UsageError, match=r"`ignore_query` is a list of names, e.g. \['ts', 'nonce'\]; found 'ts'"):
        runner.replay_har(har, ignore_query="ts")
    with pytest.raises(UsageError, match=r"`ignore_json_keys` is a list of names, e.g. \['requestId'\]; found \[1\]"):
        runner.replay_har(har, ignore_json_keys=[1])
    with pytest.raises(UsageError, match="`redact` is a function that takes a HAR entry"):
        runner.record_har(tmp_path / "r.har", redact="Authorization")
    with pytest.raises(UsageError, match="`redact` is applied to what is recorded; give it with update="):
        runner.replay_har(har, redact=lambda e: e)
    assert runner._interceptor_getter().routes_table() == []  # nothing half-registered


def test_a_request_in_flight_when_the_recording_stops_is_waited_for(runner, server, tmp_path):
    runner.visit(app(server))
    with runner.record_har(tmp_path / "slow.har", url="**/slow*") as recording:
        runner._ctx.run(runner._ctx.browser.page.evaluate("() => { window.late = fetch('/slow?ms=400'); }"))
    assert recording.entries == 1
    (entry,) = json.loads((tmp_path / "slow.har").read_text())["log"]["entries"]
    assert json.loads(entry["response"]["content"]["text"]) == {"slow": True}


def test_a_recording_says_who_answered_each_request(runner, server, tmp_path):
    runner.visit(app(server))
    runner.intercept("/echo/stubbed", {"body": "a stub"})
    runner.intercept("/echo/handled", lambda req: None)  # a handler that lets it through: runner fetches it
    with runner.record_har(tmp_path / "who.har", url="**/echo/**"):
        for path in ("/echo/plain", "/echo/stubbed", "/echo/handled"):
            fetch(runner, path)
    entries = json.loads((tmp_path / "who.har").read_text())["log"]["entries"]
    who = {e["request"]["url"].rsplit("/", 1)[1]: (e["_answeredBy"], e.get("serverIPAddress")) for e in entries}
    assert who == {"plain": ("server", "127.0.0.1"), "stubbed": ("route", None), "handled": ("server", None)}
