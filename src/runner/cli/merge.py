"""``runner merge OUT INPUT...``: a sharded run's events files made one (the work is
:mod:`runner.run.merge`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    merge = sub.add_parser(
        "merge", help="merge the events files of a sharded run's shards into one",
        description="Join the events files of `runner run --shard i/n` (one per shard) into one run's "
                    "events file, from which `runner report --from OUT` builds any report. The exit "
                    "status is the merged run's.")
    merge.add_argument("output", metavar="OUT", help="the merged events file to write")
    merge.add_argument("inputs", nargs="+", metavar="INPUT", help="the shards' events files, or folders holding them")
    merge.add_argument("--project", "-P", default=None, metavar="DIR",
                       help="the project whose history (runner/history.json) the merged run is added to "
                            "(default: the current directory, when it holds a runner.json)")


def command(args: argparse.Namespace) -> int:
    from runner.run.merge import merge_command

    return merge_command(args.output, args.inputs, Path(args.project) if args.project else None)
