"""``runner init``: a new project's files (the work is :mod:`runner.scaffold`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from runner.cli.parser import fail

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "init", help="start a project: runner.json, an example spec and its page, a fixture, the support "
                     "file and a helper module beside it, the plugins file",
        description="Write the files of a new runner project (each commented), where runner.json puts "
                    "them when it exists. A file that exists is never overwritten.")
    p.add_argument("--project", "-P", default=None, metavar="DIR",
                   help="the project folder (default: the current folder)")


def command(args: argparse.Namespace) -> int:
    from runner.scaffold import report_lines, scaffold

    root = Path(args.project) if args.project else Path.cwd()
    if not root.is_dir():
        return fail(f"--project {str(root)!r} is not a folder.")
    result = scaffold(root)
    print(f"runner init: {root.resolve()}")
    for line in report_lines(result):
        print(line)
    if result.written:
        print("\nNext: runner run (every spec, headless), or runner open (the interactive mode).")
    else:
        print("\nNothing was written: every file was already there.")
    return 0
