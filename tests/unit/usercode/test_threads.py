"""The threads of the user's blocking code: daemon threads, a bound that a call given up on no
longer takes, and nothing of theirs keeping a finished process alive."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from runner.usercode.threads import Workers

BOUND = 5.0


def test_calls_run_in_threads_and_hand_back_results_and_errors():
    workers = Workers("t", size=4)
    started: list[str] = []
    ok = workers.submit(lambda x: x * 2, 21, on_start=lambda: started.append(threading.current_thread().name))
    bad = workers.submit(lambda: 1 / 0)
    assert ok.result(BOUND) == 42
    with pytest.raises(ZeroDivisionError):
        bad.result(BOUND)
    assert started and started[0].startswith("t-")
    assert all(t.daemon for t in threading.enumerate() if t.name.startswith("t-"))


def test_at_most_size_run_at_once_and_waiting_is_not_running():
    workers = Workers("size", size=2)
    release = threading.Event()
    running = []
    lock = threading.Lock()
    started_at: list[float] = []

    def job() -> None:
        with lock:
            running.append(1)
            started_at.append(time.monotonic())
        release.wait(BOUND)

    futures = [workers.submit(job) for _ in range(5)]
    time.sleep(0.2)
    assert len(running) == 2 and not futures[2].running()
    release.set()
    for future in futures:
        future.result(BOUND)
    assert len(running) == 5


def test_a_call_given_up_on_frees_its_place():
    workers = Workers("stuck", size=1)
    forever = threading.Event()
    stuck = workers.submit(forever.wait)
    queued = workers.submit(lambda: "ran")
    time.sleep(0.1)
    assert stuck.running() and not queued.done()
    workers.give_up(stuck)  # as the chain does after a handler's timeout
    assert queued.result(BOUND) == "ran"
    forever.set()


def test_a_call_given_up_on_before_it_started_never_runs():
    workers = Workers("cancel", size=1)
    gate = threading.Event()
    first = workers.submit(gate.wait)
    ran: list[int] = []
    second = workers.submit(lambda: ran.append(1))
    workers.give_up(second)
    gate.set()
    first.result(BOUND)
    time.sleep(0.1)
    assert second.cancelled() and not ran


def test_a_call_that_never_returns_keeps_no_process_alive():
    code = (
        "import threading\n"
        "from runner.usercode.threads import Workers\n"
        "w = Workers('forever')\n"
        "f = w.submit(threading.Event().wait)\n"
        "while not f.running(): pass\n"
        "print('exiting')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == "exiting", done.stderr
