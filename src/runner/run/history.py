"""The history: each test's outcome in the project's last runs (``runner/history.json``).

``runner run`` adds its run when it ends (the controlling process, which sees every worker's tests
on the events bus); ``runner merge`` adds a sharded run its shards did not add here; ``runner
flakes``, ``--last-failed``/``--failed-first`` and the HTML report read it. The file::

    {"version": 1, "runs": [  # oldest first, at most historyRuns of them
      {"id": "<run id>", "at": <epoch seconds>, "split": null | {"total": 2, "plan": "<key>",
                                                                  "shards": {"1": "<run id>"}},
       "tests": {"<pytest node id>": {"outcome": "failed", "attempts": 3, "error": "<first line>"}}}]}

Outcomes: ``passed``, ``failed``, ``flaky`` (passed after a failed attempt), ``pending``,
``skipped``. A test's id is its pytest node id (the spec's path from the project, ``::``, the test),
as the events and the reports name it.

Shards: a shard's run joins the last run of the file when that run is a shard of the same split
(same shard count and plan) that this shard's index has not joined yet; otherwise it starts a run.
``runner merge`` knows the shards by their run ids: a merged run whose shards are already here
only fills in the tests of those that are not, so a merge never counts a run twice nor loses one.

Two writers at once (two runs, shards on one machine) take turns: an ``flock`` on a lock file in
the user's lock folder (named by the history file's path, as :mod:`runner.run.lock` does), the
file read, updated and replaced whole (written beside it, then renamed). A file runner cannot
read (torn, foreign, a newer version) is never replaced: the run says so in one line and goes on.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.events import NOT_RUN, AttemptEnded, Event, RunStarted, TestEnded
from runner.file_locks import LockBusy, waiting_lock

__all__ = ["HISTORY_FILE", "VERSION", "Flake", "History", "HistoryError", "HistoryRecorder", "HistoryRun", "Outcome",
           "add_run", "failed_last", "find_flakes", "history_path", "read_history", "run_from_events",
           "plan_rerun", "update_history", "Rerun"]

HISTORY_FILE = "runner/history.json"
VERSION = 1
OUTCOMES = ("passed", "failed", "flaky", "pending", "skipped")
REPORT_RUNS = 10  # the runs the HTML report's history strip shows
# How long a writer waits for another one to finish its (sub-second) update before giving up.
_LOCK_WAIT_S = 30.0
_SHAPE = ('{"version": 1, "runs": [{"id": ..., "at": ..., "split": ..., "tests": {NODE_ID: '
          '{"outcome": ..., "attempts": ..., "error": ...}}}]}')


class HistoryError(Exception):
    """The history file cannot be read or written; the message names it and says why."""


@dataclass(frozen=True)
class Outcome:
    """One test in one run."""

    outcome: str
    attempts: int = 1
    error: str | None = None  # the first line of its last failed attempt's error

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"outcome": self.outcome, "attempts": self.attempts}
        if self.error:
            data["error"] = self.error
        return data


@dataclass
class HistoryRun:
    """One run (every shard of a sharded run): its tests' outcomes."""

    id: str
    at: float
    tests: dict[str, Outcome] = field(default_factory=dict)
    split: dict[str, Any] | None = None  # {"total", "plan", "shards": {index: run id}}

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "at": round(self.at, 3), "split": self.split,
                "tests": {key: value.to_json() for key, value in sorted(self.tests.items())}}

    def shard_runs(self) -> set[str]:
        return set((self.split or {}).get("shards", {}).values())


@dataclass
class History:
    """The runs of the file, oldest first."""

    runs: list[HistoryRun] = field(default_factory=list)

    @property
    def last(self) -> HistoryRun | None:
        return self.runs[-1] if self.runs else None

    def outcomes(self, test: str, runs: int | None = None) -> list[str | None]:
        """``test``'s outcome in each of the last ``runs`` runs, oldest first (None: not run)."""
        chosen = self.runs if runs is None else self.runs[-runs:] if runs > 0 else []
        return [run.tests[test].outcome if test in run.tests else None for run in chosen]

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "runs": [run.to_json() for run in self.runs]}


def history_path(project_root: Path) -> Path:
    return Path(project_root) / HISTORY_FILE


