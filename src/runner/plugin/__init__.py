"""The pytest plugin: the ``runner`` fixture, the ``runner`` mark, retries and the run's hooks.

It is registered through the ``pytest11`` entry point, so ``pytest`` on a spec works as well as
``runner run``. It stays inert (no configuration read, no browser) in a pytest run that has no
``runner.json`` and no ``--runner-*`` option until a test asks for the ``runner`` fixture.
"""

from __future__ import annotations

import contextlib
import json
import sys
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from runner.commands.steps import tell_failure
from runner.engine.loop import EngineTimeout
from runner.errors import BrowserNotFoundError, ConfigError, RunnerError
from runner.events import RunStarted, ScreenshotTaken
from runner.events.cut import ERROR_TEXT_LIMIT, cut_text
from runner.plugin.frames import drop_runner_frames, mark_line
from runner.plugin.outcomes import (
    ATTEMPTS_ATTR,
    ERROR_ATTR,
    TEST_ATTR,
    error_summary,
    interrupted_report,
    interruption_reason,
    relative_to_first,
)
from runner.plugin.run import RunPlugin
from runner.usercode.tracebacks import is_internal

if TYPE_CHECKING:  # the plugin loads in every pytest run: the config layer only when used
    from _pytest.nodes import Node

    from runner.config import Config
    from runner.plugin.quarantine import QuarantineRules

__all__ = ["RunPlugin", "runner"]

# Everything the plugin keeps lives on pytest's config and items (stash), never in globals:
_SESSION_KEY = pytest.StashKey["Any"]()  # the run session (config.stash)
_OWNS_SESSION_KEY = pytest.StashKey[bool]()  # the plugin made it, so the plugin closes it
_TEST_CONFIG_KEY = pytest.StashKey["Config"]()  # a test's configuration (item.stash)
_ATTEMPT_KEY = pytest.StashKey[int]()  # the attempt running (item.stash)
# the tests of the spec running whose retries wait for its end (retries.deferred; config.stash)
_WAITING_KEY = pytest.StashKey[list[Any]]()
_CTX_KEY = pytest.StashKey[Any]()  # the runner fixture's TestContext of the attempt (item.stash)
_EXTRAS_KEY = pytest.StashKey[dict[str, Any]]()  # the attempt's log, routes, requests (item.stash)
_FAILED_KEY = pytest.StashKey[bool]()  # the attempt failed in its setup or call (item.stash)
# what it failed with, and the spec's file and line it was raised at (for its trace)
_ERROR_KEY = pytest.StashKey[tuple[BaseException, str | None, int | None]]()
# the failure of a test that passed, found when it ended at no line of it (strictNetwork, a HAR
# written then): its report is its message alone (item.stash)
_AT_END_KEY = pytest.StashKey[BaseException]()
_QUARANTINE_KEY = pytest.StashKey["QuarantineRules"]()  # the run's quarantine (config.stash)
# The failure screenshot's bound: a full page takes well under a second; a page that cannot be
# captured within this (stuck in JavaScript) is not waited for any longer.
_FAILURE_SHOT_MS = 3000.0


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("runner", "runner: browser end-to-end tests")
    group.addoption("--runner-project", default=None, help="project folder (holds runner.json)")
    group.addoption("--runner-config-file", default=None, help="configuration file, or 'false'")
    group.addoption("--runner-config", action="append", default=None,
                    help="configuration values: k=v,k2=v2 or JSON; may be repeated")
    group.addoption("--runner-env", action="append", default=None,
                    help="env values: k=v,k2=v2 or JSON; may be repeated")
    group.addoption("--runner-browser", default=None, help="chromium, chrome or a path")
    group.addoption("--runner-headed", action="store_true", default=False, help="show the browser")
    group.addoption("--runner-component", action="store_true", default=False,
                    help="component testing: componentFolder's specs, with the component block applied")
    group.addoption("--runner-browser-endpoint", default=None,
                    help="the WebSocket URL of a Playwright server whose browser to use")
    group.addoption("--runner-browser-endpoint-header", action="append", default=None,
                    help="'Name: value' header for the browser endpoint; may be repeated")
    group.addoption("--runner-mode", default="pytest", choices=("pytest", "run"),
                    help="run: behave as `runner run` does (set by it for pytest-xdist workers)")
    group.addoption("--runner-select", default=None,
                    help="set by `runner run --last-failed/--failed-first`: the tests to run only, or first")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from runner.plugin.last_failed import select_items

    select_items(config, items)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "runner(**overrides): test configuration for a test or a class (retries, timeouts, "
        "viewportWidth, baseUrl, env, includeShadowDom, ...)",
    )
    from runner.plugin.quarantine import MARKER_LINE

    config.addinivalue_line("markers", MARKER_LINE)
    run = _run_plugin(config)
    if run is not None:
        session = run.session
    elif _wants_eager_session(config):
        session = _create_session(config)
        config.stash[_OWNS_SESSION_KEY] = True
    else:
        return
    _install(config, session, run)


