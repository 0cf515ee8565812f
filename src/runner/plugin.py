"""The pytest plugin: the ``runner`` fixture, the ``runner`` mark, retries and the run's hooks.

It is registered through the ``pytest11`` entry point, so ``pytest`` on a spec works as well as
``runner run``. It stays inert (no configuration read, no browser) in a pytest run that has no
``runner.json`` and no ``--runner-*`` option until a test asks for the ``runner`` fixture.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pytest
from _pytest._code import Traceback
from _pytest.runner import runtestprotocol

from runner.errors import ConfigError, RunnerError
from runner.reporters.collector import (
    ATTEMPTS_ATTR,
    ERROR_ATTR,
    ResultCollector,
    _attempt_from_reports,
    error_summary,
    relative_to_first,
)
from runner.tracebacks import is_internal, is_library, is_runner

if TYPE_CHECKING:  # the plugin loads in every pytest run: the config layer only when used
    from runner.config import Config

__all__ = ["current_config", "runner"]

_SESSION_KEY = pytest.StashKey["Any"]()
_TEST_CONFIG_KEY = pytest.StashKey["Config"]()
_ATTEMPT_KEY = pytest.StashKey[int]()
_EXTRAS_KEY = pytest.StashKey[tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]]()

# Set by `runner run` before it calls pytest, so the session it validated is the one used.
preset_session: Any = None
preset_reporters: list[Any] = []
preset_specs: list[Path] | None = None  # the specs runner run selected, in order

_state: dict[str, Any] = {"session": None, "ctx": None}
_CTX_KEY = pytest.StashKey[Any]()  # the runner fixture's TestContext, on its test item


def current_config() -> Config | None:
    """The configuration of the running test, else of the run, else None (no run)."""
    ctx = _state.get("ctx")
    if ctx is not None:
        return ctx.config
    session = _state.get("session")
    return session.config if session is not None else None


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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "runner(**overrides): test configuration for a test or a class (retries, timeouts, "
        "viewportWidth, baseUrl, env, includeShadowDom, ...)",
    )
    session = preset_session
    if session is None and _wants_eager_session(config):
        session = _create_session(config)
    if session is not None:
        _install(config, session)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Under plain ``pytest``: the configuration's warnings and unusable artifact folders, at the
    top of the output (``runner run`` prints them itself before the run)."""
    session = config.stash.get(_SESSION_KEY, None)
    if session is None or preset_session is not None:
        return []
    from runner.artifacts.folders import artifact_folder_warnings

    found = [*session.config.warnings, *artifact_folder_warnings(session.config, video=False)]
    return [f"runner: warning: {warning}" for warning in found]


def _wants_eager_session(config: pytest.Config) -> bool:
    opt = config.option
    if any(getattr(opt, name, None) for name in ("runner_project", "runner_config_file", "runner_config",
                                                   "runner_env", "runner_browser")):
        return True
    return (Path(config.rootpath) / "runner.json").is_file()


def _create_session(config: pytest.Config) -> Any:
    from runner.session import RunSession

    opt = config.option
    root = opt.runner_project or str(config.rootpath)
    try:
        return RunSession.create(
            root=root, config_file=opt.runner_config_file, cli_config=opt.runner_config,
            cli_env=opt.runner_env, browser=opt.runner_browser, headed=opt.runner_headed,
            mode="pytest",
        )
    except RunnerError as err:
        raise pytest.UsageError(f"runner: {err}") from err


def _install(config: pytest.Config, session: Any) -> None:
    """Make ``session`` the run's session: support file, result collector, shutdown."""
    from runner import __version__

    config.stash[_SESSION_KEY] = session
    _state["session"] = session
    try:
        support = session.load_support_file()
    except RunnerError as err:
        raise pytest.UsageError(f"runner: {err}") from err
    if support is not None:
        config.pluginmanager.register(support, "runner-support-file")
    interactive = session.mode == "open"
    emit = not interactive or bool(session.config.experimental_interactive_run_events)
    spec_root = session.config.path("integrationFolder")
    collector = ResultCollector(
        project_root=session.config.project_root, spec_root=spec_root, reporters=list(preset_reporters),
        events=session.events, emit_events=emit, browser=_browser_label(session),
        version=__version__, config=session.config.as_dict(),
        slow_threshold=lambda nodeid: _slow_threshold(session, nodeid),
        test_extras=_take_extras, finish_spec=session.finish_spec,
        settle_videos=session.settle_videos, spec_paths=preset_specs,
    )
    config.stash[_COLLECTOR_KEY] = collector
    _state["collector"] = collector
    config.pluginmanager.register(collector, "runner-results")


