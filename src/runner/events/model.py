"""The facts of a run, as typed, immutable events with a stable JSON form.

Every event is a frozen dataclass; its docstring is its documentation. ``to_json`` gives a dict of
plain JSON values, ``{"v": SCHEMA_VERSION, "kind": "test.ended", "at": <epoch seconds>, ...}``,
and ``from_json`` reads one back (raising ``EventFormatError`` with what was wrong). The order of
a run's events::

    run.started
      browser.started            (again after a relaunch)
      spec.started
        test.started
          command.started / command.ended, log, route.added, route.aliased,
          request.intercepted,
          screenshot.taken, snapshot.compared,
          a11y.checked            (as they happen, in the process that runs the test)
          attempt.ended           (once per attempt; a retried test has several)
        test.ended
        test.ended                (state "not_run": a test the run stopped before, no attempt)
        video.written            (when the spec's video is complete; may come later)
      spec.ended
      plugin.event               (the plugins file's before:spec, after:spec, ... fired)
    run.ended

This module is the bottom of the tree: standard library only, imported by every layer.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "SCHEMA_VERSION", "Event", "EventFormatError", "EVENT_TYPES", "from_json",
    "RunStarted", "BrowserStarted", "SpecStarted", "TestStarted", "CommandStarted", "CommandEnded",
    "LogLine", "RouteAdded", "RouteAliased", "RequestIntercepted", "ScreenshotTaken", "A11yChecked", "SnapshotCompared", "AttemptEnded", "TestEnded",
    "VideoWritten", "SpecEnded", "PluginEvent", "RunEnded", "NOT_RUN",
]

#: The version of the JSON form. A reader refuses a newer one (it cannot know its meaning).
SCHEMA_VERSION = 1

#: A test's state when the run stopped before it started (``--max-failures``): a ``test.ended``
#: with no attempt, its ``reason`` saying why. It is no failure, and no run of the test.
NOT_RUN = "not_run"


class EventFormatError(ValueError):
    """A JSON object that is not an event this version of runner can read."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every event. ``at``: when it happened, seconds since the epoch (wall clock)."""

    kind: ClassVar[str] = ""
    at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"v": SCHEMA_VERSION, "kind": self.kind}
        for f in dataclasses.fields(self):
            data[f.name] = getattr(self, f.name)
        return data


@dataclass(frozen=True, kw_only=True)
class RunStarted(Event):
    """A run began: what it runs and with what. ``specs`` are the spec paths in run order
    (relative to ``integrationFolder``), ``sources`` where each configuration value came from.
    ``browser_version`` is known when the browser was launched before the tests (``runner
    run``); plain pytest launches it on first use, and ``browser.started`` tells it then."""

    kind: ClassVar[str] = "run.started"
    run_id: str
    runner_version: str
    browser: str  # "chromium (headless) /usr/bin/chromium"
    specs: list[str]
    browser_version: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    project_root: str = ""
    mode: str = "run"  # "run" (runner run), "pytest" (plain pytest), "open"
    # ``runner run --shard``: {"index": i, "total": n, "plan": <the shards' key>, "basis": ...};
    # a merged run: {"total": n, "plan": ..., "merged": [i, ...], "missing": [i, ...]}
    shard: dict[str, Any] | None = None
    # ``runner run --only-changed``: {"ref": ..., "notice": <the line the terminal got>, "total": n,
    # "changed": <files git named>, "everything": <the file that selected every spec> | None,
    # "specs": [{"spec": <as in specs>, "why": "imports helpers.py"}, ...]} (run/changed)
    only_changed: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class BrowserStarted(Event):
    """The browser was launched (the first time, or again after it crashed)."""

    kind: ClassVar[str] = "browser.started"
    name: str
    version: str
    path: str
    headless: bool
    launch: int = 1  # 2 and up: relaunched


