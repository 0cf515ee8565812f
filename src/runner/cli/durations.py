"""``runner durations --from EVENTS``: the durations file ``--shard`` balances by, from runs'
events files (the work is :mod:`runner.run.shards`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from runner.cli.parser import DEFAULT_DURATIONS_HELP

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    durations = sub.add_parser(
        "durations", help="write the durations file --shard balances by, from events files",
        description="Record each spec's duration from runs' events files (a merged sharded run, say) "
                    "into the durations file that `runner run --shard` balances by.")
    durations.add_argument("--from", dest="events_from", action="append", required=True, metavar="FILE",
                           help="an events file (may be repeated)")
    durations.add_argument("--output", "-O", default=None, metavar="FILE",
                           help=f"the durations file (default: {DEFAULT_DURATIONS_HELP})")
    durations.add_argument("--project", "-P", default=None, metavar="DIR",
                           help="the project (default: the current directory)")


def command(args: argparse.Namespace) -> int:
    from runner.run.shards import durations_command

    return durations_command(args.events_from, args.output, Path(args.project or "."))
