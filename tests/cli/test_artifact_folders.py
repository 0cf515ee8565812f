"""Artifact folders that cannot be used cost their artifacts, never the run; repeated --config and
--env flags merge in order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import run_runner

PAGE = "<html><body><h1>Hi</h1></body></html>"


def test_unusable_artifact_folders_are_warned_about_and_the_run_goes_on(project):
    root = project({
        "runner.json": json.dumps({
            "fileServerFolder": "site", "screenshotsFolder": "afile", "videosFolder": "afile/v",
            "downloadsFolder": "afile/d",  # trashAssetsBeforeRuns stays true: nothing to trash
        }),
        "afile": "a file, not a folder",
        "site/index.html": PAGE,
        "runner/integration/a_spec.py": """
            def test_passes(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Hi")

            def test_fails(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Bye", timeout=200)
        """,
        "runner/integration/shot_spec.py": """
            def test_takes_a_screenshot(runner):
                runner.visit("/")
                runner.screenshot("page")
        """,
    })
    result = run_runner("run", cwd=root, env={"XDG_DATA_HOME": str(root / "xdg")})
    assert result.code == 2, result.text  # the number of failed tests
    where = str(root / "afile")
    warnings = [line for line in result.err.splitlines() if line.startswith("runner: warning:")]
    assert warnings == [
        f"runner: warning: screenshotsFolder 'afile' cannot be used: {where!r} is a file, not a folder; "
        "failure screenshots will not be saved and runner.screenshot() will fail.",
        f"runner: warning: videosFolder 'afile/v' cannot be used: {where!r} is a file, not a folder; "
        "videos will not be recorded.",
        f"runner: warning: downloadsFolder 'afile/d' cannot be used: {where!r} is a file, not a folder; "
        "files downloaded during tests will not be saved.",
    ], result.err
    assert "Traceback" not in result.err and "NotADirectoryError" not in result.text
    assert "CommandError: The screenshot 'page.png' could not be saved: screenshotsFolder " \
           f"{where!r} cannot be used: {where!r} is a file, not a folder." in result.out
    assert "1 passing" in result.out
    assert (root / "afile").read_text() == "a file, not a folder"


def test_repeated_config_and_env_flags_merge_in_order(project):
    root = project({"runner.json": '{"env": {"kept": "file"}}'})
    result = run_runner("config", "--json", "--config", "reporter=junit,viewportWidth=2",
                        "--config", 'reporterOptions={"mochaFile":"x.xml"}', "-c", "viewportWidth=3",
                        "--env", "a=1,b=1", "-e", "b=2", cwd=root)
    assert result.code == 0, result.text
    values = json.loads(result.out)
    assert values["reporter"] == "junit"
    assert values["reporterOptions"] == {"mochaFile": "x.xml"}
    assert values["viewportWidth"] == 3
    assert values["env"] == {"kept": "file", "a": 1, "b": 2}


def test_repeated_runner_config_options_of_plain_pytest_merge_in_order(tmp_path: Path):
    (tmp_path / "runner/integration").mkdir(parents=True)
    (tmp_path / "runner.json").write_text("{}")
    (tmp_path / "runner/integration/test_config.py").write_text(
        "from runner import Runner\n\n"
        "def test_config():\n"
        "    assert Runner.config('viewportWidth') == 2\n"
        "    assert Runner.config('viewportHeight') == 3\n"
        "    assert Runner.env() == {'a': 1, 'b': 2}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "runner/integration",
         "--runner-config", "viewportWidth=1,viewportHeight=3", "--runner-config", "viewportWidth=2",
         "--runner-env", "a=1,b=1", "--runner-env", "b=2"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr


def test_plain_pytest_shows_the_warnings_in_its_header(tmp_path: Path):
    (tmp_path / "runner/integration").mkdir(parents=True)
    (tmp_path / "afile").write_text("mine")
    (tmp_path / "runner.json").write_text('{"screenshotsFolder": "afile", "nodeVersion": "bundled"}')
    (tmp_path / "runner/integration/test_nothing.py").write_text("def test_nothing():\n    pass\n")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "runner/integration"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    header = done.stdout[:done.stdout.index("collected")]
    assert "runner: warning: screenshotsFolder 'afile' cannot be used" in header, done.stdout
    assert "runner: warning: The `nodeVersion` configuration option (set in runner.json) is deprecated" in header
