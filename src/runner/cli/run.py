"""``runner run``: the specs run headless and reported; the exit status is the number of failed tests.

The order matters, and is this module's job: every check that can refuse the run (the specs, the
reporter, the events file, a pytest expression, the browser, the base URL, ffmpeg) comes before
the artifacts' lock is taken and anything is trashed; the tests run in a watched child process
(:mod:`runner.run.guard`) that hands the run to pytest (:mod:`runner.run.launch`); then the
reports are finished and the outcome told in one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.cli.parser import (
    DEFAULT_DURATIONS_HELP,
    common_options,
    config_port,
    fail,
    snapshot_options,
    with_snapshot_mode,
)
from runner.errors import RunnerError, UsageError
from runner.run.specs import select_specs, spec_folder

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    run = sub.add_parser("run", help="run the specs headlessly (the main job)",
                         description="Run the specs selected by integrationFolder (componentFolder "
                                     "with --component), testFiles and ignoreTestFiles, headless, "
                                     "and report.")
    common_options(run)
    run_kind = run.add_mutually_exclusive_group()
    run_kind.add_argument("--e2e", dest="testing_type", action="store_const", const="e2e", default="e2e",
                          help="run the end-to-end specs of integrationFolder (the default)")
    run_kind.add_argument("--component", dest="testing_type", action="store_const", const="component",
                          help="run the component specs of componentFolder, with the component block applied")
    run.add_argument("--spec", "-s", action="append", default=None, metavar="GLOBS",
                     help="only these specs: comma-separated paths or globs; may be repeated "
                          "(the specs any of them match run)")
    run.add_argument("--only-changed", nargs="?", const="HEAD", default=None, metavar="REF",
                     help="only the specs git says changed since REF (default HEAD: the uncommitted changes), "
                          "and those that import a changed module or read a changed fixture (docs/flakes.md)")
    run.add_argument("--browser", "-b", default=None, metavar="NAME|PATH",
                     help="chromium, chrome, or the path of a browser executable")
    run.add_argument("--headed", action="store_true", help="show the browser window")
    run.add_argument("--browser-endpoint", default=None, metavar="WS_URL",
                     help="use the browser of a Playwright server (playwright run-server, a grid) instead of "
                          "launching one (also RUNNER_BROWSER_ENDPOINT)")
    run.add_argument("--browser-endpoint-header", action="append", default=None, metavar="'NAME: VALUE'",
                     help="a header to connect to the browser endpoint with (authentication); may be repeated "
                          "(also RUNNER_BROWSER_ENDPOINT_HEADERS, a JSON object)")
    run.add_argument("--reporter", "-r", default=None, help="the reporter (default: spec)")
    run.add_argument("--reporter-options", "-o", action="append", default=None, metavar="VALUES",
                     help="reporter options: name=value,... or a JSON object; may be repeated")
    run.add_argument("--port", "-p", type=config_port, default=None, help="port of runner's file server")
    snapshot_options(run)
    run.add_argument("--workers", "-w", default=None, metavar="N|auto",
                     help="run the specs in N worker processes, each with its own browser (also RUNNER_WORKERS)")
    run.add_argument("--shard", default=None, metavar="I/N",
                     help="run shard I of N: a share of the specs balanced by recorded durations (docs/parallel.md)")
    run.add_argument("--durations", default=None, metavar="FILE",
                     help=f"the durations file --shard balances by (default: {DEFAULT_DURATIONS_HELP})")
    run.add_argument("--record-durations", action="store_true",
                     help="write each spec's duration into the durations file after the run")
    run.add_argument("--max-failures", default=None, metavar="N",
                     help="stop after N failed tests, across all workers; the tests not run are listed "
                          "as such (pytest's -x and --maxfail after -- mean this)")
    run.add_argument("--fail-on-flaky", action="store_true",
                     help="a test that passed only on a retry (flaky) fails the run: the exit status counts it "
                          "as a failure (quarantined tests excepted; docs/flakes.md)")
    rerun = run.add_mutually_exclusive_group()
    rerun.add_argument("--last-failed", "--lf", dest="rerun", action="store_const", const="only", default=None,
                       help="run only the tests that failed in the last run (all when none did), from "
                            "runner/history.json (docs/flakes.md)")
    rerun.add_argument("--failed-first", "--ff", dest="rerun", action="store_const", const="first",
                       help="run the tests that failed in the last run first, then the others")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER,
                     help="after --, arguments passed to pytest as they are (e.g. -- -k login)")


def command(args: argparse.Namespace) -> int:
    from runner.run.guard import guarded

    # Repeated --spec flags add up: one filter, as if their globs were written comma-separated.
    args.spec = ",".join(args.spec) if args.spec else None

    def run(journal: Any) -> int:
        try:
            extra = _pytest_extra(args)
            reruns: list[str] = []
            args.max_failures, args.pytest_args, stops = _max_failures(args.max_failures, extra, reruns)
            from_env, env_stops = _addopts_stops(reruns)
            if from_env is not None:
                args.max_failures = min(from_env, args.max_failures or from_env)
                stops += env_stops
            _take_reruns(args, reruns)
            if stops:
                print(f"runner: notice: pytest's {', '.join(stops)} is "
                      f"runner's --max-failures {args.max_failures} in a runner run (it counts the failures of "
                      "all workers).", file=sys.stderr)
            return _run_watched(args, journal)
        except RunnerError as err:
            return fail(str(err))

    # The tests run in a watched child process: one that dies never reads as passed (run/guard.py).
    return guarded(run)


def _run_watched(args: argparse.Namespace, journal: Any) -> int:
    from runner.run.interrupts import RunInterrupts, kill_descendants

    args.journal = journal
    interrupts = RunInterrupts()
    if journal is not None:  # a stop at once is told apart from a test that exits with 130 or 143
        interrupts.on_stop = journal.stopped
    with interrupts:
        try:
            code = _start_run(args, interrupts)
        except KeyboardInterrupt:
            # stopped before pytest ran the specs, or while the run was being closed
            code = interrupts.exit_code
            print(f"\nrunner: interrupted by {interrupts.name or 'KeyboardInterrupt'}.", file=sys.stderr)
        if interrupts.signum is not None:
            # A driver killed by a terminal's Ctrl-C leaves its browser to runner (the subreaper):
            # an interrupted run leaves no process it started behind.
            kill_descendants()
        return code


def _start_run(args: argparse.Namespace, interrupts: Any) -> int:
    from runner.engine.driver import start_driver_early
    from runner.engine.loop import EngineLoop

    loop = EngineLoop()
    early = not _asks_for_workers(args)  # workers start their own drivers and browsers
    if early:
        start_driver_early(loop)  # overlaps the driver's start-up with everything below

    import os

    from runner.config import load_config
    from runner.engine.remote import remote_endpoint

    try:
        endpoint = remote_endpoint(args.browser_endpoint, args.browser_endpoint_header, os.environ)
        cli_config: list[Any] = list(args.config or [])
        if args.port is not None:
            cli_config.append({"port": args.port})  # after every --config: --port wins
        cli_config = with_snapshot_mode(cli_config, args.update_snapshots)
        config = load_config(args.project, config_file=args.config_file, testing_type=args.testing_type,
                             cli_config=cli_config, cli_env=args.env)
        from runner.run.browser_host import drop_early_launch, launch_early

        # The browser launches while the rest of runner loads and pytest starts; not a window
        # (--headed): one must not open for a run refused before its tests, as none did.
        if early and not args.headed:
            launch_early(loop, config, browser_choice=args.browser, headed=False, endpoint=endpoint)
        try:
            from runner.run.session import RunSession

            session = RunSession.create(config=config, browser=args.browser, headed=args.headed, mode="run",
                                        loop=loop, endpoint=endpoint)
        except BaseException:
            drop_early_launch(loop)
            raise
    except BaseException:
        loop.close()
        raise
    try:
        return _run_session(args, session, interrupts)
    finally:
        session.close()  # a run that stops before its tests leaves no browser behind either


def _run_session(args: argparse.Namespace, session: Any, interrupts: Any) -> int:
    from runner.artifacts.events_file import check_events_file
    from runner.reporters import make_reporter

    config = session.config
    for warning in config.warnings:
        print(f"runner: warning: {warning}", file=sys.stderr)
    cwd = Path.cwd()
    specs, warnings = select_specs(config, args.spec, cwd)
    for warning in warnings:
        print(f"runner: warning: {warning}", file=sys.stderr)
    if not specs:
        key, where = spec_folder(config)
        narrowed = f" and --spec {args.spec!r}" if args.spec else ""
        return fail(
            f"no spec files were found in {where} matching testFiles {config.test_files!r}{narrowed}.\n"
            f"Check {key}, testFiles and ignoreTestFiles in runner.json."
        )
    if args.only_changed is not None:
        specs = _only_changed(session, specs, args.only_changed)
        if not specs and args.shard is None:
            return 0  # nothing to run: the last run's reports and artifacts stay as they were
    rerun = _rerun(args, config, specs)
    if rerun is not None:
        specs = rerun.specs
    if args.shard is not None:
        from runner.run.shards import take_shard

        # with --last-failed a spec weighs the tests of it that run, not all it holds
        only = rerun.selected() if rerun is not None and rerun.select and args.rerun == "only" else None
        specs = take_shard(session, args.shard, args.durations, specs, only)
    if rerun is not None:
        print(rerun.told(specs, config.project_root, args.shard), file=sys.stderr)
    workers = _workers(args, config, specs)
    if workers > 1:
        from runner.run.shards import durations_for
        from runner.run.workers import longest_first

        specs = longest_first(specs, config.project_root, durations_for(config.project_root, args.durations))
    if rerun is not None:
        specs = rerun.failing_first(specs, config.project_root)
        args.rerun_select = rerun.select
    args.worker_count = workers
    # the reporter, its options and the events file are checked before anything is launched or trashed
    if args.reporter is not None and not args.reporter.strip():
        return fail("--reporter needs a name: spec, dot, list, min, tap, json, junit, or a custom reporter.")
    reporter_name = args.reporter or config.reporter
    if reporter_name == "html":
        return fail(_HTML_IS_NOT_A_RUN_REPORTER)
    reporter = make_reporter(reporter_name, config.reporter_options, config.project_root,
                             flags=args.reporter_options)
    events_path = check_events_file(config)
    from runner.plugin.selection import expression_problem

    problem = expression_problem(_pytest_extra(args))
    if problem is not None:
        return fail(f"{problem} Nothing was run; the last run's reports and artifacts stay as they were.")
    from runner.run.lock import lock_artifacts

    # Before anything is trashed or written: another run of these folders is refused, not trashed.
    lock = lock_artifacts(config, pid=args.journal.command_pid if args.journal is not None else None)
    try:
        # The app's servers answer before baseUrl is checked; leaving the block stops them however
        # the run ends (run/web_server.py).
        with _web_servers(session, proxied=args.worker_count <= 1):
            return _run_locked(args, session, interrupts, reporter, reporter_name, specs, events_path)
    finally:
        lock.release()


def _web_servers(session: Any, *, proxied: bool) -> Any:
    """``webServer``: the app's servers started (in this process: workers share them), each
    answering, and told as ``web_server.started`` events once the run has started (the events
    file and the reports begin at run.started); raises ``WebServerError`` when one cannot be.
    ``proxied`` (the tests run in this process, no workers): the servers send their requests
    through runner's proxy, where the tests' ``runner.intercept_backend`` routes see them."""
    from runner.config.web_server import web_servers
    from runner.events import RunStarted
    from runner.run.web_server import start_web_servers

    config = session.config
    specs = web_servers(config.web_server, config.project_root)
    # the proxy starts with the first server runner starts: a reused server cannot be given it
    extra_env = session.backend_environment if proxied else {}
    servers = start_web_servers(specs, extra_env=extra_env,
                                redact=lambda text: session.redactor.text(text),  # the plugins file may add secrets
                                on_exit=session.bus.publish)
    if servers.events:
        def tell(_event: Any) -> None:
            for event in servers.events:
                session.bus.publish(event)

        session.bus.subscribe(tell, (RunStarted,))
    return servers


def _run_locked(args: argparse.Namespace, session: Any, interrupts: Any, reporter: Any,
                reporter_name: str, specs: list[Path], events_path: Path | None) -> int:
    config = session.config
    problem = _launch_problem(args, session)
    if problem is not None:
        return fail(problem)
    aside = _clear_the_way(args, config, events_path)
    if isinstance(aside, str):
        return fail(aside)
    from runner.run.start import RunStart

    # The folders are emptied and the events file written when the run starts: a run pytest
    # cannot start leaves the last run's artifacts as they were (run/start.py).
    writer = RunStart(events_path, *aside)
    session.bus.subscribe(writer)
    durations = _durations_recorder(args, session)
    history = _history_recorder(session)
    baselines = _baselines_written(session)
    if not specs:  # a shard with no spec (more shards than specs): its events say so, for the merge
        from runner.run.shards import tell_empty_shard

        tell_empty_shard(session)
        session.close()
        writer.close()
        return 0
    report = _html_report(session)
    if args.journal is not None:  # what the watching process needs to finish the reports of a death
        args.journal.attach(session, reporter=reporter_name, options=config.reporter_options,
                            flags=args.reporter_options, report=report.target if report is not None else None,
                            events=events_path, fail_on_flaky=args.fail_on_flaky)
    from runner.events import RunEnded
    from runner.run.launch import run_pytest
    from runner.run.workers import xdist_args

    extra = _pytest_extra(args)
    options = [*_worker_args(args, config.project_root), *xdist_args(args.worker_count), *extra]
    if getattr(args, "rerun_select", None):
        options[:0] = ["--runner-select", args.rerun_select]
    session.bus.subscribe(interrupts.run_ended, (RunEnded,))  # a signal after it: the reports are finished
    try:
        ran = run_pytest(session, [str(s) for s in specs], specs, reporters=[reporter],
                         interrupted_by=lambda: interrupts.name, options=options, max_failures=args.max_failures,
                         fail_on_flaky=args.fail_on_flaky)
    finally:
        session.close()
        writer.close()
        if writer.started:
            if report is not None and history is not None:
                report.history = history.report_data()
            _write_html_report(report, session)
        else:  # pytest never started the run: the last run's report and events file stay
            writer.undo()
            if report is not None:
                report.discard()
        if durations is not None:
            print(durations.write(), file=sys.stderr)
        warning = history.write() if history is not None and writer.started else None
        if warning is not None:
            print(warning, file=sys.stderr)
        written = baselines()
        if written is not None:
            print(written, file=sys.stderr)
    return _exit_status(ran, interrupts, session, writer.started, args, reporter_name)


def _only_changed(session: Any, specs: list[Path], ref: str) -> list[Path]:
    """``--only-changed``: the specs the changes since ``ref`` can affect, told in one line (before
    ``--shard`` takes its share of them) and kept for ``run.started`` (the report's run details).
    Raises ``ChangedError`` when git cannot tell."""
    from runner.run.changed import select_changed

    selection = select_changed(session.config, specs, ref)
    print(selection.notice(), file=sys.stderr)
    session.only_changed = selection.described(spec_folder(session.config)[1])
    return selection.specs


def _launch_problem(args: argparse.Namespace, session: Any) -> str | None:
    """What must stop the run before anything is trashed: no browser (or an endpoint that cannot
    serve the workers), a base URL that does not answer; ffmpeg missing for a video raises."""
    from runner.run.session import check_base_url

    config = session.config
    if args.worker_count > 1 and session.host.endpoint is not None:
        # each worker connects on its own: an endpoint that cannot serve them is one message here
        failure = session.host.launch_failure()
        session.host.close_browser()
        if failure is not None:
            return str(failure)
    elif args.worker_count > 1:
        _ = session.host.browser_spec  # each worker launches its own: here, only fail early without one
    else:
        session.host.prelaunch()  # fails early and clearly when there is no browser
    if config.base_url:
        problem = check_base_url(str(config.base_url))
        if problem:
            return problem
    if config.video and not args.headed:
        from runner.artifacts.video import find_ffmpeg

        find_ffmpeg()  # says what to install (or to set video: false) before anything runs
    return None


def _clear_the_way(args: argparse.Namespace, config: Any, events_path: Path | None) -> tuple[Any, Any] | str:
    """The last run's artifacts: planned for the trash (``trashAssetsBeforeRuns``), or its events
    file kept aside; the artifact folders checked. ``(trash plan, kept events file)``, or why the
    run cannot go on."""
    from runner.artifacts.events_file import keep_aside

    plan = kept = None
    if config.trash_assets_before_runs and not args.headed:
        from runner.artifacts.trash import plan_trash

        plan = plan_trash(config)  # refuses (ConfigError) to touch anything it must not
        if events_path is not None:
            plan.files.append(("eventsFile", events_path))
    elif events_path is not None:
        try:
            moved = keep_aside(events_path)
        except OSError as err:
            return (f"eventsFile: the older events file {str(events_path)!r} could not be kept "
                    f"aside ({err}), so it was not overwritten. Move it, or set eventsFile to false.")
        kept = (moved, events_path) if moved is not None else None
    from runner.artifacts.folders import artifact_folder_warnings

    # A folder that cannot be written to costs its artifacts, not the run.
    for warning in artifact_folder_warnings(config, video=bool(config.video) and not args.headed):
        print(f"runner: warning: {warning}", file=sys.stderr)
    return plan, kept


def _durations_recorder(args: argparse.Namespace, session: Any) -> Any:
    """``--record-durations``: the recorder, subscribed to the run's events (None without the flag)."""
    if not args.record_durations:
        return None
    from runner.run.shards import DurationsRecorder, durations_path

    root = session.config.project_root
    durations = DurationsRecorder(durations_path(root, args.durations), root)
    session.bus.subscribe(durations)
    return durations


def _baselines_written(session: Any) -> Callable[[], str | None]:
    """What the run wrote into the snapshot baselines (match.screenshot, match.aria_snapshot),
    told after the run: a test that passes under ``--update-snapshots`` says nothing of it."""
    from runner.events import SnapshotCompared

    written: dict[str, list[str]] = {"written": [], "updated": []}

    def hear(event: Any) -> None:
        if event.outcome in written:
            path = Path(event.baseline)
            root = session.config.project_root
            written[event.outcome].append(str(path.relative_to(root)) if path.is_relative_to(root) else str(path))

    session.bus.subscribe(hear, (SnapshotCompared,))

    def told() -> str | None:
        parts = []
        for how, paths in written.items():
            if paths:
                noun = "baseline" if len(paths) == 1 else "baselines"
                what = f"new {noun} written" if how == "written" else f"{noun} rewritten"
                parts.append(f"{len(paths)} {what}: {', '.join(paths)}")
        if not parts:
            return None
        return f"runner: snapshots: {'; '.join(parts)}."

    return told


def _history_recorder(session: Any) -> Any:
    """The history's recorder, subscribed to the run's events (None with ``historyRuns: 0``)."""
    config = session.config
    if not config.history_runs:
        return None
    from runner.run.history import HistoryRecorder, history_path

    recorder = HistoryRecorder(history_path(config.project_root), config.history_runs, config.project_root)
    session.bus.subscribe(recorder)
    return recorder


def _take_reruns(args: argparse.Namespace, reruns: list[str]) -> None:
    """pytest's ``--lf``/``--ff`` after ``--`` (taken out of its arguments by :func:`_max_failures`)
    mean runner's ``--last-failed``/``--failed-first`` in a runner run: pytest's own cache is off."""
    if not reruns:
        return
    modes = {_RERUN_ALIASES[arg] for arg in reruns} | ({args.rerun} if args.rerun else set())
    if len(modes) > 1:
        raise UsageError("--last-failed and --failed-first cannot be combined: pick one.")
    args.rerun = modes.pop()
    flag = "--last-failed" if args.rerun == "only" else "--failed-first"
    print(f"runner: notice: pytest's {reruns[0]} is runner's {flag} in a runner run (runner keeps the "
          "history; pytest's cache is off).", file=sys.stderr)


def _rerun(args: argparse.Namespace, config: Any, specs: list[Path]) -> Any:
    """``--last-failed``/``--failed-first`` (pytest's ``--lf``/``--ff`` included): the history's
    plan."""
    if args.rerun is None:
        return None
    from runner.run.history import history_path, plan_rerun

    shard = None
    if args.shard is not None:
        from runner.run.shard_plan import parse_shard

        parsed = parse_shard(args.shard)
        shard = (parsed.index, parsed.total)
    # told once this run's specs are known (a shard's own): Rerun.told
    return plan_rerun(history_path(config.project_root), specs, config.project_root, args.rerun, shard)


def _exit_status(ran: Any, interrupts: Any, session: Any, started: bool, args: argparse.Namespace,
                 reporter_name: str) -> int:
    """The run's exit status, and the one line that says why when it is not the failures' count."""
    extra = _pytest_extra(args)
    if interrupts.signum is not None or ran.interrupted:
        # before the check for pytest's errors: a signal during collection is an interruption
        how = f"by {interrupts.name}" if interrupts.name else "(pytest was stopped)"
        print(f"runner: interrupted {how}; the reports hold what ran until then.", file=sys.stderr)
        return int(interrupts.exit_code)
    if session.host.launch_error is not None:  # the run stopped before its first test (or then)
        return fail(str(session.host.launch_error))
    if ran.unusable:
        kept_note = "" if started else " The last run's reports and artifacts were left as they were."
        return fail(f"pytest could not run the specs (see the message above).{kept_note}")
    if ran.collected_nothing:
        why = (f"no test of the selected specs matched the pytest arguments {' '.join(extra)!r}" if extra
               else "the selected specs hold no tests")
        return fail(f"no tests ran: {why}.\nA run that tests nothing is a mistake more often than not; "
                    "check --spec, the pytest arguments after --, and the specs themselves.")
    failures: int = ran.failures
    results = ran.plugin.run
    if results is not None:
        narrowed = args.spec or args.shard or extra or args.only_changed is not None or args.rerun == "only"
        _stale_quarantine_notices(session.config, results, whole=not narrowed)
        if args.fail_on_flaky:  # counted in the failures already (the reports say so): here, which tests
            _tell_flaky_failures(results, failures)
    if ran.plugin.reporter_failures and failures == 0:
        print(f"runner: the tests passed, but the reporter {reporter_name!r} failed (see above): "
              "exit status 1.", file=sys.stderr)
        failures = 1
    return min(failures, 255)


def _tell_flaky_failures(results: Any, failures: int) -> None:
    """``--fail-on-flaky``: the lines that say which tests passed only on a retry and why the run
    fails (each is counted as a failure in ``failures``, the run's, a quarantined one excepted)."""
    flaky = [test for test in results.all_tests() if test.flaky]
    counted = [test for test in flaky if test.fails_as_flaky]
    excused = len(flaky) - len(counted)
    excused_note = (f" ({excused} quarantined flaky test{'' if excused == 1 else 's'} not counted)"
                    if excused else "")
    if not counted:
        if excused:
            print(f"runner: --fail-on-flaky: no test failed the run by being flaky{excused_note}.", file=sys.stderr)
        return
    status = min(failures, 255)
    print(f"runner: --fail-on-flaky: {len(counted)} test{' passed' if len(counted) == 1 else 's passed'} only on "
          f"a retry (flaky), so the run fails: exit status {status}, each flaky test counted as a "
          f"failure{excused_note}:", file=sys.stderr)
    for test in counted:
        allowed = test.attempts_allowed or len(test.attempts)
        number, failed = next(((i, a) for i, a in enumerate(test.attempts, 1) if a.state == "failed"),
                              (1, test.attempts[0]))
        print(f"  {test.nodeid}: passed on attempt {len(test.attempts)} of {allowed}; attempt {number} failed: "
              f"{failed.headline() or 'failed'}", file=sys.stderr)


def _stale_quarantine_notices(config: Any, results: Any, *, whole: bool) -> None:
    """A ``quarantine`` entry that names no test of a run of the whole selection (no --spec,
    --shard, --only-changed, --last-failed or pytest arguments narrowed it) is told, so that stale entries are
    seen."""
    if not whole or not config.quarantine:
        return
    from runner.config.quarantine import QuarantineList

    listed = QuarantineList(config.quarantine, config.source_detail("quarantine"))
    for entry in listed.unmatched(test.nodeid for test in results.all_tests()):
        print(f"runner: notice: quarantine: {entry!r} ({listed.source}) names no test of this run; "
              "remove it if its test was fixed, renamed or removed.", file=sys.stderr)


_HTML_IS_NOT_A_RUN_REPORTER = (
    "reporter 'html': every run writes the HTML report to reportFolder (runner/report by default), "
    "whatever the reporter.\nThe reporter is what the run prints: spec, dot, list, min, tap, json, junit, "
    "or a custom reporter. To build the HTML report from an events file: runner report --from FILE "
    "--reporter html.")


def _html_report(session: Any) -> Any:
    """Subscribe the HTML report's builder to the run's bus (None when ``reportFolder`` is false,
    cannot be written, or is a folder runner will not replace: then a warning says so and the run
    goes on)."""
    config = session.config
    target = config.path("reportFolder")
    if target is None:
        return None
    from runner.artifacts.folders import folder_problem

    if folder_problem(target) is not None:
        return None  # the folder warnings said why
    from runner.engine.trace_viewer import viewer_folder
    from runner.reporters.html import HtmlReport, folder_refusal, overlap_refusal

    others = {"project": config.project_root}
    for name in ("integrationFolder", "componentFolder", "fixturesFolder", "fileServerFolder", "screenshotsFolder",
                 "videosFolder", "downloadsFolder", "tracesFolder", "eventsFile", "supportFile",
                 "pluginsFile"):
        path = config.path(name) if name in config.sources else None
        if path is not None:
            others[name] = path
    refusal = overlap_refusal(target, others) or folder_refusal(target)
    if refusal is not None:
        print(f"runner: warning: reportFolder: {refusal}. This run writes no HTML report; point "
              "reportFolder at a folder of its own (the default is runner/report).", file=sys.stderr)
        return None
    report = HtmlReport(target, viewer=viewer_folder(), project_root=config.project_root)
    session.bus.subscribe(report)
    return report


def _write_html_report(report: Any, session: Any) -> None:
    """Put the run's HTML report in its folder and say where it is (a failure is a warning). A
    run whose browser never started ran no test: its one message says so, and the last report
    stays."""
    if report is None:
        return
    if session.host.launch_error is not None:
        report.discard()
        return
    from runner.reporters.replay import report_line

    try:
        folder = report.finish()
    except OSError as err:
        print(f"runner: warning: the HTML report was not written to {str(report.target)!r}: "
              f"{err.strerror or err}.", file=sys.stderr)
        return
    print(report_line(folder), file=sys.stderr)


def _pytest_extra(args: argparse.Namespace) -> list[str]:
    """The arguments given to pytest after ``--``."""
    extra = list(args.pytest_args or [])
    return extra[1:] if extra and extra[0] == "--" else extra


def _max_failures(flag: str | None, extra: list[str],
                  reruns: list[str] | None = None) -> tuple[int | None, list[str], list[str]]:
    """``--max-failures N`` checked, and pytest's own stops (``-x``, also in a group of short
    flags such as ``-sx``, ``--exitfirst``, ``--maxfail=N``) taken out of the pytest arguments and
    made runner's (the smallest limit holds): pytest's stop works in one process only, and ends a
    run with workers as interrupted. Returns the limit, the pytest arguments left and the stops
    taken, as written. Raises :class:`UsageError` for a limit that is not a whole number of 1 or
    more, and for pytest's terminal verbosity flags (``-v``, ``-q``), which a run without pytest's
    terminal reporter would refuse only once pytest starts. pytest's ``--lf``/``--ff`` (and their
    long names) are taken out too, into ``reruns`` when it is given (:func:`_take_reruns`)."""
    limits = [] if flag is None else [_failures_limit(flag, "--max-failures")]
    kept: list[str] = []
    stops: list[str] = []
    values = iter(extra)
    for arg in values:
        if arg == "--":  # pytest's own: what follows is no option
            kept += [arg, *values]
        elif arg == "--exitfirst":
            limits.append(1)
            stops.append(arg)
        elif arg == "--maxfail" or arg.startswith("--maxfail="):
            value = arg.partition("=")[2] if "=" in arg else next(values, "")
            limits.append(_failures_limit(value, "pytest's --maxfail"))
            stops.append(arg if "=" in arg else f"{arg} {value}")
        elif arg in _RERUN_ALIASES and reruns is not None:
            reruns.append(arg)
        elif arg in _PYTEST_VERBOSITY or arg.startswith("--verbosity="):
            raise UsageError(_verbosity_refused(arg))
        elif _is_short_group(arg):
            group, letters, takes_next = _short_group(arg)
            if "x" in letters:
                limits.append(1)
                stops.append(arg if arg == "-x" else f"-x (in {arg})")
            kept += [group] if group else []
            kept += [next(values, "")] if takes_next else []
        else:
            kept.append(arg)
            if arg in _PYTEST_VALUE_OPTIONS:  # its value is no flag, whatever it reads
                kept.append(next(values, ""))
    return (min(limits) if limits else None), kept, stops


def _addopts_stops(reruns: list[str]) -> tuple[int | None, list[str]]:
    """pytest's stops in ``PYTEST_ADDOPTS`` (pytest's arguments from the environment), taken as
    :func:`_max_failures` takes those after ``--``, and out of the variable, so that neither this
    run's pytest nor its workers' stop on their own. Returns the limit and the stops taken (as
    written, saying where). The variable's ``--lf``/``--ff`` go to ``reruns`` too; pytest's
    verbosity flags are refused the same way. A variable that cannot be split (an open quote) is
    left to pytest, which says what is wrong with it."""
    import os
    import shlex

    addopts = os.environ.get("PYTEST_ADDOPTS", "")
    try:
        words = shlex.split(addopts)
    except ValueError:
        return None, []
    try:
        limit, kept, stops = _max_failures(None, words, reruns)
    except UsageError as err:
        raise UsageError(f"{err} (It was in PYTEST_ADDOPTS.)") from err
    if kept != words:
        os.environ["PYTEST_ADDOPTS"] = shlex.join(kept)
    return limit, [f"{stop} in PYTEST_ADDOPTS" for stop in stops]


# pytest's cache plugin's, runner's own in a runner run (its history; pytest's cache is off)
_RERUN_ALIASES = {"--lf": "only", "--last-failed": "only", "--ff": "first", "--failed-first": "first"}
# pytest's options whose value is the next argument (so `-k -x` is not runner's stop)
_PYTEST_VALUE_OPTIONS = frozenset(("--deselect", "--ignore", "--ignore-glob", "--rootdir", "--confcutdir",
                                   "--basetemp", "--pythonwarnings", "--config-file", "--override-ini",
                                   "--report-chars", "--numprocesses"))
# pytest's short options that take a value (its own and pytest-xdist's -n): in a group of short
# flags the rest of the group after one is its value (`-kx` selects by "x"; `-sk login`)
_PYTEST_VALUE_LETTERS = frozenset("kmpcoWrn")
# pytest's terminal reporter's verbosity, which a runner run turns off (runner's reporters print)
_PYTEST_VERBOSITY = frozenset(("--verbose", "--quiet", "--verbosity"))


def _is_short_group(arg: str) -> bool:
    return len(arg) > 1 and arg[0] == "-" and arg[1] != "-"


def _short_group(arg: str) -> tuple[str, set[str], bool]:
    """A group of pytest's short flags (``-sx``, ``-xk login``): the group without ``x`` ("" when
    nothing is left), the flag letters before any value, and whether its last letter is an
    option that takes the next argument as its value. Raises :class:`UsageError` for ``-v`` or
    ``-q`` among the flags."""
    letters = arg[1:]
    cut = next((i for i, letter in enumerate(letters) if letter in _PYTEST_VALUE_LETTERS), len(letters))
    flags, value = letters[:cut], letters[cut:]
    if set(flags) & set("vq"):
        raise UsageError(_verbosity_refused(arg))
    rest = flags.replace("x", "") + value
    return ("-" + rest if rest else ""), set(flags), len(value) == 1


def _verbosity_refused(arg: str) -> str:
    return (f"pytest's {arg} (its terminal's verbosity) does not apply in a runner run: runner's reporters "
            "print the run; choose how with --reporter (spec, the default, lists every test by spec; list "
            "lists them in one list; dot and min print less).")


def _failures_limit(text: str, where: str) -> int:
    value = text.strip()
    if not value.isascii() or not value.isdigit() or int(value) < 1:
        also = "" if where == "--max-failures" else " (runner's --max-failures)"
        # 0 is pytest's "no limit": a runner run has none unless asked
        none = "; for no limit, leave the flag out" if value.isascii() and value.isdigit() else ""
        raise UsageError(f"{where}{also} {text!r}: expected a number of failed tests to stop after "
                         f"(1 or more{none}).")
    return int(value)


def _asks_for_workers(args: argparse.Namespace) -> bool:
    import os

    asked = (args.workers if args.workers is not None else os.environ.get("RUNNER_WORKERS", "")).strip()
    return asked not in ("", "1")


def _workers(args: argparse.Namespace, config: Any, specs: list[Path]) -> int:
    """How many worker processes: ``--workers``, else ``RUNNER_WORKERS``, else 1; never more
    than there are specs (a worker without a spec would only launch a browser)."""
    import os

    from runner.run.workers import parse_workers

    if args.workers is not None:
        count = parse_workers(args.workers)
    elif os.environ.get("RUNNER_WORKERS", "").strip():
        count = parse_workers(os.environ["RUNNER_WORKERS"], where="RUNNER_WORKERS")
    else:
        return 1
    if args.headed and count > 1:
        raise UsageError("--headed shows one browser window: it cannot be combined with more than one worker.")
    return min(count, len(specs))


def _worker_args(args: argparse.Namespace, project_root: Path) -> list[str]:
    """The run's options as pytest options, for pytest-xdist workers (``runner run -- -n 2``):
    each worker makes its own session from them, as this process did from the command line.
    ``--port`` is left out: one port cannot serve several workers, each takes a free one."""
    import json

    out = ["--runner-mode", "run", "--runner-project", str(project_root)]
    if args.config_file is not None:
        out += ["--runner-config-file", str(args.config_file)]
    for value in with_snapshot_mode(list(args.config or []), args.update_snapshots):
        out += ["--runner-config", value if isinstance(value, str) else json.dumps(value)]
    for value in args.env or []:
        out += ["--runner-env", value]
    if args.browser:
        out += ["--runner-browser", args.browser]
    if args.headed:
        out.append("--runner-headed")
    if getattr(args, "testing_type", "e2e") == "component":
        out.append("--runner-component")
    if args.browser_endpoint:
        out += ["--runner-browser-endpoint", args.browser_endpoint]
    for header in args.browser_endpoint_header or []:
        out += ["--runner-browser-endpoint-header", header]
    return out


