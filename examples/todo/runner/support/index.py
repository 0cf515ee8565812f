"""The support file: loaded once before the specs, as a pytest plugin (fixtures, hooks)."""

import pytest

import support.todos  # noqa: F401 - the custom commands of the specs (runner.add_todo)


@pytest.fixture
def home(runner):
    """Open the app and wait until its todos are on the page."""
    runner.visit("/")
    runner.get("li.todo").should("have.length", 2)
    return runner
