"""Values the schema alone let through and that crashed or stalled a run later: a NUL or an
over-long path, NaN, 1e29, a document nested 100,000 deep, a number of 5,000 digits, a glob of
2^40 patterns. Each is the configuration error of any other bad value, from every source."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.config import Config, load_config
from runner.config.limits import MAX_DEPTH, name_max, path_max, structure_problems
from runner.errors import ConfigError

MS = "a number of milliseconds from 0 to 2147483647"
PIXELS = "a number of pixels from 0 to "


Load = Callable[..., Config]


@pytest.fixture
def load_text(project: Path) -> Load:
    """``load_text(text, **kwargs)``: write ``text`` as runner.json, as is (it may be JSON that
    Python would not write), and load it with an empty environment unless ``environ`` is given."""

    def _load(text: str, **kwargs: Any) -> Config:
        (project / "runner.json").write_text(text, encoding="utf-8")
        kwargs.setdefault("environ", {})
        return load_config(project, **kwargs)

    return _load


def error_of(load_text: Load, text: str, **kwargs: Any) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_text(text, **kwargs)
    return caught.value


# (runner.json text, the one problem's start)
DOCUMENTS: list[tuple[str, str]] = [
    ('{"viewportWidth": 1e29}', f"Expected `viewportWidth` to be {PIXELS}"),
    ('{"viewportHeight": -0.5}', f"Expected `viewportHeight` to be {PIXELS}"),
    ('{"viewportWidth": NaN}', "Expected `viewportWidth` to be a finite number (JSON has no NaN or Infinity). Instead the value was: `NaN`"),
    ('{"viewportWidth": Infinity}', "Expected `viewportWidth` to be a finite number"),
    ('{"e2e": {"defaultCommandTimeout": -Infinity}}', "Expected `e2e.defaultCommandTimeout` to be a finite number"),
    ('{"viewportHeight": 1e400}', "Expected `viewportHeight` to be a finite number"),  # reads as inf
    ('{"env": {"ratio": NaN}}', "Expected `env.ratio` to be a finite number"),
    ('{"env": {"list": [1, [Infinity]]}}', "Expected `env.list[1][0]` to be a finite number"),
    ('{"viewportWidth": ' + "9" * 400 + "}", f"Expected `viewportWidth` to be {PIXELS}"),
    ('{"pageLoadTimeout": 2147483648}', f"Expected `pageLoadTimeout` to be {MS}"),
    ('{"responseTimeout": 1e29}', f"Expected `responseTimeout` to be {MS}"),
    ('{"defaultCommandTimeout": 3e9}', f"Expected `defaultCommandTimeout` to be {MS}"),
    ('{"execTimeout": 1e10}', f"Expected `execTimeout` to be {MS}"),
    ('{"taskTimeout": 1e10}', f"Expected `taskTimeout` to be {MS}"),
    ('{"requestTimeout": 1e10}', f"Expected `requestTimeout` to be {MS}"),
    ('{"slowTestThreshold": 1e10}', f"Expected `slowTestThreshold` to be {MS}"),
    ('{"numTestsKeptInMemory": 1e29}', "Expected `numTestsKeptInMemory` to be a number from 0 to 2147483647"),
    ('{"animationDistanceThreshold": 1e29}', f"Expected `animationDistanceThreshold` to be {PIXELS}"),
    ('{"retries": 100000000000000000000}', "Expected `retries` to be a positive number or null"),
    ('{"retries": {"runMode": 100000000000000000000}}', "Expected `retries` to be a positive number or null"),
    ('{"fileServerFolder": "app\\u0000"}', "Expected `fileServerFolder` to be a path without NUL characters"),
    ('{"fixturesFolder": "a\\u0000b"}', "Expected `fixturesFolder` to be a path without NUL characters"),
    ('{"pluginsFile": "\\u0000"}', "Expected `pluginsFile` to be a path without NUL characters"),
    ('{"e2e": {"supportFile": "s\\u0000.py"}}', "Expected `e2e.supportFile` to be a path without NUL characters"),
    ('{"eventsFile": "e\\u0000.jsonl"}', "Expected `eventsFile` to be a path without NUL characters"),
    ('{"downloadsFolder": "\\ud800"}', "Expected `downloadsFolder` to be a path the file system encoding can hold"),
    ('{"screenshotsFolder": "' + "s" * 300 + '"}', "Expected `screenshotsFolder` to be a path whose names are at most"),
    ('{"videosFolder": "' + "/".join(["v" * 200] * 25) + '"}', "Expected `videosFolder` to be a path shorter than"),
    ('{"integrationFolder": "/' + "/".join(["i" * 100] * 45) + '"}', "Expected `integrationFolder` to be a path shorter than"),
    ('{"clientCertificates": [{"url": "https://a.test", "certs": [{"cert": "c\\u0000", "key": "k.pem"}]}]}',
     "Expected `clientCertificates[0].certs[0].cert` to be a path without NUL characters"),
    ('{"clientCertificates": [{"url": "https://a.test", "certs": [{"pfx": "' + "p" * 300 + '"}]}]}',
     "Expected `clientCertificates[0].certs[0].pfx` to be a path whose names are at most"),
    ('{"clientCertificates": [{"url": "https://a.test", "ca": ["\\u0000"], "certs": [{"pfx": "a.pfx"}]}]}',
     "Expected `clientCertificates[0].ca[0]` to be a path without NUL characters"),
    ('{"testFiles": "' + "{a,b}" * 40 + '"}', "`testFiles` expands to more than 1,000 patterns"),
    ('{"testFiles": ["**/*.py", "' + "{a,b}" * 19 + '"]}', "`testFiles[1]` expands to more than 1,000 patterns"),
    ('{"ignoreTestFiles": "{1..100000}"}', "`ignoreTestFiles` expands to more than 1,000 patterns"),
    ('{"e2e": {"blockHosts": ["' + "{a,b}" * 12 + '.test"]}}', "`e2e.blockHosts[0]` expands to more than 1,000 patterns"),
    ('{"blockHosts": "' + "{" * 101 + "a,b" + "}" * 101 + '"}', "`blockHosts` has 101 `{` (brace groups); at most 100"),
    ('{"env": {"a": ' + "[" * 150 + "]" * 150 + "}}", "cannot be used: it is nested more than 100 levels deep (at `env.a[0][0][0][0]...`, 100 levels down)"),
]


@pytest.mark.parametrize(("text", "start"), DOCUMENTS)
def test_a_bad_value_in_the_file_is_a_configuration_error(
    load_text: Load, project: Path, text: str, start: str
) -> None:
    error = error_of(load_text, text)
    path = project / "runner.json"
    if "cannot be used" in start:
        assert str(error) == f"Your configuration file {path} {start}."
        return
    assert str(error).startswith(f"Your configuration file {path} is invalid (1 problem):\n- {start}")
    assert error.problems[0].startswith(start)


def test_a_document_nested_100000_deep_is_refused(load_text: Load, project: Path) -> None:
    text = '{"env": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    error = error_of(load_text, text)
    assert str(error) == (
        f"Your configuration file {project / 'runner.json'} cannot be used: it is nested more "
        f"than {MAX_DEPTH} levels deep."
    )


def test_a_number_too_long_to_read_is_refused(load_text: Load, project: Path) -> None:
    error = error_of(load_text, '{"viewportWidth": ' + "9" * 5_000 + "}")
    assert str(error) == (
        f"Your configuration file {project / 'runner.json'} cannot be used: it holds a number of "
        "more than 4,300 digits, too long to read."
    )


def test_the_environment_file_is_held_to_the_same_limits(load_text: Load, project: Path) -> None:
    (project / "runner.env.json").write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    error = error_of(load_text, "{}")
    assert str(error) == (
        f"Your environment file {project / 'runner.env.json'} cannot be used: it is nested more "
        f"than {MAX_DEPTH} levels deep."
    )
    (project / "runner.env.json").write_text('{"ratio": NaN}')
    error = error_of(load_text, "{}")
    assert "Expected `env.ratio` to be a finite number" in str(error)


@pytest.mark.parametrize(
    ("kwargs", "start"),
    [
        ({"cli_config": '{"viewportWidth": NaN}'}, "Expected `viewportWidth` to be a finite number"),
        ({"cli_config": "viewportWidth=1e29"}, f"Expected `viewportWidth` to be {PIXELS}"),
        ({"cli_config": {"viewportWidth": float("nan")}}, "Expected `viewportWidth` to be a finite number"),
        ({"cli_config": {"fileServerFolder": "a\0b"}}, "Expected `fileServerFolder` to be a path without NUL"),
        ({"cli_config": {"testFiles": "{a,b}" * 40}}, "`testFiles` expands to more than 1,000 patterns"),
        ({"cli_env": '{"x": Infinity}'}, "Expected `env.x` to be a finite number"),
        ({"environ": {"RUNNER_VIEWPORT_WIDTH": "1e29"}}, f"Expected `viewportWidth` to be {PIXELS}"),
        ({"environ": {"RUNNER_PAGE_LOAD_TIMEOUT": "9999999999"}}, f"Expected `pageLoadTimeout` to be {MS}"),
        ({"environ": {"RUNNER_FIXTURES_FOLDER": "f" * 300}}, "Expected `fixturesFolder` to be a path whose names"),
        ({"environ": {"RUNNER_env": '{"x": NaN}'}}, "Expected `env.x` to be a finite number"),
    ],
)
def test_every_source_is_held_to_the_limits(
    load_text: Load, kwargs: dict[str, Any], start: str
) -> None:
    error = error_of(load_text, "{}", **kwargs)
    assert str(error).startswith("An invalid configuration value was set from ")
    assert error.problems[0].startswith(start)


@pytest.mark.parametrize(
    "text",
    [
        '{"env": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"viewportWidth": ' + "9" * 5_000 + "}",
    ],
)
def test_cli_json_past_the_limits_is_a_parse_error(load_text: Load, text: str) -> None:
    error = error_of(load_text, "{}", cli_config=text)
    message = str(error)
    assert message.startswith("Could not parse the value of --config: `")
    assert "It is not valid JSON (it " in message
    assert len(message) < 1_000  # the 200,000 characters given are not echoed back


def test_the_plugins_file_and_marks_are_held_to_the_limits(load_text: Load) -> None:
    config = load_text("{}")
    deep: list[Any] = []
    for _ in range(200):
        deep = [deep]
    itself: list[Any] = []
    itself.append(itself)
    cases = [
        ({"viewportWidth": float("nan")}, "Expected `viewportWidth` to be a finite number"),
        ({"pageLoadTimeout": 10**20}, f"Expected `pageLoadTimeout` to be {MS}"),
        ({"blockHosts": ["{a,b}" * 40]}, "`blockHosts[0]` expands to more than 1,000 patterns"),
        ({"env": {"deep": deep}}, "`env.deep[0][0][0][0]... (100 levels down)` is nested more than 100 levels deep"),
        ({"env": {"loop": itself}}, "`env.loop[0]` is a value that contains itself"),
    ]
    for overrides, start in cases:
        with pytest.raises(ConfigError) as caught:
            config.merged(overrides, source="plugin", origin="the plugins file")
        assert caught.value.problems[0].startswith(start), caught.value.problems
    with pytest.raises(ConfigError) as caught:
        config.merged({"viewportHeight": float("inf")}, source="test", origin="the runner mark on test_x")
    assert "Expected `viewportHeight` to be a finite number" in str(caught.value)


def test_a_long_path_is_measured_as_resolved_against_the_project(load_text: Load, project: Path) -> None:
    length = path_max() - len(str(project))  # "<project>/<relative>" is one byte too long
    relative = "/".join(["n" * (name_max() - 1)] * (length // name_max() + 1))[:length].rstrip("/")
    relative += "n" * (length - len(relative))
    assert len(relative) == length < path_max()  # fine on its own, too long under the project
    error = error_of(load_text, json.dumps({"downloadsFolder": relative}))
    assert "resolved against the project root, it is" in error.problems[0]


def test_values_within_the_limits_still_load(load_text: Load) -> None:
    config = load_text(json.dumps({
        "viewportWidth": 3840, "viewportHeight": 2160, "pageLoadTimeout": 2147483647,
        "defaultCommandTimeout": 0, "retries": {"runMode": 3},
        "testFiles": ["**/*.{spec,test}.py", "**/{a,b}/{c,d}/*.py"], "blockHosts": "*.{ads,track}.test",
        "fileServerFolder": "public", "env": {"nested": [[[[[[{"ok": 1.5}]]]]]], "big": 10**30},
    }))
    assert config.viewport_width == 3840 and config.env["big"] == 10**30


def test_structure_walk_never_recurses() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    started = time.perf_counter()
    problems = structure_problems({"env": deep})
    assert time.perf_counter() - started < 2.0
    assert [phrase for _parts, phrase, _value in problems] == [f"nested more than {MAX_DEPTH} levels deep"]
