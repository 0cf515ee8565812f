"""format_resolved: what `runner config` prints."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.config import Config, format_resolved, option_names


def test_every_option_with_value_and_source(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "runner.env.json", {"token": "t"})
    config = load(
        {"viewportWidth": 800, "env": {"apiUrl": "http://api"}, "e2e": {"video": False}},
        environ={"RUNNER_BASE_URL": "http://localhost:3000"},
        cli_env="user=ada",
    )
    text = format_resolved(config)
    lines = text.splitlines()
    assert lines[0] == "Resolved configuration for e2e tests"
    assert str(project.resolve() / "runner.json") in lines[1]
    rows = {
        line.split()[0]: line for line in lines if line.startswith("  ") and len(line.split()) >= 3
    }
    for name in option_names():
        assert name in rows, name
    assert rows["viewportWidth"].split()[1:] == ["800", "runner.json"]
    assert rows["video"].split()[1:] == ["false", "runner.json", "e2e", "block"]
    assert rows["baseUrl"].split()[1:] == [
        '"http://localhost:3000"',
        "environment",
        "variable",
        "RUNNER_BASE_URL",
    ]
    assert rows["env.apiUrl"].split()[1:] == ['"http://api"', "runner.json"]
    assert rows["env.token"].split()[1:] == ['"t"', "runner.env.json"]
    assert rows["env.user"].split()[1:] == ['"ada"', "--env"]
    assert rows["animationDistanceThreshold"].split()[1:] == ["5", "default"]
    # aligned: every value starts in the same column
    option_rows = [
        line for line in lines if line.startswith("  ") and line.split()[0] in option_names()
    ]
    value_columns = {
        len(line) - len(line[2:].lstrip(" ").split(" ", 1)[1].lstrip(" ")) for line in option_rows
    }
    assert len(value_columns) == 1
    names = [line.split()[0] for line in option_rows]
    assert names == sorted(names)


def test_defaults_and_warnings(load: Callable[..., Config]) -> None:
    text = format_resolved(load(config_file=False, cli_config="nodeVersion=bundled"))
    assert "defaults (no configuration file)" in text
    assert text.rstrip().splitlines()[-1].startswith("  - The `nodeVersion` configuration option")
