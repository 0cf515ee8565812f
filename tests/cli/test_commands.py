"""``runner --version``, ``schema``, ``config`` and argument errors: the real command."""

from __future__ import annotations

import json

from jsonschema import Draft4Validator
from tests.cli.conftest import run_runner


def test_version_and_help(tmp_path):
    assert run_runner("--version", cwd=tmp_path).out.startswith("runner ")
    result = run_runner(cwd=tmp_path)
    assert result.code == 1 and "run" in result.out and "config" in result.out


def test_unknown_command_suggests_the_right_one(tmp_path):
    result = run_runner("rn", cwd=tmp_path)
    assert result.code == 1
    assert "Did you mean 'run'?" in result.err and "Try 'runner --help'" in result.err
    assert "Traceback" not in result.text


def test_schema_prints_a_draft4_schema(tmp_path):
    result = run_runner("schema", cwd=tmp_path)
    assert result.code == 0
    schema = json.loads(result.out)
    Draft4Validator.check_schema(schema)
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert "baseUrl" in schema["properties"]


def test_config_prints_values_with_sources(project):
    root = project({"runner.json": '{"baseUrl": "http://localhost:3000", "e2e": {"viewportWidth": 800}}',
                    "runner.env.json": '{"apiKey": "k"}'})
    result = run_runner("config", "--config", "defaultCommandTimeout=9000", cwd=root,
                        env={"RUNNER_VIEWPORT_HEIGHT": "500", "RUNNER_token": "t"})
    assert result.code == 0, result.text
    lines = {line.split()[0]: line for line in result.out.splitlines() if line.strip()}
    assert "http://localhost:3000" in lines["baseUrl"]
    assert "9000" in lines["defaultCommandTimeout"]
    assert "500" in lines["viewportHeight"] and "RUNNER_VIEWPORT_HEIGHT" in lines["viewportHeight"]
    assert "800" in lines["viewportWidth"]
    assert "apiKey" in result.out and "token" in result.out


def test_config_json_output(project):
    root = project({"runner.json": '{"retries": 2}'})
    result = run_runner("config", "--json", cwd=root)
    assert json.loads(result.out)["retries"] == 2


def test_config_shows_what_the_plugins_file_returns(project):
    root = project({
        "runner.json": '{"pluginsFile": "plugins.py"}',
        "plugins.py": """
            def setup(on, config):
                return {"defaultCommandTimeout": config["defaultCommandTimeout"] + 1000}
            """,
    })
    result = run_runner("config", "--json", cwd=root)
    assert result.code == 0, result.text
    assert json.loads(result.out)["defaultCommandTimeout"] == 5000  # not the 4000 a run would not use
    table = run_runner("config", cwd=root)
    line = next(x for x in table.out.splitlines() if x.strip().startswith("defaultCommandTimeout"))
    assert "5000" in line and "plugin" in line


def test_a_broken_plugins_file_is_one_clear_message_in_config(project):
    root = project({"runner.json": '{"pluginsFile": "plugins.py"}', "plugins.py": "def setup(on, config):\n    1/0\n"})
    result = run_runner("config", cwd=root)
    assert result.code == 1 and "plugins.py" in result.err and "ZeroDivisionError" in result.err


def test_invalid_config_is_one_clear_message_without_traceback(project):
    root = project({"runner.json": '{"baseURL": "http://x", "e2e": {"viewportWidth": "wide"}}'})
    result = run_runner("config", cwd=root)
    assert result.code == 1
    assert "baseUrl" in result.err and "e2e.viewportWidth" in result.err and "runner.json" in result.err
    assert "Traceback" not in result.text


def test_invalid_json_reports_line_and_column(project):
    root = project({"runner.json": '{\n  "baseUrl": "http://x",\n}\n'})
    result = run_runner("run", cwd=root)
    assert result.code == 1
    assert "line 3" in result.err and "column" in result.err
    assert "Traceback" not in result.text


def test_bad_cli_values_are_reported(project):
    root = project({"runner.json": "{}"})
    result = run_runner("config", "--config", "viewportWidth=wide", cwd=root)
    assert result.code == 1 and "viewportWidth" in result.err and "--config" in result.err