def _run_plugin(config: pytest.Config) -> RunPlugin | None:
    """The object ``runner run`` passed to ``pytest.main`` (not in pytest-xdist workers)."""
    return next((p for p in config.pluginmanager.get_plugins() if isinstance(p, RunPlugin)), None)


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Under plain ``pytest``: the configuration's warnings and unusable artifact folders, at the
    top of the output (``runner run`` prints them itself before the run)."""
    session = config.stash.get(_SESSION_KEY, None)
    if session is None or _run_plugin(config) is not None or session.mode == "run":
        return []
    from runner.artifacts.folders import artifact_folder_warnings

    found = [*session.config.warnings, *artifact_folder_warnings(session.config, video=False)]
    return [f"runner: warning: {warning}" for warning in found]


def _wants_eager_session(config: pytest.Config) -> bool:
    opt = config.option
    if any(getattr(opt, name, None) for name in ("runner_project", "runner_config_file", "runner_config",
                                                   "runner_env", "runner_browser", "runner_browser_endpoint",
                                                   "runner_component")):
        return True
    return (Path(config.rootpath) / "runner.json").is_file()


def _create_session(config: pytest.Config) -> Any:
    import os

    from runner.engine.remote import remote_endpoint
    from runner.run.session import RunSession

    opt = config.option
    root = opt.runner_project or str(config.rootpath)
    try:
        endpoint = remote_endpoint(opt.runner_browser_endpoint, opt.runner_browser_endpoint_header, os.environ)
        session = RunSession.create(
            root=root, config_file=opt.runner_config_file, cli_config=opt.runner_config,
            cli_env=opt.runner_env, browser=opt.runner_browser, headed=opt.runner_headed,
            mode=getattr(opt, "runner_mode", None) or "pytest", endpoint=endpoint,
            testing_type="component" if getattr(opt, "runner_component", False) else "e2e",
        )
    except RunnerError as err:
        raise pytest.UsageError(f"runner: {err}") from err
    if _is_xdist_worker(config) and not _specs_are_the_unit(config):
        # A worker runs some tests of some specs: one video per spec cannot be made here.
        session.videos_enabled = False
    return session


def _specs_are_the_unit(config: pytest.Config) -> bool:
    """pytest-xdist gives out whole spec files (``--dist loadfile``, as ``runner run --workers``
    asks): each spec runs in one worker, and its video can be recorded there. A worker does not
    get the controller's ``--dist``; :func:`pytest_configure_node` hands it over."""
    workerinput = getattr(config, "workerinput", None) or {}
    return workerinput.get(_DIST_KEY, getattr(config.option, "dist", None)) == "loadfile"


_DIST_KEY = "runner_dist"


def _split_specs_notice(config: pytest.Config, session: Any) -> str | None:
    """What the run cannot do when pytest-xdist may split a spec's tests across its workers
    (``-n N`` without ``--dist loadfile``): the spec videos the configuration asks for."""
    workers = getattr(config.option, "numprocesses", None)
    dist = getattr(config.option, "dist", "no")
    if not workers or dist == "loadfile" or not session.config.video:
        return None
    return (f"no video is recorded in this run: pytest-xdist's `--dist {'load' if dist == 'no' else dist}` may "
            "split a spec's tests across workers, and a spec's video needs them in one. Use "
            "`runner run --workers N` (or add `--dist loadfile`) to record each spec's video.")


