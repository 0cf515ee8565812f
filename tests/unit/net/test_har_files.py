"""HAR files: reading entries (text, base64, Playwright's attached bodies), choosing one, replies."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from runner.errors import CommandError
from runner.net.har import HarIndex, har_document, load_har, written_by_runner


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
