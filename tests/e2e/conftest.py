"""End-to-end tests: the real ``runner`` fixture, a real Chromium, real servers on 127.0.0.1.

All tests of this process share one browser (runner's session); each test gets a reset page.
The project is ``tests/e2e/site`` (its runner.json), whose files runner serves itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.servers import TestServer

from runner.events import CommandEnded, CommandStarted

SITE = Path(__file__).parent / "site"


def pytest_configure(config: pytest.Config) -> None:
    if not config.option.runner_project:
        config.option.runner_project = str(SITE)


@pytest.fixture
def server() -> Iterator[TestServer]:
    srv = TestServer()
    try:
        yield srv
    finally:
        srv.close()


def _subscribed(request: pytest.FixtureRequest, kinds: tuple[type, ...]) -> Iterator[list[Any]]:
    from runner.plugin import _SESSION_KEY

    seen: list[Any] = []
    unsubscribe = request.config.stash[_SESSION_KEY].bus.subscribe(seen.append, kinds)
    try:
        yield seen
    finally:
        unsubscribe()


@pytest.fixture
def told(request: pytest.FixtureRequest) -> Iterator[list[Any]]:
    """The command.started and command.ended events of the test, as the run's bus tells them."""
    yield from _subscribed(request, (CommandStarted, CommandEnded))


@pytest.fixture
def started(request: pytest.FixtureRequest) -> Iterator[list[CommandStarted]]:
    """The command.started events of the test, as the run's bus tells them."""
    yield from _subscribed(request, (CommandStarted,))
