"""docs/architecture.md says what the tree and the contracts are: its module map names every
package and module under src/runner/ (and nothing that is not there), and its layers section is
the import contracts of pyproject.toml, row for row and word for word.

When a module moves, `.venv/bin/python scripts/architecture_map.py` prints every module with its
docstring's first line: a draft for the map's new lines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from importlinter import api

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "runner"
DOC = ROOT / "docs" / "architecture.md"

CONTINUATION = 20  # a map line indented this far goes on with the job of the line above


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _map_entries() -> list[tuple[str, str]]:
    """(path under src/runner/, job) for each line of the map: one name a line, its job beside
    it; a folder's name ends with "/" and the lines indented under it are inside it."""
    block = _section("Modules, one job each").split("```")[1]
    lines = block.splitlines()
    top = lines.index("src/runner/")
    entries: list[tuple[str, str]] = []
    folders: list[str] = []
    for line in lines[top + 1 :]:
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= CONTINUATION:
            continue
        if indent == 0:
            break  # tests/, bench/, docs/: the map of src/runner/ ended
        assert indent % 2 == 0, f"the map's line {line!r} is indented by an odd number of spaces"
        name, _, job = line.strip().partition("  ")
        del folders[indent // 2 - 1 :]
        path = "/".join([*folders, name.rstrip("/")])
        entries.append((path, job.strip()))
        if name.endswith("/"):
            folders.append(name.rstrip("/"))
    return entries


def _modules() -> set[str]:
    """Every package and module under src/runner/, as a path: `ui` for the package (its
    `__init__.py`), `ui/child.py` for a module."""
    found = set()
    for path in SRC.rglob("*.py"):
        relative = path.relative_to(SRC)
        if relative == Path("__init__.py"):
            found.add("__init__.py")
        elif path.name == "__init__.py":
            found.add(relative.parent.as_posix())
        else:
            found.add(relative.as_posix())
    return found


def test_the_map_names_every_module_and_nothing_else() -> None:
    named = {path for path, _ in _map_entries()}
    # a package's own __init__.py may have a line of its own (plugin/__init__.py: the hooks)
    named_modules = {p.removesuffix("/__init__.py") if p != "__init__.py" else p for p in named}
    missing = sorted(_modules() - named_modules)
    not_there = sorted(path for path in named if not (SRC / path).exists())
    assert (missing, not_there) == ([], []), (
        f"docs/architecture.md's map (Modules, one job each) does not name {missing} "
        f"and names {not_there}, which are not under src/runner/ "
        "(scripts/architecture_map.py prints every module with its docstring's first line)"
    )


def test_every_line_of_the_map_says_its_job() -> None:
    assert [path for path, job in _map_entries() if not job] == []


def _contract_options() -> list[dict[str, Any]]:
    options: list[dict[str, Any]] = api.read_configuration(str(ROOT / "pyproject.toml"))[
        "contracts_options"
    ]
    return options


def _is_the_table(contract: dict[str, Any]) -> bool:
    """The layers contract of the whole package: the doc's layer table."""
    return contract["type"] == "layers" and contract.get("containers") == ["runner"]


def test_the_layer_table_is_the_layers_contract() -> None:
    (layers,) = [c["layers"] for c in _contract_options() if _is_the_table(c)]
    contract_rows = [[tail.strip() for tail in re.split(r"[|:]", layer)] for layer in layers]
    table = [
        line for line in _section("Layers").splitlines() if line.startswith("| ") and "`" in line
    ]
    # a module as the map writes it: `ui/` for a package, `run/launch` for run.launch
    doc_rows = [
        [name.strip("/").replace("/", ".") for name in re.findall(r"`([\w./]+)`", cells)]
        for cells in (row.split("|")[2] for row in table)
    ]
    differ = [
        f"row {number}: the doc has {doc}, the contract {contract}"
        for number, (doc, contract) in enumerate(zip(doc_rows, contract_rows, strict=False), 1)
        if doc != contract
    ]
    assert doc_rows == contract_rows, (
        "docs/architecture.md's layer table (Layers, one row a layer, its modules in its second "
        f"column) is not pyproject.toml's layers contract: {differ}; the doc has "
        f"{len(doc_rows)} rows, the contract {len(contract_rows)} layers"
    )


def _names(modules: list[str]) -> str:
    return ", ".join(f"`{module}`" for module in modules)


def _statement(contract: dict[str, Any]) -> str:
    """One contract of pyproject.toml as the doc states it (the package's layers: its table)."""
    ignored = contract.get("ignore_imports", [])
    also = f" Imports let through: {_names(ignored)}." if ignored else ""
    return _rule(contract) + also


def _rule(contract: dict[str, Any]) -> str:
    kind, name = contract["type"], contract["name"]
    if kind == "layers":
        where = _names(contract.get("containers", ["runner"]))
        rows = "the table above"
        if not _is_the_table(contract):
            rows = "; ".join(
                " | ".join(f"`{tail.strip()}`" for tail in layer.split("|"))
                for layer in contract["layers"]
            )
        every = " (every module has its place)" if contract.get("exhaustive") == "True" else ""
        skipped = contract.get("exhaustive_ignores", [])
        but = f", but {_names(skipped)}" if skipped else ""
        return f"- **{name}**: in {where}, top to bottom: {rows}{every}{but}."
    if kind == "forbidden":
        reach = (
            "directly (they may call a module that imports them)"
            if contract.get("allow_indirect_imports") == "True"
            else "neither directly nor through another module"
        )
        return (
            f"- **{name}**: {_names(contract['source_modules'])} import none of "
            f"{_names(contract['forbidden_modules'])}, {reach}."
        )
    if kind == "protected":
        return (
            f"- **{name}**: only {_names(contract['allowed_importers'])} (and the modules inside "
            f"them) import {_names(contract['protected_modules'])}; any other module fails."
        )
    if kind == "acyclic_siblings":
        return (
            f"- **{name}**: no import cycle between the sibling modules or packages of "
            f"{_names(contract['ancestors'])}, at any depth."
        )
    raise AssertionError(f"the doc's test cannot state a {kind!r} contract yet: add it here")


def test_the_layers_section_states_every_contract() -> None:
    expected = [_statement(c) for c in _contract_options()]
    stated = [line for line in _section("Layers").splitlines() if line.startswith("- **")]
    assert stated == expected, (
        "docs/architecture.md's contracts (Layers, the lines '- **name**: ...') are not "
        f"pyproject.toml's: missing {[s for s in expected if s not in stated]}, "
        f"not in pyproject {[s for s in stated if s not in expected]}"
    )