# -- reading --------------------------------------------------------------------------------------
def read_history(path: Path) -> History:
    """The history at ``path`` (empty when there is no file). Raises :class:`HistoryError` naming
    the file and what is wrong when it is not a history runner can read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return History()
    except (OSError, UnicodeDecodeError) as err:
        raise HistoryError(f"the history file {str(path)!r} cannot be read: {getattr(err, 'strerror', None) or err}") \
            from err
    try:
        data = json.loads(text)
    except ValueError as err:
        raise HistoryError(f"the history file {str(path)!r} is not JSON ({err}; a write cut short?)") from err
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list) or "version" not in data:
        found = f"a JSON {type(data).__name__}" if not isinstance(data, dict) else f"the keys {sorted(data)}"
        raise HistoryError(f"the history file {str(path)!r} is not a runner history: expected {_SHAPE}, found {found}")
    if data["version"] != VERSION:
        raise HistoryError(f"the history file {str(path)!r} has format version {data['version']!r}; this runner "
                           f"reads version {VERSION} (written by another version of runner?)")
    try:
        return History([_run(item) for item in data["runs"]])
    except (KeyError, TypeError, ValueError) as err:
        raise HistoryError(f"the history file {str(path)!r} holds a run that is not in the expected shape "
                           f"({type(err).__name__}: {err}); expected {_SHAPE}") from err


def _run(item: dict[str, Any]) -> HistoryRun:
    split = item.get("split")
    if split is not None and not (isinstance(split, dict) and isinstance(split.get("shards"), dict)):
        raise ValueError(f"split {split!r}")
    tests: dict[str, Outcome] = {}
    for key, value in item["tests"].items():
        if value["outcome"] not in OUTCOMES:
            raise ValueError(f"outcome {value['outcome']!r} of {key!r}")
        error = value.get("error")
        tests[str(key)] = Outcome(value["outcome"], int(value.get("attempts", 1)),
                                  str(error) if error is not None else None)
    return HistoryRun(str(item["id"]), float(item["at"]), tests, split)


# -- a run's outcomes from its events -------------------------------------------------------------
def run_from_events(events: Iterable[Event]) -> HistoryRun | None:
    """The run the events tell (None: no test ended in them). ``split`` holds the shard of a
    shard's run (``run.started``'s ``shard``), or the shards a merged run joined."""
    run: HistoryRun | None = None
    errors: dict[str, str] = {}
    for event in events:
        if isinstance(event, RunStarted):
            run = HistoryRun(event.run_id, event.at, split=_split(event.shard))
        elif isinstance(event, AttemptEnded) and event.state == "failed":
            errors[event.nodeid] = _first_line(event.message or event.error or "")
        elif isinstance(event, TestEnded) and run is not None:
            outcome = "flaky" if event.state == "passed" and event.flaky else event.state
            if outcome not in OUTCOMES:
                continue
            failed_before = outcome in ("failed", "flaky")
            run.tests[event.nodeid] = Outcome(outcome, event.attempts,
                                              errors.get(event.nodeid) if failed_before else None)
    return run if run is not None and run.tests else None


def _split(shard: dict[str, Any] | None) -> dict[str, Any] | None:
    if not shard or "total" not in shard:
        return None
    runs = shard.get("runs")
    if isinstance(runs, dict):  # a merged run: the shards it joined
        shards = {str(k): str(v) for k, v in runs.items()}
    elif "index" in shard:
        shards = {}  # filled in by add_run with the run's own id
    else:
        return None
    return {"total": shard["total"], "plan": shard.get("plan"), "shards": shards, "index": shard.get("index")}


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


# -- adding a run ---------------------------------------------------------------------------------
def add_run(history: History, run: HistoryRun, keep: int, project_root: Path | None = None) -> str:
    """Add ``run`` to ``history`` (in place) and keep the last ``keep`` runs; tests of specs that
    no longer exist in ``project_root`` are dropped. Returns how it was added: ``"added"``,
    ``"joined"`` (a shard of the last run), ``"filled"`` (a merged run some of whose shards were
    here) or ``"known"`` (nothing new)."""
    how = _place(history, run)
    if project_root is not None:
        for old in history.runs:
            old.tests = {k: v for k, v in old.tests.items() if (project_root / k.split("::", 1)[0]).is_file()}
        history.runs = [r for r in history.runs if r.tests]
    history.runs = history.runs[-keep:] if keep > 0 else []
    return how


def _place(history: History, run: HistoryRun) -> str:
    split = run.split
    if split is None:
        history.runs.append(run)
        return "added"
    index = split.pop("index", None)
    if index is not None and not split["shards"]:  # one shard's own run
        split["shards"] = {str(index): run.id}
        last = history.last
        if (last is not None and last.split is not None and last.split.get("total") == split["total"]
                and last.split.get("plan") == split["plan"] and str(index) not in last.split["shards"]):
            last.split["shards"][str(index)] = run.id
            last.tests.update(run.tests)
            return "joined"
        history.runs.append(run)
        return "added"
    # a merged run: the shards already here keep their tests, the others' tests are added
    merged = set(split["shards"].values())
    for old in history.runs:
        if old.shard_runs() & merged:
            new = {k: v for k, v in run.tests.items() if k not in old.tests}
            known = old.shard_runs()
            old.split = {**(old.split or {}), "shards": {**split["shards"], **(old.split or {}).get("shards", {})}}
            old.tests.update(new)
            return "filled" if new or merged - known else "known"
    history.runs.append(run)
    return "added"


# -- writing --------------------------------------------------------------------------------------
@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold the history file's lock (other writers wait up to ``_LOCK_WAIT_S``)."""
    try:
        with waiting_lock(path, "history", _LOCK_WAIT_S):
            yield
    except LockBusy as busy:
        raise HistoryError(str(busy).replace(repr(str(path)), f"the history file {str(path)!r}", 1)) from None


