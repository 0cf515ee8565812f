"""The project's helpers (real runs): the support folder imported as the package ``support``, and
custom commands (``add_command``) told in the command log like built-in ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project

PAGE = ("<html><body><h1>Hi</h1><input id='name'><input id='password' type='password'>"
        "<p id='who'></p><button id='go' onclick=\"document.querySelector('#who').textContent = "
        "'signed in as ' + document.querySelector('#name').value\">Go</button></body></html>")

SUPPORT = '''
from runner import add_command

from support.login import login

add_command(login)
'''

LOGIN = '''
def login(runner, name, password):
    runner.visit("/")
    runner.get("#name").type(name)
    runner.get("#password").type(password)
    runner.get("#go").click()


def fill_name(runner, name):
    runner.get("#name").type(name)
'''

SPEC = '''
from support.login import fill_name
from support import index


def test_a_helper_function(runner):
    runner.visit("/")
    fill_name(runner, "{name}")
    runner.get("#name").should("have.value", "{name}")
    assert index.login.__module__ == "support.login"


def test_a_custom_command(runner):
    runner.login("{name}", "s3cret-pass", log=False)
    runner.get("#who").should("have.text", "signed in as {name}")
'''


def _project(root: Path, extra: dict[str, str] | None = None, names: tuple[str, ...] = ("a",)) -> Path:
    files = {"runner/support/index.py": SUPPORT, "runner/support/login.py": LOGIN}
    files.update({f"runner/integration/{n}_spec.py": SPEC.format(name=n) for n in names})
    files.update(extra or {})
    return write_project(root, base_project(files, {"trashAssetsBeforeRuns": False}, page=PAGE))


def _commands(root: Path, test: str) -> list[dict]:
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    return [e for e in events if e["kind"] == "command.started" and e["nodeid"].endswith(test)]


def test_specs_import_helpers_from_support_and_a_custom_command_is_a_line_with_its_commands_under_it(
        tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "2 passing" in result.out
    commands = _commands(root, "::test_a_custom_command")
    login = commands[0]
    assert (login["name"], login["args"], login["parent"]) == ("login", "[redacted], [redacted], log=False", None)
    assert login["file"].endswith("a_spec.py")
    inner = commands[1:5]
    assert [c["name"] for c in inner] == ["visit", "type", "type", "click"]
    assert {c["parent"] for c in inner} == {login["id"]}  # grouped under the custom command
    assert all(c["file"].endswith("runner/support/login.py") for c in inner)
    assert "s3cret-pass" not in (root / "runner/results/events.jsonl").read_text()  # learned as a secret
    assert commands[5]["name"] == "should" and commands[5]["parent"] is None


def test_a_module_beside_the_specs_is_importable_only_from_the_pythonpath(tmp_path: Path) -> None:
    """Specs are imported with pytest's importlib mode, which puts no folder on sys.path: a module
    beside them is found, statically or by importlib, only once its folder is in the pythonpath
    of the project's pytest configuration (docs/commands.md, Importing helpers)."""
    root = write_project(tmp_path, base_project({
        "runner/integration/pages.py": 'TITLE = "pages beside the specs"\n',
        "runner/integration/static_spec.py": """
            import pages

            def test_static(runner):
                assert pages.TITLE == "pages beside the specs"
        """,
        "runner/integration/dynamic_spec.py": """
            import importlib

            def test_dynamic(runner):
                assert importlib.import_module("pages").TITLE == "pages beside the specs"
        """,
    }, {"video": False}))
    result = run_runner("run", "-r", "list", cwd=root)
    assert result.code == 2, result.text
    assert result.out.count("No module named 'pages'") >= 2, result.out
    (root / "pytest.ini").write_text("[pytest]\npythonpath = runner/integration\n", encoding="utf-8")
    result = run_runner("run", "-r", "list", cwd=root)
    assert result.code == 0, result.text
    assert "2 passing" in result.out


