"""The support file: loaded once before the specs, as a pytest plugin (fixtures, hooks)."""

import pytest


@pytest.fixture
def home(runner):
    """Open the app and wait until its todos are on the page."""
    runner.visit("/")
    runner.get("li.todo").should("have.length", 2)
    return runner
