"""Snapshot baselines: where ``match.screenshot`` and ``match.aria_snapshot`` keep them, when an
update mode writes them, and where a failure's images go (docs/snapshots.md).

A baseline lives beside its spec, per browser and platform for a picture::

    <spec folder>/__snapshots__/<spec file stem>/<name>-<browser>-<platform>.png
    <spec folder>/__snapshots__/<spec file stem>/<name>.aria.yml

Baselines are the user's files: runner writes one only when it is missing or an update mode asks
(``updateSnapshots``, ``runner run --update-snapshots``), never deletes one, and writes through a
temporary file renamed into place, so two workers writing the same baseline leave one whole file.
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from runner.artifacts.screenshots import claim_artifact_path
from runner.errors import UsageError

__all__ = ["MODES", "UpdatePolicy", "baseline_path", "checked_name", "failure_paths", "read_baseline",
           "write_baseline"]

#: The values of ``updateSnapshots`` (null, the default, is :class:`UpdatePolicy`'s first case).
MODES = ("none", "missing", "changed", "all")
_BAD_CHARS = set('/\\\x00') | {chr(c) for c in range(32)}


def checked_name(name: object, assertion: str) -> str:
    """``name`` as a snapshot name, or a UsageError naming ``assertion`` and what is wrong: it must
    be a non-empty string with no path separator (``/``, ``\\``) or control character."""
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"should({assertion!r}, name) needs a snapshot name, a non-empty string like 'card'; "
                         f"found {name!r}.")
    bad = sorted({ch for ch in name if ch in _BAD_CHARS})
    if bad or name in (".", ".."):
        shown = ", ".join(repr(ch) for ch in bad) or repr(name)
        raise UsageError(f"should({assertion!r}, {name!r}): a snapshot name is a file name, without path "
                         f"separators or control characters (found {shown}); write it like 'card-hover'.")
    return name


def baseline_path(spec_file: Path, name: str, *, what: str, browser: str = "chromium",
                  platform: str = sys.platform) -> Path:
    """The baseline of snapshot ``name`` of the spec ``spec_file``: a PNG per browser and platform
    for a screenshot (``what`` is ``screenshot``), one YAML file for an aria snapshot (``aria``:
    the tree does not depend on either)."""
    folder = spec_file.parent / "__snapshots__" / spec_file.stem
    if what == "aria":
        return folder / f"{name}.aria.yml"
    return folder / f"{name}-{browser}-{platform}.png"


@dataclass(frozen=True)
class UpdatePolicy:
    """What an assertion may write: ``mode`` is ``updateSnapshots`` (None: the default), ``ci``
    whether the CI variable is set (the default writes no missing baseline then)."""

    mode: str | None
    ci: bool

    @classmethod
    def of(cls, mode: str | None, environ: Mapping[str, str]) -> UpdatePolicy:
        ci = environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
        return cls(mode, ci)

    @property
    def writes_missing(self) -> bool:
        """Whether a missing baseline is written (by default outside CI; by any mode but none)."""
        return (self.mode is None and not self.ci) or self.mode in ("missing", "changed", "all")

    @property
    def missing_passes(self) -> bool:
        """Whether writing a missing baseline passes: only when a mode asked for it; by default
        the test fails saying it was written (as Playwright does), so a new baseline is looked at."""
        return self.mode in ("missing", "changed", "all")

    @property
    def rewrites_changed(self) -> bool:
        return self.mode in ("changed", "all")

    @property
    def rewrites_all(self) -> bool:
        return self.mode == "all"

    def how_to_create(self) -> str:
        """The sentence a missing baseline's failure ends with."""
        if self.mode == "none":
            return "updateSnapshots is 'none': run with --update-snapshots missing to write it."
        if self.ci:
            return ("CI is set, so it was not written: run the test with --update-snapshots missing "
                    "(or outside CI) and commit the file.")
        return "run with --update-snapshots missing to write it."


def read_baseline(path: Path) -> bytes | None:
    """The baseline's bytes, None when there is none; a UsageError when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise UsageError(f"The snapshot baseline {str(path)!r} cannot be read: {err.strerror or err}.") from None


def write_baseline(path: Path, data: bytes, *, replace: bool = True) -> bool:
    """Write a baseline whole: a temporary file beside it moved into place (two writers leave one
    whole file). Without ``replace`` a baseline that exists by then is left as it is (a link
    that fails when the name is taken): returns False. Raises UsageError when the folder cannot
    be written."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(data)
        if replace:
            os.replace(temp, path)
            return True
        try:
            os.link(temp, path)
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: a rename, checked just before
            if path.exists():
                return False
            os.replace(temp, path)
        return True
    except OSError as err:
        raise UsageError(f"The snapshot baseline {str(path)!r} cannot be written: {err.strerror or err}.") from None
    finally:
        with contextlib.suppress(OSError):  # gone already when it was moved into place
            temp.unlink()


def failure_paths(folder: Path, name: str, *, attempt: int, taken: set[Path],
                  extension: str = ".png") -> dict[str, Path]:
    """Where a failed comparison's expected, actual and diff files go under ``folder`` (the test's
    screenshots folder), each a path of its own (``card-expected.png``, ...), folder made."""
    paths = {kind: claim_artifact_path(folder, name, taken=taken, tail=f"-{kind}", attempt=attempt,
                                       extension=extension)
             for kind in ("expected", "actual", "diff")}
    folder.mkdir(parents=True, exist_ok=True)
    return paths
