"""``runner.network_conditions(...)``: the page's network made slow or offline, for this test.

A preset (``"slow-3g"``, ``"fast-3g"``, ``"offline"``) or the keywords ``offline``, ``latency``
(ms), ``download`` and ``upload`` (kilobits per second), read by ``config/network_conditions.py``
as the ``networkConditions`` option is; the engine's ``conditions_verbs.py`` gives them to every
page of the test. They last until the test ends (the next test starts with ``networkConditions``
again) or the next call.
"""

from __future__ import annotations

from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.steps import command
from runner.config.network_conditions import NetworkConditions, read_conditions
from runner.engine.holder import PageError
from runner.errors import CommandError

__all__ = ["ConditionCommands"]


class ConditionCommands(CommandsBase):
    """``network_conditions``: throttling and offline for the rest of the test."""

    @command("network_conditions")
    def network_conditions(self, preset: str | None = None, **conditions: Any) -> NetworkConditions | None:
        """Make the network of the test's pages (its popups too) ``preset`` with ``conditions``
        on top (``offline=``, ``latency=`` ms, ``download=``/``upload=`` kilobits per second);
        nothing at all: the network as it is. Returns what is set (None: nothing). Raises
        ``UsageError`` for an unknown preset (listing them), an unknown keyword or a bad value."""
        said = "runner.network_conditions()"
        read = read_conditions(preset, said, **conditions)
        ctx = self._ctx
        try:
            ctx.run(ctx.browser.set_network_conditions(read))
        except PageError as err:
            raise CommandError(f"{said} failed in the browser: {err}") from None
        shown = read.describe() if read is not None else "none (the network as it is)"
        ctx.add_log("network_conditions", shown)
        ctx.command_result = shown
        return read