@dataclass(frozen=True, kw_only=True)
class WebServerStarted(Event):
    """A ``webServer`` entry answered before the tests: started by runner (``pid``: its process
    group, ``took_ms``: from its start to its first answer) or found running and reused
    (``reused``: runner did not start it and does not stop it). ``name`` is its place in the
    option (``webServer``, ``webServer[1]``), ``target`` what was waited for (a URL, or ``port N
    (127.0.0.1)``)."""

    kind: ClassVar[str] = "web_server.started"
    name: str
    command: str
    target: str
    reused: bool = False
    pid: int | None = None
    took_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class WebServerExited(Event):
    """A server runner started for ``webServer`` ended while the tests ran, not stopped by runner:
    ``status`` says how (``exited with status 4``, ``was killed by SIGKILL``), ``output`` holds its
    last lines of output (none when its output is ignored)."""

    kind: ClassVar[str] = "web_server.exited"
    name: str
    command: str
    status: str
    output: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class SpecStarted(Event):
    """A spec's first test starts (or a spec with no test to run is reported)."""

    kind: ClassVar[str] = "spec.started"
    spec: str  # relative to integrationFolder (or the project)
    absolute: str


@dataclass(frozen=True, kw_only=True)
class TestStarted(Event):
    """A test starts (before its first attempt). ``title``: suite titles, then the test's name."""

    __test__: ClassVar[bool] = False  # not a pytest test class
    kind: ClassVar[str] = "test.started"
    spec: str
    nodeid: str
    title: list[str]


@dataclass(frozen=True, kw_only=True)
class CommandStarted(Event):
    """A ``runner`` command began. ``args`` as the command log shows them; ``file``/``line``:
    the user's line that called it; ``parent``: the ``id`` of the custom command it runs in."""

    kind: ClassVar[str] = "command.started"
    nodeid: str
    id: int  # counts up within a test attempt
    name: str
    args: str
    subject: str | None = None
    file: str | None = None
    line: int | None = None
    attempt: int = 1
    parent: int | None = None


@dataclass(frozen=True, kw_only=True)
class CommandEnded(Event):
    """A ``runner`` command ended; ``state`` is ``"passed"`` or ``"failed"`` (with ``error``).
    ``result``: what it found, when its log line tells more than its arguments (``popup``'s
    ``tab[1] http://127.0.0.1:8080/receipt.html``)."""

    kind: ClassVar[str] = "command.ended"
    nodeid: str
    id: int
    name: str
    state: str
    duration_ms: float
    error: str | None = None
    attempt: int = 1
    result: str | None = None


@dataclass(frozen=True, kw_only=True)
class LogLine(Event):
    """``runner.log(message)``; ``file``/``line``: the user's line that called it."""

    kind: ClassVar[str] = "log"
    nodeid: str
    message: str
    attempt: int = 1
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True, kw_only=True)
class RouteAdded(Event):
    """``runner.intercept(...)`` added a route (``matcher`` as the Routes table shows it)."""

    kind: ClassVar[str] = "route.added"
    nodeid: str
    route_id: str
    method: str
    matcher: str
    stubbed: bool
    handler: str  # "spy", "static", "function"
    alias: str | None = None
    times: int | None = None
    middleware: bool = False
    attempt: int = 1
    server: bool = False  # runner.intercept_backend's route: the app's server's requests


@dataclass(frozen=True, kw_only=True)
class RouteAliased(Event):
    """``.as_(alias)`` named a route after it was added."""

    kind: ClassVar[str] = "route.aliased"
    nodeid: str
    route_id: str
    alias: str
    attempt: int = 1


