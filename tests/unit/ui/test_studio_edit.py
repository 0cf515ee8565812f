"""Studio's edits of a spec: recorded actions -> statements, inserted at the end of the right test
with libcst; everything else in the file byte for byte as it was; clear refusals."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from runner.errors import UsageError
from runner.ui.studio_edit import END_MARKER, START_MARKER, command_lines, insert_commands

CLICK = {"kind": "click", "selector": "[data-cy=\"save\"]", "value": None}


@pytest.mark.parametrize("action, line", [
    (CLICK, 'runner.get("[data-cy=\\"save\\"]").click()'),
    ({"kind": "clear", "selector": "#name"}, 'runner.get("#name").clear()'),
    ({"kind": "type", "selector": "#name", "value": "Ada"}, 'runner.get("#name").type("Ada")'),
    ({"kind": "type", "selector": "#n", "value": 'a "q" \\ {x}\nb'}, 'runner.get("#n").type("a \\"q\\" \\\\ {{}x}\\nb")'),
    ({"kind": "check", "selector": "#c"}, 'runner.get("#c").check()'),
    ({"kind": "uncheck", "selector": "#c"}, 'runner.get("#c").uncheck()'),
    ({"kind": "select", "selector": "select", "value": "b"}, 'runner.get("select").select("b")'),
    ({"kind": "select", "selector": "select", "value": ["a", "b"]}, 'runner.get("select").select(["a", "b"])'),
])
def test_each_action_is_one_statement(action: dict, line: str) -> None:
    assert command_lines([action]) == [line]
    ast.parse(line)  # valid Python


def test_a_typed_value_round_trips_through_the_literal() -> None:
    value = 'quote " back \\ brace { newline \n tab \t é 😀'
    (line,) = command_lines([{"kind": "type", "selector": "#x", "value": value}])
    call = ast.parse(line).body[0].value  # type: ignore[attr-defined]
    assert call.args[0].value == value.replace("{", "{{}")


def test_an_action_that_is_not_one_is_refused() -> None:
    with pytest.raises(UsageError, match="studio action 1 is not one runner can write"):
        command_lines([{"kind": "hover", "selector": "#x"}])


SPEC = '''import pytest


def test_first(runner):
    runner.visit("/")


@pytest.mark.parametrize("n", [1, 2], ids=["one", "two"])
def test_param(runner, n):
    """Docstring."""
    runner.visit("/")
    # a comment at the end


class TestSuite:
    def test_in_class(self, runner):
        pass

    async def test_async(self, runner):
        def nested():
            return 1
        runner.visit("/")


def test_no_fixture(page):
    pass


def test_last(runner):
    runner.visit("/")  # keep me
'''


def _spec(tmp_path: Path, text: str = SPEC, newline: str = "\n") -> Path:
    path = tmp_path / "a_spec.py"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


@pytest.mark.parametrize("test", ["test_first", "test_param[one]", "TestSuite::test_in_class",
                                  "TestSuite::test_async", "test_last"])
def test_lines_go_at_the_end_of_that_test_and_nothing_else_changes(tmp_path: Path, test: str) -> None:
    path = _spec(tmp_path)
    result = insert_commands(path, test, [CLICK, {"kind": "type", "selector": "#n", "value": "Ada"}])
    text = path.read_text()
    rows = text.splitlines()
    assert [rows[n - 1].strip() for n in result.lines] == result.statements
    assert rows[result.lines[0] - 2].strip() == START_MARKER and rows[result.lines[-1]].strip() == END_MARKER
    tree = ast.parse(text)
    # the statements are in the test's body, at its end
    name = test.split("::")[-1].split("[")[0]
    func = next(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name)
    assert func.body[-1].lineno == result.lines[-1] and func.body[-2].lineno == result.lines[0]
    indent = rows[result.lines[0] - 1][: len(rows[result.lines[0] - 1]) - len(rows[result.lines[0] - 1].lstrip())]
    assert indent == " " * (func.col_offset + 4)
    # removing what was added gives the file back exactly
    added = set(range(result.lines[0] - 1, result.lines[-1] + 2))
    assert "\n".join(r for i, r in enumerate(rows, start=1) if i not in added) + "\n" == SPEC


def test_crlf_and_tabs_are_kept(tmp_path: Path) -> None:
    path = _spec(tmp_path, "def test_x(runner):\n\trunner.visit('/')\n\n\ndef test_y(runner):\n\tpass\n", "\r\n")
    insert_commands(path, "test_x", [CLICK])
    data = path.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert b"\r\n\trunner.get(\"[data-cy=\\\"save\\\"]\").click()\r\n" in data
    assert data.endswith(b"def test_y(runner):\r\n\tpass\r\n")


def test_a_second_recording_goes_after_the_first(tmp_path: Path) -> None:
    path = _spec(tmp_path)
    first = insert_commands(path, "test_first", [CLICK])
    second = insert_commands(path, "test_first", [{"kind": "check", "selector": "#c"}])
    assert second.lines[0] > first.lines[0]
    assert path.read_text().count(START_MARKER) == 2


def test_refusals_are_one_clear_message(tmp_path: Path) -> None:
    path = _spec(tmp_path)
    with pytest.raises(UsageError, match=r"cannot find the test 'test_gone'.*test_first, test_param, "
                                         r"TestSuite::test_in_class"):
        insert_commands(path, "test_gone", [CLICK])
    with pytest.raises(UsageError, match="takes no `runner` parameter"):
        insert_commands(path, "test_no_fixture", [CLICK])
    with pytest.raises(UsageError, match="recorded nothing"):
        insert_commands(path, "test_first", [{"kind": "type", "selector": "#n", "value": ""}])
    broken = _spec(tmp_path, "def test_x(runner):\n    runner.visit('/'\n")
    before = broken.read_bytes()
    with pytest.raises(UsageError, match="does not parse"):
        insert_commands(broken, "test_x", [CLICK])
    assert broken.read_bytes() == before
    with pytest.raises(UsageError, match="cannot read the spec"):
        insert_commands(tmp_path / "gone.py", "test_x", [CLICK])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_spec.py"]  # no temp file left
