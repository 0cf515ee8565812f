"""``runner run --last-failed`` and ``--failed-first`` inside pytest, test by test.

``runner run`` reads the history (:mod:`runner.run.history`), keeps or puts first the specs that
hold the last run's failures, and hands pytest the failed tests' node ids in ``--runner-select``
(JSON: ``{"mode": "only" | "first", "tests": [...]}``); pytest-xdist's workers get the same option,
and since each collects the same items and orders them the same way, they agree on the order.
Here, after collection: ``only`` deselects the other tests (all are kept when none of the named
tests exists any more: they were renamed or removed since); ``first`` runs each spec's failed
tests before its others. Specs are never interleaved (a spec's tests stay together: its video,
``before:spec`` and its block in the reporters are one piece); the order of the specs is the
order runner gave them in.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["SELECT_OPTION", "select_items"]

SELECT_OPTION = "--runner-select"


def select_items(config: Any, items: list[Any]) -> None:
    """Apply ``--runner-select`` to the collected ``items`` (in place)."""
    raw = config.getoption("runner_select", None)
    if not raw:
        return
    chosen = json.loads(raw)
    tests = set(chosen["tests"])
    if not any(item.nodeid in tests for item in items):
        return  # none of them is left: every test runs (runner's notice said which were asked for)
    if chosen["mode"] == "only":
        deselected = [item for item in items if item.nodeid not in tests]
        items[:] = [item for item in items if item.nodeid in tests]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        return
    specs: dict[str, list[Any]] = {}
    for item in items:  # in the order of collection, which is the order of the specs
        specs.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    items[:] = [item for group in specs.values()
                for item in sorted(group, key=lambda i: i.nodeid not in tests)]
