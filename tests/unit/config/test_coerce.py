"""Coercion of variable/CLI text and the --config/--env syntax."""

from __future__ import annotations

from typing import Any

import pytest

from runner.config import coerce_value, parse_cli_values
from runner.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("10", 10),
        ("0", 0),
        ("-3", -3),
        ("2.5", 2.5),
        ("-0.5", -0.5),
        ("010", "010"),
        ("+1", "+1"),
        ("1e3", "1e3"),
        ("1.50", "1.50"),
        (" 5", " 5"),
        ("nan", "nan"),
        ("inf", "inf"),
        ("1_000", "1_000"),
        ("true", True),
        ("false", False),
        ("True", "True"),
        ("FALSE", "FALSE"),
        ("null", None),
        ('{"a": [1, true]}', {"a": [1, True]}),
        ("[1, 2]", [1, 2]),
        ('["x"]', ["x"]),
        ('"quoted, text"', "quoted, text"),
        ("[a,b]", ["a", "b"]),
        ("[ a , b c ]", ["a", "b c"]),
        ("[]", []),
        ("[ ]", []),
        ("[*.google.com,*.ads.net]", ["*.google.com", "*.ads.net"]),
        ("{not json}", "{not json}"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("", ""),
        ("hello world", "hello world"),
    ],
)
def test_coerce_value(text: str, value: Any) -> None:
    result = coerce_value(text)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("a=1,b=[x,y]", {"a": 1, "b": ["x", "y"]}),
        ('{"viewportWidth": 800, "env": {"a": "b,c"}}', {"viewportWidth": 800, "env": {"a": "b,c"}}),
        ("viewportWidth=800", {"viewportWidth": 800}),
        ("baseUrl=http://localhost:3000/?a=b,video=false", {"baseUrl": "http://localhost:3000/?a=b", "video": False}),
        ('retries={"runMode":2,"openMode":1},video=true', {"retries": {"runMode": 2, "openMode": 1}, "video": True}),
        ("blockHosts=[a.com,b.com],port=8080", {"blockHosts": ["a.com", "b.com"], "port": 8080}),
        ('env={"a":[1,2],"b":{"c":3}}', {"env": {"a": [1, 2], "b": {"c": 3}}}),
        ('msg="hello, world",n=1', {"msg": "hello, world", "n": 1}),
        (" a = 1 , b = two ", {"a": 1, "b": "two"}),
        ("a=", {"a": ""}),
        ("a=b=c", {"a": "b=c"}),
        ("a=1,a=2", {"a": 2}),
        ("", {}),
        ("   ", {}),
        ('{"a": 1}', {"a": 1}),
        ("{}", {}),
    ],
)  # fmt: skip
def test_parse_cli_values(text: str, values: dict[str, Any]) -> None:
    assert parse_cli_values(text, option="--config") == values


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a=1,b", "the part `b` has no `=`"),
        ("justtext", "the part `justtext` has no `=`"),
        ("=1", "the part `=1` has no name before `=`"),
        ("a=[1,2", "a bracket is not closed (expected `]`)"),
        ("a={x", "a bracket is not closed (expected `}`)"),
        ("a=1]", "the `]` at position 4 closes nothing"),
        ("a=[1}", "the `}` at position 5 closes nothing"),
        ('a="open', "a double-quoted string is not closed"),
        ('{"a": 1', "it is not valid JSON"),
        ("[1, 2]", "the part `[1, 2]` has no `=`"),
        ("5", "the part `5` has no `=`"),
        ("viewportWidth=1,", "it ends with a comma (a pair is missing)"),
        ("a=1,,b=2", "two commas have nothing between them"),
        (",a=1", "it starts with a comma"),
    ],
)
def test_parse_errors_name_the_text(text: str, why: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_cli_values(text, option="--env")
    message = str(caught.value)
    assert message.startswith(f"Could not parse the value of --env: `{text}`. ")
    assert why[:1].upper() + why[1:] in message
    assert "Expected a JSON object or name=value pairs" in message
    assert "--env apiUrl=" in message
    assert caught.value.problems == [message]


def test_parse_error_example_follows_the_option() -> None:
    with pytest.raises(ConfigError, match="--config viewportWidth=800"):
        parse_cli_values("oops", option="--config")
