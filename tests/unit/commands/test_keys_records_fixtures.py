"""Pure pieces of the commands layer: type() sequences, records, fixture reading."""

from __future__ import annotations

import base64

import pytest

from runner.casing import camel_to_snake, snake_to_camel
from runner.commands.fixtures import read_fixture
from runner.commands.keys import parse_sequence
from runner.commands.records import Record
from runner.errors import CommandError, UsageError
from runner.net.bodies import split_spec


@pytest.mark.parametrize(("text", "parts"), [
    ("abc", [("text", "abc")]),
    ("a{enter}", [("text", "a"), ("key", "Enter")]),
    ("{selectall}{backspace}", [("key", "ControlOrMeta+A"), ("key", "Backspace")]),
    ("{{}x}", [("text", "{"), ("text", "x}")]),
    ("{ENTER}", [("key", "Enter")]),
    ("x{leftarrow}y", [("text", "x"), ("key", "ArrowLeft"), ("text", "y")]),
])
def test_parse_sequence(text, parts):
    assert parse_sequence(text) == parts


def test_parse_sequence_unknown_key_lists_known_ones():
    with pytest.raises(UsageError) as caught:
        parse_sequence("{bogus}")
    assert "{bogus}" in str(caught.value) and "{enter}" in str(caught.value)


def test_parse_sequence_can_be_off():
    assert parse_sequence("{enter}", parse_special=False) == [("text", "{enter}")]


@pytest.mark.parametrize(("camel", "snake"), [("statusCode", "status_code"), ("httpVersion", "http_version"),
                                              ("url", "url")])
def test_name_conversions(camel, snake):
    assert camel_to_snake(camel) == snake and snake_to_camel(snake) == camel


def test_record_answers_to_both_spellings():
    r = Record(status_code=200, body="x")
    assert r.statusCode == 200 and r.status_code == 200 and r["statusCode"] == 200
    assert "statusCode" in r and r.get("missing") is None
    with pytest.raises(AttributeError) as caught:
        _ = r.nope
    assert "status_code" in str(caught.value)


@pytest.mark.parametrize(("spec", "expected"), [
    ("a.json", ("a.json", None, False)),
    ("a.png,null", ("a.png", None, True)),
    ("a.txt,latin-1", ("a.txt", "latin-1", True)),
])
def test_split_spec(spec, expected):
    assert split_spec(spec) == expected


def test_read_fixture_defaults_by_extension(tmp_path):
    (tmp_path / "d.json").write_text('{"a": 1}')
    (tmp_path / "t.txt").write_text("héllo", encoding="utf-8")
    (tmp_path / "i.png").write_bytes(b"\x89PNGdata")
    (tmp_path / "l.txt").write_bytes("é".encode("latin-1"))
    assert read_fixture(tmp_path, "d.json") == {"a": 1}
    assert read_fixture(tmp_path, "d") == {"a": 1}
    assert read_fixture(tmp_path, "t.txt") == "héllo"
    assert read_fixture(tmp_path, "i.png") == base64.b64encode(b"\x89PNGdata").decode()
    assert read_fixture(tmp_path, "i.png,null") == b"\x89PNGdata"
    assert read_fixture(tmp_path, "l.txt", "latin-1") == "é"
    assert read_fixture(tmp_path, "d.json", "utf-8") == '{"a": 1}'


def test_read_fixture_errors(tmp_path):
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(CommandError, match="not valid JSON"):
        read_fixture(tmp_path, "bad.json")
    with pytest.raises(CommandError, match="no fixture file was found"):
        read_fixture(tmp_path, "missing.json")
    with pytest.raises(CommandError, match="fixturesFolder is set to false"):
        read_fixture(None, "x.json")
    (tmp_path / "t.txt").write_text("x")
    with pytest.raises(UsageError, match="encoding"):
        read_fixture(tmp_path, "t.txt", "no-such-codec")
