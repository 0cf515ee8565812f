"""replay_har(update="missing"/"all") on real ``runner run`` processes: a HAR that lacks requests
is replayed, what it lacks goes to a real server and is added to the file when the test ends
(secrets hidden, the user's entries kept), and the next run replays it without the server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner, write_project
from tests.support import servers

ENV_SECRET = "env-token-secret-1"  # runner.env.json: the page sends it in a header and a query
COOKIE_SECRET = "cookie-secret-2"  # the server's Set-Cookie

PAGE = """<html><body><h1>app</h1><script>
window.call = async (url, init) => {
  const r = await fetch(url, init || {});
  return {status: r.status, text: await r.text()};
};
</script></body></html>"""

# the user's own HAR: two entries, a comment and a creator of its own, all kept as they are
def save_entry(url: str) -> dict:
    """A POST of another body than the test sends: its route is a handler, which lets the test's
    POST through to the server (runner fetches it), and that answer is added."""
    entry = users_entry(url)
    entry["request"] = {**entry["request"], "method": "POST", "url": f"{url}/api/save",
                        "postData": {"mimeType": "application/json", "text": '{"name": "zed"}'}}
    entry["response"]["content"] = {"size": 16, "mimeType": "application/json", "text": '{"saved": "zed"}'}
    return entry


def users_entry(url: str) -> dict:
    return {"comment": "written by hand", "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": "GET", "url": f"{url}/api/users", "httpVersion": "HTTP/1.1", "headers": [],
                        "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                         "headers": [{"name": "Content-Type", "value": "application/json"}],
                         "content": {"size": 25, "mimeType": "application/json", "text": '{"users": ["from the file"]}'},
                         "redirectURL": "", "headersSize": -1, "bodySize": 25},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}


UPDATE_SPEC = """
import json

def call(runner, url, init=None):
    return runner.window().invoke("call", url, init or {}).value()

def mark(entry):
    entry["comment"] = "added by update"
    return entry

def test_update_missing(runner):
    token = runner.env("apiToken")
    runner.replay_har("api.har", url="**/api/**", update="missing", alias="api", redact=mark)
    runner.intercept("/api/stubbed", {"body": "the test's own stub"})
    runner.visit("/app")
    assert json.loads(call(runner, "/api/users")["text"]) == {"users": ["from the file"]}
    assert json.loads(call(runner, "/api/orders")["text"]) == {"orders": ["server"]}
    assert json.loads(call(runner, "/api/search?q=a&ts=1")["text"]) == {"q": "a"}
    saved = call(runner, "/api/save", {"method": "POST", "body": json.dumps({"name": "ann", "requestId": "r1"}),
                                       "headers": {"content-type": "application/json"}})
    assert json.loads(saved["text"]) == {"saved": "ann"}
    login = call(runner, f"/api/login?key={token}", {"method": "POST", "headers": {"Authorization": f"Bearer {token}"}})
    assert json.loads(login["text"]) == {"token": token}
    assert call(runner, "/api/stubbed")["text"] == "the test's own stub"
    runner.wait("@api", count=5)  # the one the file answered and the four sent to the server
"""

REPLAY_SPEC = """
import json

def call(runner, url, init=None):
    return runner.window().invoke("call", url, init or {}).value()

def test_replay_what_was_added(runner):
    token = runner.env("apiToken")
    runner.replay_har("api.har", url="**/api/**", not_found="abort", ignore_query=["ts"], ignore_json_keys=["requestId"])
    runner.visit("/app")
    assert json.loads(call(runner, "/api/users")["text"]) == {"users": ["from the file"]}
    assert json.loads(call(runner, "/api/orders")["text"]) == {"orders": ["server"]}
    assert json.loads(call(runner, "/api/search?ts=999&q=a")["text"]) == {"q": "a"}
    saved = call(runner, "/api/save", {"method": "POST", "body": json.dumps({"requestId": "r2", "name": "ann"})})
    assert json.loads(saved["text"]) == {"saved": "ann"}
    login = call(runner, f"/api/login?key={token}", {"method": "POST", "headers": {"Authorization": f"Bearer {token}"}})
    assert json.loads(login["text"]) == {"token": "[redacted]"}
"""

ALL_SPEC = """
def test_update_all(runner):
    runner.replay_har("api.har", url="**/api/orders", update="all", alias="orders")
    runner.visit("/app")
    assert runner.window().invoke("call", "/api/orders").value()["text"] == '{"orders": ["server, again"]}'
    runner.wait("@orders")