def test_an_error_inside_a_custom_command_names_it(tmp_path: Path) -> None:
    spec = ('def test_x(runner):\n    runner.visit("/")\n'
            '    runner.login("ann", "pw", timeout=1)\n')
    root = _project(tmp_path, {"runner/support/login.py": LOGIN.replace(
        "def login(runner, name, password):", "def login(runner, name, password, timeout):").replace(
        'runner.get("#go")', 'runner.get("#missing", timeout=timeout)')}, names=())
    write_project(root, {"runner/integration/x_spec.py": spec})
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "(in the custom command runner.login('ann', 'pw', timeout=1), added at runner/support/login.py:1)" \
        in result.out, result.out
    assert "\n       login: 'ann', 'pw', timeout=1\n       visit: " in result.out  # its commands after it
    login = _commands(root, "::test_x")[1]
    ended = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()
             if '"command.ended"' in line and '"login"' in line]
    assert login["name"] == "login" and ended[0]["state"] == "failed"
    assert "#missing" in ended[0]["error"]
    # the trace: the custom command is a step, failed, holding its commands' steps
    with zipfile.ZipFile(root / "runner/traces/x_spec.py/test_x.zip") as archive:
        trace = [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]
    steps = [e for e in trace if e["type"] == "before" and e.get("method") == "tracingGroup"]
    outer = next(e for e in steps if e["title"] == "login('ann', 'pw', timeout=1)")
    assert [e["title"] for e in steps if e.get("parentId") is None][:2] == ["visit('/')", outer["title"]]
    assert [e["title"] for e in steps if e.get("parentId") == outer["callId"]] == [
        "visit('/')", "get('#name').type('ann')", "get('#password').type('pw')", "get('#missing').click()"], steps
    assert any(e["type"] == "after" and e["callId"] == outer["callId"] and e.get("error") for e in trace)


@pytest.mark.parametrize(("support", "expected"), [
    ('from runner import add_command\n\n@add_command\ndef visit(runner):\n    pass\n',
     "add_command('visit'): 'visit' is a built-in command of runner, which custom commands cannot replace"),
    ('from runner import add_command\n\nadd_command("log in", print)\n',
     "add_command() needs a Python name that does not start with '_'"),
    ('from runner import add_command\n\nadd_command("a", lambda r: 1)\nadd_command("a", lambda r: 2)\n',
     "add_command('a'): the custom command 'a' was already added by"),
])
def test_a_custom_command_that_cannot_be_added_stops_the_run_with_the_support_files_line(
        tmp_path: Path, support: str, expected: str) -> None:
    root = _project(tmp_path, {"runner/support/index.py": support})
    result = run_runner("run", cwd=root)
    assert result.code != 0
    assert expected in result.text, result.text
    assert "runner/support/index.py" in result.text and "site-packages" not in result.text


def test_a_helper_that_imports_a_missing_module_shows_the_users_frames(tmp_path: Path) -> None:
    root = _project(tmp_path, {"runner/support/broken.py": "import not_a_module_anywhere\n",
                               "runner/integration/b_spec.py": "import support.broken\n\ndef test_b():\n    pass\n"})
    result = run_runner("run", "--spec", "runner/integration/b_spec.py", cwd=root)
    assert result.code == 1
    assert "No module named 'not_a_module_anywhere'" in result.out
    assert "runner/support/broken.py:1: in <module>" in result.out
    assert "src/runner/" not in result.out and "importlib" not in result.out, result.out
    # imported by the support file: the run stops, naming the support file, with the same frames
    write_project(root, {"runner/support/index.py": SUPPORT + "import support.broken\n"})
    result = run_runner("run", "--spec", "runner/integration/b_spec.py", cwd=root)
    assert result.code == 1
    assert f"{root / 'runner/support/index.py'} raised ModuleNotFoundError while it was loaded:" in result.text
    assert f'File "{root / "runner/support/broken.py"}", line 1, in <module>' in result.text, result.text
    assert "src/runner/" not in result.text and "importlib" not in result.text, result.text


