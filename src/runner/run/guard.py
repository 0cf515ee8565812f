"""``runner run`` watches its test process: a run whose tests' process died never reads as passed.

A test (or a spec, a native extension, the OOM killer) can end the process the tests run in at
any moment: ``os._exit(0)``, a segfault, SIGKILL. Nothing in that process can report it, so
``runner run`` forks before it does anything else: the child runs the whole run as before (the
reporters, the events file, the HTML report are written there) and the parent only waits.

The child also writes every run event to a journal (an unlinked temp file shared with the parent)
and, when it has finished, a last line with its exit status; then it ends with ``os._exit``, so
a thread a test left running cannot keep a finished run alive. When the child ends without that
line, the parent says which test was running and how the process died, tells that test as
failed by the death (the spec and the run end there), and writes the reports the child could not
finish from the journal: the reporter (its output up to the death was printed by the child, so
only the rest is printed), the events file and the HTML report. The exit status is then at least
1 (128 + the signal when the run was being interrupted by one).

The parent forwards SIGINT and SIGTERM to the child, which runs in a process group of its own (it
gets the terminal when the parent had it, so a terminal's Ctrl-C reaches it once, not twice).
The parent is a child subreaper: whatever the child started and left behind (a browser of a
killed child, a command's background process) is killed when the child has ended. Then it
removes the run's temporary folder (``run_temp.py``), made before the fork: what the child, its
workers, their drivers and browsers left in the temp folder (a death leaves Playwright's folders
and the CA of runner's proxy for the app's server) goes with it, and never another run's.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from runner.run.interrupts import SIGNALS, become_subreaper, kill_descendants
from runner.run_temp import make_run_folder, remove_run_folder

if TYPE_CHECKING:
    from runner.events import Event, TestStarted

# The events are imported where they are needed (the child's journal, the parent's report of a
# death), not here: the parent forks before it loads them, and the child starts Playwright's
# driver before it does (every millisecond before that is one more before the first test).

__all__ = ["Journal", "death_events", "guarded"]

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class Journal:
    """The child's side: the run's events and its exit status, for the parent (see the module).
    A journal that cannot be written (its disk is full) stops quietly: it only matters when the
    child dies, and the run must not fail for it."""

    def __init__(self, file: IO[bytes], command_pid: int | None = None) -> None:
        self._fd: int | None = file.fileno()
        #: The pid of the ``runner`` command (the watching parent): the one a person would stop.
        self.command_pid = command_pid

    def _write(self, data: dict[str, Any] | str) -> None:
        fd = self._fd
        if fd is None:
            return
        line = (data if isinstance(data, str) else json.dumps(data, default=str)) + "\n"
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        except OSError:
            self._fd = None

    def attach(self, session: Any, *, reporter: str, options: dict[str, Any], flags: list[str] | None,
               report: Path | None, events: Path | None, fail_on_flaky: bool = False) -> None:
        """What the parent needs to finish the reports, then every event of ``session``'s bus."""
        self._write({"setup": {"reporter": reporter, "options": options, "flags": list(flags or []),
                               "report": str(report) if report is not None else None,
                               "events": str(events) if events is not None else None,
                               "project": str(session.config.project_root),
                               "fail_on_flaky": fail_on_flaky}})
        session.bus.subscribe(self)

    def __call__(self, event: Event) -> None:
        from runner.events.jsonl import dumps_event

        self._write(dumps_event(event))

    def done(self, code: int) -> None:
        self._write({"done": code})

    def stopped(self) -> None:
        """A second signal stops the run at once (its exit status is then 128 + the first)."""
        self._write({"stopped": True})


