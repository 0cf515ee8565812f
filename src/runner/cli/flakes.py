"""``runner flakes``: the tests that both passed and failed in the project's recent runs, or passed
on a retry, read from the history (:mod:`runner.run.history`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "command"]


def _runs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs of at least 1, found {text!r}")
    return value


def add_parser(sub: Any) -> None:
    flakes = sub.add_parser(
        "flakes", help="list the tests that both passed and failed in recent runs",
        description="List the tests that both passed and failed across the runs kept in runner/history.json "
                    "(historyRuns), or passed only on a retry, with how often they failed and the first "
                    "line of their last failure.")
    flakes.add_argument("--runs", "-n", type=_runs, default=None, metavar="N",
                        help="look at the last N runs only (default: every run kept)")
    flakes.add_argument("--json", action="store_true", help="print JSON instead of text")
    flakes.add_argument("--project", "-P", default=None, metavar="DIR",
                        help="the project (default: the current directory)")


def command(args: argparse.Namespace) -> int:
    from runner.errors import UsageError
    from runner.run.history import (
        HISTORY_FILE,
        HistoryError,
        find_flakes,
        history_path,
        read_history,
    )

    root = Path(args.project or ".").resolve()
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise UsageError(f"the project folder {str(root)!r} {what}: expected the folder of runner.json "
                         "(--project DIR, or the current directory).")
    path = history_path(root)
    try:
        history = read_history(path)
    except HistoryError as err:
        raise UsageError(f"{err}. `runner run` leaves such a file as it is; move it away to start a new "
                         "history.") from None
    looked = min(args.runs or len(history.runs), len(history.runs))
    flakes = find_flakes(history, looked)
    if args.json:
        print(json.dumps({"history": HISTORY_FILE, "runs": looked, "flaky": [f.to_json() for f in flakes]},
                         indent=2))
        return 0
    if not history.runs:
        # a folder without runner.json is a project too (runner runs it with the defaults): no
        # history there is no error, but the hint tells the user where runner looked
        where = "" if (root / "runner.json").is_file() else f" (in {str(root)!r}, which holds no runner.json)"
        print(f"runner: no history yet: {HISTORY_FILE} does not exist or holds no run{where}. Each `runner run` "
              "adds its tests' outcomes to it (historyRuns in runner.json).", file=sys.stderr)
        return 0
    runs = f"the last {looked} run{'s' if looked != 1 else ''}"
    if not flakes:
        print(f"No flaky test in {runs} ({HISTORY_FILE}).")
        return 0
    print(f"{len(flakes)} flaky test{'s' if len(flakes) != 1 else ''} in {runs} ({HISTORY_FILE}):")
    for flake in flakes:
        print(f"\n  {flake.test}")
        print(f"    {flake.rates()}   {_strip(flake.outcomes)}")
        if flake.last_failure:
            print(f"    last failure: {flake.last_failure}")
    print("\n  strip: oldest to newest; . passed, F failed, R passed on a retry, - not run, s skipped")
    return 0


_MARKS = {"passed": ".", "failed": "F", "flaky": "R", "skipped": "s", "pending": "s", None: "-"}


def _strip(outcomes: list[str | None]) -> str:
    return "".join(_MARKS.get(o, "?") for o in outcomes)
