"""The child process of ``runner open`` that runs specs: ``python -m runner.ui.child ...``.

One child per run (all specs, one spec or one test), so that a spec edited on disk is imported
afresh, a run is stopped by a signal like ``runner run`` is, and the server's memory never holds
what a run imported. With ``--spare`` the child is started before its run is known: it imports
runner, pytest and Playwright, starts Playwright's driver and (headless) launches the browser with
its first page, then waits on its control pipe for the run (``{"t": "run", "specs": [...],
"test": ..., "studio": ..., "keep": ...}``; the pipe closed: it ends, status 0). Only then does
it read the configuration, load the plugins file and import the specs and the support file, as a
fresh child does; the browser it launched is taken only when the run's configuration asks for the
same launch options (else it is closed and another launched). It is ``runner run`` in the "open" mode: no reporter prints, no artifact is
trashed, no HTML report is written, ``retries.openMode`` applies, the plugins file's run events
fire only with ``experimentalInteractiveRunEvents``; every event, the page's screencast and
studio's recorded actions go to the server over the channel (``ui/channel.py``). With
``--backend-ca`` (runner open started ``webServer`` servers) the run starts its proxy for the
app's servers with the session's CA before its tests, tells the server its port
(``{"t": "backend-proxy", "port": N}``) and waits for ``{"t": "backend-routed"}`` on the control
pipe (``backend/open_proxy.py``).

Exit status: the number of failed tests (at most 255); 1 with one message on stderr (and an
``error`` message on the channel) when it cannot start; 128 + the signal when stopped. A run that
ended by itself says so first on the channel (``{"t": "ended", "code": N}``, N its exit status to
be), then closes its browser and ends.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from runner.errors import RunnerError

__all__ = ["main", "child_args"]

#: Seconds a run waits for runner open's relay to take its proxy before its tests start anyway.
_ROUTED_S = 10.0


def child_args(*, project: Path, config_file: str | None, cli_config: list[Any], cli_env: list[str],
               browser: str | None, headed: bool, channel_fd: int, control_fd: int,
               specs: list[str], test: str | None, studio: bool, traces: Path, keep: int,
               testing_type: str = "e2e", spare: bool = False, backend_ca: Path | None = None) -> list[str]:
    """The command line of a child (after ``python -m runner.ui.child``); ``spare``: one that
    waits for its run on the control pipe (``specs``, ``test``, ``studio``, ``keep`` come then);
    ``backend_ca``: the session's CA's folder when its servers send through runner open's proxy relay."""
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
    if spare:
        out.append("--spare")
    if backend_ca is not None:
        out += ["--backend-ca", str(backend_ca)]
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
    p.add_argument("--spare", action="store_true")
    p.add_argument("--backend-ca", default=None)
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
    from runner.engine.driver import start_driver_early
    from runner.engine.loop import EngineLoop

    spare: SpareStart | None = None
    if args.spare:
        spare = SpareStart.prepare(args)
        if not _wait_for_run(args):
            spare.close()
            return 0
        loop = spare.loop
    else:
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
        if spare is not None:
            spare.close()
        loop.close()
        raise
    try:
        code = _run_session(args, session, writer, interrupts)
        _tell_ended(writer, code, interrupts)
        return code
    finally:
        if spare is not None:
            spare.close()  # its browser, when the run ended before its host took it
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
    if args.backend_ca:
        _start_backend_proxy(session, Path(args.backend_ca), writer, args.control_fd)
    session.host.prelaunch()  # a spare's browser launched ahead is taken over here
    if config.base_url:
        problem = check_base_url(str(config.base_url))
        if problem:
            raise RunnerError(problem)
    targets = [str(s) for s in specs]
    if args.test:
        targets = [f"{specs[0]}::{args.test}"]
    plugins: list[Any] = [EndTeller(writer, session, interrupts)]
    if args.studio and args.test:
        from runner.plugin.studio import StudioPlugin

        plugins.append(StudioPlugin(session, writer, args.control_fd, args.test))
    # one browser, the one this child shows: no pytest-xdist workers
    ran = run_pytest(session, targets, specs, reporters=[], interrupted_by=lambda: _stopped_by(interrupts.name),
                     options=["-p", "no:xdist"], plugins=plugins)
    if interrupts.signum is not None or ran.interrupted:
        return interrupts.exit_code
    if session.host.launch_error is not None:
        raise RunnerError(str(session.host.launch_error))
    return min(ran.failures, 255)


def _start_backend_proxy(session: Any, ca: Path, writer: Any, control_fd: int) -> None:
    """The run's proxy for the app's servers runner open started, signing with the session's CA
    (which they trust); its port told to the server, whose relay sends their connections to it
    until the run ends (``backend/open_proxy.py``). The tests start once the server says the
    relay took it (a line on the control pipe; bounded, and the pipe closed: the run is being
    stopped), so that no call of the first test goes by unseen. Raises ConfigError when the proxy
    cannot start."""
    session.network.backend_environment(ca=ca)
    writer.send({"t": "backend-proxy", "port": session.network.backend_proxy_port})
    _read_line(control_fd, _ROUTED_S)


