"""``runner init``: a new project's files, each teaching what it is for, never overwriting one.

Written where the project's configuration puts them (its runner.json when there is one, the
defaults otherwise): ``runner.json`` (pointing at a copy of the schema, for editors), the example
spec, the page it tests (in ``fileServerFolder``), a fixture, the support file and a helper module
beside it (``commands.py``, with a custom command the example uses), the plugins file. A
file that exists is kept as it is, and said so. Each file is written whole (a temporary file
renamed into place), so a failure leaves no half-written file. ``runner open`` offers the same in
a folder that is not a project yet.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.config.paths import shown_path
from runner.errors import RunnerError, UsageError

__all__ = ["ScaffoldPlan", "ScaffoldResult", "plan_scaffold", "scaffold", "report_lines"]

_FILES = Path(__file__).with_name("files")
CONFIG_NAME = "runner.json"


@dataclass
class ScaffoldPlan:
    """What :func:`scaffold` writes (``writes``: path -> template) and keeps (``kept``)."""

    root: Path
    writes: dict[Path, str] = field(default_factory=dict)
    kept: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ScaffoldResult:
    root: Path
    written: list[Path]
    kept: list[Path]
    notes: list[str]


def _load(root: Path) -> Any:
    from runner.config import load_config

    try:
        return load_config(root)
    except RunnerError as err:
        raise UsageError(f"runner init keeps {root / CONFIG_NAME}, but it is not valid, so runner cannot "
                         f"tell where the files go:\n{err}") from None


def plan_scaffold(root: Path) -> ScaffoldPlan:
    """The files of a new project under ``root``. Raises ``UsageError`` when an existing
    runner.json is invalid (the folders it names cannot be known)."""
    root = root.resolve()
    plan = ScaffoldPlan(root)
    has_config = (root / CONFIG_NAME).is_file()
    targets: list[tuple[Path | None, str]] = []
    if has_config:
        plan.kept.append(root / CONFIG_NAME)
        config = _load(root)
        server = config.path("fileServerFolder")
        if config.base_url:
            plan.notes.append("baseUrl is set, so runner's file server (which serves the example page) is "
                              "off: the example spec passes once baseUrl is null or serves that page.")
    else:
        config = None
        server = root / "runner" / "app"
        targets.append((root / CONFIG_NAME, "runner.json"))
    targets.append((root / "runner" / "runner.schema.json", "schema"))

    def option(name: str, default: str) -> Path | None:
        if config is None:
            return root / default
        return config.path(name)  # type: ignore[no-any-return]

    specs = option("integrationFolder", "runner/integration")
    fixtures = option("fixturesFolder", "runner/fixtures")
    support = option("supportFile", "runner/support/index.py")
    targets += [
        (specs / "example_spec.py" if specs else None, "example_spec.py.txt"),
        (fixtures / "example.json" if fixtures else None, "example.json"),
        (support, "support.py.txt"),
        (support.with_name("commands.py") if support else None, "commands.py.txt"),
        (option("pluginsFile", "runner/plugins/index.py"), "plugins.py.txt"),
        (server / "runner-example.html" if server else None, "runner-example.html"),
    ]
    for path, template in targets:
        if path is None:
            continue
        if path.exists():
            plan.kept.append(path)
        else:
            plan.writes[path] = template
    if support is None:
        plan.notes.append("supportFile is false: there is no package `support` for helpers, and the "
                          "example's custom command (type_name) is missing until a support file is on.")
    elif support in plan.kept and support.with_name("commands.py") in plan.writes:
        plan.notes.append(f"{support.relative_to(root)} is kept: add `import support.commands` to it "
                          "for the example's custom command (type_name).")
    if fixtures is None:
        plan.notes.append("fixturesFolder is false: the example's fixture is not written, and its "
                          "stubbed request test fails until fixtures are on.")
    return plan


def _content(template: str) -> bytes:
    if template == "schema":
        from runner.config import schema_text

        return schema_text().encode("utf-8")
    return (_FILES / template).read_bytes()


def _write_new(path: Path, data: bytes) -> bool:
    """Write ``path`` whole unless it exists (then False: it is kept)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".init", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temp, 0o644)
        try:
            os.link(temp, path)  # fails when a file appeared meanwhile: never replaced
        except FileExistsError:
            return False
        return True
    finally:
        Path(temp).unlink(missing_ok=True)


def scaffold(root: Path) -> ScaffoldResult:
    """Write the files of :func:`plan_scaffold`. Raises ``UsageError`` when a folder cannot be
    written (naming it and why); files written before that stay."""
    plan = plan_scaffold(root)
    written: list[Path] = []
    kept = list(plan.kept)
    for path, template in plan.writes.items():
        try:
            (written if _write_new(path, _content(template)) else kept).append(path)
        except OSError as err:
            done = f" (written before it: {', '.join(shown_path(p, plan.root) for p in written)})" if written else ""
            raise UsageError(f"runner init could not write {shown_path(path, plan.root)}: {err.strerror or err}"
                             f"{done}.\nCheck the folder's permissions, or run it where you can write.") from None
    return ScaffoldResult(plan.root, written, kept, plan.notes)


def report_lines(result: ScaffoldResult) -> list[str]:
    """What ``runner init`` prints."""
    lines = [f"  created  {shown_path(p, result.root)}" for p in result.written]
    lines += [f"  kept     {shown_path(p, result.root)} (it exists; not changed)" for p in result.kept]
    lines += [f"  note: {n}" for n in result.notes]
    return lines
