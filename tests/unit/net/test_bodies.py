"""runner.net.bodies.body_record: how the run's events keep an HTTP body."""

from __future__ import annotations

import base64

import pytest

from runner.net.bodies import body_record, is_binary, text_in_encoding


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


@pytest.mark.parametrize(
    ("data", "ctype", "binary"),
    [
        (b"plain text", None, False),
        (b"\x01\x02\x03", None, True),  # control characters at or below 8: binary, as the original
        (b"tab\tand\nnewline", None, False),
        (b"\xff\xfe", None, True),  # not UTF-8
        (b"\x00", "text/plain; charset=utf-8", False),  # a declared utf-8 charset wins
        (b"a=1", "multipart/form-data; boundary=x", True),
    ],
)
def test_binary_rule(data: bytes, ctype: str | None, binary: bool) -> None:
    assert is_binary(data, ctype) is binary


@pytest.mark.parametrize(
    ("encoding", "text"),
    [("latin1", "café"), ("binary", "café"), ("base64", "Y2Fm6Q=="), ("hex", "636166e9")],
)
def test_text_in_the_originals_encodings(encoding: str, text: str) -> None:
    assert text_in_encoding("café".encode("latin-1"), encoding) == text