def _deferred_notice(config: pytest.Config, session: Any) -> str | None:
    """What the run cannot do with workers: a pytest-xdist worker reports a test only while it
    runs it, so a test's retries cannot wait for its spec's end there (retrying.py)."""
    retries = session.config["retries"]
    if not getattr(config.option, "numprocesses", None) or not isinstance(retries, dict) or not retries.get("deferred"):
        return None
    return ("`retries.deferred` does not apply with workers (`--workers` or `-n`): a worker reports a test only "
            "while it runs it, so a failed test's retries run at once, as without `deferred`.")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """A spec that calls ``sys.exit()`` as it is imported fails alone, as a spec that raises does:
    pytest lets ``SystemExit`` out of collection, which stops the whole run (INTERNALERROR)."""
    try:
        return (yield)
    except SystemExit as exc:
        if not isinstance(collector, pytest.Module) or collector.config.stash.get(_SESSION_KEY, None) is None:
            raise
        from runner.plugin.outcomes import spec_exit_report

        return spec_exit_report(collector, exc)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's controller of a runner run that hands out whole specs: a test whose worker
    died is not run again (crashed_workers.py)."""
    if config.stash.get(_SESSION_KEY, None) is None or getattr(config.option, "dist", None) != "loadfile":
        return None
    from runner.plugin.crashed_workers import make_scheduler

    return make_scheduler(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller, as it starts a worker: tell it how the tests are given out."""
    node.workerinput[_DIST_KEY] = getattr(node.config.option, "dist", None)


def _install(config: pytest.Config, session: Any, run: RunPlugin | None) -> None:
    """Make ``session`` the run's session: support file, and (except in pytest-xdist workers,
    whose reports reach the controller) the run's events and their consumers."""
    config.stash[_SESSION_KEY] = session
    try:
        support = session.load_support_file()
    except RunnerError as err:
        raise pytest.UsageError(f"runner: {err}") from err
    if support is not None:
        config.pluginmanager.register(support, "runner-support-file")
    if _is_xdist_worker(config):
        from runner.plugin.max_failures import STOP_FILE_KEY, WorkerStop
        from runner.plugin.worker_relay import RELAYED, WorkerRelay

        workerinput = config.workerinput  # type: ignore[attr-defined]
        stop = WorkerStop(workerinput) if workerinput.get(STOP_FILE_KEY) else None  # runner run --max-failures
        relay = WorkerRelay(session, videos=_specs_are_the_unit(config) and session.videos_enabled, stop=stop)
        session.bus.subscribe(relay, RELAYED)
        config.pluginmanager.register(relay, "runner-worker-relay")
        if stop is not None:  # registered last: its hooks run before the relay's
            config.pluginmanager.register(stop, "runner-worker-stop")
        return
    for notice in (_split_specs_notice(config, session), _deferred_notice(config, session)):
        if notice is not None:
            print(f"runner: notice: {notice}", file=sys.stderr, flush=True)
    from runner.plugin.recorder import RunRecorder
    from runner.plugin.run_events import subscribe_after, subscribe_before
    from runner.reporters.feed import ReporterFeed
    from runner.run.specs import spec_folder_option

    bus = session.bus
    emit = session.mode != "open" or bool(session.config.experimental_interactive_run_events)
    if emit:
        subscribe_before(bus, session.events, before_run=(lambda: _before_run(session, run)) if run else None)
    if run is not None:  # plain pytest prints its own report: no reporters to feed
        run.feed = ReporterFeed(run.reporters)
        bus.subscribe(run.feed)
    if emit:
        subscribe_after(bus, session.events)
    stop = _max_failures(config, bus, run)
    recorder = RunRecorder(
        publish=bus.publish, project_root=session.config.project_root,
        spec_root=session.config.path(spec_folder_option(session.config)),
        describe_run=lambda specs: _describe_run(session, specs),
        slow_ms=float(session.config.slow_test_threshold),
        spec_paths=run.specs if run is not None else None,
        finish_spec=session.recordings.finish_spec, settle=session.recordings.settle_videos,
        interrupted_by=run.interrupted_by if run is not None else None,
        run_error=lambda: "the browser did not start" if session.host.launch_error else None,
        stopped=(lambda: stop.reason) if stop is not None else None,
        fail_on_flaky=run is not None and run.fail_on_flaky,
    )
    config.pluginmanager.register(recorder, "runner-results")


def _max_failures(config: pytest.Config, bus: Any, run: RunPlugin | None) -> Any:
    """``runner run --max-failures N``: the count, told every test's end, and the stop it makes
    (None without the flag)."""
    if run is None or run.max_failures is None:
        return None
    from runner.events import TestEnded
    from runner.plugin.max_failures import MaxFailures

    stop = MaxFailures(run.max_failures)
    bus.subscribe(stop, (TestEnded,))
    config.pluginmanager.register(stop, "runner-max-failures")
    return stop