def update_history(path: Path, run: HistoryRun, keep: int, project_root: Path | None = None) -> tuple[str, int]:
    """Add ``run`` to the history file at ``path`` under its lock; returns how (see
    :func:`add_run`) and how many of its tests the file gained (counted in the file, before and
    after). Raises :class:`HistoryError` when the file cannot be read (it is then left as it is)
    or written."""
    try:
        with _locked(path):
            history = read_history(path)
            before = _held(history, run)
            how = add_run(history, run, keep, project_root)
            gained = _held(history, run) - before
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
            try:
                partial.write_text(json.dumps(history.to_json(), indent=1) + "\n", encoding="utf-8")
                os.replace(partial, path)
            finally:
                partial.unlink(missing_ok=True)
    except OSError as err:
        raise HistoryError(f"the history file {str(path)!r} cannot be written: {err.strerror or err}") from err
    return how, gained


def _held(history: History, run: HistoryRun) -> int:
    """How many of ``run``'s tests the history holds for it: in the run of the same id, or in the
    run that one of its shards joined."""
    mine = {run.id} | run.shard_runs()
    return sum(len(run.tests.keys() & old.tests.keys()) for old in history.runs if ({old.id} | old.shard_runs()) & mine)


class HistoryRecorder:
    """Subscribed to ``runner run``'s bus: keeps what the history needs, and adds the run to the
    file when the run is over (:meth:`write`)."""

    def __init__(self, path: Path, keep: int, project_root: Path) -> None:
        self.path = path
        self._keep = keep
        self._root = project_root
        self._events: list[Event] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, (RunStarted, AttemptEnded, TestEnded)):
            self._events.append(event)

    def write(self) -> str | None:
        """Add the run to the file; returns the warning line when it could not be (None: done,
        or no test ended, which leaves the file as it was)."""
        run = run_from_events(self._events)
        if run is None:
            return None
        try:
            update_history(self.path, run, self._keep, self._root)
        except HistoryError as err:
            return (f"runner: warning: {err}; this run was not added to the history (historyRuns). Move the "
                    "file away to start a new history.")
        return None

    def report_data(self, runs: int = REPORT_RUNS) -> dict[str, Any] | None:
        """What the HTML report shows of the history, this run added (in memory; the file is
        written by :meth:`write`): each test of this run's outcomes in the last ``runs`` runs
        (oldest first, None: not run; a test this run stopped before is one of them), and the tests flaky across them with their rates. None:
        no test ended, or the file cannot be read."""
        run = run_from_events(self._events)
        if run is None:
            return None
        try:
            history = read_history(self.path)
        except HistoryError:
            return None  # the warning is told when the run is added
        add_run(history, run, self._keep)
        # the tests the run stopped before (--max-failures) are no outcome of the file, but their
        # rows show their past runs too, this one an empty box
        not_run = {e.nodeid for e in self._events if isinstance(e, TestEnded) and e.state == NOT_RUN}
        mine = set(history.last.tests if history.last is not None else {}) | not_run
        looked = min(runs, len(history.runs))
        return {"runs": looked, "tests": {test: history.outcomes(test, looked) for test in sorted(mine)},
                "flaky": {flake.test: flake.rates() for flake in find_flakes(history, looked) if flake.test in mine}}