@dataclass(frozen=True, kw_only=True)
class RequestIntercepted(Event):
    """A request that matched a route ended (completed or errored).

    ``stubbed``: answered by runner (True) or by the server (False). Timings in ms: ``queued``
    (arrival until the first handler ran), ``handler`` (time in the user's handlers), ``upstream``
    (waiting for the server), ``total`` (arrival until the end). ``request_body`` and
    ``response_body``: the bodies runner held (see ``runner.net.bodies.body_record``: ``size``,
    ``encoding`` "utf-8" or "base64", ``data``, ``cut`` when longer than what is kept); None when
    there was none or runner never read it (a server's response the test did not look at).
    ``log``: False when a route it reached was defined with ``log: False`` (kept out of the
    command log, still in the requests table). ``open``: the test ended while the request was
    still in flight, and runner's bounded wait for it ran out (``state`` says how far it got;
    it is in no later test). ``late``: a request runner only watched got its response after
    its ``responseTimeout`` (the page got that response; runner does not cut what it does not hold).
    ``server``: the app's server made the request (through runner's proxy), not the page.
    """

    kind: ClassVar[str] = "request.intercepted"
    nodeid: str
    id: str
    method: str
    url: str
    route_ids: list[str]
    aliases: list[str]
    stubbed: bool
    state: str
    status: int | None = None
    error: str | None = None
    resource_type: str = ""
    request_headers: dict[str, str] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)
    request_body_size: int | None = None
    response_body_size: int | None = None
    timings: dict[str, float | None] = field(default_factory=dict)  # queued: None when unknown
    request_body: dict[str, Any] | None = None
    response_body: dict[str, Any] | None = None
    attempt: int = 1
    log: bool = True
    open: bool = False
    late: bool = False
    server: bool = False

    @property
    def outcome(self) -> str:
        """The status, else the error, else the state (as the command log shows the request)."""
        return str(self.status) if self.status is not None else (self.error or self.state)

    def log_line(self) -> str:
        """The request as the command log tells it: ``(fetch) GET 200 URL @alias stubbed`` (``(server)``
        for one the app's server made, which went on ``to the service`` when not stubbed), the
        status before the URL (as the original shows it); without a status the URL comes first
        and the error (or the state) last: ``(fetch) GET URL @alias stubbed: <error>``, so that
        a long error does not hide which request it was."""
        head = ["(server)" if self.server else f"({self.resource_type or 'request'})", self.method]
        if self.status is not None:
            head.append(str(self.status))
        parts = [*head, self.url, *(f"@{alias}" for alias in self.aliases)]
        parts.append("stubbed" if self.stubbed else "to the service" if self.server else "to the server")
        if self.late:
            parts.append("(late: after its responseTimeout)")
        if self.open:
            parts.append("(still in flight when the test ended)")
        line = " ".join(parts)
        return line if self.status is not None else f"{line}: {self.outcome}"


@dataclass(frozen=True, kw_only=True)
class ScreenshotTaken(Event):
    """A screenshot file was written (``failure``: the failure screenshot)."""

    kind: ClassVar[str] = "screenshot.taken"
    nodeid: str
    path: str
    failure: bool = False
    attempt: int = 1


@dataclass(frozen=True, kw_only=True)
class A11yChecked(Event):
    """``runner.check_a11y(...)`` ran axe-core; ``command``: the ``id`` of its command.started.
    ``scope``: the subject checked (None: the whole document); ``impact``: the lowest impact
    that fails (None: ``warn=True``, none fails); ``warn``: the lowest only warned of (None: none is); ``rules``: the rules
    asked for, as written (None: axe's default set). ``violations``: each rule broken at or above
    the lowest counted impact, ``{"rule", "impact", "help", "help_url", "outcome": "failed" |
    "warned", "nodes": [{"target", "html", "summary"}]}`` (the elements' HTML cut short);
    ``ignored``: how many violations were under both thresholds. ``axe``: axe-core's version."""

    kind: ClassVar[str] = "a11y.checked"
    nodeid: str
    command: int
    scope: str | None
    impact: str | None
    violations: list[dict[str, Any]] = field(default_factory=list)
    warn: str | None = None
    rules: str | None = None
    ignored: int = 0
    axe: str = ""
    attempt: int = 1


