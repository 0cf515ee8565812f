"""``webServer``: the app's own servers, started before the first test and stopped, whole, at the end.

:func:`start_web_servers` starts each entry (config/web_server.py) in order: when its URL or port
already answers, it is reused (``reuseExistingServer``) or the run is refused; otherwise its
command runs with ``/bin/sh -c`` in a process group (a session) of its own, so a terminal's
Ctrl-C reaches runner alone and runner stops the server when it chooses, and runner waits until
the URL answers (a status below 404, as Playwright Test accepts) or the port takes a TCP
connection. A command that exits first, or that does not answer within its ``timeout``, is one
:class:`WebServerError` with its last lines of output; the servers started before it are
stopped. :meth:`WebServers.stop` ends every server it started, in reverse order: SIGTERM to its
process group, SIGKILL to what is left of the group and of the processes it started (those that
left the group too) a moment later.

The caller hands ``extra_env``: variables added last to every started server's environment (the
interception of the server's own requests adds its proxy's there). A server that dies while the
tests run is told at once, with its last lines.

``runner run`` starts them in the controlling process (workers share them) and stops them however
the run ends: a run that ends or is refused, Ctrl-C and SIGTERM (a ``KeyboardInterrupt`` through
``with``); a second signal and a dead test process leave them to :func:`kill_descendants` (the
watching parent of run/guard.py is a subreaper). ``runner open`` starts them when it starts.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import IO
from urllib.parse import urlsplit

from runner.config.web_server import WebServerSpec
from runner.errors import RunnerError
from runner.events import WebServerExited, WebServerStarted
from runner.run.interrupts import descendants

__all__ = ["ExtraEnv", "WebServerError", "WebServers", "start_web_servers"]

#: Variables added to a started server's environment, or what makes them when one is started.
ExtraEnv = Mapping[str, str] | Callable[[], Mapping[str, str]]

#: Lines of a server's output kept for a message (its last ones).
_TAIL_LINES = 30
#: Seconds a stopped server's process group has between SIGTERM and SIGKILL.
_GRACE_S = 3.0
#: The longest pause between two probes of a starting server, and the bound on one probe.
_MAX_PAUSE_S = 0.5
_PROBE_S = 2.0


class WebServerError(RunnerError):
    """A ``webServer`` entry could not be started, or did not answer; the message says which and why."""


class _Terminal:
    """runner's standard error as it was when the servers started: pytest captures fd 2 while a
    test runs, and a server's output or death must reach the person, not a test's captured
    output. Written whole lines at a time, from any thread."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact
        try:
            self._fd: int | None = os.dup(sys.stderr.fileno())
        except (OSError, ValueError, AttributeError):
            self._fd = None
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        text = self._redact(text)
        with self._lock, contextlib.suppress(OSError, ValueError):
            if self._fd is not None:
                os.write(self._fd, text.encode("utf-8", "replace"))
            else:
                sys.stderr.write(text)
                sys.stderr.flush()

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None


class _Output:
    """One stream of a server: read in a daemon thread, its last lines kept, printed as they come
    when the entry says ``pipe``."""

    def __init__(self, stream: IO[bytes], *, echo: _Terminal | None, name: str) -> None:
        self.lines: deque[str] = deque(maxlen=_TAIL_LINES)
        self._echo = echo
        self._prefix = f"[{name}] "  # the entry's place: two piped servers' lines stay apart
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True,
                                        name="runner-web-server-output")
        self._thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in stream:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.lines.append(line)
                if self._echo is not None:
                    self._echo.write(f"{self._prefix}{line}\n")

    def drain(self, bound: float = 1.0) -> None:
        """Wait (at most ``bound`` seconds) for what the server wrote before it ended."""
        self._thread.join(bound)


