"""The run-event stream: every fact of a run as a typed event on one bus per process.

Publishers (the pytest plugin's recorder, the commands, the interception engine, the artifacts)
hand events to the run session's :class:`EventBus`; consumers subscribe (the reporters' feed,
the events file, the plugins file's run events). ``runner report --from FILE`` feeds a recorded
file to any reporter. See docs/architecture.md for the list of events.
"""

from __future__ import annotations

from .bus import EventBus, Subscriber
from .jsonl import EventsFileError, EventsFileWriter, dumps_event, json_line, read_events
from .model import (
    EVENT_TYPES,
    NOT_RUN,
    SCHEMA_VERSION,
    A11yChecked,
    AttemptEnded,
    BrowserStarted,
    CommandEnded,
    CommandStarted,
    Event,
    EventFormatError,
    LogLine,
    PluginEvent,
    RequestIntercepted,
    RouteAdded,
    RouteAliased,
    RunEnded,
    RunStarted,
    ScreenshotTaken,
    SnapshotCompared,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
    VideoWritten,
    WebServerExited,
    WebServerStarted,
    from_json,
)

__all__ = [
    "EventBus", "Subscriber", "EventsFileWriter", "EventsFileError", "read_events", "dumps_event", "json_line",
    "SCHEMA_VERSION", "EVENT_TYPES", "Event", "EventFormatError", "from_json",
    "RunStarted", "BrowserStarted", "SpecStarted", "TestStarted", "CommandStarted", "CommandEnded",
    "LogLine", "RouteAdded", "RouteAliased", "RequestIntercepted", "ScreenshotTaken", "A11yChecked", "SnapshotCompared", "AttemptEnded",
    "TestEnded", "VideoWritten", "SpecEnded", "PluginEvent", "RunEnded", "NOT_RUN", "WebServerStarted",
    "WebServerExited",
]
