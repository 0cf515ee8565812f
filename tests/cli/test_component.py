"""Component testing: `runner run --component` runs componentFolder's specs with the component
block, `runner run` never does, and the plugins file's dev server lives as long as the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import base_project, run_runner, write_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "components"


def copy_example(tmp_path: Path) -> Path:
    root = tmp_path / "components"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("screenshots", "videos", "traces", "report",
                                                                  "results", "downloads", "__pycache__"))
    (root / "runner.json").write_text((root / "runner.json").read_text().replace(
        '"../../src/runner/runner.schema.json"', '"https://example.invalid/schema.json"'))
    return root


def test_the_component_example_runs_only_its_component_specs(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    result = run_runner("run", "--component", cwd=root)
    assert result.code == 0, result.text
    assert "card_spec.py" in result.out and "counter_spec.py" in result.out
    assert "home_spec.py" not in result.out
    totals = result.out.split("All specs passed!")[1].splitlines()[0].split()
    assert totals[:2] == ["5", "5"]  # tests, passing


def test_component_specs_over_workers_and_under_plain_pytest_get_the_component_block(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    result = run_runner("run", "--component", "--workers", "2", cwd=root)
    assert result.code == 0, result.text  # test_the_component_block_applies among them
    assert "All specs passed!" in result.out and "home_spec.py" not in result.out
    pytest_bin = str(Path(sys.executable).with_name("pytest"))
    done = subprocess.run([pytest_bin, "-q", "-p", "no:cacheprovider", "--runner-component",
                           "-o", "python_files=*_spec.py", "runner/component"],
                          cwd=root, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if not k.startswith("RUNNER_")})
    assert done.returncode == 0 and "5 passed" in done.stdout, done.stdout + done.stderr


def test_an_e2e_run_never_runs_component_specs(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "home_spec.py" in result.out and "card_spec.py" not in result.out and "counter_spec.py" not in result.out


DEV_PLUGINS = """
from pathlib import Path

LOG = Path(__file__).parent / "dev-server.log"


def setup(on, config):
    def start(options):
        before = LOG.read_text() if LOG.exists() else ""
        LOG.write_text(before + "started " + options["testingType"] + "\\n")
        return {"url": "http://127.0.0.1:9", "close": lambda: LOG.write_text(LOG.read_text() + "closed\\n")}
    on("dev-server:start", start)
"""


def test_the_dev_server_starts_on_the_first_mount_once_and_closes_with_the_run(tmp_path: Path) -> None:
    spec = """
        def test_one(runner):
            runner.mount("<p>one</p>").should("contain", "one")

        def test_two(runner):
            runner.mount("<p>two</p>").should("contain", "two")
        """
    root = write_project(tmp_path, base_project({"plugins.py": DEV_PLUGINS, "comp/a_spec.py": spec,
                                                 "runner/integration/e2e_spec.py": spec},
                                                {"componentFolder": "comp", "pluginsFile": "plugins.py",
                                                 "video": False}))
    assert run_runner("run", cwd=root).code == 0
    assert not (root / "dev-server.log").exists()  # only a component run starts it; e2e mounts use the file server
    result = run_runner("run", "--component", cwd=root)
    assert result.code == 0, result.text
    assert (root / "dev-server.log").read_text() == "started component\nclosed\n"


def test_component_testing_off_is_one_clear_message(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project())
    result = run_runner("run", "--component", cwd=root)
    assert result.code == 1
    assert "componentFolder is false" in result.err and "Traceback" not in result.text


def test_a_dev_server_handler_returning_nonsense_fails_the_mount_clearly(tmp_path: Path) -> None:
    plugins = """
        def setup(on, config):
            on("dev-server:start", lambda options: 5173)
        """
    spec = """
        def test_mount(runner):
            runner.mount("<p>x</p>")
        """
    root = write_project(tmp_path, base_project({"plugins.py": plugins, "comp/a_spec.py": spec},
                                                {"componentFolder": "comp", "pluginsFile": "plugins.py",
                                                 "video": False}))
    result = run_runner("run", "--component", cwd=root)
    assert result.code == 1
    assert "The 'dev-server:start' handler" in result.out and "returned 5173" in result.out
    assert "Expected the dev server's URL" in result.out


def test_docs_show_the_example_files_exactly() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "component.md").read_text(encoding="utf-8")
    for rel in ("runner.json", "templates/card.html.j2", "app/card.css", "app/counter.js",
                "runner/plugins/index.py", "runner/component/card_spec.py",
                "runner/component/counter_spec.py", "runner/integration/home_spec.py"):
        text = (EXAMPLE / rel).read_text(encoding="utf-8").rstrip()
        assert f"`examples/components/{rel}`:\n\n```" in doc and text in doc, rel


ISOLATION_SPEC = '''
def test_a_component_leaves_storage_behind(runner):
    runner.mount("<p id='p'>one</p>")
    runner.set_local_storage("left", "behind")
    assert runner.get_local_storage("left") == "behind"


def test_the_next_component_starts_clean(runner):
    runner.mount("<p id='p'>two</p>")
    assert runner.get_local_storage("left") is None
'''


def test_component_tests_always_start_clean_and_the_component_block_refuses_test_isolation_off(
        tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    config = (root / "runner.json").read_text()
    (root / "runner.json").write_text(config.replace('"video": false,', '"video": false,\n  "testIsolation": false,'))
    spec = root / "runner" / "component" / "isolation_spec.py"
    spec.write_text(ISOLATION_SPEC)
    result = run_runner("run", "--component", "--spec", str(spec), cwd=root)
    assert result.code == 0, result.text  # a top-level false is for e2e tests only
    (root / "runner.json").write_text(config.replace('"viewportWidth": 480,',
                                                     '"viewportWidth": 480,\n    "testIsolation": false,'))
    refused = run_runner("run", "--component", "--spec", str(spec), cwd=root)
    assert refused.code != 0
    assert "Expected `component.testIsolation` to be true" in refused.text, refused.text
