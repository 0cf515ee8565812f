"""The ``runner`` command: ``run``, ``open``, ``init``, ``report``, ``config``, ``schema``, ``show-trace``, ``show-report``.

Every failure to start ends with one clear message on stderr and exit status 1; ``runner run``
otherwise exits with the number of failed tests (0 when all pass, at most 255).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from runner import __version__
from runner.errors import RunnerError, UsageError
from runner.specs import pytest_ini_args, select_specs, spec_folder

__all__ = ["main", "select_specs"]

COMMANDS = ("run", "open", "init", "report", "config", "schema", "show-trace", "show-report")


class _Parser(argparse.ArgumentParser):
    """argparse with runner's error style: one line, a suggestion, and where to get help."""

    def error(self, message: str) -> NoReturn:
        if "invalid choice" in message and "argument COMMAND" in message:
            given = message.split("'")[1] if "'" in message else ""
            close = difflib.get_close_matches(given, COMMANDS, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            message = f"'{given}' is not a runner command.{hint} Commands: {', '.join(COMMANDS)}."
        self.exit(1, f"runner: {message}\nTry '{self.prog} --help' for help.\n")


def _serve_port(text: str) -> int:
    """``--port`` of the commands that serve on 127.0.0.1: 0 to 65535 (0, like no flag, a free port),
    checked here so a port the socket cannot take is a usage error, not bind()'s OverflowError."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"expected a port number from 1 to 65535 (or leave --port out for a free one); found {text!r}")
    return port


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--project", "-P", default=None, metavar="DIR",
                   help="the project folder (default: the current folder)")
    p.add_argument("--config-file", "-C", default=None, metavar="PATH",
                   help="the configuration file (default: runner.json); 'false' runs on defaults")
    p.add_argument("--config", "-c", action="append", default=None, metavar="VALUES",
                   help="configuration values: name=value,name2=value2 or a JSON object; "
                        "may be repeated (a later flag wins per name)")
    p.add_argument("--env", "-e", action="append", default=None, metavar="VALUES",
                   help="env values: name=value,name2=value2 or a JSON object; "
                        "may be repeated (a later flag wins per name)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="runner", description="Browser end-to-end tests for Python, on a real Chromium.")
    parser.add_argument("--version", action="version", version=f"runner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    run = sub.add_parser("run", help="run the specs headlessly (the main job)",
                         description="Run the specs selected by integrationFolder (componentFolder "
                                     "with --component), testFiles and ignoreTestFiles, headless, "
                                     "and report.")
    _common(run)
    run_kind = run.add_mutually_exclusive_group()
    run_kind.add_argument("--e2e", dest="testing_type", action="store_const", const="e2e", default="e2e",
                          help="run the end-to-end specs of integrationFolder (the default)")
    run_kind.add_argument("--component", dest="testing_type", action="store_const", const="component",
                          help="run the component specs of componentFolder, with the component block applied")
    run.add_argument("--spec", "-s", default=None, metavar="GLOBS",
                     help="only these specs: comma-separated paths or globs")
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
    run.add_argument("--port", "-p", type=int, default=None, help="port of runner's file server")
    run.add_argument("--workers", "-w", default=None, metavar="N|auto",
                     help="run the specs in N worker processes, each with its own browser (also RUNNER_WORKERS)")
    run.add_argument("--shard", default=None, metavar="I/N",
                     help="run shard I of N: a share of the specs balanced by recorded durations (docs/parallel.md)")
    run.add_argument("--durations", default=None, metavar="FILE",
                     help=f"the durations file --shard balances by (default: {DEFAULT_DURATIONS_HELP})")
    run.add_argument("--record-durations", action="store_true",
                     help="write each spec's duration into the durations file after the run")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER,
                     help="after --, arguments passed to pytest as they are (e.g. -- -k login)")

    report = sub.add_parser(
        "report", help="replay a run's events file through a reporter",
        description="Feed the events file a run wrote (eventsFile, runner/results/events.jsonl by "
                    "default) to any reporter: the same output as the live run.")
    report.add_argument("--from", dest="events_from", required=True, metavar="FILE",
                        help="the events file to replay")
    report.add_argument("--reporter", "-r", default="spec", help="the reporter (default: spec)")
    report.add_argument("--reporter-options", "-o", action="append", default=None, metavar="VALUES",
                        help="reporter options: name=value,... or a JSON object; may be repeated")
    report.add_argument("--project", "-P", default=None, metavar="DIR",
                        help="the folder relative output paths and custom reporters are found in "
                             "(default: the current folder)")

    merge = sub.add_parser(
        "merge", help="merge the events files of a sharded run's shards into one",
        description="Join the events files of `runner run --shard i/n` (one per shard) into one run's "
                    "events file, from which `runner report --from OUT` builds any report. The exit "
                    "status is the merged run's.")
    merge.add_argument("output", metavar="OUT", help="the merged events file to write")
    merge.add_argument("inputs", nargs="+", metavar="INPUT", help="the shards' events files, or folders holding them")

    durations = sub.add_parser(
        "durations", help="write the durations file --shard balances by, from events files",
        description="Record each spec's duration from runs' events files (a merged sharded run, say) "
                    "into the durations file that `runner run --shard` balances by.")
    durations.add_argument("--from", dest="events_from", action="append", required=True, metavar="FILE",
                           help="an events file (may be repeated)")
    durations.add_argument("--output", "-O", default=None, metavar="FILE",
                           help=f"the durations file (default: {DEFAULT_DURATIONS_HELP})")
    durations.add_argument("--project", "-P", default=None, metavar="DIR",
                           help="the project (default: the current directory)")

    cfg = sub.add_parser("config", help="print the resolved configuration and where each value came from")
    _common(cfg)
    kind = cfg.add_mutually_exclusive_group()
    kind.add_argument("--e2e", dest="testing_type", action="store_const", const="e2e", default="e2e")
    kind.add_argument("--component", dest="testing_type", action="store_const", const="component")
    cfg.add_argument("--json", action="store_true", help="print the resolved values as JSON")
    cfg.add_argument("--show-secrets", action="store_true",
                     help="show the values of secret env entries (runner.env.json, RUNNER_*) as they are, "
                          "not [redacted]")

    sub.add_parser("schema", help="print the JSON schema of runner.json (draft-04)")
    _show_trace_parser(sub)
    _show_report_parser(sub)
    _open_parser(sub)
    _init_parser(sub)
    return parser


def _init_parser(sub: Any) -> None:
    p = sub.add_parser(
        "init", help="start a project: runner.json, an example spec and its page, a fixture, support "
                     "and plugins files",
        description="Write the files of a new runner project (each commented), where runner.json puts "
                    "them when it exists. A file that exists is never overwritten.")
    p.add_argument("--project", "-P", default=None, metavar="DIR",
                   help="the project folder (default: the current folder)")


def _init_command(args: argparse.Namespace) -> int:
    from runner.scaffold import report_lines, scaffold

    root = Path(args.project) if args.project else Path.cwd()
    if not root.is_dir():
        return _fail(f"--project {str(root)!r} is not a folder.")
    result = scaffold(root)
    print(f"runner init: {root.resolve()}")
    for line in report_lines(result):
        print(line)
    if result.written:
        print("\nNext: runner run (every spec, headless), or runner open (the interactive mode).")
    else:
        print("\nNothing was written: every file was already there.")
    return 0


def _open_parser(sub: Any) -> None:
    p = sub.add_parser(
        "open", help="the interactive mode: a web UI to run specs and watch them (127.0.0.1)",
        description="Serve the interactive mode on 127.0.0.1 (a token in the printed URL): pick specs, "
                    "watch the command log, the app, routes and requests, time-travel, re-run on save.")
    _common(p)
    p.add_argument("--browser", "-b", default=None, metavar="NAME|PATH",
                   help="chromium, chrome, or the path of a browser executable")
    p.add_argument("--headed", action="store_true", help="show the browser's own window too")
    p.add_argument("--port", "-p", type=_serve_port, default=None, help="the port to serve on (default: a free one)")
    p.add_argument("--no-open", dest="open_browser", action="store_false",
                   help="do not open a browser, only print the URL")
    open_kind = p.add_mutually_exclusive_group()
    open_kind.add_argument("--e2e", dest="testing_type", action="store_const", const="e2e", default="e2e",
                           help="the end-to-end specs of integrationFolder (the default)")
    open_kind.add_argument("--component", dest="testing_type", action="store_const", const="component",
                           help="the component specs of componentFolder, with the component block applied")


def _open_command(args: argparse.Namespace) -> int:
    from runner.ui.command import open_command

    return open_command(project=args.project, config_file=args.config_file, cli_config=args.config,
                        cli_env=args.env, browser=args.browser, headed=args.headed, port=args.port,
                        open_browser=args.open_browser, testing_type=args.testing_type)


def _show_report_parser(sub: Any) -> None:
    show = sub.add_parser(
        "show-report", help="open a run's HTML report (served on 127.0.0.1)",
        description="Serve the HTML report a run wrote (reportFolder, runner/report by default) on "
                    "127.0.0.1, print its URL and open it in the browser, until Ctrl-C.")
    show.add_argument("folder", nargs="?", default=None, metavar="FOLDER",
                      help="the report's folder (default: the project's reportFolder)")
    _common(show)
    show.add_argument("--port", "-p", type=_serve_port, default=None, help="the port to serve on (default: a free one)")
    show.add_argument("--no-open", dest="open_browser", action="store_false",
                      help="do not open a browser, only print the URL")


def _show_report_command(args: argparse.Namespace) -> int:
    from runner.show_report import show_report

    if args.folder is not None:
        folder = Path(args.folder)
    else:
        from runner.config import load_config

        config = load_config(args.project, config_file=args.config_file, cli_config=args.config,
                             cli_env=args.env)
        where = config.path("reportFolder")
        if where is None:
            return _fail("reportFolder is false in this project's configuration, so no run writes a report "
                         "here. Name the report's folder: runner show-report FOLDER")
        folder = where
    return show_report(folder, args.port, args.open_browser)


def _show_trace_parser(sub: Any) -> None:
    show = sub.add_parser(
        "show-trace", help="open a test's trace in Playwright's trace viewer (served on 127.0.0.1)",
        description="Serve Playwright's trace viewer (the one the installed Playwright ships) and "
                    "one trace on 127.0.0.1, print its URL and open it in the browser, until Ctrl-C.")
    show.add_argument("trace", metavar="PATH", help="the trace file (runner/traces/<spec>/<test>.zip)")
    show.add_argument("--port", "-p", type=_serve_port, default=None, help="the port to serve on (default: a free one)")
    show.add_argument("--no-open", dest="open_browser", action="store_false",
                      help="do not open a browser, only print the URL")


def _show_trace_command(args: argparse.Namespace) -> int:
    from runner.show_trace import show_trace

    return show_trace(args.trace, args.port, args.open_browser)


DEFAULT_DURATIONS_HELP = "runner/durations.json in the project"


def _fail(message: str) -> int:
    print(f"runner: {message}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C as runner starts: one message, no traceback
        print("\nrunner: interrupted", file=sys.stderr)
        return 130
    if args.command is None:
        parser.print_help()
        return 1
    try:
        if args.command == "schema":
            from runner.config import schema_text

            sys.stdout.write(schema_text().rstrip("\n") + "\n")
            return 0
        if args.command == "config":
            return _config_command(args)
        if args.command == "show-trace":
            return _show_trace_command(args)
        if args.command == "show-report":
            return _show_report_command(args)
        if args.command == "open":
            return _open_command(args)
        if args.command == "init":
            return _init_command(args)
        if args.command == "merge":
            from runner.merge import merge_command

            return merge_command(args.output, args.inputs)
        if args.command == "durations":
            from runner.run_shards import durations_command

            return durations_command(args.events_from, args.output, Path(args.project or "."))
        if args.command == "report":
            if args.reporter == "html":
                return _html_report_command(args)
            from runner.replay import report_command

            return report_command(args.events_from, args.reporter, args.reporter_options,
                                  Path(args.project) if args.project else Path.cwd())
        return _run_command(args)
    except RunnerError as err:
        return _fail(str(err))
    except KeyboardInterrupt:
        print("\nrunner: interrupted", file=sys.stderr)
        return 130


def _config_command(args: argparse.Namespace) -> int:
    import json

    from runner.config import format_resolved
    from runner.redaction import redact_config
    from runner.run.session import RunSession

    # The plugins file runs as it does for a run: what is shown is what a run would use.
    session = RunSession.create(root=args.project, config_file=args.config_file, testing_type=args.testing_type,
                                cli_config=args.config, cli_env=args.env, mode="config")
    config = session.config
    redactor = session.redactor
    session.close()
    for warning in config.warnings:
        print(f"runner: warning: {warning}", file=sys.stderr)
    values = config.as_dict() if args.show_secrets else redact_config(redactor, config.as_dict())
    if args.json:
        print(json.dumps(values, indent=2, sort_keys=True))
    else:
        print(format_resolved(config, values))
    return 0


def _run_command(args: argparse.Namespace) -> int:
    from runner.run_guard import guarded

    def run(journal: Any) -> int:
        try:
            return _run_watched(args, journal)
        except RunnerError as err:
            return _fail(str(err))

    # The tests run in a watched child process: one that dies never reads as passed (run_guard.py).
    return guarded(run)


def _run_watched(args: argparse.Namespace, journal: Any) -> int:
    from runner.interrupts import RunInterrupts, kill_descendants

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
    from runner.engine.browser import start_driver_early
    from runner.engine.loop import EngineLoop

    loop = EngineLoop()
    if not _asks_for_workers(args):  # workers start their own drivers and browsers
        start_driver_early(loop)  # overlaps the driver's start-up with everything below

    import os

    from runner.engine.remote import remote_endpoint
    from runner.run.session import RunSession

    endpoint = remote_endpoint(args.browser_endpoint, args.browser_endpoint_header, os.environ)
    cli_config: list[Any] = list(args.config or [])
    if args.port is not None:
        cli_config.append({"port": args.port})  # after every --config: --port wins
    try:
        session = RunSession.create(root=args.project, config_file=args.config_file, cli_config=cli_config,
                                    cli_env=args.env, browser=args.browser, headed=args.headed, mode="run",
                                    testing_type=args.testing_type, loop=loop, endpoint=endpoint)
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
        return _fail(
            f"no spec files were found in {where} matching testFiles {config.test_files!r}{narrowed}.\n"
            f"Check {key}, testFiles and ignoreTestFiles in runner.json."
        )
    if args.shard is not None:
        from runner.run_shards import take_shard

        specs = take_shard(session, args.shard, args.durations, specs)
    workers = _workers(args, config, specs)
    if workers > 1:
        from runner.run_shards import durations_for
        from runner.run_workers import longest_first

        specs = longest_first(specs, config.project_root, durations_for(config.project_root, args.durations))
    args.worker_count = workers
    # the reporter, its options and the events file are checked before anything is launched or trashed
    if args.reporter is not None and not args.reporter.strip():
        return _fail("--reporter needs a name: spec, dot, list, min, tap, json, junit, or a custom reporter.")
    reporter_name = args.reporter or config.reporter
    if reporter_name == "html":
        return _fail(_HTML_IS_NOT_A_RUN_REPORTER)
    reporter = make_reporter(reporter_name, config.reporter_options, config.project_root,
                             flags=args.reporter_options)
    events_path = check_events_file(config)
    from runner.plugin.selection import expression_problem

    problem = expression_problem(_pytest_extra(args))
    if problem is not None:
        return _fail(f"{problem} Nothing was run; the last run's reports and artifacts stay as they were.")
    from runner.artifacts.run_lock import lock_artifacts

    # Before anything is trashed or written: another run of these folders is refused, not trashed.
    lock = lock_artifacts(config, pid=args.journal.command_pid if args.journal is not None else None)
    try:
        return _run_locked(args, session, interrupts, reporter, reporter_name, specs, events_path)
    finally:
        lock.release()


def _run_locked(args: argparse.Namespace, session: Any, interrupts: Any, reporter: Any,
                reporter_name: str, specs: list[Path], events_path: Path | None) -> int:
    import pytest

    from runner.run.session import check_base_url

    config = session.config
    if args.worker_count > 1 and session.host.endpoint is not None:
        # each worker connects on its own: an endpoint that cannot serve them is one message here
        failure = session.host.launch_failure()
        session.host.close_browser()
        if failure is not None:
            return _fail(str(failure))
    elif args.worker_count > 1:
        _ = session.host.browser_spec  # each worker launches its own: here, only fail early without one
    else:
        session.host.prelaunch()  # fails early and clearly when there is no browser
    if config.base_url:
        problem = check_base_url(str(config.base_url))
        if problem:
            return _fail(problem)
    if config.video and not args.headed:
        from runner.artifacts.video import find_ffmpeg

        find_ffmpeg()  # says what to install (or to set video: false) before anything runs
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
            return _fail(f"eventsFile: the older events file {str(events_path)!r} could not be kept "
                         f"aside ({err}), so it was not overwritten. Move it, or set eventsFile to false.")
        kept = (moved, events_path) if moved is not None else None
    from runner.artifacts.folders import artifact_folder_warnings

    # A folder that cannot be written to costs its artifacts, not the run.
    for warning in artifact_folder_warnings(config, video=bool(config.video) and not args.headed):
        print(f"runner: warning: {warning}", file=sys.stderr)
    from runner.run_start import RunStart
    from runner.run_workers import xdist_args

    # The folders are emptied and the events file written when the run starts: a run pytest
    # cannot start leaves the last run's artifacts as they were (run_start.py).
    writer = RunStart(events_path, plan, kept)
    session.bus.subscribe(writer)
    durations = None
    if args.record_durations:
        from runner.run_shards import DurationsRecorder, durations_path

        durations = DurationsRecorder(durations_path(config.project_root, args.durations), config.project_root)
        session.bus.subscribe(durations)
    if not specs:  # a shard with no spec (more shards than specs): its events say so, for the merge
        from runner.run_shards import tell_empty_shard

        tell_empty_shard(session)
        session.close()
        writer.close()
        return 0
    report = _html_report(session)
    if args.journal is not None:  # what the watching process needs to finish the reports of a death
        args.journal.attach(session, reporter=reporter_name, options=config.reporter_options,
                            flags=args.reporter_options, report=report.target if report is not None else None,
                            events=events_path)
    pytest_args = [str(s) for s in specs] + pytest_ini_args(config.project_root) + [
        "--rootdir", str(config.project_root), "--confcutdir", str(config.project_root),
        "-p", "no:cacheprovider", "-p", "no:terminal",
        "--import-mode=importlib", "--continue-on-collection-errors",
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
    ] + _worker_args(args, config.project_root) + xdist_args(args.worker_count)
    extra = _pytest_extra(args)
    from runner.plugin import RunPlugin

    run = RunPlugin(session, [reporter], specs, interrupted_by=lambda: interrupts.name)
    from runner.events import RunEnded

    session.bus.subscribe(interrupts.run_ended, (RunEnded,))  # a signal after it: the reports are finished
    try:
        code = pytest.main(pytest_args + extra, plugins=[run])
    finally:
        session.close()
        writer.close()
        if writer.started:
            _write_html_report(report, session)
        else:  # pytest never started the run: the last run's report and events file stay
            writer.undo()
            if report is not None:
                report.discard()
        if durations is not None:
            print(durations.write(), file=sys.stderr)
    if interrupts.signum is not None or code == pytest.ExitCode.INTERRUPTED:
        # before the check for pytest's errors: a signal during collection is an interruption
        how = f"by {interrupts.name}" if interrupts.name else "(pytest was stopped)"
        print(f"runner: interrupted {how}; the reports hold what ran until then.", file=sys.stderr)
        return interrupts.exit_code
    if session.host.launch_error is not None:  # the run stopped before its first test (or then)
        return _fail(str(session.host.launch_error))
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
        kept_note = "" if writer.started else " The last run's reports and artifacts were left as they were."
        return _fail(f"pytest could not run the specs (see the message above).{kept_note}")
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        why = (f"no test of the selected specs matched the pytest arguments {' '.join(extra)!r}" if extra
               else "the selected specs hold no tests")
        return _fail(f"no tests ran: {why}.\nA run that tests nothing is a mistake more often than not; "
                     "check --spec, the pytest arguments after --, and the specs themselves.")
    failures = run.run.failures if run.run is not None else (0 if code == pytest.ExitCode.OK else 1)
    if run.reporter_failures and failures == 0:
        print(f"runner: the tests passed, but the reporter {reporter_name!r} failed (see above): "
              "exit status 1.", file=sys.stderr)
        failures = 1
    return min(failures, 255)


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
    from runner.replay import report_line

    try:
        folder = report.finish()
    except OSError as err:
        print(f"runner: warning: the HTML report was not written to {str(report.target)!r}: "
              f"{err.strerror or err}.", file=sys.stderr)
        return
    print(report_line(folder), file=sys.stderr)


def _html_report_command(args: argparse.Namespace) -> int:
    """``runner report --from FILE --reporter html``."""
    from runner.engine.trace_viewer import viewer_folder
    from runner.replay import html_report_command

    return html_report_command(args.events_from, args.reporter_options,
                               Path(args.project) if args.project else Path.cwd(), viewer=viewer_folder())


def _pytest_extra(args: argparse.Namespace) -> list[str]:
    """The arguments given to pytest after ``--``."""
    extra = list(args.pytest_args or [])
    return extra[1:] if extra and extra[0] == "--" else extra


def _asks_for_workers(args: argparse.Namespace) -> bool:
    import os

    asked = (args.workers if args.workers is not None else os.environ.get("RUNNER_WORKERS", "")).strip()
    return asked not in ("", "1")


def _workers(args: argparse.Namespace, config: Any, specs: list[Path]) -> int:
    """How many worker processes: ``--workers``, else ``RUNNER_WORKERS``, else 1; never more
    than there are specs (a worker without a spec would only launch a browser)."""
    import os

    from runner.run_workers import parse_workers

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
    for value in args.config or []:
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


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
