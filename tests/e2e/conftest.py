"""End-to-end tests: the real ``runner`` fixture, a real Chromium, real servers on 127.0.0.1.

All tests of this process share one browser (runner's session); each test gets a reset page.
The project is ``tests/e2e/site`` (its runner.json), whose files runner serves itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.servers import TestServer

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
