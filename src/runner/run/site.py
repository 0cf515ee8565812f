"""The project's site: ``fileServerFolder`` served on 127.0.0.1 when the run needs it.

The file server starts on first use: the base URL of a run without ``baseUrl``, or the page
``runner.mount`` builds. It never serves the run's own files (configuration, environment, plugins
and support files) nor its artifact folders.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from runner.config import Config
from runner.config.load import ENV_FILE_NAME
from runner.serve.files import FileServer, artifact_paths

__all__ = ["ProjectSite"]


class ProjectSite:
    """The run's file server of ``fileServerFolder``, started on first use, closed with the run."""

    def __init__(self, config: Callable[[], Config]) -> None:
        self._config = config  # the run's configuration
        self._server: FileServer | None = None

    @property
    def server(self) -> FileServer | None:
        """The file server when one was started."""
        return self._server

    @property
    def base_url(self) -> str | None:
        """``baseUrl``, else the file server's URL (None without a folder to serve)."""
        config = self._config()
        if config.base_url:
            return str(config.base_url)
        return self.url()

    def url(self) -> str | None:
        """The file server's URL, started now when it is not yet; None when ``fileServerFolder``
        is not a folder."""
        if self._server is None:
            config = self._config()
            folder = config.path("fileServerFolder")
            if folder is None or not folder.is_dir():
                return None
            port = config.port
            artifact_folders, artifact_patterns = artifact_paths(config)
            self._server = FileServer(folder, int(port) if port else None, hidden=self._runner_files(),
                                      hidden_folders=artifact_folders, hidden_patterns=artifact_patterns)
        return self._server.url

    def _runner_files(self) -> list[Path]:
        """The files of the run the file server never serves: the configuration file, the
        environment file beside it, the plugins and support files (``runner.json`` and
        ``runner.env.json`` are refused by name too)."""
        config = self._config()
        files = [config.project_root / ENV_FILE_NAME]
        if config.config_file is not None:
            files.append(config.config_file)
        for key in ("pluginsFile", "supportFile"):
            path = config.path(key)
            if path is not None:
                files.append(path)
        return files

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
