"""``runner run --only-changed [REF]``: the specs the changes since a git ref can affect.

A spec is selected when git says it changed since ``REF`` (``HEAD`` by default: the uncommitted
changes; with a ref, what was committed since it too; untracked files count, as new), when a
module it imports changed (followed through the project's imports, :mod:`.graph`, from the project
folder, the spec folder, ``src`` and pytest's ``pythonpath``), when a file that applies to it
changed (a ``conftest.py`` or ``__init__.py`` in its folder or one above, up to the project; the
support file and the plugins file, for every spec; and what those import), or when it names a
changed file in a string literal (a fixture, a page or asset of the site, see
:class:`_NamedFiles`), or reads fixtures by names computed at run time and a fixture changed. A
module that cannot be parsed counts as changed: its imports are unknown. A changed configuration
file (the one the run reads, ``runner.env.json`` beside it, the pytest configuration runner hands
pytest) selects every spec. Other files (the app, a page no spec names) select nothing, and what
runner wrote (the artifact folders, the events file, the history) is not a change.

The changes come from :mod:`.git`; :func:`select_changed` is the one call ``runner run`` makes.
"""

from __future__ import annotations

import configparser
import os
import posixpath
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.run.changed.git import ChangedError, changed_files
from runner.run.changed.graph import ImportGraph, ModuleFacts
from runner.run.specs import pytest_ini_args, spec_folder

__all__ = ["ChangedError", "ChangedSelection", "select_changed"]

# (singular, plural) of what a reason says, by kind; "{}" is the file it names
_SAYS = {
    "changed": ("changed", "changed"),
    "imports": ("imports {}", "import {}"),
    "uses": ("uses {}", "use {}"),
    "unparsed": ("depends on {}", "depend on {}"),
    "fixture": ("reads the fixture {}", "read the fixture {}"),
    "names": ("names {}", "name {}"),
    "computed": ("reads fixtures by computed names, and {} changed", "read fixtures by computed names, and {} changed"),
}
_SHOWN_REASONS = 4
_ARTIFACT_FOLDERS = ("screenshotsFolder", "videosFolder", "downloadsFolder", "tracesFolder", "reportFolder")


@dataclass
class ChangedSelection:
    """The specs ``--only-changed`` keeps, and why."""

    ref: str
    specs: list[Path]  # in the run's order
    total: int  # the specs there were to choose from
    changed: int  # how many files git says changed
    reasons: dict[Path, tuple[str, str]] = field(default_factory=dict)  # spec -> (kind, file shown)
    everything: str | None = None  # the file whose change selects every spec

    def notice(self) -> str:
        """The one line that tells the user what runs and why."""
        if self.everything is not None:
            return (f"runner: only changed since {self.ref}: all {self.total} specs, as {self.everything} "
                    "changed (it applies to every spec)")
        if not self.specs:
            if not self.changed:
                return f"runner: only changed since {self.ref}: nothing changed, no spec to run."
            files = f"{self.changed} file{'s' if self.changed != 1 else ''}"
            return (f"runner: only changed since {self.ref}: no spec changed, nor a module, conftest or "
                    f"fixture one uses ({files} changed): nothing to run.")
        counts = Counter(self.reasons[spec] for spec in self.specs)
        kinds = list(_SAYS)
        # the most common reasons first; then in the order of _SAYS, then by file
        order = sorted(counts, key=lambda reason: (-counts[reason], kinds.index(reason[0]), reason[1]))
        parts = [f"{counts[reason]} {_SAYS[reason[0]][0 if counts[reason] == 1 else 1].format(reason[1])}"
                 for reason in order[:_SHOWN_REASONS]]
        if len(order) > _SHOWN_REASONS:
            parts.append(f"{sum(counts[reason] for reason in order[_SHOWN_REASONS:])} for other changes")
        return f"runner: only changed since {self.ref}: {len(self.specs)} of {self.total} specs ({', '.join(parts)})"

    def described(self, folder: Path) -> dict[str, Any]:
        """The selection as ``run.started``'s ``only_changed`` tells it (the report's run details
        show it): the notice, and each spec kept (relative to ``folder``, the spec folder) with
        why."""
        def why(spec: Path) -> str:
            if self.everything is not None:
                return f"{self.everything} changed (it applies to every spec)"
            kind, shown = self.reasons[spec]
            return str(_SAYS[kind][0].format(shown))

        def relative(spec: Path) -> str:
            try:
                return spec.resolve().relative_to(folder.resolve()).as_posix()
            except ValueError:
                return spec.as_posix()

        return {"ref": self.ref, "notice": self.notice().removeprefix("runner: "), "total": self.total,
                "changed": self.changed, "everything": self.everything,
                "specs": [{"spec": relative(spec), "why": why(spec)} for spec in self.specs]}


