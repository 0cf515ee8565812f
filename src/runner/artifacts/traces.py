"""Which attempts of a test record a Playwright trace, which traces are kept, and where they go.

The ``trace`` option (the ``runner`` mark may set it per test or suite):

- ``"off"``: no attempt is recorded;
- ``"on"``: every attempt is recorded and kept;
- ``"retain-on-failure"`` (the default): every attempt is recorded, kept when it failed;
- ``"on-first-retry"``: only attempt 2 (the first retry) is recorded, and kept.

A trace that is not kept is never written (Playwright discards the chunk: no disk cost). A kept
one goes to ``<tracesFolder>/<spec relative path>/<test title>.zip``, `` (attempt N)`` added for
attempts after the first, with the names made safe as screenshot names are.
"""

from __future__ import annotations

from pathlib import Path

from runner.artifacts.screenshots import claim_artifact_path

__all__ = ["records_trace", "keeps_trace", "claim_trace_path"]

def records_trace(mode: str, attempt: int) -> bool:
    """Whether attempt ``attempt`` (1 for the first run of a test) of a test whose ``trace`` is
    ``mode`` is recorded."""
    if mode in ("on", "retain-on-failure"):
        return True
    if mode == "on-first-retry":
        return attempt == 2
    return False


def keeps_trace(mode: str, attempt: int, *, failed: bool) -> bool:
    """Whether the trace of a recorded attempt is kept (written): ``failed`` is whether the
    attempt failed in its setup or its call (see docs/traces.md for teardown)."""
    if not records_trace(mode, attempt):
        return False
    return failed if mode == "retain-on-failure" else True


def claim_trace_path(folder: Path, spec_relative: str, title: str, *, attempt: int, taken: set[Path]) -> Path:
    """``<folder>/<spec_relative>/<title>.zip`` (`` (attempt N)`` for N > 1), not one of ``taken``
    (it is added to it): two tests whose titles make the same file name get `` (2)``."""
    return claim_artifact_path(folder / spec_relative, title, taken=taken, attempt=attempt, extension=".zip")