class _Server:
    """One started entry: its process (a session of its own), its output, its end."""

    def __init__(self, spec: WebServerSpec, extra_env: Mapping[str, str], terminal: _Terminal,
                 on_exit: Callable[[WebServerExited], None] | None) -> None:
        self.spec = spec
        self._terminal = terminal
        self._on_exit = on_exit
        self.ready = False  # it answered: an end from now on is a death, told by _watch
        self.stopping = False
        # the entry's own env wins: "HTTP_PROXY": "" keeps one server off runner's proxy
        env = {**os.environ, **extra_env, **spec.env}
        try:
            self.proc = subprocess.Popen(
                ["/bin/sh", "-c", spec.command], cwd=spec.cwd, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL if spec.stdout == "ignore" else subprocess.PIPE,
                stderr=subprocess.DEVNULL if spec.stderr == "ignore" else subprocess.PIPE,
                start_new_session=True)
        except OSError as err:
            raise WebServerError(f"{spec.name}: {spec.command!r} could not be started in {str(spec.cwd)!r}: "
                                 f"{err.strerror or err}. Check {spec.name}.cwd (a folder relative to the "
                                 "project root).") from None
        self.outputs = [_Output(stream, echo=terminal if pipe == "pipe" else None, name=spec.name)
                        for stream, pipe in ((self.proc.stdout, spec.stdout), (self.proc.stderr, spec.stderr))
                        if stream is not None]
        threading.Thread(target=self._watch, daemon=True, name="runner-web-server-watch").start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def last_lines(self) -> list[str]:
        """The server's last lines of output (what it wrote before it ended included)."""
        for output in self.outputs:
            output.drain()
        return [line for output in self.outputs for line in output.lines][-_TAIL_LINES:]

    def tail(self) -> str:
        """The server's last lines of output, as a message ends with them."""
        lines = self.last_lines()
        if not self.outputs:
            return " Its output is ignored (stdout and stderr: \"ignore\")."
        if not lines:
            return " It printed nothing."
        return " Its last output:\n" + "\n".join(f"  | {line}" for line in lines)

    def _watch(self) -> None:
        """A server that dies while the tests run is told at once (not when a test fails for it)."""
        code = self.proc.wait()
        if self.stopping or not self.ready:  # an end before it answered is the start's error
            return
        self._terminal.write(f"\nrunner: {self.spec.name}: {self.spec.command!r} {_status(code)} while the "
                             f"tests ran; the tests after this use no server.{self.tail()}\n")
        if self._on_exit is not None:  # the run's events (and so its report) tell it too
            with contextlib.suppress(Exception):  # a run that has ended takes no more events
                self._on_exit(WebServerExited(name=self.spec.name, command=self.spec.command, status=_status(code),
                                              output=self.last_lines()))

    def stop(self) -> None:
        """End the server's process group and every process it started (see the module)."""
        self.stopping = True
        family = descendants(self.pid)
        _signal_group(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + _GRACE_S
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(_GRACE_S)
        family |= descendants(self.pid)
        # the processes it started may still be ending on their own (a worker finishing a request)
        while family and time.monotonic() < deadline:
            family &= {pid for pid in family if _running(pid)}
            time.sleep(0.02)
        _signal_group(self.pid, signal.SIGKILL)
        for pid in family:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(_GRACE_S)


def _running(pid: int) -> bool:
    """``pid`` runs (a zombie has ended: its exit is only not reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(OSError):  # the group has ended already
        os.killpg(pgid, signum)


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


def _status(code: int) -> str:
    if code < 0:
        return f"was killed by {_signal_name(-code) or f'signal {-code}'}"
    # /bin/sh runs the command as its child unless it can exec it (a compound command): it then
    # exits with 128 + the number of the signal that killed its command, as "status 137" alone
    # does not tell a reader
    name = _signal_name(code - 128) if code > 128 else None
    if name is not None:
        return f"exited with status {code} (its command was killed by {name}: the shell exits with 128 + its number)"
    return f"exited with status {code}"


def url_answers(url: str, bound: float = _PROBE_S) -> bool:
    """A GET of ``url`` answers with a status below 404 (2xx, 3xx, 400-403: a server that is up
    but asks for a login answers too). Redirects are not followed, no proxy is used, and an
    HTTPS certificate is not checked: this only asks whether the server is there."""
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        connection = http.client.HTTPSConnection(host, parts.port, timeout=bound, context=context)
    else:
        connection = http.client.HTTPConnection(host, parts.port, timeout=bound)
    try:
        connection.request("GET", path, headers={"User-Agent": "runner (webServer)"})
        return connection.getresponse().status < 404
    except (OSError, http.client.HTTPException, ValueError):
        return False
    finally:
        connection.close()


def port_answers(port: int, bound: float = _PROBE_S) -> bool:
    """127.0.0.1:``port`` accepts a TCP connection."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=bound):
            return True
    except OSError:
        return False


def _answers(spec: WebServerSpec, bound: float = _PROBE_S) -> bool:
    if spec.url is not None:
        return url_answers(spec.url, bound)
    return port_answers(int(spec.port or 0), bound)


def _port_of(spec: WebServerSpec) -> int | None:
    if spec.port is not None:
        return spec.port
    parts = urlsplit(spec.url or "")
    try:
        return parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None


class WebServers:
    """The servers of one run (a context manager: leaving it stops them); :attr:`pids` are the
    processes runner started (their groups), :attr:`reused` the entries it found running."""

    def __init__(self, *, tell: Callable[[str], None] | None = None,
                 redact: Callable[[str], str] | None = None,
                 on_exit: Callable[[WebServerExited], None] | None = None) -> None:
        self._on_exit = on_exit
        self._started: list[_Server] = []
        self.reused: list[WebServerSpec] = []
        #: one per entry that answered, in order (the run publishes them after run.started)
        self.events: list[WebServerStarted] = []
        # what runner prints of a server (its command, its output) hides the run's secrets, as the
        # events and reports do: a command may carry a password the project keeps in runner.env.json
        self._redact = redact or _as_is
        told = tell or _tell
        self._tell = lambda line: told(self._redact(line))
        self._terminal: _Terminal | None = None  # made with the first server started

    @property
    def pids(self) -> list[int]:
        return [server.pid for server in self._started]

    def start(self, spec: WebServerSpec, extra_env: ExtraEnv) -> None:
        """Start one entry and wait until it answers (or reuse it); raises :class:`WebServerError`."""
        if _answers(spec):
            if spec.reuse_existing:
                self.reused.append(spec)
                self.events.append(WebServerStarted(name=spec.name, command=spec.command, target=spec.target,
                                                    reused=True))
                # a reused server was started without the variables runner would have added (its proxy)
                unproxied = (" It was not started by runner, so it has not runner's proxy: "
                             "runner.intercept_backend() does not see its requests." if extra_env else "")
                self._tell(f"{spec.name}: {spec.target} answers already: that server is used "
                           f"(reuseExistingServer), {spec.command!r} is not run.{unproxied}")
                return
            raise self._error(
                f"{spec.name}: {spec.target} answers already, before runner started {spec.command!r}: "
                "another server is using it. Stop that server (free the port), or set "
                f"{spec.name}.reuseExistingServer to true to run the tests against it.")
        began = time.monotonic()
        if self._terminal is None:
            self._terminal = _Terminal(self._redact)
        server = _Server(spec, extra_env() if callable(extra_env) else extra_env, self._terminal, self._on_exit)
        self._started.append(server)
        self._wait(server, began)
        took = time.monotonic() - began
        self.events.append(WebServerStarted(name=spec.name, command=spec.command, target=spec.target,
                                            pid=server.pid, took_ms=took * 1000))
        self._tell(f"{spec.name}: {spec.command!r} answers at {spec.target} (started in {took:.1f} s).")

    def _wait(self, server: _Server, began: float) -> None:
        spec = server.spec
        deadline = began + spec.timeout_ms / 1000
        pause = 0.05
        while True:
            code = server.proc.poll()
            if code is not None:
                raise self._error(self._exited(server, code))
            left = deadline - time.monotonic()
            if _answers(spec, max(0.05, min(_PROBE_S, left))):
                server.ready = True
                return
            if time.monotonic() >= deadline:
                raise self._error(
                    f"{spec.name}: {spec.command!r} did not answer at {spec.target} within {spec.timeout_ms} ms "
                    f"({spec.name}.timeout); it was stopped.{server.tail()}\nCheck that the command starts the "
                    f"server on that {'URL' if spec.url is not None else 'port'}, or raise {spec.name}.timeout.")
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, _MAX_PAUSE_S)

    def _error(self, message: str) -> WebServerError:
        return WebServerError(self._redact(message))

    @staticmethod
    def _exited(server: _Server, code: int) -> str:
        spec = server.spec
        port = _port_of(spec)
        held = (f" Port {port} takes connections now: another process may hold it (free it, or set "
                f"{spec.name}.reuseExistingServer to true)." if port is not None and port_answers(port, 0.5) else "")
        # status 0: the command handed the server to the background (`&`, a daemon mode) and ended,
        # or it is not a server; either way runner could neither wait on nor stop what it started
        foreground = (" The command must keep running while the server serves (in the foreground: no `&`, "
                      "no daemon mode), so that runner can stop it when the run ends." if code == 0 else "")
        return (f"{spec.name}: {spec.command!r} {_status(code)} before it answered at {spec.target}."
                f"{foreground}{held}{server.tail()}")

    def stop(self) -> None:
        """Stop every server started, the last first (again: nothing more happens)."""
        while self._started:
            self._started.pop().stop()
        if self._terminal is not None:
            self._terminal.close()

    def __enter__(self) -> WebServers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _as_is(text: str) -> str:
    return text


def _tell(line: str) -> None:
    print(f"runner: {line}", file=sys.stderr, flush=True)


def start_web_servers(specs: Sequence[WebServerSpec], *, extra_env: ExtraEnv,
                      tell: Callable[[str], None] | None = None,
                      redact: Callable[[str], str] | None = None,
                      on_exit: Callable[[WebServerExited], None] | None = None) -> WebServers:
    """Start ``specs`` in order, each answering before the next starts; ``extra_env`` is added
    last to each started server's environment (a callable is called only when a server is
    started: a run that reuses every server starts no proxy for them). Raises :class:`WebServerError` (the servers
    started before it stopped); a ``KeyboardInterrupt`` meanwhile stops them too. ``redact`` hides
    the run's secrets in every line runner prints about a server or from its output; ``on_exit``
    hears of a server that ends while the tests run (a ``web_server.exited`` event)."""
    servers = WebServers(tell=tell, redact=redact, on_exit=on_exit)
    try:
        for spec in specs:
            servers.start(spec, extra_env)
    except BaseException:
        servers.stop()
        raise
    return servers