# -- reading it: flakes, the last run's failures --------------------------------------------------
@dataclass(frozen=True)
class Flake:
    """A test that both passed and failed across the runs looked at, or passed on a retry."""

    test: str
    ran: int  # the runs it ran in (passed, flaky or failed)
    failed: int  # the runs it failed
    flaky: int  # the runs it passed only after a failed attempt
    last_failure: str | None
    outcomes: list[str | None]  # per run looked at, oldest first (None: not run)

    def rates(self) -> str:
        """``"2 of 10 runs failed, 1 passed only on a retry"``."""
        text = f"{self.failed} of {self.ran} runs failed"
        return text + (f", {self.flaky} passed only on a retry" if self.flaky else "")

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "runs": self.ran, "failed": self.failed, "flaky": self.flaky,
                "passed": self.ran - self.failed - self.flaky, "lastFailure": self.last_failure,
                "outcomes": self.outcomes}


def find_flakes(history: History, runs: int) -> list[Flake]:
    """The flaky tests of the last ``runs`` runs, the most often failing first."""
    chosen = history.runs[-runs:] if runs > 0 else []
    tests = sorted({test for run in chosen for test in run.tests})
    found: list[Flake] = []
    for test in tests:
        outcomes = [run.tests[test].outcome if test in run.tests else None for run in chosen]
        failed, flaky = outcomes.count("failed"), outcomes.count("flaky")
        ran = failed + flaky + outcomes.count("passed")
        if not (flaky or (failed and ran > failed)):
            continue
        errors = [run.tests[test].error for run in chosen if test in run.tests and run.tests[test].error]
        found.append(Flake(test, ran, failed, flaky, errors[-1] if errors else None, outcomes))
    return sorted(found, key=lambda f: (-(f.failed + f.flaky) / f.ran, f.test))


def failed_last(history: History) -> list[str]:
    """The tests that failed in the last run (every shard of it), in their order of the file."""
    last = history.last
    return [test for test, outcome in last.tests.items() if outcome.outcome == "failed"] if last else []


# -- --last-failed, --failed-first ----------------------------------------------------------------
@dataclass
class Rerun:
    """What ``--last-failed``/``--failed-first`` make of the run: its specs, the option for pytest
    (None: every test of them, in the usual order) and what tells the user (:meth:`told`)."""

    specs: list[Path]
    select: str | None
    notice: str  # the whole line when no test is selected; else the flag
    failed_specs: set[str] = field(default_factory=set)  # keys (paths from the project) of specs with failures
    tests: list[str] = field(default_factory=list)  # the failed tests that still exist
    gone: list[str] = field(default_factory=list)  # the failed tests whose spec no longer defines them

    def failing_first(self, specs: list[Path], root: Path) -> list[Path]:
        """``specs`` with those holding a failure first (each group in its order)."""
        if not self.failed_specs:
            return specs
        return sorted(specs, key=lambda s: _spec_key(s, root) not in self.failed_specs)

    def selected(self) -> dict[str, int]:
        """How many of the selected tests each spec holds (keys as in ``failed_specs``)."""
        counts: dict[str, int] = {}
        for test in self.tests:
            counts[test.split("::", 1)[0]] = counts.get(test.split("::", 1)[0], 0) + 1
        return counts

    def told(self, specs: list[Path], root: Path, shard: str | None = None) -> str:
        """The line that tells the user, counting the tests of ``specs`` (this shard's, with
        ``shard``) only."""
        if self.select is None:
            return self.notice
        keys = {_spec_key(spec, root) for spec in specs}
        mine = [test for test in self.tests if test.split("::", 1)[0] in keys]
        held = len({test.split("::", 1)[0] for test in mine})
        gone = ""
        if self.gone:
            gone = (f"; {len(self.gone)} other test(s) that failed there no longer exist (renamed or removed: "
                    f"{', '.join(self.gone[:3])}{', ...' if len(self.gone) > 3 else ''})")
        if shard is None:
            count = f"{len(mine)} test(s) that failed in the last run, in {held} spec(s)"
            line = (f"running only the {count}" if self.notice == "--last-failed" else f"the {count} run first")
        else:
            count = f"{len(mine)} of the {len(self.tests)} test(s) that failed in the last run"
            line = (f"shard {shard} runs {count}, in {held} spec(s)" if self.notice == "--last-failed"
                    else f"shard {shard} holds {count}, in {held} spec(s): they run first")
        return f"runner: {self.notice}: {line}{gone}."


