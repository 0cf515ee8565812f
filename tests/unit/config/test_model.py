"""The Config model: attributes, mapping access, immutability, paths, retries, merged()."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.casing import camel_to_snake as snake_name
from runner.config import Config, defaults, load_config, option_names, override_level
from runner.errors import ConfigError, UsageError


@pytest.fixture(scope="module")
def config_root(
    write_json: Callable[[Path, Any], Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    root = tmp_path_factory.mktemp("model")
    write_json(
        root / "runner.json",
        {
            "baseUrl": "http://localhost:3000",
            "env": {"a": 1, "nested": {"x": [1]}},
            "viewportWidth": 1280,
            "e2e": {"defaultCommandTimeout": 6000},
        },
    )
    return root


@pytest.fixture(scope="module")
def config(config_root: Path) -> Config:
    """One shared Config: it is immutable, so tests cannot disturb each other through it."""
    return load_config(config_root, environ={})


@pytest.mark.parametrize("name", option_names())
def test_every_option_has_a_snake_case_attribute(config: Config, name: str) -> None:
    assert getattr(config, snake_name(name)) == config[name] == config.get(name)


def test_attribute_values(config: Config) -> None:
    assert config.base_url == "http://localhost:3000"
    assert config.default_command_timeout == 6000
    assert config.viewport_width == 1280
    assert config.viewport_height == 660
    assert config.env == {"a": 1, "nested": {"x": [1]}}
    assert config.retries == {"runMode": 0, "openMode": 0}


def test_mapping_access(config: Config) -> None:
    assert config["baseUrl"] == "http://localhost:3000"
    assert config.get("nope", "fallback") == "fallback"
    assert "viewportWidth" in config and "e2e" not in config
    assert list(config) == option_names()
    assert len(config) == len(option_names())
    assert dict(config) == config.as_dict()


def test_unknown_key_suggests(config: Config) -> None:
    with pytest.raises(KeyError, match="Did you mean 'baseUrl'"):
        config["baseURL"]


def test_as_dict_is_a_deep_copy_without_blocks(config: Config) -> None:
    values = config.as_dict()
    assert set(values) == set(option_names())
    values["env"]["nested"]["x"].append(2)
    values["viewportWidth"] = 1
    assert config.env["nested"] == {"x": [1]}
    assert config.viewport_width == 1280


def test_config_is_immutable(config: Config) -> None:
    with pytest.raises(AttributeError, match="immutable"):
        config.viewport_width = 5  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        config._values = {}
    with pytest.raises(AttributeError, match="immutable"):
        del config._values
    config.env["a"] = 2
    config["env"]["a"] = 3
    config.retries["runMode"] = 9
    config.sources["baseUrl"] = "x"
    config.warnings.append("x")
    assert config.env["a"] == 1
    assert config.retries_for("runMode") == 0
    assert config.sources["baseUrl"] == "config"
    assert config.warnings == []


def test_repr(config: Config, config_root: Path) -> None:
    assert repr(config) == f"<Config e2e from {config_root.resolve() / 'runner.json'}>"


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("integrationFolder", None, "runner/integration"),
        ("fileServerFolder", None, "."),
        ("fileServerFolder", "public", "public"),
        ("supportFile", None, "runner/support/index.py"),
        ("pluginsFile", "../shared/plugins.py", "../shared/plugins.py"),
        ("fixturesFolder", False, None),
        ("componentFolder", None, None),
        ("componentFolder", "src/components", "src/components"),
        ("screenshotsFolder", "out/shots/", "out/shots"),
    ],
)
def test_path_resolves_against_the_project_root(
    load: Callable[..., Config], project: Path, key: str, value: Any, expected: str | None
) -> None:
    config = load({key: value} if value is not None else {})
    root = project.resolve()
    if expected is None:
        assert config.path(key) is None
    else:
        resolved = config.path(key)
        assert resolved is not None and resolved.is_absolute()
        assert resolved == Path(os.path.normpath(root / expected))


def test_path_of_an_absolute_folder(load: Callable[..., Config]) -> None:
    assert load({"videosFolder": "/var/videos"}).path("videosFolder") == Path("/var/videos")


def test_path_of_a_non_path_option(config: Config) -> None:
    with pytest.raises(UsageError, match="'baseUrl' is not a folder or file option"):
        config.path("baseUrl")


@pytest.mark.parametrize(
    ("retries", "run", "open_"),
    [
        ({"runMode": 0, "openMode": 0}, 0, 0),
        (2, 2, 2),
        (None, 0, 0),
        ({"runMode": 3}, 3, 0),
        ({"runMode": None, "openMode": 1}, 0, 1),
        ({}, 0, 0),
    ],
)
def test_retries_for(load: Callable[..., Config], retries: Any, run: int, open_: int) -> None:
    config = load({"retries": retries})
    assert config.retries_for("runMode") == run
    assert config.retries_for("openMode") == open_


def test_retries_for_a_bad_mode(config: Config) -> None:
    with pytest.raises(UsageError, match="expected 'runMode' or 'openMode'"):
        config.retries_for("headless")


@pytest.mark.parametrize(("value", "crf"), [(True, 32), (False, None), (0, 0), (18, 18), (51, 51)])
def test_video_crf(load: Callable[..., Config], value: Any, crf: int | None) -> None:
    assert load({"videoCompression": value}).video_crf == crf


def test_video_crf_default(config: Config) -> None:
    assert config.video_crf == 32


# -- merged ----------------------------------------------------------------------------------


def test_merged_returns_a_new_validated_config(config: Config) -> None:
    merged = config.merged(
        {"viewportWidth": 320, "env": {"b": 2}}, source="plugin", origin="the plugins file p.py"
    )
    assert merged is not config
    assert merged.viewport_width == 320 and config.viewport_width == 1280
    assert merged.env == {"a": 1, "nested": {"x": [1]}, "b": 2}
    assert merged.sources["viewportWidth"] == "plugin"
    assert merged.source_detail("viewportWidth") == "the plugins file p.py"
    assert merged.env_sources["b"] == "plugin" and merged.env_sources["a"] == "config"
    assert merged.sources["baseUrl"] == "config"
    assert merged.project_root == config.project_root
    assert merged.config_file == config.config_file
    assert merged.testing_type == config.testing_type


def test_merged_keeps_the_source_of_unchanged_values(config: Config) -> None:
    merged = config.merged(config.as_dict(), source="plugin", origin="the plugins file")
    assert merged.sources == config.sources
    assert merged.as_dict() == config.as_dict()


def test_plugin_level_may_change_read_only_options(config: Config) -> None:
    merged = config.merged({"chromeWebSecurity": False}, source="plugin", origin="plugins")
    assert merged.chrome_web_security is False


@pytest.mark.parametrize("name", [n for n in option_names() if override_level(n) == "never"])
def test_read_only_options_at_suite_and_test_level(config: Config, name: str) -> None:
    for level in ("suite", "test"):
        with pytest.raises(ConfigError) as caught:
            config.merged({name: defaults()[name]}, source=level, origin="the runner mark on t")
        assert str(caught.value).startswith(
            "The configuration set by the runner mark on t is invalid (1 problem):\n"
        )
        assert caught.value.problems == [
            f"The `{name}` configuration can never be overridden because it is a read-only "
            "configuration option."
        ]


@pytest.mark.parametrize("level", ["suite", "test"])
def test_overridable_options_at_suite_and_test_level(config: Config, level: str) -> None:
    merged = config.merged(
        {"retries": 2, "includeShadowDom": True, "env": {"a": 5}, "baseUrl": "http://x.test//"},
        source=level,
        origin=f"the runner mark on {level}",
    )
    assert merged.retries_for("runMode") == 2
    assert merged.include_shadow_dom is True
    assert merged.env["a"] == 5 and merged.env["nested"] == {"x": [1]}
    assert merged.base_url == "http://x.test/"
    assert merged.sources["retries"] == level
    assert merged.env_source_detail("a") == f"the runner mark on {level}"


def test_level_can_differ_from_the_source_label(config: Config) -> None:
    with pytest.raises(ConfigError, match="read-only"):
        config.merged({"video": False}, source="mark", origin="a mark", level="test")


def test_merged_accepts_snake_case_names(config: Config) -> None:
    merged = config.merged(
        {"viewport_width": 10, "default_command_timeout": 1}, source="test", origin="t"
    )
    assert merged.viewport_width == 10 and merged.default_command_timeout == 1


def test_merged_reports_every_problem(config: Config) -> None:
    with pytest.raises(ConfigError) as caught:
        config.merged(
            {"video": False, "viewportWidth": "wide", "retires": 2, "env": 5},
            source="test",
            origin="the runner mark on test_x",
        )
    message = str(caught.value)
    assert message.startswith(
        "The configuration set by the runner mark on test_x is invalid (4 problems):"
    )
    assert "The `video` configuration can never be overridden" in message
    assert "Expected `viewportWidth` to be a number" in message
    assert "Unknown property `retires`. Did you mean `retries`?" in message
    assert "Expected `env` to be a plain object" in message


def test_merged_rejects_blocks(config: Config) -> None:
    with pytest.raises(ConfigError, match="Unknown property `e2e`"):
        config.merged({"e2e": {}}, source="plugin", origin="the plugins file")


def test_merged_node_version_warns(config: Config) -> None:
    merged = config.merged({"nodeVersion": "bundled"}, source="plugin", origin="the plugins file")
    assert any("the plugins file" in w for w in merged.warnings)