def guarded(run: Callable[[Journal | None], int]) -> int:
    """Run ``run`` in a watched child process (see the module) and return the run's exit status;
    where that cannot be done (no ``fork``, threads already running), run it here."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return run(None)
    journal_file = tempfile.TemporaryFile(prefix="runner-journal-")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    subreaper = become_subreaper()
    temp = make_run_folder()
    parent = os.getpid()
    # A signal between the fork and the parent's forwarding handlers waits for them (the child
    # starts with nothing pending and its own handlers).
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(SIGNALS))
    pid = os.fork()
    if pid == 0:  # the child: the run itself
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        _child(run, journal_file, parent)
    try:
        return _watch(pid, journal_file, blocked)
    finally:
        journal_file.close()
        if temp is not None:  # every process of the run has ended (_watch killed what was left)
            remove_run_folder(temp)
        if subreaper:
            become_subreaper(False)


def _child(run: Callable[[Journal | None], int], journal_file: IO[bytes], parent: int) -> None:
    code = 1
    try:
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        _die_with(parent)
        with contextlib.suppress(Exception):  # a reporter's last lines reach the terminal before a death
            sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        journal = Journal(journal_file, command_pid=parent)
        code = run(journal)
        journal.done(code)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        Journal(journal_file).done(code)
    except KeyboardInterrupt:  # a signal before the run's own handlers were in place
        with contextlib.suppress(Exception):
            print("\nrunner: interrupted before the run began.", file=sys.stderr)
        code = 130
        Journal(journal_file).done(code)
    except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
        import traceback

        traceback.print_exc()
        Journal(journal_file).done(1)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code & 0xFF if code >= 0 else 1)


def _die_with(parent: int) -> None:
    """The child is killed with the parent: ``kill -9`` of runner (its process group, as a CI
    timeout does) ends the run at once, as it did when the tests ran in that one process."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the line above
        os.kill(os.getpid(), signal.SIGKILL)


def _watch(pid: int, journal_file: IO[bytes], blocked: set[int | signal.Signals]) -> int:
    """The parent: forward signals, wait for the child, clean up, and tell a death."""
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # both sides set it: whichever runs first
    terminal = _give_terminal(pid)
    got: list[int] = []
    alive = [True]

    def forward(signum: int, _frame: Any) -> None:
        got.append(signum)
        if alive[0]:  # once reaped, the pid may be another process's
            with contextlib.suppress(OSError):
                os.kill(pid, signum)

    # Kept until the end: a signal while a death is told cannot kill this process half-way.
    previous = {signum: signal.signal(signum, forward) for signum in SIGNALS}
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    try:
        try:
            status = _wait(pid, terminal)
        finally:
            alive[0] = False
            _take_terminal(terminal)
            kill_descendants()  # what the child left behind: orphans reach this subreaper
        done = _done_code(journal_file)
        if done is not None:  # the child finished: the journal's events are not needed
            return done
        journal_file.seek(0)
        record = _read_journal(journal_file)
        if record.code is not None:
            return record.code
        stopped = _stopped_by(status, record.stopped)
        if len(got) > 1 or stopped is not None:
            # a second signal (forwarded, or the terminal's): the child stopped at once, leaving the
            # reports unwritten as it said; the status is the first signal's
            return 128 + (got[0] if got else stopped or signal.SIGINT)
        return _tell_death(record, _how(status), got)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


#: The signals a terminal stops its foreground group with (Ctrl-Z, a background read or write).
_TERMINAL_STOPS = (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)


def _wait(pid: int, terminal: int | None) -> int:
    """The child's end (its wait status). A child the terminal stopped (Ctrl-Z) stops this
    process too, as the shell's job is this process: the shell then gets its terminal back and
    ``fg``/``bg`` resume both (else the terminal would hang on a stopped child)."""
    while True:
        try:
            status = os.waitpid(pid, os.WUNTRACED)[1]
        except ChildProcessError:
            return 0
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        if not os.WIFSTOPPED(status):
            return status
        if os.WSTOPSIG(status) in _TERMINAL_STOPS:
            _stop_with(pid, terminal)


def _stop_with(pid: int, terminal: int | None) -> None:
    """Stop as the child did, and resume it (with the terminal, when the shell gave it back:
    ``fg``) when this process is continued."""
    _take_terminal(terminal)
    os.kill(os.getpid(), signal.SIGSTOP)  # the shell sees its job stopped; SIGCONT resumes here
    if terminal is not None:
        with contextlib.suppress(OSError):
            if os.tcgetpgrp(terminal) == os.getpgrp():  # fg, not bg
                _tcsetpgrp(terminal, pid)
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGCONT)


def _give_terminal(pid: int) -> int | None:
    """Make the child's group the terminal's foreground (when this process had it): the
    terminal's Ctrl-C then reaches the run once. Returns the terminal's fd (to take it back)."""
    try:
        fd = sys.stdin.fileno()
        if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
            return None
        _tcsetpgrp(fd, pid)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    return fd