"""


def serve(server: servers.TestServer) -> None:
    server.page("/app", PAGE)
    server.route("/api/users", lambda h: h.send(200, {"users": ["server"]}))
    server.route("/api/orders", lambda h: h.send(200, {"orders": [h.server.orders]}))  # type: ignore[attr-defined]
    server.route("/api/search", lambda h: h.send(200, {"q": h.query["q"]}))
    server.route("/api/save", lambda h: h.send(200, {"saved": json.loads(h.request_body)["name"]}))
    server.route("/api/login", lambda h: h.send(
        200 if h.headers.get("authorization") == f"Bearer {ENV_SECRET}" else 401, {"token": ENV_SECRET},
        headers={"Set-Cookie": f"sid={COOKIE_SECRET}; Path=/"}))
    server.server.orders = "server"  # type: ignore[attr-defined]


def events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]


def log_of(root: Path) -> list[str]:
    return next(e for e in events(root) if e["kind"] == "attempt.ended")["log"]


def api_hits(server: servers.TestServer) -> list[str]:
    return [r["path"].split("?")[0] for r in server.received if r["path"].startswith("/api/")]


@pytest.mark.slow
def test_update_missing_records_what_the_file_lacks_and_the_next_run_replays_it(tmp_path: Path) -> None:
    server = servers.TestServer()
    try:
        serve(server)
        root = write_project(tmp_path, {
            "runner.json": json.dumps({"baseUrl": server.url, "video": False}),
            "runner.env.json": json.dumps({"apiToken": ENV_SECRET}),
            "runner/integration/update_spec.py": UPDATE_SPEC,
            "runner/integration/replay_spec.py": REPLAY_SPEC,
            "runner/integration/all_spec.py": ALL_SPEC,
        })
        har = root / "runner/fixtures/api.har"
        har.parent.mkdir(parents=True)
        mine = {"log": {"version": "1.2", "creator": {"name": "my browser", "version": "1"}, "comment": "mine",
                        "pages": [], "entries": [users_entry(server.url), save_entry(server.url)]}}
        har.write_text(json.dumps(mine))

        first = run_runner("run", "--spec", "runner/integration/update_spec.py", cwd=root)
        assert first.code == 0, first.text
        # the file's entry answered, the server was not asked; the stub's answer is not the server's
        assert api_hits(server) == ["/api/orders", "/api/search", "/api/save", "/api/login"]
        written = json.loads(har.read_text())
        assert written["log"]["creator"] == mine["log"]["creator"] and written["log"]["comment"] == "mine"
        assert written["log"]["entries"][:2] == [users_entry(server.url), save_entry(server.url)]  # as they were
        added = written["log"]["entries"][2:]
        assert [e["request"]["url"].split("/", 3)[3].split("?")[0] for e in added] == [
            "api/orders", "api/search", "api/save", "api/login"]
        assert {e["comment"] for e in added} == {"added by update"}  # each passed the redact hook
        log = log_of(root)
        assert log[0] == "replay_har: 2 entries of api.har as 2 routes; recording what it lacks"
        assert log[-1] == "replay_har: 4 entries added to api.har"
        # no secret in clear: the env value (header, query, body), the cookie
        text = har.read_text()
        assert ENV_SECRET not in text and COOKIE_SECRET not in text
        login = added[3]
        assert login["request"]["url"].endswith("/api/login?key=[redacted]")
        assert {h["name"].lower(): h["value"] for h in login["request"]["headers"]}["authorization"] == "[redacted]"
        assert {h["name"].lower(): h["value"] for h in login["response"]["headers"]}["set-cookie"] == "[redacted]"
        assert json.loads(login["response"]["content"]["text"]) == {"token": "[redacted]"}

        server.received.clear()
        second = run_runner("run", "--spec", "runner/integration/replay_spec.py", cwd=root)
        assert second.code == 0, second.text
        assert api_hits(server) == []  # every answer came from the file: volatile param and key ignored

        server.received.clear()
        server.server.orders = "server, again"  # type: ignore[attr-defined]
        third = run_runner("run", "--spec", "runner/integration/all_spec.py", cwd=root)
        assert third.code == 0, third.text
        assert api_hits(server) == ["/api/orders"]
        entries = json.loads(har.read_text())["log"]["entries"]
        orders = [e for e in entries if e["request"]["url"].endswith("/api/orders")]
        assert len(entries) == 6 and len(orders) == 1  # recorded again in place of the old one
        assert json.loads(orders[0]["response"]["content"]["text"]) == {"orders": ["server, again"]}
        assert entries[:2] == [users_entry(server.url), save_entry(server.url)]
        assert "replay_har: 1 entry recorded again to api.har" in log_of(root)
    finally:
        server.close()


WORKER_SPEC = """
def test_adds_{name}(runner):
    runner.replay_har("shared.har", url="**/api/**", update="missing")
    runner.visit("/app")
    assert runner.window().invoke("call", "/api/{name}").value()["status"] == 200
    assert runner.window().invoke("call", "/api/users").value()["status"] == 200
"""


@pytest.mark.slow
def test_two_workers_adding_to_one_har_keep_both_additions_and_each_request_once(tmp_path: Path) -> None:
    server = servers.TestServer()
    try:
        serve(server)
        server.route("/api/a", lambda h: h.send(200, "a"))
        server.route("/api/b", lambda h: h.send(200, "b"))
        root = write_project(tmp_path, {
            "runner.json": json.dumps({"baseUrl": server.url, "video": False}),
            "runner/integration/a_spec.py": WORKER_SPEC.format(name="a"),
            "runner/integration/b_spec.py": WORKER_SPEC.format(name="b"),
        })
        result = run_runner("run", "--workers", "2", cwd=root, timeout=240)
        assert result.code == 0, result.text
        entries = json.loads((root / "runner/fixtures/shared.har").read_text())["log"]["entries"]
        paths = sorted(e["request"]["url"].rsplit("/", 1)[1] for e in entries)
        assert paths == ["a", "b", "users"]  # /api/users, which both sent, once
    finally:
        server.close()
