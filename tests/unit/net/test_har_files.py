"""HAR files: reading entries (text, base64, Playwright's attached bodies), choosing one, replies."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from runner.errors import CommandError
from runner.net.har import HarIndex, HarMatching, har_document, load_har, written_by_runner
from runner.net.har_write import merge_entries, redact_entry
from runner.redaction import Redactor


def entry(method: str, url: str, status: int = 200, body: Any = "", post: str | None = None,
          headers: list[dict[str, str]] | None = None, **content: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"method": method, "url": url, "headers": []}
    if post is not None:
        request["postData"] = {"mimeType": "application/json", "text": post}
    return {"request": request, "response": {"status": status, "statusText": "OK", "headers": headers or [],
                                             "content": {"text": body, **content} if body is not None else content}}


def write(tmp_path: Path, entries: list[dict[str, Any]], name: str = "a.har") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    return path


def test_bodies_as_text_base64_and_attached_files(tmp_path: Path) -> None:
    (tmp_path / "body-1.bin").write_bytes(b"\x00\x01attached")
    path = write(tmp_path, [
        entry("get", "http://a/t", body="héllo"),
        entry("GET", "http://a/b", body=base64.b64encode(b"\xff\xfe").decode(), encoding="base64"),
        entry("GET", "http://a/f", body=None, _file="body-1.bin"),
        entry("GET", "http://a/failed", status=0),  # no answer: nothing to replay
    ])
    got = load_har(path)
    assert [(e.method, e.url, e.body) for e in got] == [
        ("GET", "http://a/t", "héllo".encode()), ("GET", "http://a/b", b"\xff\xfe"),
        ("GET", "http://a/f", b"\x00\x01attached")]


def test_a_reply_drops_the_wire_headers_and_joins_repeated_ones(tmp_path: Path) -> None:
    headers = [{"name": "Content-Type", "value": "text/plain"}, {"name": "Content-Encoding", "value": "gzip"},
               {"name": "content-length", "value": "99"}, {"name": "Set-Cookie", "value": "a=1"},
               {"name": "set-cookie", "value": "b=2"}, {"name": "Vary", "value": "x"}, {"name": "vary", "value": "y"}]
    (got,) = load_har(write(tmp_path, [entry("GET", "http://a/", 404, "nope", headers=headers)]))
    assert got.static_response() == {"statusCode": 404, "body": b"nope", "headers": {
        "content-type": "text/plain", "set-cookie": "a=1\nb=2", "vary": "x, y"}}


def test_pick_by_body_then_in_order_the_last_repeating(tmp_path: Path) -> None:
    index = HarIndex.of(load_har(write(tmp_path, [
        entry("GET", "http://a/poll", body="1"), entry("GET", "http://a/poll", body="2"),
        entry("POST", "http://a/s", body="ann", post='{"n": "ann"}'),
        entry("POST", "http://a/s", body="bob", post='{"n": "bob"}'),
    ])))
    assert [index.pick("GET", "http://a/poll", None).body for _ in range(3)] == [b"1", b"2", b"2"]
    assert index.pick("POST", "http://a/s", {"n": "bob"}).body == b"bob"  # parsed JSON
    assert index.pick("POST", "http://a/s", '{ "n" : "ann" }').body == b"ann"  # other spacing
    assert index.pick("POST", "http://a/s", b'{"n": "ann"}').body == b"ann"
    assert index.pick("POST", "http://a/s", {"n": "carl"}) is None  # a body never recorded
    assert index.pick("GET", "http://a/other", None) is None


@pytest.mark.parametrize(("content", "message"), [
    ('{"log": {"entries": [{"request": {}}]}}', "entry 1 has no request or no response object."),
    ('{"log": {"entries": [{"request": {"url": "x"}, "response": {}}]}}', "entry 1 has no request method or URL."),
    ('[1]', "is not a HAR file"),
    ('{"log": {"entries": [{"request": {"method": "GET", "url": "http://a/"}, "response": {"status": 200, '
     '"content": {"_file": "gone.bin"}}}]}}', "entry 1's response keeps its body in"),
])
def test_broken_files_name_the_file_and_the_entry(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "broken.har"
    path.write_text(content)
    with pytest.raises(CommandError) as caught:
        load_har(path)
    assert str(caught.value).startswith(f"runner.replay_har({str(path)!r}): ")
    assert message in str(caught.value)


def test_runner_knows_its_own_recordings(tmp_path: Path) -> None:
    ours = tmp_path / "ours.har"
    ours.write_text(json.dumps(har_document([], "1.0")))
    theirs = write(tmp_path, [])
    assert written_by_runner(ours) and not written_by_runner(theirs)
    assert not written_by_runner(tmp_path / "missing.har")


@pytest.mark.parametrize(("recorded", "request_url", "matches"), [
    ("http://a/s?q=1&ts=5", "http://a/s?q=1&ts=6", True),
    ("http://a/s?q=1&ts=5", "http://a/s?ts=6&q=1", True),
    ("http://a/s?q=1&ts=5", "http://a/s?q=1", True),
    ("http://a/s?ts=5", "http://a/s", True),
    ("http://a/s?q=1&ts=5", "http://a/s?q=2&ts=5", False),
    ("http://a/s?q=1", "http://a/s?q=1&tsx=1", False),  # a longer name is not the ignored one
    ("http://a/s?q=1", "http://a/t?q=1", False),
])
def test_ignored_query_parameters_in_the_key_and_the_route_pattern(recorded: str, request_url: str, matches: bool) -> None:
    matching = HarMatching(ignore_query=["ts"])
    assert (matching.url(recorded) == matching.url(request_url)) is matches
    assert bool(matching.url_pattern(recorded).match(request_url)) is matches


def test_a_hidden_secret_matches_the_secret_it_hides() -> None:
    matching = HarMatching(redactor=Redactor(values=["s3cret-token"]))
    recorded = "http://a/login?key=[redacted]&page=2"
    assert matching.url(recorded) == matching.url("http://a/login?key=s3cret-token&page=2")
    assert matching.url_pattern(recorded).match("http://a/login?key=s3cret-token&page=2")
    assert matching.body('{"token": "[redacted]"}') == matching.body(b'{"token":"s3cret-token"}')


@pytest.mark.parametrize(("recorded", "body", "same"), [
    ('{"a": 1, "requestId": "x"}', {"a": 1, "requestId": "y"}, True),
    ('{"a": {"requestId": "x", "b": [{"requestId": 1}]}}', '{"a": {"b": [{"requestId": 2}]}}', True),
    ('{"a": 1, "requestId": "x"}', {"a": 2, "requestId": "x"}, False),
    ("plain text", b"plain text", True),
    ("plain text", "other text", False),
])
def test_ignored_json_keys_at_any_depth(recorded: str, body: Any, same: bool) -> None:
    matching = HarMatching(ignore_json_keys=["requestId"])
    assert (matching.body(recorded) == matching.body(body)) is same


def recorded_entry(method: str, url: str, text: str, *, by: str = "server") -> dict[str, Any]:
    return {**entry(method, url, body=text), "_answeredBy": by}


def test_merge_missing_adds_only_what_the_file_lacks_and_the_server_answered(tmp_path: Path) -> None:
    document = {"log": {"entries": [entry("GET", "http://a/users", body="file")]}}
    added = merge_entries(document, tmp_path / "a.har", [
        recorded_entry("GET", "http://a/users", "replayed"),
        recorded_entry("GET", "http://a/orders", "server"),
        recorded_entry("GET", "http://a/stubbed", "a route's", by="route"),
        recorded_entry("GET", "http://a/failed", "") | {"response": {"status": 0}},
    ], "missing", HarMatching())
    assert [e["request"]["url"] for e in added] == ["http://a/orders"]
    assert [e["request"]["url"] for e in document["log"]["entries"]] == ["http://a/users", "http://a/orders"]


def test_merge_all_replaces_the_same_requests_and_keeps_the_others(tmp_path: Path) -> None:
    document = {"log": {"entries": [entry("GET", "http://a/users", body="old"), entry("GET", "http://a/keep", body="k"),
                                    entry("POST", "http://a/s", body="ann", post='{"n": "ann"}')]}}
    merge_entries(document, tmp_path / "a.har", [
        recorded_entry("GET", "http://a/users", "new"),
        recorded_entry("POST", "http://a/s", "bob") | {"request": {"method": "POST", "url": "http://a/s",
                                                                  "postData": {"text": '{"n": "bob"}'}}},
    ], "all", HarMatching())
    assert [(e["request"]["url"], e["response"]["content"]["text"]) for e in document["log"]["entries"]] == [
        ("http://a/keep", "k"), ("http://a/s", "ann"), ("http://a/users", "new"), ("http://a/s", "bob")]


def test_redact_entry_hides_secret_headers_cookies_params_and_values() -> None:
    redactor = Redactor(values=["planted-secret"], query_params=["sig"], body_keys=["pin"])
    raw = {"request": {"url": "http://a/x?sig=1&k=planted-secret", "headers": [
        {"name": "Authorization", "value": "Bearer t"}, {"name": "Cookie", "value": "a=b"},
        {"name": "X-Other", "value": "has planted-secret in it"}],
        "cookies": [{"name": "a", "value": "b"}], "queryString": [{"name": "sig", "value": "1"}, {"name": "q", "value": "x"}],
        "postData": {"text": '{"pin": "1234", "name": "ann"}'}},
        "response": {"headers": [{"name": "set-cookie", "value": "s=1"}], "redirectURL": "",
                     "content": {"text": base64.b64encode(b"xx planted-secret xx").decode(), "encoding": "base64"}}}
    out = redact_entry(raw, redactor)
    assert "planted-secret" not in json.dumps(out)
    assert out["request"]["url"] == "http://a/x?sig=[redacted]&k=[redacted]"
    assert [h["value"] for h in out["request"]["headers"]] == ["[redacted]", "[redacted]", "has [redacted] in it"]
    assert out["request"]["cookies"] == [{"name": "a", "value": "[redacted]"}]
    assert out["request"]["queryString"] == [{"name": "sig", "value": "[redacted]"}, {"name": "q", "value": "x"}]
    assert json.loads(out["request"]["postData"]["text"]) == {"pin": "[redacted]", "name": "ann"}
    assert out["response"]["headers"][0]["value"] == "[redacted]"
    assert base64.b64decode(out["response"]["content"]["text"]) == b"xx [redacted] xx"