def _take_terminal(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            _tcsetpgrp(fd, os.getpgrp())


def _tcsetpgrp(fd: int, pgid: int) -> None:
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may not, else
    try:
        os.tcsetpgrp(fd, pgid)
    finally:
        signal.signal(signal.SIGTTOU, previous)


def _stopped_by(status: int, said: bool) -> int | None:
    """The signal (SIGINT, SIGTERM) that stopped the child at once: it exited with 128 + it
    (``RunInterrupts.stop_now``, which ``said`` so in the journal: a test's ``os._exit(130)`` is a
    death) or was killed by it (a signal after its handlers were gone)."""
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in SIGNALS:
        return os.WTERMSIG(status)
    if said and os.WIFEXITED(status) and os.WEXITSTATUS(status) - 128 in SIGNALS:
        return os.WEXITSTATUS(status) - 128
    return None


def _how(status: int) -> tuple[str, int | None]:
    """How the child ended (words) and the signal that ended it, if one did."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        hint = " (the OOM killer sends it when memory runs out)" if signum == signal.SIGKILL else ""
        return f"it was killed by {name}{hint}", signum
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return (f"it exited with status {code} without finishing the run (os._exit() or a crash in native "
            "code)"), None


class _Record:
    def __init__(self) -> None:
        self.setup: dict[str, Any] | None = None
        self.events: list[Event] = []
        self.code: int | None = None
        self.stopped = False  # the child stopped at once (a second signal)


#: Bytes read from the journal's end for its last line (``{"done": N}``).
_TAIL_BYTES = 4096


def _done_code(file: IO[bytes]) -> int | None:
    """The exit status the child wrote as the journal's last line; None when it is not there.
    Read from the end: a big run's journal holds every event (80,000 events took 2.5 s to
    parse), which a run that finished does not need."""
    size = file.seek(0, os.SEEK_END)
    file.seek(max(0, size - _TAIL_BYTES))
    lines = file.read().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    done = data.get("done") if isinstance(data, dict) else None
    return done if isinstance(done, int) and not isinstance(done, bool) else None


def _read_journal(file: IO[bytes]) -> _Record:
    from runner.events import from_json

    record = _Record()
    for raw in file.read().splitlines():
        try:
            data = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue  # the line the death cut short
        if not isinstance(data, dict):
            continue
        if "done" in data and isinstance(data["done"], int):
            record.code = data["done"]
        elif data.get("stopped") is True:
            record.stopped = True
        elif "setup" in data and isinstance(data["setup"], dict):
            record.setup = data["setup"]
        elif "kind" in data:
            with contextlib.suppress(Exception):
                record.events.append(from_json(data))
    return record


def _tell_death(record: _Record, how: tuple[str, int | None], got: list[int]) -> int:
    """The child died: one message, the reports finished from the journal; the exit status."""
    from runner.events import RunStarted

    words, signum = how
    events = record.events
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    running = _running_tests(events)
    if running:
        where = "while " + ", ".join(repr(t.nodeid) for t in running) + " was running"
    elif started is not None:
        where = "between tests"
    else:
        where = "before its tests began (while loading the configuration or the specs)"
    message = (f"the process running the tests died {where}: {words}. The tests after it did not run"
               + ("; the reports hold what ran until then." if started is not None else "."))
    print(f"\nrunner: {message}", file=sys.stderr, flush=True)
    failures = 1
    if started is not None and record.setup is not None:
        tail = _death_tail(events, running, words, fail_on_flaky=record.setup.get("fail_on_flaky") is True)
        failures = max(1, _finish_reports(record.setup, events, tail))
    if got:  # the run was being interrupted by a signal: its status
        return 128 + got[0]
    if signum in SIGNALS:  # SIGINT/SIGTERM from elsewhere (the child's group alone)
        return 128 + signum
    return min(failures, 255)


def death_events(events: list[Event], words: str) -> list[Event]:
    """The events a run whose process died (``words``: how) could not publish after ``events``:
    its running tests failed by the death, their specs and the run ended. ``runner open`` tells
    its child's death with them too."""
    return _death_tail(events, _running_tests(events), words)


def _running_tests(events: list[Event]) -> list[TestStarted]:
    from runner.events import TestEnded, TestStarted

    running: dict[str, TestStarted] = {}
    for event in events:
        if isinstance(event, TestStarted):
            running[event.nodeid] = event
        elif isinstance(event, TestEnded):
            running.pop(event.nodeid, None)
    return list(running.values())