_COLLECTOR_KEY = pytest.StashKey[ResultCollector]()
_slow: dict[str, float] = {}
_extras: dict[str, tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]] = {}


def _slow_threshold(session: Any, nodeid: str) -> float:
    return _slow.get(nodeid, float(session.config.slow_test_threshold))


def _take_extras(nodeid: str) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    return _extras.pop(nodeid, ([], [], []))


def _browser_label(session: Any) -> str:
    try:
        spec = session.browser_spec
    except RunnerError:
        return "none found"
    mode = "headed" if session.headed else "headless"
    return f"{spec.name} ({mode}) {spec.path}"


def last_run() -> Any:
    """The results of the latest run in this process (for ``runner run``'s exit status)."""
    collector = _state.get("collector")
    return None if collector is None else collector.run


def last_reporter_failures() -> list[str]:
    """What went wrong in the reporters of the latest run (each was switched off when it raised)."""
    collector = _state.get("collector")
    return [] if collector is None else list(collector.reporter_failures)


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION_KEY, None)
    if session is None and _state.get("session") is not None and preset_session is None:
        session = _state["session"]
    if session is not None:
        session.close()
    _state["session"] = None
    _state["ctx"] = None


def _session(config: pytest.Config) -> Any:
    session = config.stash.get(_SESSION_KEY, None)
    if session is None:
        session = _create_session(config)
        config.stash[_SESSION_KEY] = session
        _state["session"] = session
    return session


def _marks(item: pytest.Item) -> Iterator[tuple[str, dict[str, Any], str]]:
    """The ``runner`` marks of ``item``, farthest first: (level, overrides, where)."""
    found = list(item.iter_markers_with_node("runner"))
    for node, mark in reversed(found):
        overrides: dict[str, Any] = {}
        for arg in mark.args:
            if not isinstance(arg, dict):
                raise ConfigError(
                    f"@pytest.mark.runner on {node.nodeid} was given {arg!r}; expected keyword "
                    "arguments (retries=2) or one dict of configuration values."
                )
            overrides.update(arg)
        overrides.update(mark.kwargs)
        level = "test" if isinstance(node, pytest.Function) else "suite"
        yield level, overrides, f"the runner mark on {node.nodeid}"


def config_for_item(session: Any, item: pytest.Item) -> Config:
    """The configuration of one test: the run's, then suite marks, then test marks."""
    cached = item.stash.get(_TEST_CONFIG_KEY, None)
    if cached is not None:
        return cached
    config = session.config
    for level, overrides, where in _marks(item):
        if overrides:
            config = config.merged(overrides, source=level, origin=where, level=level)
    item.stash[_TEST_CONFIG_KEY] = config
    return config


@pytest.fixture
def runner(request: pytest.FixtureRequest) -> Generator[Any, None, None]:
    """The command namespace of one test: ``runner.visit()``, ``runner.get()``,
    ``runner.intercept()``, ``runner.wait()``, ... (see docs/commands.md)."""
    session = _session(request.config)
    item = request.node
    config = config_for_item(session, item)
    _slow[item.nodeid] = float(config.slow_test_threshold)
    spec_path = Path(str(item.path))
    relative = _spec_relative(config, spec_path)
    title = " -- ".join(item.nodeid.split("::")[1:]) or item.name
    commands = session.begin_test(
        config, spec_relative=relative, title=title,
        screenshot_dir=lambda: (config.path("screenshotsFolder") or Path(".")) / relative,
        attempt=item.stash.get(_ATTEMPT_KEY, 1),
    )
    _state["ctx"] = commands._ctx
    item.stash[_CTX_KEY] = commands._ctx  # for the reports of this attempt, teardown's too
    try:
        yield commands
    finally:
        ctx = commands._ctx
        interceptor = session._interceptor
        routes = interceptor.routes_table() if interceptor is not None else []
        requests = interceptor.requests_log() if interceptor is not None else []
        _extras[item.nodeid] = ([f"{e.name}: {e.message}" for e in ctx.log], routes, requests)
        session.end_test()
        _state["ctx"] = None