def test_an_unknown_command_suggests_the_custom_one(tmp_path: Path) -> None:
    root = _project(tmp_path, {"runner/integration/u_spec.py": "def test_u(runner):\n    runner.logni('a', 'b')\n"},
                    names=())
    result = run_runner("run", cwd=root)
    assert result.code == 1
    assert "runner has no command 'logni'. Did you mean runner.login()?" in result.out, result.out
    assert "def __getattr__" not in result.out


@pytest.mark.slow
def test_helpers_and_custom_commands_work_in_workers(tmp_path: Path) -> None:
    root = _project(tmp_path, names=("a", "b", "c"))
    result = run_runner("run", "--workers", "2", cwd=root, timeout=240)
    assert result.code == 0, result.text
    assert "6 passing" in result.out or result.out.count("2 passing") == 3, result.out
    for name in "abc":
        login = _commands(root, f"{name}_spec.py::test_a_custom_command")
        assert login and login[0]["name"] == "login"
        assert {c["parent"] for c in login[1:5]} == {login[0]["id"]}


COMPONENT_SPEC = '''
from support.login import fill_name


def test_a_component_gets_the_helpers(runner):
    form = runner.mount("<input id='name'><input id='password'><p id='who'></p>"
                        "<button id='go' onclick=\\"document.getElementById('who').textContent = "
                        "'signed in as ' + document.getElementById('name').value\\">Go</button>")
    fill_name(runner, "cat")
    runner.get("#name").should("have.value", "cat")
    runner.login_here("dot")
    form.find("#who").should("have.text", "signed in as dot")
'''

COMPONENT_SUPPORT = SUPPORT + '''

@add_command
def login_here(runner, name):
    runner.get("#name").clear()
    runner.get("#name").type(name)
    runner.get("#go").click()
'''


def test_component_specs_import_helpers_and_call_custom_commands_under_runner_and_plain_pytest(
        tmp_path: Path) -> None:
    root = _project(tmp_path, {"runner/support/index.py": COMPONENT_SUPPORT,
                               "runner/component/form_spec.py": COMPONENT_SPEC}, names=())
    write_project(root, {"runner.json": json.dumps({"fileServerFolder": "site", "componentFolder": "runner/component",
                                                    "video": False})})
    result = run_runner("run", "--component", cwd=root)
    assert result.code == 0, result.text
    assert [c["name"] for c in _commands(root, "::test_a_component_gets_the_helpers")][2:4] == ["should", "login_here"]
    done = subprocess.run([str(Path(sys.executable).with_name("pytest")), "-q", "-p", "no:cacheprovider",
                           "--runner-component", "-o", "python_files=*_spec.py", "runner/component"],
                          cwd=root, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if not k.startswith("RUNNER_")})
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize(("files", "config"), [
    # no support file (the default one is optional): its folder is the package all the same
    ({"runner/support/login.py": LOGIN}, {}),
    # a support file elsewhere: its folder is the package, the file is support.<its name>
    ({"e2e/setup.py": SUPPORT, "e2e/login.py": LOGIN}, {"supportFile": "e2e/setup.py"}),
    # an __init__.py support file is the package itself
    ({"e2e/__init__.py": SUPPORT, "e2e/login.py": LOGIN}, {"supportFile": "e2e/__init__.py"}),
])
def test_the_package_support_is_the_support_files_folder(tmp_path: Path, files: dict[str, str], config: dict) -> None:
    spec = ("from support.login import fill_name\n\ndef test_s(runner):\n    runner.visit('/')\n"
            "    fill_name(runner, 'eve')\n    runner.get('#name').should('have.value', 'eve')\n")
    root = write_project(tmp_path, base_project({**files, "runner/integration/s_spec.py": spec},
                                                {"trashAssetsBeforeRuns": False, "video": False, **config}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "1 passing" in result.out