def _describe_run(session: Any, specs: list[str]) -> RunStarted:
    from runner import __version__

    config = session.config
    return RunStarted(
        run_id=uuid.uuid4().hex, runner_version=__version__, browser=_browser_label(session), specs=specs,
        browser_version=session.host.launched_version(),
        config=json.loads(json.dumps(config.as_dict(), default=str)), sources=dict(config.sources),
        project_root=str(config.project_root), mode=session.mode, shard=session.shard,
        only_changed=session.only_changed,
    )


def _before_run(session: Any, run: RunPlugin) -> dict[str, Any]:
    """What the plugins file's ``before:run`` listeners get."""
    spec = session.host.browser_spec
    return {"config": session.config.as_dict(), "specs": [s.as_posix() for s in run.specs],
            "browser": {"name": spec.name, "path": spec.path}}


def _browser_label(session: Any) -> str:
    try:
        spec = session.host.browser_spec
    except RunnerError:
        return "none found"
    mode = "headed" if session.headed else "headless"
    return f"{spec.name} ({mode}) {spec.path}"


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION_KEY, None)
    if session is not None and config.stash.get(_OWNS_SESSION_KEY, False):
        session.close()  # runner run closes the session it made itself


def _session(config: pytest.Config) -> Any:
    session = config.stash.get(_SESSION_KEY, None)
    if session is None:
        session = _create_session(config)
        config.stash[_SESSION_KEY] = session
        config.stash[_OWNS_SESSION_KEY] = True
    return session


def _marks(item: pytest.Item) -> Iterator[tuple[Node, pytest.Mark, dict[str, Any], str]]:
    """The ``runner`` marks of ``item``, farthest first: (node, mark, overrides, where).

    Raises ConfigError for a mark given a positional argument that is not a dict."""
    found = list(item.iter_markers_with_node("runner"))
    for node, mark in reversed(found):
        overrides: dict[str, Any] = {}
        for arg in mark.args:
            if not isinstance(arg, dict):
                raise ConfigError(
                    f"@pytest.mark.runner on {node.nodeid} was given {arg!r}; expected keyword "
                    "arguments (retries=2) or one dict of configuration values."
                    f"\n\n{mark_line(node, mark, item.config.rootpath)}"
                )
            overrides.update(arg)
        overrides.update(mark.kwargs)
        yield node, mark, overrides, f"the runner mark on {node.nodeid}"


def config_for_item(session: Any, item: pytest.Item) -> Config:
    """The configuration of one test: the run's, then suite marks, then test marks.

    Raises ConfigError for a bad mark: its problems, then the user's line that wrote the mark."""
    cached = item.stash.get(_TEST_CONFIG_KEY, None)
    if cached is not None:
        return cached
    config = session.config
    for node, mark, overrides, where in _marks(item):
        if not overrides:
            continue
        level = "test" if isinstance(node, pytest.Function) else "suite"
        try:
            config = config.merged(overrides, source=level, origin=where, level=level)
        except ConfigError as err:
            raise ConfigError(f"{err}\n\n{mark_line(node, mark, item.config.rootpath)}") from None
    item.stash[_TEST_CONFIG_KEY] = config
    return config