def _spec_relative(config: Config, spec: Path) -> str:
    return relative_to_first(spec, (config.path("integrationFolder"), config.project_root)) or spec.name


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    result = yield
    ctx = _state.get("ctx")
    if ctx is not None:
        error = ctx.take_async_error()
        if error is not None:
            raise error
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    excinfo = call.excinfo
    if excinfo is not None:
        _drop_runner_frames(excinfo)  # show the user's frames, not runner's internals
    report = yield
    if report.failed and excinfo is not None:
        setattr(report, ERROR_ATTR, error_summary(excinfo.typename, excinfo.value))
    ctx = item.stash.get(_CTX_KEY, None)
    if call.when == "teardown":
        with contextlib.suppress(KeyError):
            del item.stash[_CTX_KEY]  # a retried attempt gets a context of its own
    if ctx is not None:
        # runner.screenshot() files of this phase, then the failure screenshot: each listed once
        report.user_properties.extend(("screenshot", str(p)) for p in ctx.screenshots)
        ctx.screenshots.clear()
    if report.failed:  # in the test, or in a fixture it uses (set up or torn down)
        if ctx is not None:
            shot = _failure_screenshot(item, ctx)
            if shot is not None:
                report.user_properties.append(("screenshot", str(shot)))
            if ctx.log:
                report.sections.append(
                    ("runner command log", "\n".join(f"{e.name}: {e.message}" for e in ctx.log[-30:])))
    return report


def _drop_runner_frames(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Leave runner's own frames out of a failure's traceback, when the failure is not runner's.

    That is a runner error (``CommandError``...: the user's call is the place to show) or an error
    raised in the user's code that runner called back (a ``then`` callback). A runner error's
    cause raised inside runner or a library (Playwright's error behind ``request()``) is left out
    too: its message already says what went wrong. Anything else raised inside runner is a bug
    in runner and keeps every frame.

    Filtering ``excinfo.traceback`` is not enough: pytest cuts the traceback at the test function
    by rebuilding it from that frame's raw traceback object, which brings every later frame back.
    Relinking the raw chain (``tb_next`` is writable) removes them for every reader.
    """
    error = excinfo.value
    chain = _tb_chain(excinfo.tb)
    if not chain:
        return
    # whose code raised: the innermost frame that is not the standard library's or a package's
    raiser = next((t for t in reversed(chain) if not is_library(_file(t))), None)
    runner_error = isinstance(error, RunnerError)
    if not runner_error and (raiser is None or is_runner(_file(raiser))):
        return  # raised in runner (a bug: every frame helps) or only in libraries
    if runner_error and error.__cause__ is not None:
        cause_chain = _tb_chain(error.__cause__.__traceback__)
        if not cause_chain or is_internal(_file(cause_chain[-1])):
            error.__cause__ = None
            error.__suppress_context__ = True
    kept = [t for t in chain if not is_runner(_file(t))]
    if len(kept) == len(chain) or not any(not is_internal(_file(t)) for t in kept) or kept[0] is not chain[0]:
        return  # nothing to drop, or nothing of the user's to show
    for before, after in zip(kept, kept[1:], strict=False):
        before.tb_next = after
    kept[-1].tb_next = None
    excinfo.traceback = Traceback(kept[0])


def _tb_chain(tb: TracebackType | None) -> list[TracebackType]:
    chain = []
    while tb is not None:
        chain.append(tb)
        tb = tb.tb_next
    return chain


def _file(tb: TracebackType) -> str:
    return tb.tb_frame.f_code.co_filename


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
        ctx.loop.run(browser.screenshot(path, full_page=True), 30)
    except Exception:  # noqa: BLE001 - a failed screenshot must not hide the test's own error
        return None
    return path



@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Run ``runner`` tests with retries (``retries`` / the mark) and keep every attempt."""
    if "runner" not in getattr(item, "fixturenames", ()):
        return None
    session = item.config.stash.get(_SESSION_KEY, None)
    if session is None:
        return None
    try:
        config = config_for_item(session, item)
    except ConfigError:
        return None  # the fixture raises it as the test's error
    mode = "openMode" if session.mode == "open" else "runMode"
    retries = config.retries_for(mode)
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    earlier = []
    reports = []
    for attempt in range(retries + 1):
        item.stash[_ATTEMPT_KEY] = attempt + 1
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        if not any(r.failed for r in reports) or attempt == retries:
            break
        earlier.append(_attempt_from_reports(reports))
    for report in reports:
        if earlier:
            setattr(report, ATTEMPTS_ATTR, earlier)
            report.sections.append(("runner attempts", f"attempt {len(earlier) + 1} of {len(earlier) + 1}"))
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True

