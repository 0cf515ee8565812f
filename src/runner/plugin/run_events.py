"""The plugins file's run events, fired from the run-event stream.

``before:spec`` fires when a spec starts, before the reporters hear of it; ``after:spec`` and
``after:run`` after the reporters told the end (so an ``after:spec`` listener finds the spec's
video complete). ``before:run`` is fired by ``runner run`` itself, before pytest starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner.events import Event, EventBus, RunEnded, SpecEnded, SpecStarted
from runner.reporters.from_events import RunBuilder, run_summary, spec_summary

__all__ = ["subscribe_before", "subscribe_after"]


def subscribe_before(bus: EventBus, plugin_events: Any) -> None:
    """``before:spec``: subscribe before the reporters."""

    def before(event: Event) -> None:
        assert isinstance(event, SpecStarted)
        plugin_events.emit("before:spec", _spec_payload(event.spec, event.absolute))

    bus.subscribe(before, (SpecStarted,))


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
