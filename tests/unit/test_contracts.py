"""The import contracts in pyproject.toml bind: import-linter, given our own contract definitions
(the root package renamed), fails on a small throwaway tree that breaks a rule, for every rule
they state; keeps them all on the same tree without the break; and keeps them all on runner.

The cases are read from the contracts themselves (every module of a layer importing the layer
above; a module importing its neighbour in a layer; a module that is not allowed to importing
pytest or Playwright; ...), so they follow the contracts when the layers change."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from importlinter import api
from importlinter.application import use_cases
from importlinter.application.ports.reporting import Report
from importlinter.application.user_options import UserOptions

ROOT = Path(__file__).resolve().parents[2]
PROBE = "runner_contract_probe"  # the throwaway tree's root package: runner renamed
NEWCOMER = "probe_newcomer"  # a module or package no contract names


def _our_options() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    config = api.read_configuration(str(ROOT / "pyproject.toml"))
    return config["session_options"], config["contracts_options"]


SESSION, CONTRACTS = _our_options()


def _tail(module: str) -> str:
    """`runner.ui.child` -> `ui.child`: a module of ours, relative to the root package."""
    assert module == "runner" or module.startswith("runner."), module
    return module.removeprefix("runner").removeprefix(".")


def _join(*parts: str) -> str:
    return ".".join(part for part in parts if part)


def _inside(module: str, packages: list[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in map(_tail, packages))


def _rows(contract: dict[str, Any], container: str) -> list[list[str]]:
    """A layers contract's layers in one container, top to bottom: the modules of each,
    relative to the root package."""
    return [
        [_join(_tail(container), tail.strip().strip("()")) for tail in re.split(r"[|:]", layer)]
        for layer in contract["layers"]
    ]


LAYERED = [
    (contract, _rows(contract, container))
    for contract in CONTRACTS
    if contract["type"] == "layers"
    for container in contract.get("containers", ["runner"])
]
MODULES = list(dict.fromkeys(module for _, rows in LAYERED for row in rows for module in row))


@dataclass(frozen=True)
class Case:
    name: str
    sources: dict[str, str]  # module (relative to the root) -> the imports it adds
    contract: str  # the contract it must break


def _imports(module: str) -> str:
    return f"import {_join(PROBE, module)}\n"


def _allowed_tree() -> dict[str, str]:
    """The imports the contracts allow and some need: each allowed importer imports what it is
    allowed to (a protected module must be in the graph), and the imports a contract ignores
    are there (an ignored import that is not found is an error)."""
    sources: dict[str, str] = {}

    def add(module: str, text: str) -> None:
        sources[module] = sources.get(module, "") + text

    for contract in CONTRACTS:
        if contract["type"] == "protected":
            for importer in map(_tail, contract["allowed_importers"]):
                for module in contract["protected_modules"]:
                    add(importer, f"import {module}\n")
        for expression in contract.get("ignore_imports", []):
            importer, imported = (_tail(part.strip()) for part in expression.split("->"))
            add(importer, _imports(imported))
            add(imported, "")
    return sources


def _layer_cases(contract: dict[str, Any], rows: list[list[str]]) -> list[Case]:
    name = contract["name"]
    cases = []
    if contract.get("exhaustive") == "True":
        container = rows[0][0].rpartition(".")[0]
        newcomer = _join(container, NEWCOMER)
        cases.append(Case(f"{newcomer}, a module the layers do not name", {newcomer: ""}, name))
    for above, below in zip(rows, rows[1:], strict=False):
        for module in below:
            imports = {module: _imports(above[0])}
            cases.append(Case(f"{module} imports {above[0]}, the layer above", imports, name))
    for row in rows:
        for module in row[1:]:
            imports = {module: _imports(row[0])}
            cases.append(Case(f"{module} imports {row[0]}, of its own layer", imports, name))
    bottom, top = rows[-1][0], rows[0][0]
    cases.append(Case(f"{bottom} imports {top}, the top", {bottom: _imports(top)}, name))
    return cases


def _protected_cases(contract: dict[str, Any]) -> list[Case]:
    allowed = contract["allowed_importers"]
    # a new module, and one module of each layer that is not allowed (the first of its row)
    importers = [NEWCOMER] + [
        next(module for module in row if not _inside(module, allowed))
        for _, rows in LAYERED
        for row in rows
        if not all(_inside(module, allowed) for module in row)
    ]
    # a neighbour of an allowed module (ui.server beside ui.child) is not allowed
    importers += [
        _join(_tail(module).rpartition(".")[0], NEWCOMER)
        for module in allowed
        if "." in _tail(module)
    ]
    return [
        Case(f"{importer} imports {module}", {importer: f"import {module}\n"}, contract["name"])
        for importer in dict.fromkeys(importers)
        for module in contract["protected_modules"]
    ]


def _forbidden_cases(contract: dict[str, Any]) -> list[Case]:
    cases = []
    bottom = LAYERED[0][1][-1]
    for source in map(_tail, contract["source_modules"]):
        for module in contract["forbidden_modules"]:
            imports = {source: f"import {module}\n"}
            cases.append(Case(f"{source} imports {module}", imports, contract["name"]))
            if contract.get("allow_indirect_imports") != "True":
                # through a module of the bottom layer, which the source may import
                helper = next(m for m in bottom if not _inside(m, [_join("runner", source)]))
                cases.append(Case(
                    f"{source} imports {module} through {helper}",
                    {source: _imports(helper), helper: f"import {module}\n"},
                    contract["name"],
                ))
    return cases


def _cycle_cases(contract: dict[str, Any]) -> list[Case]:
    cases = []
    for ancestor in map(_tail, contract["ancestors"]):
        # two siblings inside a module of the top layer: no layer speaks of them
        package = _join(ancestor, LAYERED[0][1][0][0])
        first, second = f"{package}.probe_first", f"{package}.probe_second"
        cases.append(Case(
            f"{first} and {second} import each other",
            {first: _imports(second), second: _imports(first)},
            contract["name"],
        ))
    return cases


def _cases() -> list[Case]:
    cases = [case for contract, rows in LAYERED for case in _layer_cases(contract, rows)]
    for contract in CONTRACTS:
        if contract["type"] == "protected":
            cases += _protected_cases(contract)
        elif contract["type"] == "forbidden":
            cases += _forbidden_cases(contract)
        elif contract["type"] == "acyclic_siblings":
            cases += _cycle_cases(contract)
        elif contract["type"] != "layers":
            raise AssertionError(f"no case breaks a {contract['type']!r} contract yet: add one")
    return cases


CASES = _cases()


def _probe_options() -> UserOptions:
    """Our contracts, word for word, with `runner` renamed in every module name (not in the
    layers' tails and exhaustive_ignores, which are relative to their container)."""
    renamed = []
    for contract in CONTRACTS:
        options = dict(contract)
        for key, value in contract.items():
            if isinstance(value, list) and key not in ("layers", "exhaustive_ignores"):
                options[key] = [re.sub(r"(?<![\w.])runner(?!\w)", PROBE, item) for item in value]
        renamed.append(options)
    return UserOptions({**SESSION, "root_packages": [PROBE]}, renamed)


def _write_tree(root: Path, sources: dict[str, str]) -> None:
    """Every module the layers name, as a package (so that any of them can have modules of its
    own), with the imports of `sources` in the modules they name."""
    package = root / PROBE
    for module in MODULES:
        folder = package.joinpath(*module.split("."))
        folder.mkdir(parents=True, exist_ok=True)
    for dotted, text in sources.items():
        *parents, name = dotted.split(".")
        folder = package.joinpath(*parents)
        folder.mkdir(parents=True, exist_ok=True)
        is_package = (folder / name).is_dir()
        target = folder / name / "__init__.py" if is_package else folder / f"{name}.py"
        target.write_text((target.read_text() if target.exists() else "") + text)
    for folder in [package, *(p for p in package.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()


def _report(options: UserOptions) -> Report:
    # lint-imports registers import-linter's own contract types before it reads any contract;
    # create_report, its API that returns the report, leaves that to the caller
    use_cases._register_built_in_contract_types()
    report = use_cases.create_report(options, cache_dir=None)
    assert not report.could_not_run and not report.invalid_contract_options
    return report


def _broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sources: dict[str, str]) -> set[str]:
    _write_tree(tmp_path, sources)
    monkeypatch.syspath_prepend(str(tmp_path))
    checks = _report(_probe_options()).get_contracts_and_checks()
    return {contract.name for contract, check in checks if not check.kept}


def test_every_contract_has_a_case_that_breaks_it() -> None:
    assert {c["name"] for c in CONTRACTS} == {case.contract for case in CASES}


def test_pytest_and_playwright_are_allow_lists() -> None:
    # a list of forbidden importers misses the next package; an allow-list does not
    protected = {m for c in CONTRACTS if c["type"] == "protected" for m in c["protected_modules"]}
    assert {"pytest", "_pytest", "playwright"} <= protected


def test_the_layers_have_no_unordered_group() -> None:
    # ':' lets the modules of a layer import each other in any direction
    unordered = [
        layer for c in CONTRACTS if c["type"] == "layers" for layer in c["layers"] if ":" in layer
    ]
    assert unordered == []


def test_the_probe_tree_keeps_every_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _broken(tmp_path, monkeypatch, _allowed_tree()) == set()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_tree_that_breaks_a_rule_fails_its_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    sources = _allowed_tree()
    for module, text in case.sources.items():
        sources[module] = sources.get(module, "") + text
    assert case.contract in _broken(tmp_path, monkeypatch, sources)


def test_runner_keeps_every_contract() -> None:
    report = _report(UserOptions(SESSION, CONTRACTS))
    assert [(c.name, check.kept) for c, check in report.get_contracts_and_checks()] == [
        (c["name"], True) for c in CONTRACTS
    ]
