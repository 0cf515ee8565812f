"""Validation of runner.json: one message per problem, all at once, with path/expected/found."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.config import Config, suggest
from runner.errors import ConfigError

NUMBER = "a number"
BOOLEAN = "a boolean"
STRING_OR_FALSE = "a string or false"
URL = "a fully qualified URL (starting with http:// or https://)"
CRF = "a CRF number from 0 to 51 (lower is better quality and a larger file), false for no compression step"
RETRIES = 'a positive number or null or an object with keys "openMode" and "runMode"'
STRINGS = "a string or an array of strings"

INVALID: list[tuple[str, Any, str]] = [
    ("viewportWidth", "500", NUMBER),
    ("viewportHeight", -1, NUMBER),
    ("defaultCommandTimeout", True, NUMBER),
    ("defaultCommandTimeout", None, NUMBER),
    ("numTestsKeptInMemory", [], NUMBER),
    ("execTimeout", {}, NUMBER),
    ("animationDistanceThreshold", "5", NUMBER),
    ("video", "yes", BOOLEAN),
    ("chromeWebSecurity", 1, BOOLEAN),
    ("watchForFileChanges", None, BOOLEAN),
    ("experimentalStudio", "false", BOOLEAN),
    ("includeShadowDom", 0, BOOLEAN),
    ("fixturesFolder", True, STRING_OR_FALSE),
    ("fixturesFolder", 3, STRING_OR_FALSE),
    ("supportFile", None, STRING_OR_FALSE),
    ("pluginsFile", True, STRING_OR_FALSE),
    ("componentFolder", True, STRING_OR_FALSE),
    ("integrationFolder", False, "a string"),
    ("reporter", 5, "a string"),
    ("userAgent", 5, "a string or null"),
    ("env", [], "a plain object"),
    ("env", "a=1", "a plain object"),
    ("reporterOptions", "x", "a plain object or null"),
    ("baseUrl", "localhost:3000", URL),
    ("baseUrl", "ftp://example.com", URL),
    ("baseUrl", "http://", URL),
    ("baseUrl", "/relative", URL),
    ("baseUrl", 8080, URL),
    (
        "scrollBehavior",
        "middle",
        'one of these values: false, "center", "top", "bottom", "nearest"',
    ),
    ("scrollBehavior", True, "one of these values"),
    ("nodeVersion", "latest", 'one of these values: "system", "bundled"'),
    ("videoCompression", 52, CRF),
    ("videoCompression", -1, CRF),
    ("videoCompression", 3.5, CRF),
    ("videoCompression", "32", CRF),
    ("projectId", "abc", "a string of exactly 6 characters or null"),
    ("projectId", "abcdefg", "a string of exactly 6 characters or null"),
    ("projectId", 123456, "a string of exactly 6 characters or null"),
    ("port", 0, NUMBER),
    ("port", 65536, NUMBER),
    ("port", "8080", NUMBER),
    ("port", 80.5, NUMBER),
    ("retries", -1, RETRIES),
    ("retries", 1.5, RETRIES),
    ("retries", "2", RETRIES),
    ("retries", {"runMode": -1}, RETRIES),
    ("retries", {"runMode": True}, RETRIES),
    ("retries", {"runMode": 1, "other": 2}, RETRIES),
    ("retries", [1], RETRIES),
    ("testFiles", 5, STRINGS),
    ("testFiles", ["a", 1], STRINGS),
    ("ignoreTestFiles", 5, "a string, an array of strings, or null"),
    ("blockHosts", 5, "a string, an array of strings, or null"),
    ("blockHosts", [None], "a string, an array of strings, or null"),
    ("clientCertificates", {}, "an array of client certificate entries"),
]

VALID: list[tuple[str, Any]] = [
    ("viewportWidth", 0),
    ("viewportWidth", 1280.5),
    ("baseUrl", "http://localhost:3000"),
    ("baseUrl", "https://example.com/app?x=1#y"),
    ("baseUrl", None),
    ("port", 1),
    ("port", 65535),
    ("port", None),
    ("fixturesFolder", False),
    ("supportFile", "custom/support.py"),
    ("scrollBehavior", False),
    ("scrollBehavior", "nearest"),
    ("nodeVersion", "bundled"),
    ("videoCompression", 0),
    ("videoCompression", 51),
    ("videoCompression", True),
    ("videoCompression", False),
    ("projectId", "abc123"),
    ("projectId", None),
    ("retries", None),
    ("retries", 0),
    ("retries", 3),
    ("retries", {}),
    ("retries", {"runMode": 2}),
    ("retries", {"runMode": None, "openMode": 1}),
    ("testFiles", ["**/*_spec.py", "**/test_*.py"]),
    ("ignoreTestFiles", "*.tmp"),
    ("blockHosts", "*.google.com"),
    ("blockHosts", ["a.com", "b.com"]),
    ("blockHosts", None),
    ("reporterOptions", {"toConsole": True}),
    ("env", {"anything": [1, {"x": None}]}),
    ("userAgent", "bot/1.0"),
    ("clientCertificates", [{"url": "https://a.test/*", "certs": [{"pfx": "a.pfx"}]}]),
]


def problems(load: Callable[..., Config], doc: Any) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load(doc)
    return caught.value


@pytest.mark.parametrize(("key", "value", "expected"), INVALID)
def test_invalid_value(
    load: Callable[..., Config], project: Path, key: str, value: Any, expected: str
) -> None:
    error = problems(load, {key: value})
    path = project / "runner.json"
    assert str(error).startswith(f"Your configuration file {path} is invalid (1 problem):\n- ")
    assert len(error.problems) == 1
    (line,) = error.problems
    assert line.startswith(f"Expected `{key}` to be {expected}")
    shown = "Instead the value was: `" + json.dumps(value) + "`"
    # a refused retries object gets its reason after the value (tests/unit/config/test_retries.py)
    assert line.endswith(shown) or (key == "retries" and isinstance(value, dict) and f"{shown} (" in line)


@pytest.mark.parametrize(("key", "value", "expected"), INVALID)
def test_invalid_value_in_a_block(
    load: Callable[..., Config], key: str, value: Any, expected: str
) -> None:
    error = problems(load, {"component": {key: value}})
    assert error.problems[0].startswith(f"Expected `component.{key}` to be {expected}")


@pytest.mark.parametrize(("key", "value"), VALID)
def test_valid_value(load: Callable[..., Config], key: str, value: Any) -> None:
    config = load({key: value, "e2e": {key: value}})
    if key != "env":
        assert config[key] == value


def test_several_problems_are_reported_at_once_in_file_order(
    load: Callable[..., Config], project: Path
) -> None:
    error = problems(
        load,
        {
            "viewportWidth": "wide",
            "video": "yes",
            "baseURL": "http://x",
            "e2e": {"viewportHeight": "tall"},
        },
    )
    assert str(error).startswith(
        f"Your configuration file {project / 'runner.json'} is invalid (4 problems):\n"
    )
    assert [line.split("`")[1] for line in error.problems] == [
        "viewportWidth",
        "video",
        "baseURL",
        "e2e.viewportHeight",
    ]
    assert str(error).count("\n- ") == 4


@pytest.mark.parametrize(
    ("name", "guess"),
    [
        ("baseURL", "baseUrl"),
        ("BASEURL", "baseUrl"),
        ("base_url", "baseUrl"),
        ("viewportWidht", "viewportWidth"),
        ("defaultCommandTimout", "defaultCommandTimeout"),
        ("retry", "retries"),
        ("integrationfolder", "integrationFolder"),
        ("totallyUnrelated", None),
        ("baseUrl", None),
    ],
)
def test_suggest(name: str, guess: str | None) -> None:
    assert suggest(name) == guess


def test_unknown_property_says_did_you_mean_and_env(load: Callable[..., Config]) -> None:
    (line,) = problems(load, {"baseURL": "http://localhost"}).problems
    assert line.startswith("Unknown property `baseURL`. Did you mean `baseUrl`?")
    assert "under `env`" in line


def test_unknown_property_without_a_guess(load: Callable[..., Config]) -> None:
    (line,) = problems(load, {"myCustomThing": 1}).problems
    assert line.startswith("Unknown property `myCustomThing`. Only the documented options")
    assert "Did you mean" not in line


def test_unknown_property_in_a_block(load: Callable[..., Config]) -> None:
    (line,) = problems(load, {"e2e": {"viewPortWidth": 1}}).problems
    assert line.startswith(
        "Unknown property `e2e.viewPortWidth`. Did you mean `e2e.viewportWidth`?"
    )


def test_blocks_do_not_nest(load: Callable[..., Config]) -> None:
    (line,) = problems(load, {"e2e": {"component": {}}}).problems
    assert "`e2e.component`" in line and "top level" in line


@pytest.mark.parametrize("value", [5, "x", [], None])
def test_block_must_be_an_object(load: Callable[..., Config], value: Any) -> None:
    (line,) = problems(load, {"e2e": value}).problems
    assert line.startswith("Expected `e2e` to be a plain object")


def test_dollar_schema_is_accepted(load: Callable[..., Config]) -> None:
    config = load({"$schema": "https://example.invalid/runner.schema.json"})
    assert "$schema" not in config.as_dict()


@pytest.mark.parametrize(
    ("certificates", "expected"),
    [
        ([{"certs": []}], ["Missing `clientCertificates[0].url`: it is required and must be a string"]),
        ([{"url": "*"}], ["Missing `clientCertificates[0].certs`: it is required"]),
        ([{"url": 5, "certs": []}], ["Expected `clientCertificates[0].url` to be a string"]),
        ([{"url": "*", "certs": [], "ca": "ca.pem"}], ["Expected `clientCertificates[0].ca` to be an array of strings"]),
        ([{"url": "*", "certs": [], "ca": ["a", 3]}], ["Expected `clientCertificates[0].ca[1]` to be a string"]),
        ([{"url": "*", "certs": [], "x": 1}], ["Unknown property `clientCertificates[0].x`."]),
        (["*"], ["Expected `clientCertificates[0]` to be a client certificate entry"]),
        (
            [{"url": "*", "certs": [{"cert": "a.pem", "key": "a.key"}, {"cert": "b.pem"}]}],
            ["Missing `clientCertificates[0].certs[1].key`: it is required and must be a string"],
        ),
        (
            [{"url": "*", "certs": [{"cert": "a.pem", "key": 5}]}],
            ["Expected `clientCertificates[0].certs[0].key` to be a string (a path relative to the project root). Instead the value was: `5`"],
        ),
        (
            [{"url": "*", "certs": [{"pfx": 1}]}],
            ["Expected `clientCertificates[0].certs[0].pfx` to be a string"],
        ),
        (
            [{"url": "*", "certs": [{"pfx": "a.pfx", "passphrse": "p.txt"}]}],
            ["Unknown property `clientCertificates[0].certs[0].passphrse`. Did you mean `clientCertificates[0].certs[0].passphrase`?"],
        ),
        (
            [{"url": "*", "certs": [{"cert": "a", "key": "b", "pfx": "c"}]}],
            ["Unknown property `clientCertificates[0].certs[0].pfx`."],
        ),
        (
            [{"url": "*", "certs": [7]}],
            ["Expected `clientCertificates[0].certs[0]` to be a PEM entry"],
        ),
        (
            [{"url": "a", "certs": []}, {"url": "b", "certs": [{"cert": "c"}], "ca": [1]}],
            ["Missing `clientCertificates[1].certs[0].key`", "Expected `clientCertificates[1].ca[0]` to be a string"],
        ),
    ],
)  # fmt: skip
def test_client_certificates_name_the_path(
    load: Callable[..., Config], certificates: Any, expected: list[str]
) -> None:
    error = problems(load, {"clientCertificates": certificates})
    assert len(error.problems) == len(expected), error.problems
    for line, start in zip(error.problems, expected, strict=True):
        assert line.startswith(start)


def test_valid_client_certificates(load: Callable[..., Config]) -> None:
    certs = [
        {
            "url": "https://a.test/**",
            "ca": ["certs/ca.pem"],
            "certs": [
                {"cert": "certs/a.pem", "key": "certs/a.key", "passphrase": "certs/pass.txt"},
                {"pfx": "certs/b.pfx"},
            ],
        }
    ]
    assert load({"clientCertificates": certs}).client_certificates == certs


def test_long_values_are_shortened(load: Callable[..., Config]) -> None:
    (line,) = problems(load, {"reporter": ["x" * 500]}).problems
    assert line.endswith('..."`') or line.endswith("...`")
    assert len(line) < 400


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{"a": 1,}', 1, 9),
        ('{\n  "viewportWidth": 800\n  "video": true\n}', 3, 3),
        ("{'single': 1}", 1, 2),
        ('{"a": 1} trailing', 1, 10),
    ],
)
def test_invalid_json_reports_line_and_column(
    load: Callable[..., Config], project: Path, text: str, line: int, column: int
) -> None:
    (project / "runner.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load()
    message = str(caught.value)
    assert message.startswith(
        f"Your configuration file {project / 'runner.json'} is not valid JSON: "
    )
    assert f"at line {line}, column {column}" in message
    assert f"{line} | " in message and "^" in message
    assert caught.value.problems


def test_empty_file(load: Callable[..., Config], project: Path) -> None:
    (project / "runner.json").write_text("  \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"is empty\. Expected a JSON object"):
        load()


@pytest.mark.parametrize(
    ("doc", "kind"), [([1], "an array"), ("x", "a string"), (5, "a number"), (None, "null")]
)
def test_file_must_hold_an_object(
    load: Callable[..., Config], project: Path, doc: Any, kind: str
) -> None:
    (project / "runner.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ConfigError, match=f"must contain a JSON object .* but it contains {kind}"):
        load()


def test_utf8_bom_is_accepted(load: Callable[..., Config], project: Path) -> None:
    (project / "runner.json").write_bytes(b'\xef\xbb\xbf{"viewportWidth": 10}')
    assert load().viewport_width == 10
