"""--runner-select after collection (plugin/last_failed.py): only the named tests, or them first
in their spec, the specs never interleaved."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from runner.plugin.last_failed import select_items


@dataclass
class _Item:
    nodeid: str


@dataclass
class _Hook:
    deselected: list[Any] = field(default_factory=list)

    def pytest_deselected(self, items: list[Any]) -> None:
        self.deselected += items


@dataclass
class _Config:
    select: str | None
    hook: _Hook = field(default_factory=_Hook)

    def getoption(self, name: str, default: Any = None) -> Any:
        assert name == "runner_select"
        return self.select


ITEMS = ["a_spec.py::test_1", "a_spec.py::test_2", "b_spec.py::test_1", "b_spec.py::test_2[x]"]


def _run(mode: str | None, tests: list[str]) -> tuple[list[str], list[str]]:
    config = _Config(json.dumps({"mode": mode, "tests": tests}) if mode else None)
    items = [_Item(nodeid) for nodeid in ITEMS]
    select_items(config, items)
    return [i.nodeid for i in items], [i.nodeid for i in config.hook.deselected]


def test_only_keeps_the_named_tests_and_tells_pytest_the_others_were_deselected() -> None:
    kept, dropped = _run("only", ["b_spec.py::test_2[x]", "a_spec.py::test_2"])
    assert kept == ["a_spec.py::test_2", "b_spec.py::test_2[x]"]
    assert dropped == ["a_spec.py::test_1", "b_spec.py::test_1"]


def test_first_puts_each_specs_named_tests_before_its_others_and_keeps_the_specs_order() -> None:
    kept, dropped = _run("first", ["b_spec.py::test_2[x]", "a_spec.py::test_2"])
    assert kept == ["a_spec.py::test_2", "a_spec.py::test_1", "b_spec.py::test_2[x]", "b_spec.py::test_1"]
    assert dropped == []


def test_tests_that_no_longer_exist_and_no_option_leave_the_run_as_collected() -> None:
    assert _run("only", ["a_spec.py::test_renamed"]) == (ITEMS, [])
    assert _run(None, []) == (ITEMS, [])
