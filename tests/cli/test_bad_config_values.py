"""Bad configuration values through the real ``runner`` command: ``runner config`` and
``runner run`` both stop with the configuration error (exit status 1, one message naming the
option), never a traceback, and ``runner run`` launches nothing."""

from __future__ import annotations

import pytest
from tests.cli.conftest import base_project, run_runner

SPEC = {"runner/integration/a_spec.py": "def test_a(runner):\n    runner.visit('/')\n"}

# (runner.json text, what the message says)
BAD = [
    ('{"fileServerFolder": "site", "viewportWidth": NaN}',
     "Expected `viewportWidth` to be a finite number (JSON has no NaN or Infinity)"),
    ('{"fileServerFolder": "site", "viewportWidth": 1e29}', "Expected `viewportWidth` to be a number of pixels from 0 to 16384"),
    ('{"fileServerFolder": "site", "viewportHeight": ' + "9" * 40 + "}", "Expected `viewportHeight` to be a number of pixels"),
    ('{"fileServerFolder": "site", "pageLoadTimeout": 3e9}', "Expected `pageLoadTimeout` to be a number of milliseconds from 0 to 2147483647"),
    ('{"fileServerFolder": "site\\u0000"}', "Expected `fileServerFolder` to be a path without NUL characters"),
    ('{"fileServerFolder": "site", "screenshotsFolder": "' + "s" * 300 + '"}', "Expected `screenshotsFolder` to be a path whose names are at most"),
    ('{"fileServerFolder": "site", "testFiles": "' + "{a,b}" * 40 + '"}', "`testFiles` expands to more than 1,000 patterns"),
    ('{"fileServerFolder": "site", "env": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}", "cannot be used: it is nested more than 100 levels deep"),
    ('{"fileServerFolder": "site", "viewportWidth": ' + "9" * 5_000 + "}", "cannot be used: it holds a number of more than 4,300 digits"),
]


@pytest.mark.parametrize("command", ["config", "run"])
@pytest.mark.parametrize(("text", "message"), BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_a_bad_value_is_the_configuration_error_not_a_traceback(project, text: str, message: str,
                                                                 command: str) -> None:
    files = base_project(SPEC)
    files["runner.json"] = text
    root = project(files)
    result = run_runner(command, cwd=root, timeout=60)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert result.err.startswith(f"runner: Your configuration file {root / 'runner.json'} "), result.err
    assert message in result.err
    assert result.out == ""  # nothing ran, nothing was reported


@pytest.mark.parametrize("command", ["config", "run"])
def test_bad_values_from_the_command_line_too(project, command: str) -> None:
    root = project(base_project(SPEC))
    result = run_runner(command, "--config", '{"viewportWidth": NaN, "fileServerFolder": "a\\u0000"}', cwd=root,
                        timeout=60)
    assert result.code == 1 and "Traceback" not in result.text
    assert result.err.startswith("runner: An invalid configuration value was set from --config (2 problems):")
    assert "Expected `viewportWidth` to be a finite number" in result.err
    assert "Expected `fileServerFolder` to be a path without NUL characters" in result.err
    result = run_runner(command, cwd=root, env={"RUNNER_PAGE_LOAD_TIMEOUT": "1e29"}, timeout=60)
    assert result.code == 1 and "Traceback" not in result.text
    assert "RUNNER_PAGE_LOAD_TIMEOUT" in result.err and "Expected `pageLoadTimeout`" in result.err


def test_the_largest_timeouts_are_kept_not_turned_into_one_millisecond(project) -> None:
    """2147483647 ms is the longest timer Playwright keeps: a longer one fired at once."""
    limit = 2147483647
    root = project(base_project({
        "runner/integration/a_spec.py": """
            def test_waits(runner):
                runner.visit('/')
                runner.get('h1').should('have.text', 'Hi')
        """,
    }, config={"video": False, "pageLoadTimeout": limit, "defaultCommandTimeout": limit,
               "responseTimeout": limit, "requestTimeout": limit}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "1 passing" in result.out


@pytest.mark.parametrize("name", ["runner.json", "runner.env.json"])
@pytest.mark.parametrize("command", ["config", "run"])
def test_a_configuration_file_that_is_a_folder_stops_the_run(project, name: str, command: str) -> None:
    """A folder named runner.json used to read as "no file": the run went on defaults and exited 0."""
    files = base_project(SPEC)
    if name == "runner.json":
        del files["runner.json"]
    root = project(files)
    (root / name).mkdir()
    result = run_runner(command, cwd=root, timeout=60)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert f"{root / name} is a folder, not a file" in result.err
    assert result.out == "" and not (root / "runner" / "report").exists()  # nothing ran


@pytest.mark.parametrize("option", ["--config", "--env", "--reporter-options"])
@pytest.mark.parametrize(("text", "why"), [("viewportWidth=1,", "It ends with a comma"),
                                           ("viewportWidth=1,,viewportHeight=2", "Two commas have nothing between them")])
def test_an_empty_pair_on_the_command_line_is_refused(project, option: str, text: str, why: str) -> None:
    root = project(base_project(SPEC))
    result = run_runner("run", option, text, cwd=root, timeout=60)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert f"Could not parse the value of {option}: `{text}`. {why} (a pair is missing)." in result.err
    assert result.out == ""


def test_a_reporter_that_names_a_class_with_no_hooks_is_refused(project) -> None:
    root = project(base_project(SPEC))
    result = run_runner("run", "--reporter", "collections:OrderedDict", cwd=root, timeout=60)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert ("reporter 'collections:OrderedDict': collections.OrderedDict in the module collections is not a "
            "reporter: it has none of the hooks on_run_start") in result.err
    missing = run_runner("run", "--reporter", "reporting.nowhere:Mine", cwd=root, timeout=60)
    assert missing.code == 1 and "Traceback" not in missing.text
    assert "reporter 'reporting.nowhere:Mine' is not a built-in reporter and could not be imported" in missing.err


@pytest.mark.parametrize("command", ["config", "run", "show-report"])
def test_a_project_folder_that_is_not_there_is_told_not_run_on_defaults(tmp_path, command: str) -> None:
    # a typo in --project used to print the defaults (config) or look for specs under it (run)
    done = run_runner(command, "--project", str(tmp_path / "nope"), cwd=tmp_path)
    assert done.code == 1, done.text
    assert f"'{tmp_path / 'nope'}' does not exist" in done.err and "Traceback" not in done.text
    assert "Resolved configuration" not in done.out and "no specs" not in done.text
    (tmp_path / "a-file").write_text("")
    done = run_runner(command, "--project", str(tmp_path / "a-file"), cwd=tmp_path)
    assert done.code == 1 and "is not a folder" in done.err, done.text
