"""Component mode: the two hosts of ``runner.mount``'s pages.

A mounted component's page is served from the file server's origin; in a component run the
plugins file's ``dev-server:start`` handler may start the front end's dev server instead, once a
run (as the original), closed when the run ends. An e2e run's mounts use the file server.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from runner.commands.mount import MountHost
from runner.config import Config
from runner.errors import ConfigError
from runner.run.site import ProjectSite
from runner.usercode.plugins_file import PluginEvents

__all__ = ["ComponentMode"]


class ComponentMode:
    """``runner.mount``'s hosts: the page served by the project's site, and the dev server."""

    def __init__(self, *, config: Callable[[], Config], site: ProjectSite, events: Callable[[], PluginEvents]) -> None:
        self._config = config  # the run's configuration
        self._site = site
        self._events = events  # the plugins file's handlers (dev-server:start)
        # the dev server: not asked yet (None), (url, close), or the error it gave
        self._dev_server: tuple[str, Callable[[], Any] | None] | ConfigError | None = None

    def mount_host(self) -> MountHost:
        """What ``runner.mount`` is handed to serve its pages."""
        return MountHost(self.mount_page, self.dev_server_url)

    def mount_page(self, html: str) -> str:
        """Serve a page ``runner.mount`` built from the file server's origin; its URL.

        Raises ConfigError when there is no ``fileServerFolder`` to serve it from."""
        server = self._site.server if self._site.url() is not None else None
        if server is None:
            raise ConfigError(
                f"runner.mount() serves its page from fileServerFolder, and "
                f"{str(self._config().path('fileServerFolder'))!r} is not a folder.\n"
                "Create it (the project's assets are served from it) or fix fileServerFolder."
            )
        return server.mount_page(html)

    def dev_server_url(self) -> str | None:
        """The URL of the front end's dev server, started by the plugins file's
        ``dev-server:start`` handler on the first call (once a run); None without a handler.
        Raises ConfigError when the handler fails (again on every call: each mount says so).
        Only a component run starts it (as the original); an e2e run's mounts use the file server."""
        config = self._config()
        if config.testing_type != "component":
            return None
        if self._dev_server is None:
            try:
                started = self._events().start_dev_server(
                    {"testingType": config.testing_type, "config": config.as_dict(),
                     "projectRoot": str(config.project_root)})
            except ConfigError as err:
                self._dev_server = err
            else:
                self._dev_server = started or ("", None)
        if isinstance(self._dev_server, ConfigError):
            raise self._dev_server
        return self._dev_server[0] or None

    def close(self) -> None:
        """Close the dev server, when one was started (its ``close()`` may not raise the run's end)."""
        dev_server, self._dev_server = self._dev_server, None
        if isinstance(dev_server, tuple) and dev_server[1] is not None:
            try:
                dev_server[1]()
            except Exception as err:  # noqa: BLE001 - the run is over; say it and go on
                print(f"runner: the dev server's close() raised {type(err).__name__}: {err}", file=sys.stderr)
