"""The ``quarantine`` option: the tests whose failure does not fail the run, named by test id or glob.

A test id is the id pytest, the events file and the reports give a test: the spec's path relative
to the project, ``::``, then the test's name (``runner/integration/login_spec.py::test_sign_in``,
``...::TestCart::test_total``, ``...::test_sizes[large]``). An entry names a test when it is that
id exactly (so a parametrized id's brackets need no escaping), or when it matches the id as a
minimatch glob with ``matchBase`` (``login_spec.py::*`` names every test of that spec, wherever
it lies; ``runner/integration/cart/**`` every test under that folder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from runner.match import compile_pattern

__all__ = ["QuarantineList"]

_GLOB_OPTIONS = {"matchBase": True}


class QuarantineList:
    """The entries of ``quarantine`` compiled once; ``source`` names where they came from
    (``runner.json``, ``--config``), for the reason a report shows."""

    def __init__(self, entries: Iterable[str], source: str = "runner.json") -> None:
        self.entries = list(entries)
        self.source = source
        self._compiled: list[tuple[str, Callable[[str], bool]]] = [
            (entry, compile_pattern(entry, _GLOB_OPTIONS)) for entry in self.entries
        ]

    def __bool__(self) -> bool:
        return bool(self.entries)

    def entry_for(self, test_id: str) -> str | None:
        """The first entry that names ``test_id`` (None when none does)."""
        for entry, matches in self._compiled:
            if entry == test_id or matches(test_id):
                return entry
        return None

    def reason_for(self, test_id: str) -> str | None:
        """Why ``test_id`` is quarantined, in words a report shows (None: it is not)."""
        entry = self.entry_for(test_id)
        if entry is None:
            return None
        return f"listed in quarantine ({entry!r}, {self.source})"

    def unmatched(self, test_ids: Iterable[str]) -> list[str]:
        """The entries that name none of ``test_ids``: stale, once the tests they named were
        fixed, renamed or removed."""
        ids = list(test_ids)
        return [entry for entry, matches in self._compiled
                if not any(entry == test_id or matches(test_id) for test_id in ids)]
