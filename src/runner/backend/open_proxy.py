"""``runner open``'s proxy endpoint for the servers it starts: one address for the whole session,
relayed to the proxy of the run in progress.

``runner open`` starts its ``webServer`` servers once, in its own process, while each run is a
child process with its own routes and its own :class:`BackendProxy`. :class:`OpenProxy` makes the
session's CA once (in a temporary folder removed when it stops), gives the servers a stable
address on 127.0.0.1 and a bundle holding that CA, and relays each TCP connection made to that
address: to the proxy of the run in progress (which signs with the same CA, so TLS ends in the
run's mitmproxy, where its routes see the request), or, while no run is in progress, to a
pass-through proxy of its own (no routes: every request goes on untouched). A change of run
closes the connections relayed so far, so that a client keeping its connection alive opens a new
one, which goes where the new run's routes see it.

The relay runs on its own thread and loop, like the proxy: the servers start (and may call out)
before ``runner open``'s own loop exists, and keep the address until it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import threading
from pathlib import Path

from runner.backend.proxy import CA_FILES, BackendProxy, ProxyError

__all__ = ["OpenProxy"]

_START_S = 10.0
_STOP_S = 10.0
_CHUNK = 64 * 1024
_BUNDLE = "ca-bundle.pem"  # BackendProxy's: the system's CAs, then the CA


class OpenProxy:
    """The session's CA, its pass-through proxy and the relay (see the module's docstring)."""

    def __init__(self) -> None:
        self._folder: Path | None = None
        self._passthrough: BackendProxy | None = None
        self._lock = threading.Lock()
        self._owner: object | None = None
        self._run_port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._port: int | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._open: set[asyncio.StreamWriter] = set()

    @property
    def ca(self) -> Path:
        """The session's temporary folder: its CA, which every run's proxy signs with (each keeps
        its own folder in it, so none outlives the session)."""
        assert self._folder is not None
        return self._folder

    def start(self) -> dict[str, str]:
        """Make the CA, start the pass-through proxy and the relay; returns the environment a
        server needs (BackendProxy's, with the relay's address). Raises :class:`ProxyError`."""
        self._folder = Path(tempfile.mkdtemp(prefix="runner-open-proxy-"))
        try:
            self._passthrough = BackendProxy(lambda: None)  # no routes: every request goes on
            env = self._passthrough.environment()
            assert self._passthrough.folder is not None
            for name in (*CA_FILES, _BUNDLE):
                shutil.copyfile(self._passthrough.folder / name, self._folder / name)
            self._start_relay()
        except BaseException:
            self.stop()
            raise
        url = f"http://127.0.0.1:{self._port}"
        env.update({name: url for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")})
        # the session's bundle, in the session's folder (the pass-through proxy's is the same)
        env.update({name: str(self._folder / _BUNDLE) for name, value in env.items() if value.endswith(_BUNDLE)})
        return env

    def route(self, owner: object, port: int) -> None:
        """From now on, connections go to ``owner``'s proxy on ``port`` (a run started)."""
        with self._lock:
            self._owner, self._run_port = owner, port
        self._close_open()

    def unroute(self, owner: object) -> None:
        """``owner``'s run ended: connections go to the pass-through proxy again (nothing when
        another run took the address meanwhile)."""
        with self._lock:
            if self._owner is not owner:
                return
            self._owner = self._run_port = None
        self._close_open()

    def _start_relay(self) -> None:
        self._ready.clear()
        thread = threading.Thread(target=self._main, name="runner-open-proxy-relay", daemon=True)
        self._thread = thread
        thread.start()
        if not self._ready.wait(_START_S) or self._port is None:
            raise ProxyError(f"runner open's proxy relay did not start: {self._error or 'no answer'}.")

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._server = loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
            self._port = int(self._server.sockets[0].getsockname()[1])
            self._ready.set()
            loop.run_forever()
            self._server.close()
            for writer in list(self._open):
                writer.close()
            # the relayed connections' tasks end by the close (their reads see the end) before the
            # loop closes; one that does not within the bound is cancelled
            pending = asyncio.all_tasks(loop)
            if pending:
                _done, left = loop.run_until_complete(asyncio.wait(pending, timeout=_STOP_S / 2))
                for task in left:
                    task.cancel()
        except BaseException as err:  # noqa: BLE001 - told to the thread that starts it
            self._error = err
        finally:
            self._ready.set()
            loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            run_port = self._run_port
        port = run_port if run_port is not None else self._passthrough.port if self._passthrough else None
        try:
            if port is None:
                raise OSError("no proxy to relay to")
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()  # the run's proxy is gone (its child ended): the client sees a closed connection
            return
        self._open.update((writer, up_writer))
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            self._open.difference_update((writer, up_writer))
            for end in (writer, up_writer):
                end.close()

    def _close_open(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def close_all() -> None:
            for writer in list(self._open):
                writer.close()

        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(close_all)

    def stop(self) -> None:
        """Stop the relay and the pass-through proxy, remove the folder (the CA, and what a run's
        proxy left there). Safe to call twice."""
        loop, thread = self._loop, self._thread
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(_STOP_S)
        self._loop = self._thread = None
        self._port = None
        if self._passthrough is not None:
            self._passthrough.stop()
            self._passthrough = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy one direction until its end (or the other side's close); the end is passed on."""
    try:
        while chunk := await source.read(_CHUNK):
            sink.write(chunk)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()
    except (OSError, RuntimeError):
        sink.close()
