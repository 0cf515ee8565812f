"""runner.bodies.body_record: how the run's events keep an HTTP body."""

from __future__ import annotations

import base64

from runner.bodies import body_record


def test_no_body_is_none_and_an_empty_one_is_kept() -> None:
    assert body_record(None, "text/plain") is None
    assert body_record(b"", None) == {"size": 0, "content_type": "", "encoding": "utf-8", "data": "", "cut": False}


def test_text_and_json_are_kept_as_text() -> None:
    record = body_record('{"a": "é"}'.encode(), "application/json")
    assert record == {"size": 11, "content_type": "application/json", "encoding": "utf-8",
                      "data": '{"a": "é"}', "cut": False}


def test_binary_is_base64() -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\xff"
    record = body_record(data, "image/png")
    assert record is not None and record["encoding"] == "base64"
    assert base64.b64decode(record["data"]) == data and record["size"] == len(data)


def test_a_long_body_is_cut_its_size_kept_and_a_split_character_dropped() -> None:
    data = "aé".encode() * 10  # 30 bytes; a cut at 5 splits the second é
    record = body_record(data, "text/plain; charset=utf-8", limit=5)
    assert record == {"size": 30, "content_type": "text/plain; charset=utf-8", "encoding": "utf-8",
                      "data": "aéa", "cut": True}
    binary = body_record(bytes(range(256)), None, limit=16)
    assert binary is not None and binary["cut"] and base64.b64decode(binary["data"]) == bytes(range(16))
