"""The ``runner`` command: ``run``, ``open``, ``init``, ``report``, ``merge``, ``durations``, ``flakes``, ``config``,
``schema``, ``show-trace``, ``show-report``.

:func:`main` parses the command line (:mod:`runner.cli.parser`) and hands the command to its
module, one per command (``runner.cli.run``, ``runner.cli.open``, ...). Every failure to start ends
with one clear message on stderr and exit status 1; ``runner run`` otherwise exits with the number
of failed tests (0 when all pass, at most 255).
"""

from __future__ import annotations

import argparse
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


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
