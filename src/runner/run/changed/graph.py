"""The project's Python modules as a graph of imports, and the fixture files they name, read from
their source with ``ast`` (nothing is imported or run).

An import reaches a project file when it resolves to one: a relative import from the importing
file's package; ``support`` (and ``support.x``) to the support file's folder, the package runner
installs under that name; any other absolute name to a module or package under one of the
graph's roots (the caller's: the project folder, the spec folder, ``src``, pytest's
``pythonpath``) or the importing file's own folder, tried in that order; the first that has it
wins. Importing ``a.b`` also runs ``a/__init__.py``; ``from a import b`` may import the
submodule ``a/b.py``, which counts when it exists. Names that reach no project file (the standard
library, installed packages, ``runner`` itself) are not followed. ``importlib.import_module`` and
``__import__`` called with a literal name count as imports. A file deleted since the ref still
resolves (a spec that imports it is affected: it no longer imports).

What a module says about fixtures: every short string literal in it (a fixture's name may be
written anywhere: ``runner.fixture("users")``, ``{"fixture": "users.json"}``, a constant a helper
passes on), and whether it reads one by a name known only at run time (``fixture(...)`` or
``replay_har(...)`` called with anything but a literal, a ``"fixture"`` key or ``fixture=``
keyword given anything but a literal).

A module that cannot be read or parsed has unknown imports: :attr:`ModuleFacts.problem` says why,
and the selection counts it as changed.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ImportGraph", "ModuleFacts"]

_LITERAL_LIMIT = 300  # longer strings are text, not file names
_DYNAMIC_CALLS = ("fixture", "replay_har")
_IMPORT_CALLS = ("import_module", "__import__")
_OWN_PACKAGE = "runner"  # runner's own package: never a project module, whatever the folders are called


@dataclass
class ModuleFacts:
    """What one module's source says."""

    imports: set[Path] = field(default_factory=set)  # the project files its imports reach
    literals: set[str] = field(default_factory=set)  # short string literals (fixture names among them)
    dynamic_fixtures: bool = False  # reads a fixture by a name known only at run time
    problem: str | None = None  # why its source could not be read or parsed


class ImportGraph:
    """The modules reachable from some starting files, parsed once each, on demand.

    ``roots`` are the folders absolute imports are looked up in (the project, the spec folder);
    ``support`` the folder imported as ``support``; ``gone`` the files deleted since the ref,
    which still resolve.
    """

    def __init__(self, roots: Iterable[Path], support: Path | None, gone: Iterable[Path] = ()) -> None:
        self._roots = [root.resolve() for root in roots]
        self._support = support.resolve() if support is not None else None
        self._gone = {path.resolve() for path in gone}
        self._facts: dict[Path, ModuleFacts] = {}

    def facts(self, path: Path) -> ModuleFacts:
        """What ``path``'s source says (read and parsed the first time it is asked for)."""
        known = self._facts.get(path)  # the graph's own paths are resolved already: no lookup on disk
        if known is None:
            resolved = path.resolve()
            known = self._facts.get(resolved) or self._read(resolved)
            self._facts[path] = self._facts[resolved] = known
        return known

    def closure(self, starts: Iterable[Path]) -> dict[Path, Path | None]:
        """Every module ``starts`` reach through imports (cycles included once), each with the
        module that first imported it (None for a start)."""
        reached: dict[Path, Path | None] = {}
        queue: deque[tuple[Path, Path | None]] = deque((start.resolve(), None) for start in starts)
        while queue:
            path, by = queue.popleft()
            if path in reached:
                continue
            reached[path] = by
            queue.extend((child, path) for child in sorted(self.facts(path).imports) if child not in reached)
        return reached

    # -- reading a module ----------------------------------------------------------------------
    def _read(self, path: Path) -> ModuleFacts:
        if not path.is_file():
            return ModuleFacts()  # deleted since the ref: it imports nothing any more
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except SyntaxError as err:
            return ModuleFacts(problem=f"a syntax error at line {err.lineno}")
        except RecursionError:
            return ModuleFacts(problem="it is nested too deeply to parse")
        except (OSError, ValueError) as err:
            return ModuleFacts(problem=f"it cannot be read ({getattr(err, 'strerror', None) or err})")
        facts = ModuleFacts()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    facts.imports |= self._resolve(path, alias.name, 0, [])
            elif isinstance(node, ast.ImportFrom):
                facts.imports |= self._resolve(path, node.module or "", node.level, [a.name for a in node.names])
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if len(node.value) <= _LITERAL_LIMIT and "\n" not in node.value:
                    facts.literals.add(node.value)
            elif isinstance(node, ast.Call):
                facts.dynamic_fixtures |= _reads_fixture_at_run_time(node)
                imported = _imported_by_call(node)
                if imported:
                    facts.imports |= self._resolve(path, imported, 0, [])
            elif isinstance(node, ast.Dict):
                facts.dynamic_fixtures |= any(
                    isinstance(key, ast.Constant) and key.value == "fixture" and not _is_text(value)
                    for key, value in zip(node.keys, node.values, strict=True))
        facts.imports.discard(path)
        return facts

    # -- resolving an import -------------------------------------------------------------------
    def _resolve(self, module: Path, name: str, level: int, names: list[str]) -> set[Path]:
        parts = [part for part in name.split(".") if part]
        if level:
            base = module.parent
            for _ in range(level - 1):
                base = base.parent
            return self._walk(base, parts, names)
        if not parts or parts[0] == _OWN_PACKAGE:
            return set()
        if parts[0] == "support" and self._support is not None:
            package = self._support / "__init__.py"
            return self._walk(self._support, parts[1:], names) | ({package} if self._exists(package) else set())
        for base in [*self._roots, module.parent.resolve()]:
            found = self._walk(base, parts, names)
            if found:
                return found
        return set()

    def _walk(self, base: Path, parts: list[str], names: list[str]) -> set[Path]:
        """The files ``import base/parts...`` runs (each package's ``__init__.py`` on the way),
        with the submodules among ``names``; empty when it is not there."""
        folder = base
        found: set[Path] = set() if parts or not self._exists(base / "__init__.py") else {base / "__init__.py"}
        for index, part in enumerate(parts):
            module = folder / f"{part}.py"
            if index == len(parts) - 1 and self._exists(module):
                found.add(module)
                return found
            folder = folder / part
            if not folder.is_dir() and not self._exists(folder / "__init__.py"):
                return set()
            if self._exists(folder / "__init__.py"):
                found.add(folder / "__init__.py")
        for name in names:
            for candidate in (folder / f"{name}.py", folder / name / "__init__.py"):
                if self._exists(candidate):
                    found.add(candidate)
        return found

    def _exists(self, path: Path) -> bool:
        return path in self._gone or path.is_file()


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _is_text(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _reads_fixture_at_run_time(node: ast.Call) -> bool:
    for keyword in node.keywords:
        if keyword.arg == "fixture" and not _is_text(keyword.value):
            return True
    name = _callee(node)
    if name not in _DYNAMIC_CALLS:
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "pytest":
        return False  # pytest.fixture(function): a pytest fixture, not a file
    given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "path"), None)
    return given is not None and not _is_text(given)


def _imported_by_call(node: ast.Call) -> str | None:
    if _callee(node) in _IMPORT_CALLS and node.args and _is_text(node.args[0]):
        value = node.args[0]
        assert isinstance(value, ast.Constant)
        return str(value.value)
    return None
