"""The child process of ``runner open`` that runs specs: ``python -m runner.ui.child ...``.

One child per run (all specs, one spec or one test), so that a spec edited on disk is imported
afresh, a run is stopped by a signal like ``runner run`` is, and the server's memory never holds
what a run imported. It is ``runner run`` in the "open" mode: no reporter prints, no artifact is
trashed, no HTML report is written, ``retries.openMode`` applies, the plugins file's run events
fire only with ``experimentalInteractiveRunEvents``; every event, the page's screencast and
studio's recorded actions go to the server over the channel (``ui/channel.py``).

Exit status: the number of failed tests (at most 255); 1 with one message on stderr (and an
``error`` message on the channel) when it cannot start; 128 + the signal when stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from runner.errors import RunnerError

__all__ = ["main", "child_args"]

def child_args(*, project: Path, config_file: str | None, cli_config: list[Any], cli_env: list[str],
               browser: str | None, headed: bool, channel_fd: int, control_fd: int,
               specs: list[str], test: str | None, studio: bool, traces: Path, keep: int,
               testing_type: str = "e2e") -> list[str]:
    """The command line of a child (after ``python -m runner.ui.child``)."""
    out = ["--project", str(project), "--channel-fd", str(channel_fd), "--control-fd", str(control_fd),
           "--traces", str(traces), "--keep", str(keep)]
    if config_file is not None:
        out += ["--config-file", config_file]
    for value in cli_config:
        out += ["--config", value if isinstance(value, str) else json.dumps(value)]
    for value in cli_env:
        out += ["--env", value]
    if browser:
        out += ["--browser", browser]
    if headed:
        out.append("--headed")
    for spec in specs:
        out += ["--spec", spec]
    if test:
        out += ["--test", test]
    if studio:
        out.append("--studio")
    if testing_type == "component":
        out.append("--component")
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m runner.ui.child")
    p.add_argument("--project", required=True)
    p.add_argument("--config-file", default=None)
    p.add_argument("--config", action="append", default=[])
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--browser", default=None)
    p.add_argument("--headed", action="store_true")
    p.add_argument("--channel-fd", type=int, required=True)
    p.add_argument("--control-fd", type=int, required=True)
    p.add_argument("--spec", action="append", default=[])
    p.add_argument("--test", default=None)
    p.add_argument("--studio", action="store_true")
    p.add_argument("--component", dest="testing_type", action="store_const", const="component", default="e2e")
    p.add_argument("--traces", required=True)
    p.add_argument("--keep", type=int, default=50)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from runner.run.interrupts import RunInterrupts, kill_descendants
    from runner.ui.channel import ChannelWriter
    from runner.ui.run_files import RunFiles

    writer = ChannelWriter(args.channel_fd)
    interrupts = RunInterrupts()
    try:
        # the files the run writes and runs, told to the server's watcher (ui/rerun.py)
        with interrupts, RunFiles(writer, Path(args.project)):
            try:
                code = _run(args, writer, interrupts)
            except KeyboardInterrupt:
                code = interrupts.exit_code
            except RunnerError as err:
                print(f"runner: {err}", file=sys.stderr)
                writer.send({"t": "error", "message": str(err)})
                code = 1
            if interrupts.signum is not None:
                kill_descendants()
    finally:
        writer.close()
    return code


def _run(args: argparse.Namespace, writer: Any, interrupts: Any) -> int:
    from runner.engine.browser import start_driver_early
    from runner.engine.loop import EngineLoop

    loop = EngineLoop()
    start_driver_early(loop)
    from runner.run.session import RunSession

    # Every test is traced (time travel) unless no test is kept; traces go to the server's own
    # folder, never the project's tracesFolder.
    mode_values = {"trace": "on" if args.keep > 0 else "off", "tracesFolder": args.traces}
    try:
        session = RunSession.create(root=args.project, config_file=args.config_file,
                                    cli_config=[*args.config, mode_values], cli_env=args.env or None,
                                    browser=args.browser, headed=args.headed, mode="open", loop=loop,
                                    testing_type=args.testing_type)
    except BaseException:
        loop.close()
        raise
    try:
        return _run_session(args, session, writer, interrupts)
    finally:
        session.close()


def _run_session(args: argparse.Namespace, session: Any, writer: Any, interrupts: Any) -> int:
    from runner.run.launch import run_pytest
    from runner.run.live_view import LiveView
    from runner.run.session import check_base_url
    from runner.run.specs import select_specs, spec_folder

    config = session.config
    for warning in config.warnings:
        print(f"runner: warning: {warning}", file=sys.stderr)
    specs, _warnings = select_specs(config, ",".join(args.spec) or None, Path(args.project))
    if not specs:
        raise RunnerError(f"no spec file matches {', '.join(args.spec) or 'testFiles'} in "
                          f"{spec_folder(config)[1]}.")
    session.bus.subscribe(writer)
    session.live_view = LiveView(writer.frame, lambda: session.host.loop)
    session.host.prelaunch()
    if config.base_url:
        problem = check_base_url(str(config.base_url))
        if problem:
            raise RunnerError(problem)
    targets = [str(s) for s in specs]
    if args.test:
        targets = [f"{specs[0]}::{args.test}"]
    plugins: list[Any] = []
    if args.studio and args.test:
        from runner.plugin.studio import StudioPlugin

        plugins.append(StudioPlugin(session, writer, args.control_fd, args.test))
    # one browser, the one this child shows: no pytest-xdist workers
    ran = run_pytest(session, targets, specs, reporters=[], interrupted_by=lambda: interrupts.name,
                     options=["-p", "no:xdist"], plugins=plugins)
    if interrupts.signum is not None or ran.interrupted:
        return interrupts.exit_code
    if session.host.launch_error is not None:
        raise RunnerError(str(session.host.launch_error))
    return min(ran.failures, 255)


def _end(code: int) -> None:
    """End the child at once once its run is over: a non-daemon thread a test left running would
    keep it alive, and ``runner open`` would show the run running for ever (as ``runner run``'s
    child does, run/guard.py)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - the end must happen whatever flushing does
            pass
    os._exit(code & 0xFF)


if __name__ == "__main__":  # pragma: no cover - the child's entry
    try:
        status = main()
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    _end(status)