@pytest.fixture
def runner(request: pytest.FixtureRequest) -> Generator[Any, None, None]:
    """The command namespace of one test: ``runner.visit()``, ``runner.get()``,
    ``runner.intercept()``, ``runner.wait()``, ... (see docs/commands.md)."""
    session = _session(request.config)
    item = request.node
    try:
        config = config_for_item(session, item)
    except ConfigError as err:
        problem = str(err)
    else:
        problem = ""
    if problem:  # the user's mark: its message and their line, not this fixture's source
        pytest.fail(problem, pytrace=False)
    spec_path = Path(str(item.path))
    relative = _spec_relative(config, spec_path)
    title = " -- ".join(item.nodeid.split("::")[1:]) or item.name
    attempt = item.stash.get(_ATTEMPT_KEY, 1)
    try:
        commands = session.begin_test(
            config, spec_relative=relative, title=title,
            screenshot_dir=lambda: (config.path("screenshotsFolder") or Path(".")) / relative,
            attempt=attempt, nodeid=item.nodeid, trace=_records_trace(config, attempt), spec_file=spec_path,
        )
    except BrowserNotFoundError as err:
        if _is_xdist_worker(request.config):
            # pytest.exit in a worker breaks pytest-xdist's controller: the test fails with it
            pytest.fail(f"runner: {err}", pytrace=False)
        _stop_run(err)
    _print_warnings(request.config, session)
    ctx = commands._ctx
    item.stash[_CTX_KEY] = ctx  # for the reports of this attempt, teardown's too
    try:
        yield commands
    finally:
        session.settle_requests()  # the requests still in flight belong to this test's tables
        session.run_closers()  # what they tell (a HAR written) is in the command log read below
        interceptor = session.network.interceptor_in_use
        # redacted here too: a pytest-xdist worker's report reaches a controller whose bus never
        # learned what this test typed with log=False
        extras = session.redactor.value({
            "log": [e.line for e in ctx.log],
            "routes": interceptor.routes_table() if interceptor is not None else [],
            "requests": interceptor.requests_log() if interceptor is not None else [],
            "slow_ms": float(config.slow_test_threshold),
        })
        item.stash[_EXTRAS_KEY] = extras
        trace_path = _trace_path(session, ctx, item.stash.get(_FAILED_KEY, True)) if ctx.traced else None
        extras["trace"] = session.end_test(trace_path=trace_path, error=item.stash.get(_ERROR_KEY, None))
        _print_warnings(request.config, session)


def _raised_at(excinfo: pytest.ExceptionInfo[BaseException], spec: Path) -> tuple[str | None, int | None]:
    """The file and line of ``spec`` where the error was raised (the innermost frame of it)."""
    for entry in reversed(excinfo.traceback):
        if Path(str(entry.path)) == spec:
            return str(spec), entry.lineno + 1
    return None, None


def _print_warnings(config: pytest.Config, session: Any) -> None:
    """What the session said during the test (a lost trace), on stderr past pytest's capture:
    one ``runner: warning:`` line each."""
    warnings = session.take_warnings()
    if not warnings:
        return
    capman = config.pluginmanager.getplugin("capturemanager")
    uncaptured = capman.global_and_fixture_disabled() if capman is not None else contextlib.nullcontext()
    with uncaptured:
        for warning in warnings:
            print(f"runner: warning: {warning}", file=sys.stderr, flush=True)


def _records_trace(config: Config, attempt: int) -> bool:
    from runner.artifacts.traces import records_trace

    return records_trace(str(config.trace), attempt)


def _trace_path(session: Any, ctx: Any, failed: bool) -> Path | None:
    """Where the attempt's trace is written when it is kept (``trace``: on every recorded
    attempt, or only a failed one), else None: it is discarded.

    ``failed``: the attempt failed in its setup or its call. runner's fixture is torn down
    before the teardown report exists, so a failure in teardown does not keep a trace."""
    from runner.artifacts.traces import claim_trace_path, keeps_trace

    folder = ctx.config.path("tracesFolder")
    if folder is None or not keeps_trace(str(ctx.config.trace), ctx.attempt, failed=failed):
        return None
    return claim_trace_path(folder, ctx.spec_relative, ctx.title, attempt=ctx.attempt, taken=session.trace_paths)


def _stop_run(err: BrowserNotFoundError) -> NoReturn:
    """No browser, no test can run: the run stops with this one message and exit status 1
    (``runner run`` prints it; plain pytest shows it as the reason it stopped)."""
    __tracebackhide__ = True
    pytest.exit(f"runner: {err}", returncode=1)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """``runner run`` launched the browser while pytest started: one that could not start stops
    the run here, before its first test (not once per test)."""
    run_session = session.config.stash.get(_SESSION_KEY, None)
    if run_session is None or _run_plugin(session.config) is None or session.config.option.collectonly:
        return
    if not any("runner" in getattr(item, "fixturenames", ()) for item in session.items):
        return
    if _is_xdist_worker(session.config):
        return  # each test says it (see the runner fixture); the controller checked before
    failure = run_session.host.launch_failure()
    if failure is not None:
        _stop_run(failure)


