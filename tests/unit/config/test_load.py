"""Resolution: precedence of the layers, sources, RUNNER_* variables, runner.env.json, files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.config import Config, defaults, load_config
from runner.errors import ConfigError, UsageError


def test_no_file_gives_the_defaults(load: Callable[..., Config], project: Path) -> None:
    config = load()
    assert config.as_dict() == defaults()
    assert set(config.sources.values()) == {"default"}
    assert config.config_file is None
    assert config.project_root == project.resolve()
    assert config.testing_type == "e2e"
    assert config.warnings == []


def test_root_defaults_to_the_current_folder(
    write_json: Callable[[Path, Any], Path], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_json(project / "runner.json", {"viewportWidth": 3})
    monkeypatch.chdir(project)
    config = load_config(environ={})
    assert config.viewport_width == 3
    assert config.config_file == project.resolve() / "runner.json"


def test_environ_defaults_to_os_environ(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNNER_VIEWPORT_WIDTH", "321")
    assert load_config(project).viewport_width == 321
    assert "RUNNER_VIEWPORT_WIDTH" in os.environ


def test_file_top_level(load: Callable[..., Config], project: Path) -> None:
    config = load({"viewportWidth": 800, "env": {"a": 1}})
    assert config.viewport_width == 800
    assert config.sources["viewportWidth"] == "config"
    assert config.source_detail("viewportWidth") == "runner.json"
    assert config.sources["viewportHeight"] == "default"
    assert config.source_detail("viewportHeight") == "default"
    assert config.env == {"a": 1}
    assert config.env_sources == {"a": "config"}
    assert config.config_file == project.resolve() / "runner.json"


@pytest.mark.parametrize("testing_type", ["e2e", "component"])
def test_the_block_of_the_testing_type_wins_over_the_top_level(
    load: Callable[..., Config], testing_type: str
) -> None:
    config = load(
        {
            "viewportWidth": 800,
            "viewportHeight": 600,
            "e2e": {"viewportWidth": 1200},
            "component": {"viewportWidth": 500},
        },
        testing_type=testing_type,
    )
    assert config.viewport_width == (1200 if testing_type == "e2e" else 500)
    assert config.sources["viewportWidth"] == testing_type
    assert config.source_detail("viewportWidth") == f"runner.json {testing_type} block"
    assert config.viewport_height == 600
    assert config.sources["viewportHeight"] == "config"
    assert "e2e" not in config and "component" not in config.as_dict()


def test_env_in_a_block_is_merged(load: Callable[..., Config]) -> None:
    config = load({"env": {"a": 1, "b": 2}, "e2e": {"env": {"b": 3, "c": 4}}})
    assert config.env == {"a": 1, "b": 3, "c": 4}
    assert config.env_sources == {"a": "config", "b": "e2e", "c": "e2e"}
    assert config.env_source_detail("c") == "runner.json e2e block"


def test_other_values_in_a_block_replace(load: Callable[..., Config]) -> None:
    config = load({"retries": {"runMode": 1, "openMode": 2}, "e2e": {"retries": {"runMode": 5}}})
    assert config.retries == {"runMode": 5}
    assert config.retries_for("openMode") == 0


def test_env_file(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "runner.env.json", {"b": "file", "token": "s3cret"})
    config = load({"env": {"a": 1, "b": 2}, "e2e": {"env": {"b": 3}}})
    assert config.env == {"a": 1, "b": "file", "token": "s3cret"}
    assert config.env_sources["b"] == "envFile"
    assert config.env_source_detail("token") == "runner.env.json"
    assert config.sources["env"] == "envFile"


def test_env_file_without_a_config_file(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "runner.env.json", {"x": 1})
    assert load().env == {"x": 1}


def test_env_file_beside_a_custom_config_file(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "conf" / "custom.json", {"viewportWidth": 5})
    write_json(project / "conf" / "runner.env.json", {"x": 1})
    write_json(project / "runner.env.json", {"ignored": 1})
    config = load(config_file="conf/custom.json")
    assert config.env == {"x": 1}
    assert config.project_root == project.resolve() / "conf"
    assert config.source_detail("viewportWidth") == "custom.json"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "[1, 2]",
            r"environment file .*runner\.env\.json is invalid: it must contain a JSON object",
        ),
        (
            '{"a": }',
            r"environment file .*runner\.env\.json is not valid JSON: .* at line 1, column 7",
        ),
    ],
)
def test_bad_env_file(load: Callable[..., Config], project: Path, text: str, match: str) -> None:
    (project / "runner.env.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=match):
        load()


@pytest.mark.parametrize(
    ("variable", "value", "key", "expected"),
    [
        ("RUNNER_baseUrl", "http://a.test", "baseUrl", "http://a.test"),
        ("RUNNER_BASE_URL", "http://a.test", "baseUrl", "http://a.test"),
        ("runner_BASE_URL", "http://a.test", "baseUrl", "http://a.test"),
        ("Runner_viewportWidth", "1280", "viewportWidth", 1280),
        ("RUNNER_VIEWPORT_WIDTH", "1280", "viewportWidth", 1280),
        ("RUNNER_DEFAULT_COMMAND_TIMEOUT", "10.5", "defaultCommandTimeout", 10.5),
        ("RUNNER_VIDEO", "false", "video", False),
        ("RUNNER_VIDEO_COMPRESSION", "true", "videoCompression", True),
        ("RUNNER_RETRIES", "2", "retries", 2),
        ("RUNNER_RETRIES", '{"runMode": 3}', "retries", {"runMode": 3}),
        ("RUNNER_BLOCK_HOSTS", "[a.com,b.com]", "blockHosts", ["a.com", "b.com"]),
        ("RUNNER_PORT", "null", "port", None),
        ("RUNNER_PROJECT_ID", "abc123", "projectId", "abc123"),
        ("RUNNER_PROJECT_ID", "123456", "projectId", "123456"),
        ("RUNNER_USER_AGENT", "true", "userAgent", "true"),
        ("RUNNER_REPORTER", "42", "reporter", "42"),
        ("RUNNER_USER_AGENT", "null", "userAgent", None),
        ("RUNNER_BASE_URL", "null", "baseUrl", None),
        ("RUNNER_TEST_FILES", "[a.py,b.py]", "testFiles", ["a.py", "b.py"]),
        ("RUNNER_SUPPORT_FILE", "false", "supportFile", False),
        ("RUNNER_SCROLL_BEHAVIOR", "false", "scrollBehavior", False),
        ("RUNNER_FIXTURES_FOLDER", "false", "fixturesFolder", False),
    ],
)
def test_environment_variables_set_options(
    load: Callable[..., Config], variable: str, value: str, key: str, expected: object
) -> None:
    config = load({key: defaults()[key]}, environ={variable: value})
    assert config[key] == expected
    assert config.sources[key] == "env"
    assert config.source_detail(key) == f"environment variable {variable}"
    assert config.env == {}


@pytest.mark.parametrize(
    ("variable", "value", "name", "expected"),
    [
        ("RUNNER_foo_bar", "x", "foo_bar", "x"),
        ("RUNNER_API_URL", "http://api", "API_URL", "http://api"),
        ("runner_Mixed_Case", "1", "Mixed_Case", 1),
        ("RUNNER_FLAGS", "[a, b]", "FLAGS", ["a", "b"]),
        ("RUNNER_OBJ", '{"k": [1]}', "OBJ", {"k": [1]}),
        ("RUNNER_VIEWPORTWIDTH", "5", "VIEWPORTWIDTH", 5),
        ("RUNNER_E2E", "yes", "E2E", "yes"),
    ],
)
def test_other_variables_go_into_env(
    load: Callable[..., Config], variable: str, value: str, name: str, expected: object
) -> None:
    config = load(environ={variable: value})
    assert config.env == {name: expected}
    assert config.env_sources == {name: "env"}
    assert config.env_source_detail(name) == f"environment variable {variable}"


def test_ignored_variables(load: Callable[..., Config]) -> None:
    config = load(
        environ={
            "RUNNER_VIEWPORT_WIDTH": "",
            "RUNNER_": "x",
            "RUNNER_INTERNAL_DEBUG": "1",
            "RUNNERX": "1",
            "PATH": "/bin",
            "MY_RUNNER_X": "1",
        }
    )
    assert config.env == {}
    assert set(config.sources.values()) == {"default"}


def test_runner_env_replaces_env(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "runner.env.json", {"fromFile": 1})
    config = load(
        {"env": {"a": 1}},
        environ={"RUNNER_env": '{"b": 2}', "RUNNER_c": "3"},
    )
    assert config.env == {"b": 2, "c": 3}
    assert config.env_source_detail("b") == "environment variable RUNNER_env"
    assert config.sources["env"] == "env"


@pytest.mark.parametrize("value", ["[1]", "a=1", "5"])
def test_runner_env_must_be_a_json_object(load: Callable[..., Config], value: str) -> None:
    with pytest.raises(
        ConfigError, match=r"environment variable RUNNER_ENV: expected a JSON object"
    ):
        load(environ={"RUNNER_ENV": value})


def test_exact_variable_name_wins_over_snake_form(load: Callable[..., Config]) -> None:
    config = load(environ={"RUNNER_viewportWidth": "1", "RUNNER_VIEWPORT_WIDTH": "2"})
    assert config.viewport_width == 1


def test_environment_beats_the_block(load: Callable[..., Config]) -> None:
    config = load({"e2e": {"viewportWidth": 5}}, environ={"RUNNER_VIEWPORT_WIDTH": "7"})
    assert config.viewport_width == 7


def test_bad_environment_value_names_the_variable(load: Callable[..., Config]) -> None:
    with pytest.raises(ConfigError) as caught:
        load(environ={"RUNNER_VIEWPORT_WIDTH": "wide"})
    message = str(caught.value)
    assert message.startswith(
        "An invalid configuration value was set from the environment variable "
        "RUNNER_VIEWPORT_WIDTH (1 problem):\n"
    )
    assert caught.value.problems == [
        'Expected `viewportWidth` to be a number of pixels from 0 to 16384. Instead the value was: `"wide"`'
    ]


def test_bad_values_from_several_sources(load: Callable[..., Config]) -> None:
    with pytest.raises(ConfigError) as caught:
        load(environ={"RUNNER_PORT": "0"}, cli_config="video=maybe,baseURL=http://x")
    message = str(caught.value)
    assert message.startswith("An invalid configuration value was set (3 problems):")
    assert "(set from the environment variable RUNNER_PORT)" in message
    assert message.count("(set from --config)") == 2
    assert "Did you mean `baseUrl`?" in message


def test_cli_config_beats_everything_including_the_block(
    load: Callable[..., Config], project: Path
) -> None:
    config = load(
        {"viewportWidth": 1, "e2e": {"viewportWidth": 2}},
        environ={"RUNNER_VIEWPORT_WIDTH": "3"},
        cli_config="viewportWidth=4",
    )
    assert config.viewport_width == 4
    assert config.sources["viewportWidth"] == "cli"
    assert config.source_detail("viewportWidth") == "--config"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("projectId=123456", {"projectId": "123456"}),
        ("port=8080,video=false", {"port": 8080, "video": False}),
        ("reporter=123,userAgent=false", {"reporter": "123", "userAgent": "false"}),
        ("fixturesFolder=false", {"fixturesFolder": False}),
    ],
)
def test_cli_config_values_follow_the_option_type(
    load: Callable[..., Config], text: str, expected: dict[str, object]
) -> None:
    config = load(cli_config=text)
    for key, value in expected.items():
        assert config[key] == value
        assert type(config[key]) is type(value)


def test_cli_env_values_are_always_coerced(load: Callable[..., Config]) -> None:
    assert load(cli_env="projectId=123456").env == {"projectId": 123456}


def test_cli_config_as_a_mapping(load: Callable[..., Config]) -> None:
    config = load(cli_config={"viewportWidth": 4, "env": {"x": 1}})
    assert config.viewport_width == 4
    assert config.env == {"x": 1}
    assert config.env_source_detail("x") == "--config"


def test_cli_env(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "runner.env.json", {"a": "file", "b": "file"})
    config = load(
        {"env": {"a": 0}},
        environ={"RUNNER_a": "var", "RUNNER_c": "var"},
        cli_env="a=cli,d=[x,y]",
    )
    assert config.env == {"a": "cli", "b": "file", "c": "var", "d": ["x", "y"]}
    assert config.env_sources == {"a": "cli", "b": "envFile", "c": "env", "d": "cli"}
    assert config.env_source_detail("a") == "--env"
    assert load(cli_env={"k": [1]}).env["k"] == [1]


def test_cli_parse_error_is_a_config_error(load: Callable[..., Config]) -> None:
    with pytest.raises(ConfigError, match=r"Could not parse the value of --env: `a=1,b`"):
        load(cli_env="a=1,b")


def test_blocks_cannot_be_set_from_the_cli(load: Callable[..., Config]) -> None:
    with pytest.raises(ConfigError, match=r"Unknown property `e2e`: only runner.json has"):
        load(cli_config={"e2e": {"viewportWidth": 1}})


def test_invalid_env_from_cli_config(load: Callable[..., Config]) -> None:
    with pytest.raises(ConfigError, match=r"Expected `env` to be a plain object"):
        load(cli_config="env=5", cli_env="a=1")


def test_file_is_checked_before_the_other_layers(
    load: Callable[..., Config], project: Path
) -> None:
    with pytest.raises(ConfigError) as caught:
        load({"video": 1}, environ={"RUNNER_VIEWPORT_WIDTH": "x"})
    assert str(caught.value).startswith(f"Your configuration file {project / 'runner.json'}")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://localhost:3000//", "http://localhost:3000/"),
        ("http://localhost:3000/app///", "http://localhost:3000/app/"),
        ("http://localhost:3000/", "http://localhost:3000/"),
        ("http://localhost:3000", "http://localhost:3000"),
    ],
)
def test_trailing_slashes_of_base_url_collapse(
    load: Callable[..., Config], url: str, expected: str
) -> None:
    assert load({"baseUrl": url}).base_url == expected
    assert load(environ={"RUNNER_BASE_URL": url}).base_url == expected


def test_precedence_example_of_the_docs(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    write_json(project / "runner.env.json", {"token": "s3cret"})
    config = load(
        {
            "viewportWidth": 800,
            "env": {"apiUrl": "http://localhost:8080", "user": "ada"},
            "e2e": {"viewportWidth": 1200, "env": {"user": "grace"}},
        },
        environ={"RUNNER_VIEWPORT_WIDTH": "1000"},
        cli_config="viewportWidth=1400",
        cli_env="user=linus",
    )
    assert config.viewport_width == 1400
    assert config.env == {"apiUrl": "http://localhost:8080", "user": "linus", "token": "s3cret"}
    assert config.env_source_detail("apiUrl") == "runner.json"
    assert config.env_source_detail("user") == "--env"
    assert config.env_source_detail("token") == "runner.env.json"


# -- which file ------------------------------------------------------------------------------


@pytest.mark.parametrize("choice", [False, "false"])
def test_config_file_false_runs_on_defaults(
    write_json: Callable[[Path, Any], Path],
    load: Callable[..., Config],
    project: Path,
    choice: object,
) -> None:
    write_json(project / "runner.json", {"viewportWidth": 1})
    config = load(config_file=choice)
    assert config.viewport_width == 1000
    assert config.config_file is None
    assert config.project_root == project.resolve()


def test_explicit_config_file(
    write_json: Callable[[Path, Any], Path], load: Callable[..., Config], project: Path
) -> None:
    path = write_json(project / "other.json", {"viewportWidth": 9})
    assert load(config_file=path).viewport_width == 9
    assert load(config_file="other.json").config_file == path.resolve()


def test_missing_config_file(load: Callable[..., Config], project: Path) -> None:
    with pytest.raises(ConfigError, match=r"The configuration file .*nope\.json does not exist"):
        load(config_file="nope.json")


def test_config_file_that_is_a_folder(load: Callable[..., Config], project: Path) -> None:
    (project / "dir.json").mkdir()
    with pytest.raises(ConfigError, match="is a folder, not a file"):
        load(config_file="dir.json")


def test_unknown_testing_type(load: Callable[..., Config]) -> None:
    with pytest.raises(UsageError, match="Unknown testing type 'unit'"):
        load(testing_type="unit")


# -- nodeVersion -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "kwargs", "where"),
    [
        ({"nodeVersion": "bundled"}, {}, "runner.json"),
        ({"nodeVersion": "system"}, {}, "runner.json"),
        ({"e2e": {"nodeVersion": "system"}}, {}, "runner.json e2e block"),
        ({"component": {"nodeVersion": "system"}}, {}, "runner.json component block"),
        ({}, {"environ": {"RUNNER_NODE_VERSION": "bundled"}}, "environment variable RUNNER_NODE_VERSION"),
        ({}, {"cli_config": "nodeVersion=system"}, "--config"),
    ],
)  # fmt: skip
def test_node_version_is_deprecated(
    load: Callable[..., Config], doc: dict[str, object], kwargs: dict[str, object], where: str
) -> None:
    config = load(doc, **kwargs)
    (warning,) = config.warnings
    assert "`nodeVersion`" in warning and "deprecated" in warning and where in warning


def test_no_warning_without_node_version(load: Callable[..., Config]) -> None:
    assert load({"video": False}).warnings == []


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ({"experimentalFetchPolyfill": True}, "intercepts the page's fetch() natively"),
        ({"projectId": "abc123"}, "no hosted dashboard"),
    ],
)
def test_options_runner_cannot_honour_say_so_in_one_line(
    load: Callable[..., Config], doc: dict[str, object], says: str
) -> None:
    (notice,) = load(doc).warnings
    assert says in notice and "runner.json" in notice and "\n" not in notice


def test_no_notice_for_the_values_that_mean_nothing_anyway(load: Callable[..., Config]) -> None:
    assert load({"experimentalFetchPolyfill": False, "projectId": None}).warnings == []


def test_a_plugins_file_setting_project_id_gets_the_notice_too(load: Callable[..., Config]) -> None:
    merged = load({}).merged({"projectId": "abc123"}, source="plugin", origin="the plugins file p.py")
    assert any("no hosted dashboard" in w and "p.py" in w for w in merged.warnings)


def test_repeated_cli_flags_merge_in_order(load: Callable[..., Config]) -> None:
    config = load(
        {"viewportWidth": 1, "env": {"kept": "file"}},
        cli_config=["reporter=junit,viewportWidth=2", 'reporterOptions={"mochaFile":"x.xml"}',
                    "viewportWidth=3", {"port": 8123}],
        cli_env=["a=1,b=1", '{"b": 2}'],
    )
    assert config.reporter == "junit"  # from the first flag, kept by the later ones
    assert config.reporter_options == {"mochaFile": "x.xml"}
    assert config.viewport_width == 3  # a later flag wins per key
    assert config.port == 8123
    assert config.env == {"kept": "file", "a": 1, "b": 2}
    assert config.sources["reporter"] == "cli" and config.sources["reporterOptions"] == "cli"


def test_a_leading_tilde_in_a_path_option_is_the_home_folder(
    load: Callable[..., Config], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    config = load({"screenshotsFolder": "~", "videosFolder": "~/videos/../clips",
                   "fixturesFolder": "a/~b", "downloadsFolder": "~not-a-user-here-xyz/d"})
    assert config.path("screenshotsFolder") == home
    assert config.path("videosFolder") == home / "clips"
    assert config.path("fixturesFolder") == project.resolve() / "a/~b"  # only a leading ~
    # an unknown ~user stays as written (as in a shell): relative to the project
    assert config.path("downloadsFolder") == project.resolve() / "~not-a-user-here-xyz/d"
    assert config["screenshotsFolder"] == "~"  # the value itself is kept as written


def test_config_file_with_a_leading_tilde(
    write_json: Callable[[Path, Any], Path], project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home2"
    monkeypatch.setenv("HOME", str(home))
    write_json(home / "conf" / "r.json", {"viewportWidth": 7})
    config = load_config(project, config_file="~/conf/r.json", environ={})
    assert config.viewport_width == 7 and config.project_root == home / "conf"


def test_client_certificate_paths_expand_a_leading_tilde(
    load: Callable[..., Config], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runner.run.network import client_certificate_entries

    home = tmp_path / "home3"
    (home / "certs").mkdir(parents=True)
    for name in ("c.pem", "k.pem"):
        (home / "certs" / name).write_text("not checked here")
    (home / "certs" / "pass.txt").write_text("s3cret\n")
    monkeypatch.setenv("HOME", str(home))
    config = load({"clientCertificates": [{"url": "https://api.test/*", "ca": ["~/certs/ca.pem"], "certs": [
        {"cert": "~/certs/c.pem", "key": "~/certs/k.pem", "passphrase": "~/certs/pass.txt"}]}]})
    [entry] = client_certificate_entries(config)
    assert entry["certs"] == [{"cert": home / "certs/c.pem", "key": home / "certs/k.pem",
                               "passphrase": home / "certs/pass.txt"}]
    assert entry["ca"] == [home / "certs/ca.pem"]


@pytest.mark.parametrize(
    "text",
    ['{"apiToken": "tok-Zq81xW9-secret",\n "password": "S3cret!pw" oops}', '["tok-Zq81xW9-secret"]'],
)
def test_a_bad_env_file_is_told_without_quoting_its_secrets(
    load: Callable[..., Config], project: Path, text: str
) -> None:
    (project / "runner.env.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load()
    message = str(caught.value)
    assert "environment file" in message
    assert "tok-Zq81xW9" not in message and "S3cret" not in message, message
    if text.startswith("{"):
        assert "at line 2, column" in message and "not shown: this file holds secrets" in message
