"""``trashAssetsBeforeRuns``: empty the screenshots, videos, downloads and traces folders before a run
(and trash the older events file, which ``artifacts/events_file.py`` checked is runner's).

The *contents* of each folder (never the folder itself) go to the freedesktop.org trash
(``$XDG_DATA_HOME/Trash``, else ``~/.local/share/Trash``: ``files/`` plus one
``info/<name>.trashinfo`` each, as the Trash specification 1.0 says) when that trash is on the same
file system; otherwise, or where there is no freedesktop trash (macOS, Windows, a container with
no ``~/.local/share``), they are deleted.

Because a folder can be configured to any place, :func:`plan_trash` first refuses settings that
would throw away something that is not an artifact: the project root or a parent of it, ``/``, the
home folder, folders holding specs or fixtures (or inside them), the folders of the support and
plugins files, the config file's folder and the folder the app is served from (or inside it).

A folder that does not exist, or cannot be a folder (a parent of it is a file), is simply nothing
to trash; an entry that cannot be moved or deleted is reported in :attr:`TrashPlan.problems` and
the run goes on.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from runner.errors import ConfigError

__all__ = ["TrashPlan", "plan_trash", "trash_assets", "home_trash", "TRASHED_PROPERTIES"]

#: The folders emptied before a run, in order.
TRASHED_PROPERTIES = ("screenshotsFolder", "videosFolder", "downloadsFolder", "tracesFolder")


@dataclass
class TrashPlan:
    """What :func:`trash_assets` empties: ``(property name, resolved folder)`` pairs."""

    folders: list[tuple[str, Path]] = field(default_factory=list)
    #: Single files trashed themselves (an older events file): ``(property name, file)``.
    files: list[tuple[str, Path]] = field(default_factory=list)
    #: One line per folder or entry :func:`trash_assets` could not empty (the run goes on).
    problems: list[str] = field(default_factory=list)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _within(child: Path, parent: Path) -> bool:
    """``child`` is ``parent`` or below it (both resolved)."""
    return child == parent or parent in child.parents


def _path_or_none(config: Any, name: str) -> Path | None:
    try:
        value = config.path(name)
    except Exception:  # noqa: BLE001 - an option this config does not know
        return None
    return _real(Path(value)) if value is not None else None


def _protected(config: Any) -> list[tuple[Path, str, bool]]:
    """``(path, why, also_inside)``: trashing that path or a parent of it is refused, and with
    ``also_inside`` a folder inside it is refused too."""
    root = _real(Path(config.project_root))
    found: list[tuple[Path, str, bool]] = [
        (root, f"the project root ({root})", False),
        (Path(os.path.abspath(os.sep)), "the file system root", False),
        (_real(Path.home()), f"the home folder ({_real(Path.home())})", False),
    ]
    if config.config_file:
        folder = _real(Path(config.config_file)).parent
        found.append((folder, f"the folder of the config file {config.config_file}", False))
    for name, why in (("integrationFolder", "holds the spec files"),
                      ("componentFolder", "holds the component spec files"),
                      ("fixturesFolder", "holds the fixtures")):
        path = _path_or_none(config, name)
        if path is not None:
            found.append((path, f"{name} ({path}), which {why}", True))
    for name in ("supportFile", "pluginsFile"):
        path = _path_or_none(config, name)
        if path is not None:
            found.append((path.parent, f"the folder of {name} ({path})", False))
    served = _path_or_none(config, "fileServerFolder")
    if served is not None:
        # A folder inside the served one is refused too, except when the project root itself is
        # served (the default "."): the artifact folders live in the project like everything else.
        inside_too = not _within(root, served)
        found.append((served, f"fileServerFolder ({served}), which the app is served from", inside_too))
    return found


def plan_trash(config: Any) -> TrashPlan:
    """The folders to empty, after checking none of them is a place that must not be emptied.

    Raises :class:`ConfigError` naming the property, the folder and the reason otherwise.
    """
    plan = TrashPlan()
    problems: list[str] = []
    protected = _protected(config)
    for name in TRASHED_PROPERTIES:
        folder = _path_or_none(config, name)
        if folder is None:
            continue
        for path, why, also_inside in protected:
            if _within(path, folder):
                relation = "is" if path == folder else "contains"
                problems.append(f"{name}: {folder} {relation} {why}")
                break
            if also_inside and _within(folder, path):
                problems.append(f"{name}: {folder} is inside {why}")
                break
        else:
            plan.folders.append((name, folder))
    if problems:
        raise ConfigError(
            "trashAssetsBeforeRuns would empty folders that are not artifact folders, so "
            "nothing was trashed:\n  " + "\n  ".join(problems) + "\n"
            "Point each of these at a folder of its own (the defaults are runner/screenshots, "
            "runner/videos, runner/downloads and runner/traces), or set \"trashAssetsBeforeRuns\": false.",
            problems,
        )
    return plan


# -- the freedesktop.org trash ---------------------------------------------------------------------


def home_trash() -> Path:
    """``$XDG_DATA_HOME/Trash`` (when set to an absolute path), else ``~/.local/share/Trash``."""
    data_home = os.environ.get("XDG_DATA_HOME", "")
    if not data_home or not os.path.isabs(data_home):
        data_home = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data_home) / "Trash"


def _freedesktop_available(trash: Path) -> bool:
    if sys.platform in ("darwin", "win32", "cygwin"):
        return False
    return trash.is_dir() or trash.parent.is_dir()


def _candidate(name: str, n: int) -> str:
    """``name`` for n == 1, then ``stem.N.rest`` (as GLib names colliding trash entries)."""
    if n == 1:
        return name
    dot = name.find(".", 1)
    if dot == -1:
        return f"{name}.{n}"
    return f"{name[:dot]}.{n}{name[dot:]}"


def _trashinfo(original: Path) -> bytes:
    encoded = quote(os.fsencode(str(original)), safe="/")
    date = time.strftime("%Y-%m-%dT%H:%M:%S")
    return f"[Trash Info]\nPath={encoded}\nDeletionDate={date}\n".encode("ascii")


def _move_to_trash(item: Path, trash: Path) -> bool:
    """Move ``item`` (not following it if it is a link) into ``trash``; False: not possible."""
    files, info = trash / "files", trash / "info"
    for n in range(1, 10_000):
        name = _candidate(item.name, n)
        info_file = info / f"{name}.trashinfo"
        try:
            fd = os.open(info_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        try:
            os.write(fd, _trashinfo(item))
        finally:
            os.close(fd)
        target = files / name
        if os.path.lexists(target):  # an entry whose info file was lost: keep it, try another
            info_file.unlink()
            continue
        try:
            os.rename(item, target)
        except OSError:
            info_file.unlink(missing_ok=True)
            return False
        return True
    return False


def _delete(item: Path) -> None:
    mode = os.lstat(item).st_mode
    if stat.S_ISDIR(mode):
        shutil.rmtree(item)
    else:
        item.unlink()


def _trash_files_device(trash: Path) -> int | None:
    """The device of the trash's ``files`` folder (created with ``info`` if missing), or None
    when it cannot be made: items are then deleted."""
    try:
        for sub in (trash, trash / "files", trash / "info"):
            sub.mkdir(mode=0o700, parents=True, exist_ok=True)
        return os.stat(trash / "files").st_dev
    except OSError:
        return None


def _planned_items(plan: TrashPlan) -> Iterator[tuple[str, Path, int]]:
    """What the plan throws away, with its option name and device: each planned file that is a
    regular file, then the entries of each planned folder. A folder that cannot be listed goes
    to ``plan.problems``; missing ones are skipped."""
    for name, file in plan.files:
        try:
            st = os.lstat(file)
        except OSError:
            continue  # no older file: nothing to trash
        if stat.S_ISREG(st.st_mode):
            yield name, file, st.st_dev
    for name, folder in plan.folders:
        try:
            st = os.stat(folder)
            if not stat.S_ISDIR(st.st_mode):
                continue  # a file where the folder should be: nothing to trash
            entries = sorted(os.listdir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue  # no such folder (or a parent of it is a file): nothing to trash
        except OSError as exc:
            plan.problems.append(f"{name}: {folder} could not be emptied: {exc.strerror or exc}")
            continue
        for entry in entries:
            yield name, folder / entry, st.st_dev


def trash_assets(plan: TrashPlan, *, use_freedesktop: bool | None = None) -> list[Path]:
    """Move the contents of each planned folder to the trash (or delete them); return them.

    ``use_freedesktop``: None decides by the platform and whether a data home exists; False
    always deletes. Missing folders are skipped. Links inside are moved (or removed) as links.
    Never raises for a folder or entry it cannot handle: each goes to ``plan.problems``.
    """
    trash = home_trash()
    if use_freedesktop is None:
        use_freedesktop = _freedesktop_available(trash)
    trash_dev = _trash_files_device(trash) if use_freedesktop else None
    moved: list[Path] = []
    for name, item, device in _planned_items(plan):
        try:
            if not (trash_dev is not None and device == trash_dev and _move_to_trash(item, trash)):
                _delete(item)
        except FileNotFoundError:
            continue
        except OSError as exc:
            plan.problems.append(f"{name}: {item} could not be trashed: {exc.strerror or exc}")
            continue
        moved.append(item)
    return moved
