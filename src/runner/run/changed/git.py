"""The files git says changed since a ref: ``git diff REF`` (committed since REF, staged and not)
and the untracked files git does not ignore, under the project folder.

Every git call is bounded (:data:`GIT_TIMEOUT` seconds), takes no lock (``GIT_OPTIONAL_LOCKS=0``:
another run or an editor may be using the repository) and never asks for a password. Whatever
goes wrong is one :class:`ChangedError` naming it: git missing, a folder that is not in a git
repository (or one git refuses, owned by another user), a repository without a commit, a ref git does not know (a shallow clone is named as
the likely cause), a git that failed or did not answer.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from runner.errors import UsageError

__all__ = ["GIT_TIMEOUT", "ChangedError", "ChangedFiles", "changed_files"]

#: How long one git command may take, in seconds.
GIT_TIMEOUT = 30.0


class ChangedError(UsageError):
    """``--only-changed`` cannot know what changed (the message says why)."""


@dataclass(frozen=True)
class ChangedFiles:
    """What changed since ``ref``: absolute paths (files deleted since then included)."""

    ref: str
    top: Path  # the repository's top folder
    paths: frozenset[Path]


def changed_files(project_root: Path, ref: str) -> ChangedFiles:
    """The files under ``project_root`` that differ from ``ref`` in the working tree (committed,
    staged, or not yet), and the untracked ones. Raises :class:`ChangedError`."""
    if not ref.strip() or ref.startswith("-"):
        found = "an empty name" if not ref.strip() else "a name that starts with '-'"
        raise ChangedError(f"--only-changed {ref!r}: expected a git commit, branch or tag (HEAD, main, "
                           f"origin/main, a commit id), found {found}.")
    git = shutil.which("git")
    if git is None:
        raise ChangedError("--only-changed needs git to know what changed, and git was not found on PATH. "
                           "Install git, or run without --only-changed.")
    root = project_root.resolve()
    inside = _git(git, root, "rev-parse", "--show-toplevel", may_fail=True)
    if inside.returncode != 0 and "dubious ownership" in inside.stderr:
        # CI containers often check out as another user than the one running the tests
        raise ChangedError(f"--only-changed: git refuses the repository of {str(root)!r}: it belongs to another "
                           "user than this one (git's safe.directory). Mark it safe with `git config --global "
                           f"--add safe.directory {_repository_of(inside.stderr, root)}`, or run without --only-changed.")
    if inside.returncode != 0:
        raise ChangedError(f"--only-changed: the project folder {str(root)!r} is not in a git repository "
                           f"({_first_line(inside.stderr)}). Run it in a git checkout, or without --only-changed.")
    top = Path(inside.stdout.strip()).resolve()
    known = _git(git, root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}",
                 may_fail=True)
    if known.returncode != 0:
        raise ChangedError(_unknown_ref(git, root, ref))
    commit = known.stdout.strip()
    # `git diff COMMIT`: the working tree against COMMIT, so staged, unstaged and committed changes
    # alike; renames as a deletion and an addition, so both names count.
    diff = _git(git, root, "diff", "--name-only", "--no-renames", "--no-ext-diff", "-z", commit, "--", ".")
    untracked = _git(git, root, "ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ".")
    paths = {(top / name).resolve() for name in (diff.stdout + untracked.stdout).split("\0") if name}
    return ChangedFiles(ref=ref, top=top, paths=frozenset(paths))


def _unknown_ref(git: str, root: Path, ref: str) -> str:
    if ref == "HEAD":
        return (f"--only-changed: the git repository of {str(root)!r} has no commit yet, so there is nothing "
                "to compare with. Commit first, or run without --only-changed.")
    message = f"--only-changed {ref!r}: git knows no commit, branch or tag named {ref!r} in this repository."
    shallow = _git(git, root, "rev-parse", "--is-shallow-repository", may_fail=True)
    if shallow.stdout.strip() == "true":
        message += (" The clone is shallow (CI checkouts often are): fetch the history it needs "
                    "(git fetch --unshallow, or a checkout with the whole history).")
    else:
        message += " Check its spelling, or fetch it first (git fetch origin main)."
    return message


def _git(git: str, cwd: Path, *args: str, may_fail: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    command = " ".join(["git", *args[:2]])
    try:
        done = subprocess.run([git, *args], cwd=cwd, env=env, capture_output=True, text=True,
                              encoding="utf-8", errors="surrogateescape", timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise ChangedError(f"--only-changed: `{command}` did not answer within {GIT_TIMEOUT:g}s in "
                           f"{str(cwd)!r}; nothing was run.") from None
    except OSError as err:
        raise ChangedError(f"--only-changed: git could not be started ({err.strerror or err}).") from None
    if done.returncode != 0 and not may_fail:
        raise ChangedError(f"--only-changed: `{command}` failed in {str(cwd)!r}: {_first_line(done.stderr)}")
    return done


def _repository_of(message: str, root: Path) -> str:
    """The folder git names in its dubious-ownership message (the project folder if none)."""
    found = re.search(r"repository at '([^']+)'", message)
    return found.group(1) if found else str(root)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else "no message"
