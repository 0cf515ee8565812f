"""Studio's recorded actions written into the spec: at the end of the test's function.

``command_lines`` turns the recorder's actions (``studio_recorder.js``) into statements on the
test's ``runner`` fixture; ``insert_commands`` adds them at the end of the test function's body,
between two marker comments, with libcst, so the rest of the file stays byte for byte as it was
(its indentation, tabs or spaces, its CRLF or LF newlines, its encoding). The file is replaced
atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst

from runner.errors import UsageError

__all__ = ["command_lines", "insert_commands", "InsertResult", "START_MARKER", "END_MARKER"]

START_MARKER = "# ==== Generated with runner studio ===="
END_MARKER = "# ==== End runner studio ===="
_KINDS = ("click", "type", "clear", "check", "uncheck", "select")


def _text(value: str) -> str:
    """A Python string literal (double quotes, escapes where needed)."""
    return json.dumps(value, ensure_ascii=False)


def command_lines(actions: list[dict[str, Any]], fixture_name: str = "runner") -> list[str]:
    """The statements of ``actions``. Raises ``UsageError`` for an action that is not one."""
    lines = []
    for number, action in enumerate(actions, start=1):
        kind, selector, value = action.get("kind"), action.get("selector"), action.get("value")
        if kind not in _KINDS or not isinstance(selector, str) or not selector:
            raise UsageError(f"studio action {number} is not one runner can write: {action!r} "
                             f"(expected a kind of {', '.join(_KINDS)} and a selector).")
        subject = f"{fixture_name}.get({_text(selector)})"
        if kind == "type":
            if not isinstance(value, str) or not value:
                continue
            # runner's type reads {name} as a key: a literal brace is typed as {{}
            lines.append(f"{subject}.type({_text(value.replace('{', '{{}'))})")
        elif kind == "select":
            if isinstance(value, list):
                lines.append(f"{subject}.select([{', '.join(_text(str(v)) for v in value)}])")
            else:
                lines.append(f"{subject}.select({_text(str(value or ''))})")
        else:
            lines.append(f"{subject}.{kind}()")
    return lines


@dataclass(frozen=True)
class InsertResult:
    """What was written: ``lines`` the 1-based line numbers of the new statements."""

    path: Path
    statements: list[str]
    lines: list[int]


class _Inserter(cst.CSTTransformer):
    def __init__(self, classes: list[str], function: str, lines: list[str] | None, fixture: str | None) -> None:
        self.classes = classes
        self.function = function
        self.lines = lines
        self.fixture = fixture
        self.scope: list[str] = []
        self.found: cst.FunctionDef | None = None
        self.names: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.scope.append(node.name.value)
        return True

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.append("::".join([*self.scope, node.name.value]))
        return False  # a nested def is not a test

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if self.scope != self.classes or original.name.value != self.function or self.found is not None:
            return updated
        self.found = original
        if self.lines is None or self.fixture is None:
            return updated
        body = updated.body
        if not isinstance(body, cst.IndentedBlock):
            raise UsageError(f"the test {self.function} is written on one line; put its body on lines of "
                             "its own for studio to add to it.")
        statements = [cst.parse_statement(line + "\n") for line in self.lines]
        statements[0] = statements[0].with_changes(leading_lines=[
            *body.footer, cst.EmptyLine(indent=True, comment=cst.Comment(START_MARKER))])
        end = cst.EmptyLine(indent=True, comment=cst.Comment(END_MARKER))
        return updated.with_changes(body=body.with_changes(body=[*body.body, *statements], footer=[end]))


def _fixture_name(function: cst.FunctionDef) -> str | None:
    names = [p.name.value for p in (*function.params.posonly_params, *function.params.params,
                                     *function.params.kwonly_params)]
    return "runner" if "runner" in names else None


def insert_commands(spec: Path, test: str, actions: list[dict[str, Any]]) -> InsertResult:
    """Add ``actions`` at the end of the test ``test`` (the node id's part after the file:
    ``test_x``, ``TestSuite::test_x``, ``test_x[param]``) of ``spec``.

    Raises ``UsageError``: the file is gone or cannot be parsed, the test is not in it, it has no
    ``runner`` parameter, there is nothing to write.
    """
    parts = test.split("[", 1)[0].split("::")
    classes, function = parts[:-1], parts[-1]
    try:
        source = spec.read_bytes()
    except OSError as err:
        raise UsageError(f"studio cannot read the spec {str(spec)!r}: {err.strerror or err}.") from None
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        raise UsageError(f"studio cannot add to {spec.name}: it does not parse (line {err.raw_line}: "
                         f"{err.message}). Fix the file, run the test, then record again.") from None
    finder = _Inserter(classes, function, None, None)
    module.visit(finder)
    if finder.found is None:
        known = ", ".join(finder.names) or "none"
        raise UsageError(f"studio cannot find the test {test!r} in {spec.name} (functions there: {known}). "
                         "Was it renamed since it ran? Run it again, then record.")
    fixture = _fixture_name(finder.found)
    if fixture is None:
        raise UsageError(f"the test {test!r} in {spec.name} takes no `runner` parameter: studio writes "
                         "runner commands. Add the parameter, then record again.")
    lines = command_lines(actions, fixture)
    if not lines:
        raise UsageError("studio recorded nothing to write.")
    new = module.visit(_Inserter(classes, function, lines, fixture))
    data = new.bytes
    _replace(spec, data)
    first, last = _function_span(new, classes, function)
    rows = data.decode(new.encoding).splitlines()
    # the function's last start marker is ours (an earlier recording may have left one before it)
    start = max(i for i in range(first - 1, last) if rows[i].strip() == START_MARKER)
    return InsertResult(path=spec, statements=lines, lines=list(range(start + 2, start + 2 + len(lines))))


def _function_span(module: cst.Module, classes: list[str], function: str) -> tuple[int, int]:
    """The first and last line (1-based) of the function in ``module``."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    spans: list[tuple[int, int]] = []

    class Finder(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self) -> None:
            self.scope: list[str] = []

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            self.scope.append(node.name.value)
            return True

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.scope.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if self.scope == classes and node.name.value == function and not spans:
                where = self.get_metadata(PositionProvider, node)
                spans.append((where.start.line, where.end.line))
            return False

    MetadataWrapper(module).visit(Finder())
    return spans[0]


def _replace(path: Path, data: bytes) -> None:
    mode = path.stat().st_mode & 0o7777
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".studio", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