def select_changed(config: Any, specs: list[Path], ref: str) -> ChangedSelection:
    """The specs among ``specs`` that the changes since ``ref`` can affect (see the module).
    Raises :class:`ChangedError` when git cannot tell what changed."""
    root = Path(config.project_root).resolve()
    outputs = _outputs(config)
    changed = frozenset(p for p in changed_files(root, ref).paths if not outputs(p))
    selection = ChangedSelection(ref=ref, specs=[], total=len(specs), changed=len(changed))
    if not changed:
        return selection
    for trigger in _run_wide_files(config, root):
        if trigger in changed:
            selection.specs, selection.everything = list(specs), _shown(trigger, root)
            return selection
    _key, folder = spec_folder(config)
    support = config.path("supportFile")
    graph = ImportGraph([root, folder, *_import_paths(root)], support.parent if support is not None else None,
                        gone=(p for p in changed if not p.exists()))
    shared = graph.closure(_present([support, support.parent / "__init__.py" if support else None,
                                     config.path("pluginsFile")], changed))
    named = _NamedFiles(config, root, changed)
    for spec in specs:
        reason = _reason(spec.resolve(), graph, shared, changed, named, root)
        if reason is not None:
            selection.specs.append(spec)
            selection.reasons[spec] = reason
    return selection


def _reason(spec: Path, graph: ImportGraph, shared: dict[Path, Path | None], changed: frozenset[Path],
            named: _NamedFiles, root: Path) -> tuple[str, str] | None:
    """Why ``spec`` runs (kind, file), or None: the first of its own change, a module it imports,
    a file that applies to it, a module that cannot be parsed, a file it names, a fixture it may
    read by a computed name."""
    if spec in changed:
        return ("changed", "")
    own = graph.closure([spec])
    applied = {**graph.closure(_present(_applying(spec, root), changed)), **shared}
    for kind, modules in (("imports", own), ("uses", applied)):
        hit = sorted(m for m in modules if m in changed)
        if hit:
            return (kind, _shown(hit[0], root))
    every = {**own, **applied}
    facts = {module: graph.facts(module) for module in every}
    broken = sorted(m for m, f in facts.items() if f.problem is not None)
    if broken:
        return ("unparsed", f"{_shown(broken[0], root)}, which cannot be parsed ({facts[broken[0]].problem})")
    files = sorted(set().union(*(named.named_by(module, f) for module, f in facts.items())))
    if files:
        return (named.kind(files[0]), _shown(files[0], root))
    if named.fixtures and any(f.dynamic_fixtures for f in facts.values()):
        return ("computed", _shown(min(named.fixtures), root))
    return None


def _applying(spec: Path, root: Path) -> list[Path]:
    """The ``conftest.py`` and ``__init__.py`` files of the spec's folder and those above it, up to
    the project folder (pytest's conftest boundary in a run)."""
    found = []
    folder = spec.parent
    while folder == root or folder.is_relative_to(root):
        found += [folder / "conftest.py", folder / "__init__.py"]
        if folder == root:
            break
        folder = folder.parent
    return found


def _present(paths: Iterable[Path | None], changed: frozenset[Path]) -> list[Path]:
    """Those of ``paths`` that exist, or existed at the ref (a deleted one counts)."""
    return [p.resolve() for p in paths if p is not None and (p.is_file() or p.resolve() in changed)]