@dataclass(frozen=True, kw_only=True)
class SnapshotCompared(Event):
    """A ``match.screenshot`` or ``match.aria_snapshot`` assertion ended (docs/snapshots.md).

    ``what``: ``screenshot`` or ``aria``; ``name`` the user's; ``baseline`` the baseline file.
    ``outcome``: ``matched``, ``differs`` (failed), ``missing`` (failed, nothing written),
    ``written`` (a missing baseline written: failed unless an update mode asked for it),
    ``updated`` (a baseline rewritten by an update mode), ``unsteady`` (failed: the picture never
    settled). ``expected``, ``actual``, ``diff``:
    the images written under the run's artifacts when it failed ("" otherwise), never next to
    the baseline. ``diff_pixels`` and ``diff_ratio`` are what differed (screenshots),
    ``threshold``, ``max_diff_pixels`` and ``max_diff_pixel_ratio`` what was allowed;
    ``diff_text``: an aria snapshot's unified diff; ``message``: the assertion's words."""

    kind: ClassVar[str] = "snapshot.compared"
    nodeid: str
    attempt: int = 1
    what: str
    name: str
    baseline: str
    outcome: str
    passed: bool
    message: str = ""
    expected: str = ""
    actual: str = ""
    diff: str = ""
    diff_pixels: int = 0
    diff_ratio: float = 0.0
    threshold: float | None = None
    max_diff_pixels: int | None = None
    max_diff_pixel_ratio: float | None = None
    diff_text: str = ""


@dataclass(frozen=True, kw_only=True)


class AttemptEnded(Event):
    """One attempt of a test ended. ``state``: passed, failed, pending or skipped. ``error`` is
    the whole failure report, ``message`` one line (or why it was skipped). ``log``, ``routes``
    and ``requests``: the attempt's command log, Routes table and intercepted requests.
    ``trace``: the attempt's trace file when one was kept (see the ``trace`` option)."""

    kind: ClassVar[str] = "attempt.ended"
    spec: str
    nodeid: str
    attempt: int
    state: str
    duration_ms: float
    error: str | None = None
    error_type: str | None = None
    message: str | None = None
    screenshots: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    routes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    trace: str | None = None


@dataclass(frozen=True, kw_only=True)
class TestEnded(Event):
    """A test ended after its last attempt. ``slow``: over ``slowTestThreshold``. ``state`` is
    the test's outcome, which a retry strategy may make ``failed`` when its last attempt passed
    (``verdict`` says why); ``not_run`` (``NOT_RUN``): the run stopped before the test started,
    ``attempts`` is 0 and ``reason`` says why (``"stopped after 2 failures (--max-failures 2)"``)."""

    __test__: ClassVar[bool] = False
    kind: ClassVar[str] = "test.ended"
    spec: str
    nodeid: str
    title: list[str]
    state: str
    duration_ms: float
    attempts: int
    slow: bool = False
    flaky: bool = False
    # how many attempts the test's retries allowed (retries + 1), so a report says "attempt 2 of
    # 3"; None: not a runner test (no retries apply) or an events file written before this field
    attempts_allowed: int | None = None
    # a retry strategy's verdict when it applied (an attempt failed): "passed 2 of 3 attempts, 2
    # required (detect-flake-and-pass-on-threshold)"; None: no strategy, or no attempt failed
    verdict: str | None = None
    # why the test is quarantined (its mark's reason, or the `quarantine` entry naming it): its
    # failure does not fail the run; None: it is not (or an events file written before this field)
    quarantine: str | None = None
    reason: str | None = None  # why a not_run test did not run


@dataclass(frozen=True, kw_only=True)
class VideoWritten(Event):
    """A spec's video is complete: ``video`` its path(s) (None: lost, or deleted because the spec
    passed and ``videoUploadOnPasses`` is false). ``started_at``: when its first frame was taken
    (seconds since the epoch), so a test's moment in it is its ``test.started`` time minus this."""

    kind: ClassVar[str] = "video.written"
    spec: str
    video: str | None
    started_at: float | None = None


