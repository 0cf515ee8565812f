"""The suite's own layout: pytest imports test modules by basename (rootdir-relative, no packages
in most folders), so two test files with one name in different folders break collection of the
whole suite while each still runs alone."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_modules_share_a_basename() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if "__pycache__" in path.parts:
            continue
        seen[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: sorted(paths) for name, paths in seen.items() if len(paths) > 1}
    assert clashes == {}