def _spec_relative(config: Config, spec: Path) -> str:
    return relative_to_first(spec, (config.path("integrationFolder"), config.project_root)) or spec.name


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    __tracebackhide__ = True
    result = yield
    ctx = item.stash.get(_CTX_KEY, None)
    if ctx is not None:
        error = ctx.end_error()
        if error is not None:
            if error.__traceback__ is None:  # a background error raised in a handler keeps its lines
                item.stash[_AT_END_KEY] = error
            raise error
    return result


def _summarize_failure(item: pytest.Item, report: pytest.TestReport,
                       excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """The failed report's error in one line; a failure found when the test ended, its message alone."""
    setattr(report, ERROR_ATTR, error_summary(excinfo.typename, excinfo.value))
    if excinfo.value is item.stash.get(_AT_END_KEY, None):
        # no frame to show but runner's hook (pytest: "All traceback entries are hidden"), then
        # the message again after an "E": the message says it all, once
        report.longrepr = str(excinfo.value)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    excinfo = call.excinfo
    if excinfo is not None:
        drop_runner_frames(excinfo)  # show the user's frames, not runner's internals
    report = yield
    if report.failed and excinfo is not None:
        _summarize_failure(item, report, excinfo)
    quarantine = _quarantine_rules(item.config)
    if quarantine is not None:
        quarantine.tell(item, report)
    if call.when == "setup":
        # until the call reports, the attempt counts as failed (interrupted, say): its trace is kept
        item.stash[_FAILED_KEY] = True if report.passed else report.failed
    elif call.when == "call":
        item.stash[_FAILED_KEY] = report.failed
    if call.when in ("setup", "call") and report.failed and excinfo is not None:
        item.stash[_ERROR_KEY] = (excinfo.value, *_raised_at(excinfo, Path(str(item.path))))
    ctx = item.stash.get(_CTX_KEY, None)
    if call.when == "teardown":
        with contextlib.suppress(KeyError):
            del item.stash[_CTX_KEY]  # a retried attempt gets a context of its own
        extras = item.stash.get(_EXTRAS_KEY, None)
        if extras is not None:
            del item.stash[_EXTRAS_KEY]
            setattr(report, TEST_ATTR, extras)  # plain data: it crosses to xdist's controller
    if ctx is not None:
        # runner.screenshot() files of this phase, then the failure screenshot: each listed once
        report.user_properties.extend(("screenshot", str(p)) for p in ctx.screenshots)
        ctx.screenshots.clear()
    if report.failed and call.when == "call" and ctx is not None and excinfo is not None:
        _tell_failure(ctx, excinfo)
    if report.failed:  # in the test, or in a fixture it uses (set up or torn down)
        if ctx is not None:
            shot = _failure_screenshot(item, ctx)
            if shot is not None:
                report.user_properties.append(("screenshot", str(shot)))
                ctx.tell(ScreenshotTaken(nodeid=item.nodeid, path=str(shot), failure=True, attempt=ctx.attempt))
            if ctx.log:
                report.sections.append(
                    ("runner command log", "\n".join(e.line for e in ctx.log[-30:])))
    return report


def _quarantine_rules(config: pytest.Config) -> QuarantineRules | None:
    """The run's quarantine (None when no run session is active: plain pytest without runner)."""
    rules = config.stash.get(_QUARANTINE_KEY, None)
    if rules is None:
        session = config.stash.get(_SESSION_KEY, None)
        if session is None:
            return None
        from runner.plugin.quarantine import QuarantineRules

        rules = config.stash[_QUARANTINE_KEY] = QuarantineRules(session.config)
    return rules


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A quarantine mark without a reason fails its test before the test runs, with its message."""
    if item.config.stash.get(_SESSION_KEY, None) is None:
        return
    from runner.plugin.quarantine import mark_problem

    problem = mark_problem(item)
    if problem is not None:
        pytest.fail(problem, pytrace=False)


def _tell_failure(ctx: Any, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """A failure no command raised (a plain ``assert``) as the command log's last line, with
    pytest's explanation (``assert [1, 2] == [1, 3]`` and its diff): else the log reads green."""
    error = excinfo.value
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - a user's exception may have a broken __str__
        text = "<its message could not be read>"
    explanation = cut_text(f"{excinfo.typename}: {text}".rstrip(), ERROR_TEXT_LIMIT, "the failure's explanation")
    where = None
    for entry in reversed(excinfo.traceback):  # the user's line: the innermost frame of theirs
        if not is_internal(str(entry.path)):
            try:
                statement = str(entry.statement).strip()
            except Exception:  # noqa: BLE001 - a source that cannot be read: the line alone
                statement = ""
            where = (str(entry.path), entry.lineno + 1, " ".join(statement.split()))
            break
    tell_failure(ctx, error, explanation, where)


def _failure_screenshot(item: pytest.Item, ctx: Any) -> Path | None:
    """``screenshotOnRunFailure``: a full-page PNG at the moment of failure, in headless runs."""
    session = item.config.stash.get(_SESSION_KEY, None)
    if session is None or session.headed or not ctx.config.screenshot_on_run_failure:
        return None
    folder = ctx.config.path("screenshotsFolder")
    if folder is None:
        return None
    from runner.artifacts.screenshots import claim_screenshot_path

    path = claim_screenshot_path(folder / ctx.spec_relative, ctx.title, tail=" (failed)",
                                 taken=ctx.screenshot_paths, attempt=ctx.attempt)
    browser = ctx.browser
    if not browser.alive:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # bounded by seconds, not by any of the test's timeouts: a failed test ends soon after
        # its failing command, whatever the page is doing (loading forever, stuck in a loop)
        taken = ctx.loop.run(browser.failure_screenshot(path, timeout_ms=_FAILURE_SHOT_MS),
                             _FAILURE_SHOT_MS / 1000 + 1)
    except EngineTimeout:
        taken = False
    except Exception:  # noqa: BLE001 - a failed screenshot must not hide the test's own error
        return None
    if not taken:
        # its JavaScript does not let go: the next test gets a fresh page at once
        browser.stopped_responding("The page did not answer the failure screenshot.")
        return None
    return path


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Run ``runner`` tests with retries (``retries`` / the mark) and keep every attempt; with
    ``retries.deferred``, a failed test's retries run after its spec's other tests (retrying.py)."""
    session = item.config.stash.get(_SESSION_KEY, None)
    if session is None:
        return None
    from runner.plugin.retrying import TestAttempts, run_test

    waiting = item.config.stash.setdefault(_WAITING_KEY, [])
    attempts = None
    if "runner" in getattr(item, "fixturenames", ()):
        try:
            config = config_for_item(session, item)
        except ConfigError:
            pass  # the fixture raises it as the test's error: one attempt
        else:
            policy = config.retry_policy("openMode" if session.mode == "open" else "runMode")
            attempts = TestAttempts(item, policy, _set_attempt, _tell_interrupted, _tell_attempt_ended)
    if attempts is None and not waiting:
        return None  # pytest's own protocol: no test's retries wait for the spec's end
    # pytest's own -x / --maxfail (plain pytest, PYTEST_ADDOPTS: `runner run -- -x` is runner's
    # --max-failures, which counts final outcomes) stops at a failed test: its retries cannot wait
    # for later ones; a pytest-xdist worker reports only the test it runs (see _deferred_notice)
    may_defer = not item.config.option.maxfail and not _is_xdist_worker(item.config)
    run_test(item, nextitem, attempts, waiting, may_defer=may_defer)
    return True


def _set_attempt(item: pytest.Item, number: int) -> None:
    item.stash[_ATTEMPT_KEY] = number


def _tell_attempt_ended(item: pytest.Item, attempt: dict[str, Any]) -> None:
    """An attempt after which ``item`` runs another: its ``attempt.ended`` now, by the run's
    recorder (a pytest-xdist worker has none: the controller tells it from the test's reports)."""
    recorder = item.config.pluginmanager.get_plugin("runner-results")
    if recorder is not None:
        recorder.attempt_ended(item.nodeid, attempt)


def _tell_interrupted(item: pytest.Item, err: BaseException, earlier: list[dict[str, Any]],
                      duration_s: float) -> None:
    """The run was interrupted during an attempt of ``item``: report that attempt as failed by
    the interruption (its earlier attempts and its command log so far kept), and end the test."""
    run = _run_plugin(item.config)
    reason = interruption_reason(run.interrupted_by() if run is not None else None, err)
    ctx = item.stash.get(_CTX_KEY, None)
    extras = {"log": [e.line for e in ctx.log]} if ctx is not None else None
    report = interrupted_report(item.nodeid, item.location, reason, duration_s, extras)
    if earlier:
        setattr(report, ATTEMPTS_ATTR, earlier)
    item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