@dataclass(frozen=True, kw_only=True)
class SpecEnded(Event):
    """A spec ended. ``error``: it could not be loaded (``error_type``, one-line
    ``error_message``). ``video``: its video as known when it ended (still being written)."""

    kind: ClassVar[str] = "spec.ended"
    spec: str
    duration_ms: float
    error: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    video: str | None = None
    empty: bool = False  # it holds no test


@dataclass(frozen=True, kw_only=True)
class PluginEvent(Event):
    """The plugins file's ``name`` event (``before:spec``, ``after:run``, ...) was emitted to
    ``listeners`` listeners; ``errors``: what those that raised said."""

    kind: ClassVar[str] = "plugin.event"
    name: str
    listeners: int
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class RunEnded(Event):
    """The run ended. ``error``: why it counts as failed as a whole (``"no tests ran"``).
    ``quarantined``: how many of the ``failed`` tests are quarantined (their failure does not fail
    the run). ``stopped``: why it stopped before all its tests ran (``--max-failures``);
    ``not_run``: how many of its ``tests`` it did not run then (each told as a ``not_run``
    test.ended). ``fail_on_flaky``: the run was made with ``--fail-on-flaky``: its tests that
    passed only on a retry (quarantined ones excepted) fail it; they stay ``passed`` here and in
    their test.ended, and a report of the events counts them as failures of the run."""

    kind: ClassVar[str] = "run.ended"
    duration_ms: float
    tests: int
    passed: int
    failed: int
    pending: int
    skipped: int
    error: str | None = None
    interrupted: bool = False
    quarantined: int = 0
    stopped: str | None = None
    not_run: int = 0
    fail_on_flaky: bool = False


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (
        RunStarted, BrowserStarted, WebServerStarted, WebServerExited, SpecStarted, TestStarted, CommandStarted,
        CommandEnded, LogLine, RouteAdded, RouteAliased, RequestIntercepted, ScreenshotTaken, A11yChecked,
        SnapshotCompared, AttemptEnded, TestEnded,
        VideoWritten,
        SpecEnded, PluginEvent, RunEnded,
    )
}

_FIELDS: dict[type[Event], dict[str, dataclasses.Field[Any]]] = {
    cls: {f.name: f for f in dataclasses.fields(cls)} for cls in EVENT_TYPES.values()
}

_REQUIRED: dict[type[Event], set[str]] = {
    cls: {name for name, f in fields.items()
          if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    for cls, fields in _FIELDS.items()
}


def from_json(data: Any) -> Event:
    """The event a dict of :meth:`Event.to_json` form describes.

    Raises ``EventFormatError`` naming what is wrong: not an object, a newer schema version, an
    unknown kind, a missing or unknown field.
    """
    if not isinstance(data, dict):
        raise EventFormatError(f"expected a JSON object, found {type(data).__name__}")
    version = data.get("v")
    if not isinstance(version, int) or isinstance(version, bool):
        raise EventFormatError(f"'v' (the schema version) must be a whole number; found {version!r}")
    if version > SCHEMA_VERSION:
        raise EventFormatError(
            f"the event has schema version {version}, newer than the {SCHEMA_VERSION} this runner "
            "reads; upgrade runner to read it"
        )
    kind = data.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventFormatError(f"unknown event kind {kind!r}; known: {', '.join(EVENT_TYPES)}")
    fields = _FIELDS[cls]
    values = {k: v for k, v in data.items() if k not in ("v", "kind")}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise EventFormatError(f"{kind} has no field {', '.join(map(repr, unknown))}")
    missing = sorted(_REQUIRED[cls] - set(values))
    if missing:
        raise EventFormatError(f"{kind} is missing {', '.join(map(repr, missing))}")
    if not isinstance(values.get("at", 0.0), (int, float)):
        raise EventFormatError(f"{kind}: 'at' must be a number; found {values['at']!r}")
    return cls(**values)
