"""``runner open``: start the interactive mode's server, print its URL, serve until Ctrl-C.

The ``webServer`` servers are started first (a server that cannot start is one message, exit
status 1), with runner open's proxy relay in their environment (``backend/open_proxy.py``), and
stopped last; the page shows a line per server and a server's death at once (``ui/state.py``'s
``ServerLines``). Ctrl-C or SIGTERM stops the run in progress (its browser closed, its
processes killed when they do not end in time), closes the server and removes its temporary
traces: exit status 0. A port that cannot be used is one message and exit status 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.errors import RunnerError, UsageError

if TYPE_CHECKING:
    from runner.backend.open_proxy import OpenProxy
    from runner.ui.state import ServerLines

__all__ = ["open_command"]


def open_command(*, project: str | None, config_file: str | None, cli_config: list[Any] | None,
                 cli_env: list[str] | None, browser: str | None, headed: bool, port: int | None,
                 open_browser: bool, testing_type: str = "e2e", spare: bool = True) -> int:
    from runner.run.interrupts import become_subreaper, kill_descendants

    become_subreaper()  # a browser whose child died is still ours to end (and to reap: ui/reaper.py)
    root = Path(project) if project else Path.cwd()
    try:
        with _web_servers(root, config_file, cli_config, cli_env, testing_type) as (backend, servers):
            return asyncio.run(_serve(root, config_file, cli_config, cli_env, browser, headed, port, open_browser,
                                      testing_type, spare, backend, servers))
    finally:
        kill_descendants()


@contextlib.contextmanager
def _web_servers(root: Path, config_file: str | None, cli_config: list[Any] | None, cli_env: list[str] | None,
                 testing_type: str) -> Iterator[tuple[OpenProxy | None, ServerLines]]:
    """``webServer``: the app's servers started before the server serves (so before its first run),
    stopped when ``runner open`` exits. A configuration that cannot be read starts none: the
    page shows its problem. SIGTERM while they start stops them as Ctrl-C does. The servers get
    the session's proxy relay in their environment (``backend/open_proxy.py``: each run's
    ``runner.intercept_backend`` routes see their calls), yielded for the runs; it stops, and its
    CA's folder is removed, after them. With it come the servers' lines for the page (started or
    reused, and a death while runner open runs)."""
    from runner.config import load_config
    from runner.config.web_server import web_servers
    from runner.redaction import Redactor
    from runner.run.web_server import start_web_servers
    from runner.ui import reaper
    from runner.ui.state import ServerLines

    try:
        config = load_config(root, config_file=config_file, cli_config=cli_config, cli_env=cli_env or None,
                             testing_type=testing_type) if root.is_dir() else None
    except RunnerError:
        config = None
    specs = web_servers(config.web_server, config.project_root) if config is not None else []
    if not specs:
        yield None, ServerLines()
        return
    from runner.backend.open_proxy import OpenProxy
    from runner.backend.proxy import ProxyError

    backend = OpenProxy()
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        try:
            extra_env = backend.start()
        except (ProxyError, OSError) as err:
            raise UsageError(f"runner's proxy for the app's servers could not start: {err}") from None
        redact = Redactor.for_config(config).text if config is not None else None
        lines = ServerLines(redact)
        servers = start_web_servers(specs, extra_env=extra_env, redact=redact, on_exit=lines.exited)
        lines.started(servers.events)
    except BaseException:
        backend.stop()
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    for pid in servers.pids:
        reaper.own(pid)  # its end is waited for by its watcher (run/web_server.py), not reaped
    try:
        with servers:
            yield backend, lines
    finally:
        backend.stop()  # after the servers: none calls out through it any more


async def _serve(project: Path, config_file: str | None, cli_config: list[Any] | None,
                 cli_env: list[str] | None, browser: str | None, headed: bool, port: int | None,
                 open_browser: bool, testing_type: str, spare: bool, backend: OpenProxy | None,
                 servers: ServerLines) -> int:
    from runner.serve.trace import display_likely
    from runner.ui import reaper
    from runner.ui.server import OpenServer

    if not project.is_dir():
        raise UsageError(f"--project {str(project)!r} is not a folder.")
    server = OpenServer(project=project, config_file=config_file, cli_config=cli_config, cli_env=cli_env,
                        browser=browser, headed=headed, port=port, testing_type=testing_type, spare=spare,
                        backend=backend, servers=servers)
    reaper.install(asyncio.get_running_loop())  # the orphans of every run's child reach this subreaper
    try:
        url = await server.start()
    except OSError as err:
        await server.close()
        raise UsageError(
            f"port {port!r} could not be used for runner open: {err.strerror or err}.\n"
            "Expected a free port: choose another with --port N, or leave --port out to use a free one."
        ) from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    servers.listen(loop, server.pages.broadcast)  # a server's death is told to the pages at once
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    print(f"runner open: serving {project.resolve()} at\n\n  {url}\n\nPress Ctrl-C to stop.", flush=True)
    if server.project.problem:
        print(f"runner: {server.project.problem}", file=sys.stderr, flush=True)
    if open_browser and display_likely():
        try:
            webbrowser.open(url)
        except Exception:  # noqa: BLE001 - the URL is printed: it can be opened by hand
            pass
    try:
        await stop.wait()
    finally:
        print("\nrunner open: stopping.", file=sys.stderr, flush=True)
        await server.close()
    return 0
