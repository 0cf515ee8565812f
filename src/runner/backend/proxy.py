"""runner's proxy for the app's server: mitmproxy's core on a thread of its own, a CA per run.

:class:`BackendProxy` starts (once, on first use) a mitmproxy ``Master`` listening on 127.0.0.1
on a free port, its CA generated into a temporary folder of the run's own (never the user's
``~/.mitmproxy``), and gives the environment a server needs to send its HTTP and HTTPS through it
(:meth:`BackendProxy.environment`). It is stopped, and its folder removed, when the run ends.

The proxy runs on its own thread and loop, not the engine's: the engine's loop may be given up
(a blocked handler) and made anew while the app's server keeps the proxy's address for the whole
run; each request crosses to the engine's loop only when a route wants it (``flows.py``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import tempfile
import threading
from pathlib import Path

from runner.backend.flows import FlowsAddon, Target
from runner.run_temp import run_folder

__all__ = ["BackendProxy", "ProxyError"]

#: The run's CA lives in a temporary folder named after the process that made it, in the run's
#: folder under ``runner run`` (``run_temp.py``): what a dead test process or worker left is
#: removed with it.
_FOLDER_PREFIX = "runner-proxy-"

_START_S = 30.0  # mitmproxy's servers are up (and its CA written) within this
_STOP_S = 10.0
_CA_FILE = "mitmproxy-ca-cert.pem"
#: The CA as mitmproxy keeps it in its folder: key and certificate, and the certificate alone.
CA_FILES = ("mitmproxy-ca.pem", _CA_FILE)


class ProxyError(Exception):
    """The proxy could not be started (the message says why)."""


class BackendProxy:
    """The run's proxy for the app's server (see the module's docstring). ``target`` gives the
    run's interceptor and its loop (None while no test has made one: everything goes by).
    ``ca``: a folder holding a CA made before (mitmproxy's ``mitmproxy-ca.pem``, key and
    certificate, and ``mitmproxy-ca-cert.pem``), used instead of making one; this proxy's own
    folder is made in it (``runner open``: every run's proxy signs with the session's CA, which
    its servers trust; ``backend/open_proxy.py``)."""

    def __init__(self, target: Target, *, ca: Path | None = None) -> None:
        self._target = target
        self._ca = ca
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._master: object | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._folder: Path | None = None
        self._port: int | None = None

    @property
    def started(self) -> bool:
        """Whether the proxy was started (some server may be sending through it)."""
        return self._port is not None

    @property
    def port(self) -> int | None:
        return self._port

    @property
    def folder(self) -> Path | None:
        """The proxy's own folder (its CA, the bundle), once started."""
        return self._folder if self._port is not None else None

    @property
    def ca_file(self) -> Path | None:
        """The run's CA certificate (PEM), once the proxy is started."""
        return self._folder / _CA_FILE if self._folder is not None and self._port is not None else None

    def environment(self) -> dict[str, str]:
        """The variables that send a server's HTTP and HTTPS through the proxy (the proxy is
        started on first call): ``HTTP_PROXY``/``HTTPS_PROXY`` and their lowercase forms,
        ``NO_PROXY`` emptied (loopback goes through the proxy too, so a service standing on
        127.0.0.1 in a test is reached through it), and a CA bundle (the system's CAs and the
        run's) in ``REQUESTS_CA_BUNDLE``, ``SSL_CERT_FILE``, ``CURL_CA_BUNDLE`` and
        ``NODE_EXTRA_CA_CERTS``. Raises :class:`ProxyError` when the proxy cannot start."""
        self.start()
        assert self._folder is not None and self._port is not None
        url = f"http://127.0.0.1:{self._port}"
        bundle = str(self._folder / "ca-bundle.pem")
        env = {"HTTP_PROXY": url, "HTTPS_PROXY": url, "NO_PROXY": "",
               "REQUESTS_CA_BUNDLE": bundle, "SSL_CERT_FILE": bundle, "CURL_CA_BUNDLE": bundle,
               "NODE_EXTRA_CA_CERTS": bundle}
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"):
            env[name.lower()] = env[name]
        return env

    def start(self) -> None:
        """Start the proxy unless it runs (bounded: :data:`_START_S`)."""
        with self._lock:
            if self._port is not None:
                return
            self._folder = Path(tempfile.mkdtemp(prefix=f"{_FOLDER_PREFIX}{os.getpid()}-",
                                                 dir=self._ca if self._ca is not None else run_folder()))
            if self._ca is not None:
                for name in CA_FILES:  # mitmproxy signs with this CA, and makes none
                    shutil.copyfile(self._ca / name, self._folder / name)
            self._ready.clear()
            self._error = None
            thread = threading.Thread(target=self._main, name="runner-backend-proxy", daemon=True)
            self._thread = thread
            thread.start()
            if not self._ready.wait(_START_S):
                self._error = ProxyError(f"runner's proxy for the app's server did not start within {_START_S:g}s.")
            if self._error is not None or self._port is None:
                error = self._error or ProxyError("runner's proxy for the app's server did not start.")
                self._stop_locked()
                if isinstance(error, ProxyError):
                    raise error
                raise ProxyError(f"runner's proxy for the app's server did not start: {error}") from error
            self._write_bundle()

    def _write_bundle(self) -> None:
        """The CA bundle a server trusts: the system's CAs, then the run's."""
        assert self._folder is not None
        ours = (self._folder / _CA_FILE).read_text()
        system = ""
        cafile = ssl.get_default_verify_paths().cafile
        if cafile and Path(cafile).is_file():
            system = Path(cafile).read_text()
        else:
            import certifi  # mitmproxy's own dependency: the CAs when the system has no bundle file

            system = Path(certifi.where()).read_text()
        (self._folder / "ca-bundle.pem").write_text(system.rstrip("\n") + "\n" + ours)

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as err:  # noqa: BLE001 - told to the thread that starts it
            self._error = err
        finally:
            self._ready.set()
            loop.close()

    @staticmethod
    def preload() -> None:
        """Import what starting the proxy imports, ahead (``runner open``'s spare child: its run's
        proxy then starts in a few hundredths of a second)."""
        from mitmproxy.addons import core, disable_h2c, next_layer, proxyserver, tlsconfig  # noqa: F401
        from mitmproxy.master import Master  # noqa: F401
        from mitmproxy.options import Options  # noqa: F401

    async def _serve(self) -> None:
        from mitmproxy.addons import core, disable_h2c, next_layer, proxyserver, tlsconfig
        from mitmproxy.master import Master
        from mitmproxy.options import Options

        assert self._folder is not None
        # the services the server calls are verified against the system's CAs (mitmproxy's own
        # default is certifi's bundle, which knows no company CA)
        cafile = ssl.get_default_verify_paths().cafile
        options = Options(confdir=str(self._folder), listen_host="127.0.0.1", listen_port=0,
                          ssl_verify_upstream_trusted_ca=cafile if cafile and Path(cafile).is_file() else None)
        master = Master(options)
        self._master = master

        def running() -> None:
            proxyserver = master.addons.get("proxyserver")
            addresses = proxyserver.listen_addrs() if proxyserver is not None else []
            if addresses:
                self._port = int(addresses[0][1])
            self._ready.set()

        # what a regular HTTP(S) proxy needs, no more (mitmproxy's full set brings its web
        # onboarding, replay and proxy authentication, none of which runner uses)
        master.addons.add(core.Core(), proxyserver.Proxyserver(), next_layer.NextLayer(), tlsconfig.TlsConfig(),
                          disable_h2c.DisableH2C(), FlowsAddon(self._target, running))
        # a service is connected to only when a request goes to it: a stubbed one (HTTPS too)
        # is never reached, nor need it exist
        options.update(connection_strategy="lazy")
        await master.run()

    def stop(self) -> None:
        """Stop the proxy and remove its folder (its CA with it). Safe to call twice."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        loop, master, thread = self._loop, self._master, self._thread
        if loop is not None and master is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(master.shutdown)  # type: ignore[attr-defined]
            except RuntimeError:
                pass  # the loop closed meanwhile
        if thread is not None:
            thread.join(_STOP_S)
        self._loop = self._master = self._thread = None
        self._port = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

