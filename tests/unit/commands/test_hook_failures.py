"""A visit hook's failure names its time limit by where it came from."""

from __future__ import annotations

from runner.commands.hooks import hook_failure
from runner.engine.visit_hooks import HookTimeout


def test_a_hook_past_its_time_names_where_the_limit_came_from() -> None:
    default = hook_failure("on_before_load", HookTimeout(4.0), 4.0)
    assert str(default).startswith(
        "runner.visit(): on_before_load did not return within 4000ms (defaultCommandTimeout);")
    shorter = hook_failure("on_before_load", HookTimeout(1.5), 1.5, "the visit's timeout")
    assert str(shorter).startswith(
        "runner.visit(): on_before_load did not return within 1500ms (the visit's timeout);")
