"""The import contracts in pyproject.toml bind: import-linter, given our own contract definitions
(the root package renamed), fails on a small throwaway tree that breaks each rule, keeps them all
on the same tree without the break, and keeps them all on runner itself."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from importlinter import api
from importlinter.application import use_cases
from importlinter.application.ports.reporting import Report
from importlinter.application.user_options import UserOptions

ROOT = Path(__file__).resolve().parents[2]
PROBE = "runner_contract_probe"  # the throwaway tree's root package: runner renamed

LAYERS = "Layers, top to bottom"
NET_AND_CONFIG = "The interception engine and the configuration know neither the browser nor pytest"
PLAYWRIGHT = "Only the engine talks to Playwright"
PYTEST = "Only the pytest plugin and the CLI that starts pytest know pytest"
CYCLES = "No import cycles between sibling modules or packages"

# Imports every contract allows: higher layers importing lower ones, the allowed importers of
# pytest and Playwright. The tree with only these keeps every contract, so what a case adds to it
# is what breaks the contracts the case names (and no others).
ALLOWED = {
    "cli": "from runner_contract_probe import ui, run_guard, replay\nimport pytest\n",
    "ui.child": "import pytest\nfrom runner_contract_probe import interrupts\n",
    "ui.studio_child": "import pytest\n",
    "run_guard": "from runner_contract_probe import replay, interrupts\n",
    "plugin": "import pytest\nimport _pytest.config\nfrom runner_contract_probe import session\n",
    "session": "from runner_contract_probe import spec_videos, fileserver\n",
    "engine": "import playwright.async_api\nfrom runner_contract_probe import net\n",
    "net.chain": "from runner_contract_probe.net import registry\n",
    "net.registry": "from runner_contract_probe import errors\n",
}

PROBE_IMPORT = f"from {PROBE} import"

# (case, the modules it adds or rewrites, the contracts it breaks: exactly these)
BREAKS: list[tuple[str, dict[str, str], set[str]]] = [
    ("a lower layer imports a higher one", {"errors": f"{PROBE_IMPORT} config\n"}, {LAYERS}),
    ("specs imports session (they were one ':' group)",
     {"specs": f"{PROBE_IMPORT} session\n"}, {LAYERS}),
    ("show_trace imports show_report (they were one ':' group)",
     {"show_trace": f"{PROBE_IMPORT} show_report\n"}, {LAYERS}),
    ("run_start imports run_guard (they were one ':' group)",
     {"run_start": f"{PROBE_IMPORT} run_guard\n"}, {LAYERS}),
    ("independent siblings: net imports reporters",
     {"net.chain": f"{PROBE_IMPORT} reporters\n"}, {LAYERS}),
    ("a top-level module the layers do not name", {"newcomer": ""}, {LAYERS}),
    ("net reaches Playwright through bodies",
     {"net.chain": f"{PROBE_IMPORT} bodies\n", "bodies": "import playwright\n"},
     {NET_AND_CONFIG, PLAYWRIGHT}),
    ("config imports pytest", {"config": "import pytest\n"}, {NET_AND_CONFIG, PYTEST}),
    ("the reporters import Playwright", {"reporters": "import playwright.sync_api\n"},
     {PLAYWRIGHT}),
    ("a new top-level module imports Playwright", {"newcomer": "import playwright\n"},
     {LAYERS, PLAYWRIGHT}),
    ("ui imports pytest (not from its child)", {"ui.server": "import pytest\n"}, {PYTEST}),
    ("a new module of the reporters imports pytest", {"reporters.newcomer": "import pytest\n"},
     {PYTEST}),
    ("a new top-level module imports pytest", {"newcomer": "import pytest\n"}, {LAYERS, PYTEST}),
    ("the session imports _pytest",
     {"session": f"{PROBE_IMPORT} spec_videos\nfrom _pytest import nodes\n"}, {PYTEST}),
    ("two modules of net import each other",
     {"net.registry": f"from {PROBE}.net import chain\n"}, {CYCLES}),
]


def _probe_name(value: str) -> str:
    return re.sub(r"^runner(?=\.|$)", PROBE, value)


def _our_options() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    config = api.read_configuration(str(ROOT / "pyproject.toml"))
    return config["session_options"], config["contracts_options"]


def _probe_options() -> UserOptions:
    """Our contracts, word for word, with `runner` renamed in every module name (not in the
    layers' tails, which are relative to their container)."""
    session, contracts = _our_options()
    renamed = []
    for contract in contracts:
        options = dict(contract)
        for key, value in contract.items():
            if isinstance(value, list) and key != "layers":
                options[key] = [_probe_name(item) for item in value]
        renamed.append(options)
    return UserOptions({**session, "root_packages": [PROBE]}, renamed)


def _layer_tails() -> list[str]:
    (layers,) = [c["layers"] for c in _our_options()[1] if c["type"] == "layers"]
    return [tail.strip().strip("()") for layer in layers for tail in re.split(r"[|:]", layer)]


def _write_tree(root: Path, sources: dict[str, str]) -> None:
    """Every module the layers name, as a package (so any of them can have submodules), plus
    the modules of `sources` with their text."""
    package = root / PROBE
    package.mkdir()
    (package / "__init__.py").write_text("")
    for tail in _layer_tails():
        (package / tail).mkdir()
        (package / tail / "__init__.py").write_text("")
    for dotted, text in sources.items():
        *parents, name = dotted.split(".")
        folder = package.joinpath(*parents)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name / "__init__.py" if (folder / name).is_dir() else folder / f"{name}.py"
        target.write_text(text)


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
    report = _report(_probe_options())
    return {contract.name for contract, check in report.get_contracts_and_checks() if not check.kept}


def test_every_contract_has_a_case_that_breaks_it() -> None:
    assert {c["name"] for c in _our_options()[1]} == set().union(*(case[2] for case in BREAKS))


def test_the_probe_tree_keeps_every_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _broken(tmp_path, monkeypatch, ALLOWED) == set()


@pytest.mark.parametrize(
    ("sources", "contracts"), [case[1:] for case in BREAKS], ids=[case[0] for case in BREAKS]
)
def test_a_tree_that_breaks_a_rule_fails_its_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sources: dict[str, str], contracts: set[str]
) -> None:
    assert _broken(tmp_path, monkeypatch, {**ALLOWED, **sources}) == contracts


def test_runner_keeps_every_contract() -> None:
    session, contracts = _our_options()
    report = _report(UserOptions(session, contracts))
    assert [(c.name, check.kept) for c, check in report.get_contracts_and_checks()] == [
        (c["name"], True) for c in contracts
    ]
