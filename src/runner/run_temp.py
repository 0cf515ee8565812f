"""The run's temporary folder: where a ``runner run``'s processes put what they leave in the temp folder.

A test process that dies (SIGKILL, a crash) cannot remove what it made in the temp folder, nor
can its workers, their Playwright drivers or their browsers once they are killed with it:
Playwright's ``playwright-artifacts-*``, ``playwright-tracing-*`` and
``playwright_chromiumdev_profile-*`` folders, runner's ``runner-proxy-<pid>-*`` folder (the app
server proxy's CA, its private key included). Their names are random or name a process, so
nothing outside the run could tell them from another run's.

So the process watching a ``runner run`` (``run/guard.py``) makes one folder for the run,
``runner-run-<its pid>-*`` in the temp folder, before it starts the test process, and names it
in the environment (:data:`ENV`) that process and its workers inherit: Playwright's drivers
are started with it as their ``TMPDIR`` (``engine/driver.py``; their browsers inherit it) and
runner's proxy makes its folder in it (``backend/proxy.py``). The watching process removes the
folder, with whatever is left in it, once the test process and everything it started have ended.
The tests' own temporary files (``tempfile``, pytest's ``tmp_path``) are not moved: ``TMPDIR`` is
the drivers' alone. This module imports nothing else of runner.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["ENV", "make_run_folder", "remove_run_folder", "run_folder"]

#: The environment variable naming the run's folder to the test process and its workers (runner's
#: configuration passes over ``RUNNER_INTERNAL_*``: it is no option, nor an env value of the tests).
ENV = "RUNNER_INTERNAL_RUN_TEMP"


def make_run_folder() -> Path | None:
    """Make the run's folder and name it in this process's environment (its children inherit
    it); None when the temp folder cannot be written (the processes then use it as before)."""
    try:
        folder = Path(tempfile.mkdtemp(prefix=f"runner-run-{os.getpid()}-"))
    except OSError:
        return None
    os.environ[ENV] = str(folder)
    return folder


def run_folder() -> str | None:
    """The run's folder when this process runs in one that is there, else None."""
    folder = os.environ.get(ENV, "")
    return folder if folder and os.path.isdir(folder) else None


def remove_run_folder(folder: Path) -> None:
    """Remove the run's folder and all in it (when every process of the run has ended)."""
    if os.environ.get(ENV) == str(folder):
        del os.environ[ENV]
    shutil.rmtree(folder, ignore_errors=True)
