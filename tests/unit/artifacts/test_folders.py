"""Artifact folders that cannot be used: what is wrong, the warnings of a run, the command error."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from runner.artifacts.folders import artifact_folder_warnings, folder_problem, make_artifact_folder
from runner.config import load_config
from runner.errors import CommandError


def config_for(root: Path, **values: Any) -> Any:
    (root / "runner.json").write_text(json.dumps(values))
    return load_config(root, environ={})


def test_usable_folders_have_no_problem(tmp_path: Path) -> None:
    (tmp_path / "there").mkdir()
    assert folder_problem(tmp_path / "there") is None
    assert folder_problem(tmp_path / "missing/deeper") is None  # can be created
    assert not (tmp_path / "missing").exists()  # and nothing was created


def test_a_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    expected = f"{str(tmp_path / 'afile')!r} is a file, not a folder"
    assert folder_problem(tmp_path / "afile") == expected
    assert folder_problem(tmp_path / "afile/v/w") == expected


def test_a_link_to_nothing(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    assert folder_problem(tmp_path / "dangling/v") == f"{str(tmp_path / 'dangling')!r} is a link to nothing"


def test_a_folder_runner_may_not_write_to() -> None:
    base = Path(tempfile.mkdtemp(prefix="runner-perm-"))  # in /tmp: the unprivileged user can reach it
    try:
        base.chmod(0o755)
        locked = base / "locked"
        locked.mkdir(mode=0o555)
        assert _as_unprivileged_user(lambda: folder_problem(locked / "shots")) == (
            f"permission denied: {str(locked)!r} is not writable")
        hidden = base / "hidden"
        hidden.mkdir(mode=0o700)
        if os.geteuid() == 0:  # a folder it cannot even look into
            assert _as_unprivileged_user(lambda: folder_problem(hidden / "shots")) == (
                f"{str(hidden / 'shots')!r} cannot be read: Permission denied")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _as_unprivileged_user(func: Any) -> Any:
    """``func()`` in a forked child that is not root (root may write anywhere): uid "nobody"."""
    if os.geteuid() != 0:
        return func()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, answer through the pipe, never return into pytest
        try:
            os.setgid(65534)
            os.setuid(65534)
            os.write(write, repr(func()).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        text = answer.read()
    os.waitpid(pid, 0)
    return eval(text)  # noqa: S307 - our own child's repr of a str or None


def test_one_warning_per_unusable_folder(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    config = config_for(tmp_path, screenshotsFolder="afile", videosFolder="afile/v",
                        downloadsFolder="afile/d", reportFolder="afile/r")
    where = str(tmp_path / "afile")
    assert artifact_folder_warnings(config) == [
        f"screenshotsFolder 'afile' cannot be used: {where!r} is a file, not a folder; "
        "failure screenshots will not be saved and runner.screenshot() will fail.",
        f"videosFolder 'afile/v' cannot be used: {where!r} is a file, not a folder; "
        "videos will not be recorded.",
        f"downloadsFolder 'afile/d' cannot be used: {where!r} is a file, not a folder; "
        "files downloaded during tests will not be saved.",
        f"reportFolder 'afile/r' cannot be used: {where!r} is a file, not a folder; "
        "the HTML report will not be written.",
    ]
    assert [w.split()[0] for w in artifact_folder_warnings(config, video=False)] == [
        "screenshotsFolder", "downloadsFolder", "reportFolder"]
    assert artifact_folder_warnings(config_for(tmp_path, reportFolder=False)) == []
    assert artifact_folder_warnings(config_for(tmp_path)) == []


def test_making_a_folder_under_a_file_is_a_command_error(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(CommandError) as caught:
        make_artifact_folder(tmp_path / "afile/a_spec.py", option="screenshotsFolder",
                             root=tmp_path / "afile", what="The screenshot 'x.png'")
    message = str(caught.value)
    assert message.startswith(f"The screenshot 'x.png' could not be saved: screenshotsFolder "
                              f"{str(tmp_path / 'afile')!r} cannot be used: ")
    assert "is a file, not a folder" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    make_artifact_folder(tmp_path / "ok/a_spec.py", option="screenshotsFolder", root=tmp_path / "ok",
                         what="x")
    assert (tmp_path / "ok/a_spec.py").is_dir()
