"""The plugins file's run events, fired from the run-event stream.

``before:run`` (``runner run`` only) fires when the run starts (its specs collected, before the
first test) and ``before:spec`` when a spec starts, each before the reporters hear of it;
``after:spec`` and ``after:run`` after the reporters told the end (so an ``after:spec`` listener
finds the spec's video complete).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.events import Event, EventBus, RunEnded, RunStarted, SpecEnded, SpecStarted
from runner.reporters.from_events import RunBuilder, run_summary, spec_summary

__all__ = ["subscribe_before", "subscribe_after"]


def subscribe_before(bus: EventBus, plugin_events: Any,
                     before_run: Callable[[], dict[str, Any]] | None = None) -> None:
    """``before:run`` (when ``before_run`` gives its details) and ``before:spec``: subscribe
    before the reporters."""

    def before(event: Event) -> None:
        if isinstance(event, RunStarted):
            if before_run is not None:
                plugin_events.emit("before:run", before_run())
        elif isinstance(event, SpecStarted):
            plugin_events.emit("before:spec", _spec_payload(event.spec, event.absolute))

    bus.subscribe(before, (RunStarted, SpecStarted))


def subscribe_after(bus: EventBus, plugin_events: Any) -> None:
    """``after:spec`` and ``after:run``: subscribe after the reporters."""
    builder = RunBuilder()

    def after(event: Event) -> None:
        builder.apply(event)
        if isinstance(event, SpecEnded):
            spec = builder.spec(event.spec)
            plugin_events.emit("after:spec", _spec_payload(spec.relative, spec.absolute), spec_summary(spec))
        elif isinstance(event, RunEnded):
            plugin_events.emit("after:run", run_summary(builder.run))

    bus.subscribe(after)


def _spec_payload(relative: str, absolute: str) -> dict[str, Any]:
    return {"name": Path(absolute).name, "relative": relative, "absolute": absolute}