def _outputs(config: Any) -> Callable[[Path], bool]:
    """Whether a file is one runner wrote (an artifact folder's, the events file or an older one
    kept beside it, the history): a project that does not ignore them in git sees them as
    untracked."""
    from runner.run.history import history_path

    folders = [p.resolve() for p in (config.path(key) for key in _ARTIFACT_FOLDERS) if p is not None]
    events = config.path("eventsFile")
    events = events.resolve() if events is not None else None
    history = history_path(config.project_root).resolve()

    def written_by_runner(path: Path) -> bool:
        if path == history or any(path.is_relative_to(folder) for folder in folders):
            return True
        return events is not None and path.parent == events.parent and path.suffix == events.suffix \
            and (path.name == events.name or path.name.startswith(events.stem + "."))

    return written_by_runner


def _run_wide_files(config: Any, root: Path) -> list[Path]:
    files = []
    if config.config_file is not None:
        config_file = Path(config.config_file).resolve()
        files += [config_file, config_file.parent / "runner.env.json"]
    ini = pytest_ini_args(root)[1]
    if ini != os.devnull:
        files.append(Path(ini).resolve())
    return files


def _import_paths(root: Path) -> list[Path]:
    """More folders absolute imports may come from: ``src`` (a project's package in the src
    layout, installed or on the path) and the ``pythonpath`` of the pytest configuration runner
    hands pytest. A configuration that cannot be read adds nothing (pytest says why)."""
    paths = [root / "src"] if (root / "src").is_dir() else []
    ini = Path(pytest_ini_args(root)[1])
    entries: Any = None
    try:
        if ini.name == "pyproject.toml":
            tool = tomllib.loads(ini.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
            entries = tool.get("ini_options", {}).get("pythonpath") or tool.get("pythonpath")
        elif ini.suffix in (".ini", ".cfg"):
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(ini.read_text(encoding="utf-8"))
            section = next((s for s in ("pytest", "tool:pytest") if parser.has_section(s)), None)
            entries = parser.get(section, "pythonpath", fallback=None) if section else None
    except (OSError, ValueError, configparser.Error):
        return paths
    if isinstance(entries, str):
        entries = entries.split()
    return paths + [ini.parent / str(entry) for entry in entries or [] if isinstance(entry, str)]


class _NamedFiles:
    """The changed files a spec may name in a string literal (not Python modules, which are
    imported): a fixture by its path from ``fixturesFolder``, with or without its extension; a
    file of the site (``fileServerFolder``) by its path from there, with or without a leading
    ``/`` (``runner.visit("/checkout.html")``, ``modules=["counter.js"]``); any file by its path
    from the project."""

    def __init__(self, config: Any, root: Path, changed: frozenset[Path]) -> None:
        fixtures, site = (config.path(key) for key in ("fixturesFolder", "fileServerFolder"))
        self.fixtures: list[Path] = []
        self._by_name: dict[str, set[Path]] = {}
        self._seen: dict[Path, set[Path]] = {}
        for path in changed:
            if path.suffix == ".py" or not path.is_relative_to(root):
                continue
            names = {_shown(path, root)}
            if site is not None and path.is_relative_to(site.resolve()):
                inside = path.relative_to(site.resolve()).as_posix()
                names |= {inside, "/" + inside}
            if fixtures is not None and path.is_relative_to(fixtures.resolve()):
                inside = path.relative_to(fixtures.resolve()).as_posix()
                names |= {inside, posixpath.splitext(inside)[0]}
                self.fixtures.append(path)
            for name in names:
                self._by_name.setdefault(name, set()).add(path)

    def kind(self, path: Path) -> str:
        return "fixture" if path in self.fixtures else "names"

    def named_by(self, module: Path, facts: ModuleFacts) -> set[Path]:
        """The changed files ``module``'s literals name (worked out once per module)."""
        found = self._seen.get(module)
        if found is None:
            found = self._seen[module] = {path for written in _written_names(facts) for path in
                                          self._by_name.get(written, ())}
        return found


def _written_names(facts: ModuleFacts) -> set[str]:
    """A module's literals as file names (``"users"``, ``"./users.json"``, ``"users.json,utf8"``)."""
    out = set()
    for literal in facts.literals:
        for written in (literal, literal.rpartition(",")[0]):
            written = written.strip()
            if written:
                out.add(posixpath.normpath(written.removeprefix("./")))
    return out


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