def _death_tail(events: list[Event], running: list[TestStarted], words: str, *,
                fail_on_flaky: bool = False) -> list[Event]:
    """The events the child could not publish: the running tests failed by the death (``words``:
    how it died), their specs and the run ended (made with ``--fail-on-flaky`` or not, as the
    child's would have said)."""
    import time

    from runner.events import AttemptEnded, RunEnded, SpecEnded, SpecStarted, TestEnded
    from runner.plugin.outcomes import DIED_TYPE

    now = time.time()
    attempts: dict[str, int] = {}
    open_specs: dict[str, float] = {}
    totals = {"tests": 0, "passed": 0, "failed": 0, "pending": 0, "skipped": 0}
    for event in events:
        if isinstance(event, AttemptEnded):
            attempts[event.nodeid] = max(attempts.get(event.nodeid, 0), event.attempt)
        elif isinstance(event, SpecStarted):
            open_specs[event.spec] = event.at
        elif isinstance(event, SpecEnded):
            open_specs.pop(event.spec, None)
        elif isinstance(event, TestEnded):
            totals["tests"] += 1
            totals[event.state] = totals.get(event.state, 0) + 1
    error = f"{DIED_TYPE}: the process running the tests died while this test was running: {words}."
    tail: list[Event] = []
    for test in running:
        attempt = attempts.get(test.nodeid, 0) + 1
        duration = max(0.0, (now - test.at) * 1000)
        tail.append(AttemptEnded(spec=test.spec, nodeid=test.nodeid, attempt=attempt, state="failed",
                                 duration_ms=duration, error=error, error_type=DIED_TYPE, message=error))
        tail.append(TestEnded(spec=test.spec, nodeid=test.nodeid, title=list(test.title), state="failed",
                              duration_ms=duration, attempts=attempt))
        totals["tests"] += 1
        totals["failed"] += 1
    for spec, at in open_specs.items():
        tail.append(SpecEnded(spec=spec, duration_ms=max(0.0, (now - at) * 1000)))
    first = events[0].at if events else now
    tail.append(RunEnded(duration_ms=max(0.0, (now - first) * 1000), tests=totals["tests"],
                         passed=totals["passed"], failed=totals["failed"], pending=totals["pending"],
                         skipped=totals["skipped"], error="the process running the tests died",
                         fail_on_flaky=fail_on_flaky))
    return tail


class _Gate(io.TextIOBase):
    """stdout while the reporter is fed again: what the child printed already is swallowed."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.open = False

    def write(self, text: str) -> int:
        if self.open:
            self.target.write(text)
        return len(text)

    def flush(self) -> None:
        if self.open:
            self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())


def _finish_reports(setup: dict[str, Any], events: list[Event], tail: list[Event]) -> int:
    """The reporter, the events file and the HTML report, from the journal plus ``tail``.
    Returns the run's failures (as the reporter counted them)."""
    from runner.errors import RunnerError
    from runner.reporters import make_reporter
    from runner.reporters.feed import ReporterFeed

    project = Path(setup.get("project") or ".")
    gate = _Gate(sys.stdout)
    real_stdout, sys.stdout = sys.stdout, gate  # type: ignore[assignment]
    feed = ReporterFeed([])
    try:
        try:
            feed.reporters.append(make_reporter(str(setup.get("reporter") or "spec"), setup.get("options") or {},
                                                project, flags=setup.get("flags") or None))
        except RunnerError as err:
            print(f"runner: warning: the reporter could not be made again: {err}", file=sys.stderr)
        for event in events:
            feed(event)
        gate.open = True
        for event in tail:
            feed(event)
    finally:
        sys.stdout = real_stdout
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    if setup.get("events"):
        _rewrite_events(Path(setup["events"]), [*events, *tail])
    if setup.get("report"):
        _html_report(Path(setup["report"]), project, [*events, *tail])
    return feed.run.failures


def _rewrite_events(path: Path, events: list[Event]) -> None:
    from runner.events import EventsFileWriter

    try:
        writer = EventsFileWriter(path)
        try:
            for event in events:
                writer(event)
        finally:
            writer.close()
    except OSError as err:
        print(f"runner: warning: eventsFile {str(path)!r} could not be completed: {err.strerror or err}.",
              file=sys.stderr)


def _html_report(target: Path, project: Path, events: list[Event]) -> None:
    from runner.engine.trace_viewer import viewer_folder
    from runner.reporters.html import HtmlReport
    from runner.reporters.replay import report_line

    report = HtmlReport(target, viewer=viewer_folder(), project_root=project)
    try:
        for event in events:
            report(event)
        folder = report.finish()
    except OSError as err:
        report.discard()
        print(f"runner: warning: the HTML report was not written to {str(target)!r}: {err.strerror or err}.",
              file=sys.stderr)
        return
    print(report_line(folder), file=sys.stderr)
