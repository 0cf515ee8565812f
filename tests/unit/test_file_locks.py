"""file_locks.py: one holder at a time, a bounded wait, a lock folder private to the user."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from runner.errors import CommandError
from runner.file_locks import LockBusy, lock_folder, waiting_lock
from runner.net.har_write import locked as har_locked
from runner.run.history import HistoryError, update_history


def test_a_second_holder_waits_its_bound_then_is_told_and_takes_it_once_free(tmp_path: Path) -> None:
    target = tmp_path / "shared.json"
    with waiting_lock(target, "test", 5.0):
        # flock locks belong to an open file: a second opening in this process is a second holder
        with pytest.raises(LockBusy, match=r"shared\.json' stayed locked by another runner for 0s"):
            with waiting_lock(target, "test", 0.05):
                pass
        with waiting_lock(tmp_path / "other.json", "test", 0.05):
            pass  # another file's lock is another lock
    with waiting_lock(target, "test", 0.05):
        pass  # let go at the block's end
    assert not list(tmp_path.glob("*.lock"))  # never beside the user's file
    assert stat.S_IMODE(os.stat(lock_folder()).st_mode) == 0o700


def test_the_writers_tell_a_busy_lock_in_their_own_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import runner.net.har_write as har_write
    import runner.run.history as history

    monkeypatch.setattr(har_write, "_LOCK_WAIT_S", 0.05)
    monkeypatch.setattr(history, "_LOCK_WAIT_S", 0.05)
    har, record = tmp_path / "api.har", tmp_path / "history.json"
    with waiting_lock(har, "har", 5.0), pytest.raises(CommandError, match=r"api\.har' stayed locked .*; it was not written"):
        with har_locked(har):
            pass
    with waiting_lock(record, "history", 5.0), pytest.raises(HistoryError, match=r"^the history file '.*history\.json' stayed locked"):
        update_history(record, history.HistoryRun(id="r1", at=0.0), keep=3)
    assert not record.exists()
