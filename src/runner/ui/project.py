"""The project as ``runner open`` sees it: its configuration and its specs, read again on demand.

The server reads ``runner.json`` (and the rest) when it starts, when a page connects, after a
scaffold and when a watched file changes. A configuration that cannot be read is shown in the UI
(``problem``), never raised: the server keeps serving, with no specs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.errors import RunnerError

__all__ = ["OpenProject"]


class OpenProject:
    """One ``runner open``'s project: where it is, how it is configured, and its specs by name."""

    def __init__(self, *, root: Path, config_file: str | None, cli_config: list[Any], cli_env: list[str],
                 testing_type: str, on_config: Callable[[Any], None]) -> None:
        self.root = root
        self.config_file = config_file
        self.cli_config = cli_config
        self.cli_env = cli_env
        self.testing_type = testing_type  # "component": componentFolder's specs, the component block
        self._on_config = on_config  # told each configuration read (numTestsKeptInMemory)
        self.config: Any = None
        self.problem: str | None = None
        self.specs: dict[str, Path] = {}

    def reload(self) -> None:
        """Read runner.json (and the rest) again; a bad one is shown in the UI, not raised."""
        from runner.config import load_config
        from runner.run.specs import select_specs, spec_folder

        try:
            config = load_config(self.root, config_file=self.config_file, cli_config=self.cli_config,
                                 cli_env=self.cli_env or None, testing_type=self.testing_type)
        except RunnerError as err:
            self.problem = str(err)
            self.specs = {}
            return
        self.config = config
        self._on_config(config)
        try:
            found, _warnings = select_specs(config, None, self.root)
        except RunnerError as err:
            self.problem = str(err)
            self.specs = {}
            return
        self.problem = None
        _option, folder = spec_folder(config)  # select_specs checked it
        self.specs = {p.relative_to(folder).as_posix(): p for p in found}

    def page_config(self, keep: int) -> dict[str, Any]:
        """What the page shows of the project (``keep``: how many tests the server keeps)."""
        config = self.config
        return {
            "project": self.root.name + (" (component)" if self.testing_type == "component" else ""),
            "studio": bool(config and config.experimental_studio),
            "watch": bool(config and config.watch_for_file_changes),
            "keep": keep,
            "problem": self.problem,
            "scaffold": self.needs_scaffold(),
            "viewer": "/viewer/index.html",
        }

    def needs_scaffold(self) -> bool:
        if self.config_file in ("false", False):
            return False
        if not (self.root / (self.config_file or "runner.json")).is_file():
            return True
        if self.testing_type == "component":  # the scaffold is an e2e project's
            return False
        folder = self.config.path("integrationFolder") if self.config is not None else None
        return folder is None or not folder.is_dir()
