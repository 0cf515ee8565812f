"""The real ``runner init``: a new project whose example passes under the real ``runner run``; a
second init changes nothing; an existing runner.json decides where files go; what cannot be
written is one message."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner

from runner.scaffold import plan_scaffold

FILES = ["runner.json", "runner/runner.schema.json", "runner/integration/example_spec.py",
         "runner/fixtures/example.json", "runner/support/index.py", "runner/support/commands.py",
         "runner/plugins/index.py",
         "runner/app/runner-example.html"]


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_a_new_project_passes_and_a_second_init_changes_nothing(tmp_path: Path) -> None:
    done = run_runner("init", cwd=tmp_path)
    assert done.code == 0, done.text
    assert [line.split()[-1] for line in done.out.splitlines() if "created" in line] == FILES
    assert "Next: runner run" in done.out
    config = json.loads((tmp_path / "runner.json").read_text())
    assert config["$schema"] == "runner/runner.schema.json"
    assert json.loads((tmp_path / "runner" / "runner.schema.json").read_text())["properties"]
    assert run_runner("config", cwd=tmp_path).code == 0
    before = _files(tmp_path)
    again = run_runner("init", cwd=tmp_path)
    assert again.code == 0 and "Nothing was written" in again.out
    assert [line.split()[1] for line in again.out.splitlines() if "kept" in line] == FILES
    assert _files(tmp_path) == before
    # the example page is one a new user may check first: axe's default rules find nothing on it
    (tmp_path / "runner/integration/a11y_spec.py").write_text(
        "def test_the_example_page_is_accessible(runner):\n"
        "    runner.visit('/runner-example.html')\n"
        "    assert runner.check_a11y() == []\n")
    ran = run_runner("run", "--config", "video=false", cwd=tmp_path)
    assert ran.code == 0, ran.text
    assert "All specs passed" in ran.out and "a11y_spec.py" in ran.out, ran.out


def test_an_existing_runner_json_decides_where_the_files_go(tmp_path: Path) -> None:
    (tmp_path / "runner.json").write_text(json.dumps({
        "integrationFolder": "e2e/specs", "fixturesFolder": "e2e/data", "supportFile": "e2e/support.py",
        "pluginsFile": False, "fileServerFolder": "public"}))
    (tmp_path / "e2e" / "specs").mkdir(parents=True)
    (tmp_path / "e2e" / "specs" / "example_spec.py").write_text("# mine\n")
    done = run_runner("init", cwd=tmp_path)
    assert done.code == 0, done.text
    assert (tmp_path / "e2e" / "specs" / "example_spec.py").read_text() == "# mine\n"
    assert "kept     e2e/specs/example_spec.py" in done.out and "kept     runner.json" in done.out
    for made in ("e2e/data/example.json", "e2e/support.py", "public/runner-example.html"):
        assert (tmp_path / made).is_file(), made
    assert not (tmp_path / "runner" / "plugins").exists()  # pluginsFile: false


def test_what_cannot_be_written_is_one_message(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root writes anywhere: a file where a folder must go stops it instead
        (tmp_path / "runner").write_text("a file, not a folder")
    else:
        tmp_path.chmod(0o555)
    try:
        done = run_runner("init", cwd=tmp_path)
    finally:
        tmp_path.chmod(0o755)
    assert done.code == 1 and "runner init could not write" in done.err and "Traceback" not in done.text
    missing = run_runner("init", "--project", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.code == 1 and "is not a folder" in missing.err


def test_an_invalid_runner_json_is_kept_and_said(tmp_path: Path) -> None:
    (tmp_path / "runner.json").write_text('{"viewportWidth": "wide"}')
    done = run_runner("init", cwd=tmp_path)
    assert done.code == 1 and "not valid" in done.err and "viewportWidth" in done.err
    assert (tmp_path / "runner.json").read_text() == '{"viewportWidth": "wide"}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runner.json"]


def test_the_plan_of_an_empty_folder(tmp_path: Path) -> None:
    plan = plan_scaffold(tmp_path)
    assert sorted(p.relative_to(tmp_path.resolve()).as_posix() for p in plan.writes) == sorted(FILES)
    assert plan.kept == [] and plan.notes == []
    (tmp_path / "runner.json").write_text('{"baseUrl": "http://127.0.0.1:9"}')
    assert any("baseUrl is set" in note for note in plan_scaffold(tmp_path).notes)


def test_the_support_file_says_how_to_add_a_custom_command(tmp_path: Path) -> None:
    # `runner.add_command` beside `runner.type_name(...)` read as a method of the fixture, which
    # has none: the scaffold names the import the docs and commands.py use
    from runner.scaffold import scaffold

    scaffold(tmp_path)
    text = (tmp_path / "runner" / "support" / "index.py").read_text()
    assert "`runner.add_command`" not in text
    assert "`from runner import add_command`" in text