def _stopped_by(signal_name: str | None) -> str | None:
    """What a stopped test's error names as the stopper. The child runs in a process group of its
    own, so a SIGINT is the server's: the page's Stop, a save or another run started meanwhile,
    or the end of ``runner open`` (ui/runs.py ``ChildRun.stop``); any other signal came from
    elsewhere and is named as it is."""
    if signal_name == "SIGINT":
        return "runner open (Stop, a save, another run, or its own end)"
    return signal_name


def _tell_ended(writer: Any, code: int, interrupts: Any) -> None:
    """Tell the server the run is over (its exit status to be) before the browser is closed: the
    page shows the result, and the next run may start, at once (the server hears only the first
    ``ended``: :class:`EndTeller`'s, when it told one)."""
    if interrupts.signum is None:
        writer.send({"t": "ended", "code": code})


class EndTeller:
    """Tells the server the run's exit status to be as soon as ``run.ended`` is published, before
    pytest's own end (its unconfigure collects garbage for a fifth of a second) and the browser's
    close. A pytest plugin by its hook's name (this module does not import pytest); at the
    session's start, once runner's plugin subscribed the results, it subscribes to the bus."""

    def __init__(self, writer: Any, session: Any, interrupts: Any) -> None:
        self._writer = writer
        self._session = session
        self._interrupts = interrupts
        self._run: Any = None

    def pytest_sessionstart(self, session: Any) -> None:
        from runner.plugin.run import RunPlugin

        self._run = next((p for p in session.config.pluginmanager.get_plugins() if isinstance(p, RunPlugin)), None)
        if self._run is not None:
            self._session.bus.subscribe(self)

    def __call__(self, event: Any) -> None:
        if event.kind != "run.ended" or getattr(event, "interrupted", False):
            return
        if self._interrupts.signum is not None or self._session.host.launch_error is not None:
            return  # the child ends as _run_session says: interrupted, or with the launch's error
        results = self._run.run
        if results is not None:
            _tell_ended(self._writer, min(results.failures, 255), self._interrupts)


class SpareStart:
    """What a spare child prepares before its run is known: nothing read from a file a person
    edits but the launch options of the browser it launches ahead (``run/browser_host.py``'s
    ``launch_early``: the run's host takes that browser only when its own configuration asks for
    the same options, else closes it and launches another)."""

    def __init__(self, loop: Any) -> None:
        self.loop = loop  # the engine's loop: Playwright's driver, and the browser launched ahead

    @classmethod
    def prepare(cls, args: argparse.Namespace) -> SpareStart:
        from runner.engine.driver import start_driver_early
        from runner.engine.loop import EngineLoop

        loop = EngineLoop()
        start_driver_early(loop)
        _import_run_modules()
        if args.backend_ca:  # its run starts a proxy for runner open's servers
            from runner.backend import BackendProxy

            BackendProxy.preload()
        if not args.headed:  # headed, it would show an empty window until the run: the run launches it
            _launch_ahead(args, loop)
        return cls(loop)

    def close(self) -> None:
        """The run never came (or could not start): close the browser launched ahead."""
        from runner.run.browser_host import drop_early_launch

        drop_early_launch(self.loop)


def _import_run_modules() -> None:
    """Import what every run imports (runner's run, pytest and its plugins), before the run."""
    import importlib

    for name in ("runner.plugin", "runner.plugin.recorder", "runner.plugin.run_events",
                 "runner.plugin.tests_ledger", "runner.reporters.feed", "runner.run.live_view",
                 "runner.run.session"):
        importlib.import_module(name)  # for its cost, here rather than on the run's path
    from runner.run.launch import import_pytest_plugins

    import_pytest_plugins()


def _launch_ahead(args: argparse.Namespace, loop: Any) -> None:
    """Start launching the browser with the configuration as it reads now (nothing when it does
    not read, or no browser is found: the run says why)."""
    from runner.config import load_config
    from runner.run.browser_host import launch_early

    try:
        config = load_config(args.project, config_file=args.config_file, cli_config=args.config,
                             cli_env=args.env or None, testing_type=args.testing_type)
    except RunnerError:
        return
    launch_early(loop, config, browser_choice=args.browser, headed=False, endpoint=None)


def _wait_for_run(args: argparse.Namespace) -> bool:
    """Wait on the control pipe for the run and put it in ``args``; False when the pipe closed
    (the spare is not needed any more). Read a byte at a time: what follows the line (studio's
    input) stays in the pipe for the studio plugin."""
    line = _read_line(args.control_fd)
    if not line.endswith(b"\n"):
        return False
    try:
        request = json.loads(line)
    except ValueError:
        return False
    if not isinstance(request, dict) or request.get("t") != "run":
        return False
    args.spec = [str(s) for s in request.get("specs") or []]
    args.test = str(request["test"]) if request.get("test") else None
    args.studio = bool(request.get("studio"))
    args.keep = int(request.get("keep", args.keep))
    return True


def _read_line(fd: int, bound: float | None = None) -> bytes:
    """One line of the control pipe, read a byte at a time (what follows stays in the pipe: the
    run's, studio's input); what was read when the pipe closed or ``bound`` seconds passed."""
    import os
    import select
    import time

    deadline = None if bound is None else time.monotonic() + bound
    line = b""
    while not line.endswith(b"\n"):
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    return line


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
