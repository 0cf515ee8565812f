"""What ``runner run`` hands to pytest, instead of module globals that the plugin would read.

``pytest.main(args, plugins=[RunPlugin(...)])`` registers it; runner's plugin finds it in
``pytest_configure`` and uses its session (validated before pytest started), reporters and
selected specs. After the run it holds the results (``run``) and the reporters' failures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runner.reporters.feed import ReporterFeed
    from runner.reporters.model import RunResult

__all__ = ["RunPlugin"]


class RunPlugin:
    """One ``runner run``: its session, reporters and specs; then its results."""

    def __init__(self, session: Any, reporters: list[Any], specs: list[Path],
                 interrupted_by: Callable[[], str | None] = lambda: None, max_failures: int | None = None,
                 fail_on_flaky: bool = False) -> None:
        self.session = session
        self.reporters = reporters
        self.specs = specs
        #: The signal that interrupted the run ("SIGINT", "SIGTERM"), None while none did.
        self.interrupted_by = interrupted_by
        #: ``--max-failures``: the run stops after this many failed tests (None: it does not).
        self.max_failures = max_failures
        #: ``--fail-on-flaky``: a test that passed only on a retry fails the run (told in run.ended).
        self.fail_on_flaky = fail_on_flaky
        self.feed: ReporterFeed | None = None  # set when the plugin installs the run

    @property
    def run(self) -> RunResult | None:
        """The results of the run (None when pytest never got to it)."""
        return None if self.feed is None else self.feed.run

    @property
    def reporter_failures(self) -> list[str]:
        """What went wrong in the reporters (each was switched off when it raised)."""
        return [] if self.feed is None else list(self.feed.failures)
