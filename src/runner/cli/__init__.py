"""The ``runner`` command: ``run``, ``open``, ``init``, ``report``, ``merge``, ``durations``, ``flakes``, ``config``,
``schema``, ``show-trace``, ``show-report``.

:func:`main` parses the command line (:mod:`runner.cli.parser`) and hands the command to its
module, one per command (``runner.cli.run``, ``runner.cli.open``, ...). Every failure to start ends
with one clear message on stderr and exit status 1; ``runner run`` otherwise exits with the number
of failed tests (0 when all pass, at most 255). A command whose output is closed early (``runner
flakes | head -1``) stops quietly with status 141, as a program killed by SIGPIPE does.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from runner.cli import (
    config,
    durations,
    flakes,
    init,
    merge,
    report,
    run,
    schema,
    show_report,
    show_trace,
)
from runner.cli import open as open_  # not to shadow the builtin
from runner.cli.parser import build_parser, fail
from runner.errors import RunnerError

__all__ = ["main"]

# Each command and its module, in the order ``runner --help`` lists them.
_COMMANDS: dict[str, ModuleType] = {
    "run": run, "report": report, "merge": merge, "durations": durations, "flakes": flakes,
    "config": config, "schema": schema, "show-trace": show_trace, "show-report": show_report, "open": open_,
    "init": init,
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
    except BrokenPipeError:
        return _output_closed()
    return code


def _main(argv: Sequence[str] | None) -> int:
    adders: list[Callable[[object], None]] = [module.add_parser for module in _COMMANDS.values()]
    parser = build_parser(adders)
    try:
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C as runner starts: one message, no traceback
        print("\nrunner: interrupted", file=sys.stderr)
        return 130
    if args.command is None:
        parser.print_help()
        return 1
    command: Callable[[argparse.Namespace], int] = _COMMANDS[args.command].command
    try:
        return command(args)
    except RunnerError as err:
        return fail(str(err))
    except KeyboardInterrupt:
        print("\nrunner: interrupted", file=sys.stderr)
        return 130


# 128 + SIGPIPE: the status a shell shows for a program that a closed pipe stopped (``git log | head``).
_PIPE_CLOSED = 141


def _output_closed() -> int:
    """The reader of runner's output went away (``| head``): stop without a traceback. What is still
    buffered for stdout goes to /dev/null, or Python's flush at exit would raise the same error again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor behind stdout: nothing left to flush
        pass
    return _PIPE_CLOSED


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
