"""The artifacts lock: a second run of the same folders is refused, naming the first; the lock
goes when its process ends, however it ends (real processes, real flock)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runner.errors import UsageError
from runner.run.lock import lock_artifacts


class _Config:
    """The one method the lock reads of a configuration."""

    def __init__(self, root: Path, **paths: str | None) -> None:
        self.root = root
        self.paths = paths

    def path(self, name: str) -> Path | None:
        value = self.paths.get(name)
        return None if value is None else self.root / value


def _config(root: Path, **overrides: str | None) -> _Config:
    paths: dict[str, str | None] = {
        "screenshotsFolder": "runner/screenshots", "videosFolder": "runner/videos",
        "downloadsFolder": "runner/downloads", "tracesFolder": "runner/traces",
        "eventsFile": "runner/results/events.jsonl", "reportFolder": "runner/report"}
    paths.update(overrides)
    return _Config(root, **paths)


HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from runner.run.lock import lock_artifacts

    class Config:
        def path(self, name):
            return Path(sys.argv[1]) / {"screenshotsFolder": "runner/screenshots",
                                        "videosFolder": "runner/videos",
                                        "downloadsFolder": "runner/downloads",
                                        "tracesFolder": "runner/traces",
                                        "eventsFile": "runner/results/events.jsonl",
                                        "reportFolder": "runner/report"}[name]

    lock = lock_artifacts(Config(), folder=Path(sys.argv[2]))
    print("locked", flush=True)
    sys.stdin.read()  # held until the test closes stdin or kills this process
""")


@pytest.fixture
def holder(tmp_path: Path):
    """A real process holding the lock of the project ``tmp_path/project``."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "project"), str(tmp_path / "locks")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def test_a_second_run_is_refused_with_the_first_runs_pid_and_what_to_do(tmp_path: Path, holder) -> None:
    with pytest.raises(UsageError) as caught:
        lock_artifacts(_config(tmp_path / "project"), folder=tmp_path / "locks")
    message = str(caught.value)
    assert f"pid {holder.pid}" in message
    assert "screenshotsFolder" in message and str(tmp_path / "project" / "runner" / "screenshots") in message
    assert "Wait for it to end" in message and "--config screenshotsFolder=" in message


def test_the_lock_goes_with_its_process_even_killed(tmp_path: Path, holder) -> None:
    holder.send_signal(signal.SIGKILL)  # no cleanup at all: the OS releases the flock
    holder.wait(10)
    lock = lock_artifacts(_config(tmp_path / "project"), folder=tmp_path / "locks")
    try:
        assert len(lock.paths) == 6
    finally:
        lock.release()


def test_runs_of_other_folders_do_not_block_each_other(tmp_path: Path, holder) -> None:
    other = _config(tmp_path / "project", screenshotsFolder="other/s", videosFolder="other/v",
                    downloadsFolder="other/d", tracesFolder="other/t", eventsFile=None, reportFolder="other/r")
    lock = lock_artifacts(other, folder=tmp_path / "locks")
    try:
        assert [p.name for p in lock.paths] == ["s", "v", "d", "t", "r"]  # eventsFile false: nothing to lock
    finally:
        lock.release()


def test_one_shared_folder_is_enough_to_refuse(tmp_path: Path, holder) -> None:
    # only the videos folder is shared: the first run's videos would be trashed
    shared = _config(tmp_path / "project", screenshotsFolder="other/s", downloadsFolder="other/d",
                     tracesFolder="other/t", eventsFile="other/events.jsonl", reportFolder="other/r")
    with pytest.raises(UsageError, match="videosFolder"):
        lock_artifacts(shared, folder=tmp_path / "locks")
    # what the refused run had locked before it found the shared folder was let go
    again = lock_artifacts(_config(tmp_path / "project", screenshotsFolder="other/s", videosFolder="other/v",
                                   downloadsFolder="other/d", tracesFolder="other/t",
                                   eventsFile="other/events.jsonl", reportFolder="other/r"),
                           folder=tmp_path / "locks")
    again.release()


def test_a_shared_report_folder_is_enough_to_refuse(tmp_path: Path, holder) -> None:
    # every other path differs: replacing the report would throw away the first run's report
    shared = _config(tmp_path / "project", screenshotsFolder="other/s", videosFolder="other/v",
                     downloadsFolder="other/d", eventsFile="other/events.jsonl")
    with pytest.raises(UsageError, match="reportFolder"):
        lock_artifacts(shared, folder=tmp_path / "locks")


def test_released_locks_can_be_taken_again_in_the_same_process(tmp_path: Path) -> None:
    config = _config(tmp_path / "project")
    first = lock_artifacts(config, folder=tmp_path / "locks")
    first.release()
    first.release()  # twice is fine
    lock_artifacts(config, folder=tmp_path / "locks").release()


def test_an_unusable_lock_folder_warns_and_does_not_stop_the_run(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    lock = lock_artifacts(_config(tmp_path / "project"), folder=blocker / "locks")
    assert lock.paths == []
    assert "cannot be made" in capsys.readouterr().err


def test_the_lock_files_are_private_to_the_user(tmp_path: Path) -> None:
    lock = lock_artifacts(_config(tmp_path / "project"), folder=tmp_path / "locks")
    try:
        assert (tmp_path / "locks").stat().st_mode & 0o077 == 0
        assert all(os.stat(f).st_mode & 0o077 == 0 for f in (tmp_path / "locks").iterdir())
    finally:
        lock.release()