def plan_rerun(path: Path, specs: list[Path], root: Path, mode: str, shard: tuple[int, int] | None = None) -> Rerun:
    """``mode`` ``"only"`` (``--last-failed``) or ``"first"`` (``--failed-first``) applied to the
    selected ``specs`` with the history at ``path``. ``shard``: this run's ``(index, total)``;
    then a last run that is a split of as many shards, which this shard has not joined, is the
    sharded run in progress (its other shards ran already): the run before it is the last one,
    so every shard of a split chooses from the same run."""
    flag = "--last-failed" if mode == "only" else "--failed-first"
    shown = HISTORY_FILE if path == history_path(root) else str(path)
    try:
        history = read_history(path)
    except HistoryError as err:
        return Rerun(specs, None, f"runner: warning: {err}; {flag}: every test runs, in the usual order.")
    last = history.last
    if shard is not None and last is not None and last.split is not None and \
            last.split.get("total") == shard[1] and str(shard[0]) not in last.split["shards"]:
        history.runs.pop()
    if not history.runs:
        return Rerun(specs, None, f"runner: {flag}: there is no history yet ({shown}): every test runs.")
    keys = {_spec_key(spec, root) for spec in specs}
    failed = [test for test in failed_last(history) if test.split("::", 1)[0] in keys]
    if not failed:
        why = ("no test failed in the last run" if not failed_last(history)
               else "the tests that failed in the last run are not in the selected specs")
        return Rerun(specs, None, f"runner: {flag}: {why}: every test runs.")
    defined: dict[str, set[str] | None] = {}
    for test in failed:
        spec = test.split("::", 1)[0]
        if spec not in defined:
            defined[spec] = _defined_names(root / spec)
    gone = [test for test in failed if not _still_defined(test, defined[test.split("::", 1)[0]])]
    failed = [test for test in failed if test not in gone]
    if not failed:
        return Rerun(specs, None, f"runner: {flag}: the {len(gone)} test(s) that failed in the last run no longer "
                                  f"exist (renamed or removed: {', '.join(gone[:3])}{', ...' if len(gone) > 3 else ''})"
                                  ": every test runs.")
    failed_specs = {test.split("::", 1)[0] for test in failed}
    select = json.dumps({"mode": mode, "tests": failed})
    chosen = [spec for spec in specs if _spec_key(spec, root) in failed_specs] if mode == "only" else specs
    return Rerun(chosen, select, flag, failed_specs, failed, gone)


def _defined_names(spec: Path) -> set[str] | None:
    """The names a spec binds at its top level and in its top-level classes (``"test_a"``,
    ``"TestB"``, ``"TestB::test_c"``; ``"TestB::*"`` for a class with bases), read from its source without importing it; None when it
    cannot be read (every test of it is then taken as there: pytest will say what is wrong)."""
    try:
        tree = ast.parse(spec.read_bytes(), filename=str(spec))
    except (OSError, SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.update(f"{node.name}::{name}" for name in _bound(node.body))
            if node.bases or node.keywords:
                names.add(f"{node.name}::*")  # it may inherit its tests: collection knows
    names.update(_bound(tree.body))
    return names


def _bound(body: list[ast.stmt]) -> set[str]:
    """The names bound by ``def``, ``class``, ``import`` and plain assignments in ``body``."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _still_defined(test: str, names: set[str] | None) -> bool:
    """Whether the spec still defines ``test`` (a node id): its function, or its method in its
    class (any method of a class with bases, which may inherit it); a parametrized case counts
    by its function, whose cases only collection knows."""
    if names is None:
        return True
    parts = [part.split("[", 1)[0] for part in test.split("::")[1:]]
    if not parts or parts[0] not in names:
        return False
    if len(parts) == 1:
        return True
    return f"{parts[0]}::{parts[1]}" in names or f"{parts[0]}::*" in names


def _spec_key(spec: Path, root: Path) -> str:
    try:
        return spec.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return spec.as_posix()
