"""The ``runner`` argument parser: runner's error style, the options commands share, one
subcommand per command module (added in the order ``runner --help`` lists them).

A usage error is one line, a "Did you mean" when a command is misspelt, and where to get help;
every other failure to start is one ``runner: ...`` line on stderr and exit status 1 (:func:`fail`).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from runner import __version__

__all__ = ["COMMANDS", "DEFAULT_DURATIONS_HELP", "build_parser", "common_options", "fail", "serve_options", "serve_port",
           "snapshot_options", "with_snapshot_mode"]

COMMANDS = ("run", "open", "init", "report", "config", "schema", "show-trace", "show-report")

DEFAULT_DURATIONS_HELP = "runner/durations.json in the project"


class _Parser(argparse.ArgumentParser):
    """argparse with runner's error style: one line, a suggestion, and where to get help."""

    def error(self, message: str) -> NoReturn:
        if "invalid choice" in message and "argument COMMAND" in message:
            given = message.split("'")[1] if "'" in message else ""
            close = difflib.get_close_matches(given, COMMANDS, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            message = f"'{given}' is not a runner command.{hint} Commands: {', '.join(COMMANDS)}."
        self.exit(1, f"runner: {message}\nTry '{self.prog} --help' for help.\n")


def fail(message: str) -> int:
    """Tell why a command cannot go on; its exit status (1)."""
    print(f"runner: {message}", file=sys.stderr)
    return 1


def serve_port(text: str) -> int:
    """``--port`` of the commands that serve on 127.0.0.1: 0 to 65535 (0, like no flag, a free port),
    checked here so a port the socket cannot take is a usage error, not bind()'s OverflowError."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"expected a port number from 1 to 65535 (or leave --port out for a free one); found {text!r}")
    return port


def config_port(text: str) -> int:
    """``runner run --port``: the ``port`` option from the command line, 1 to 65535, checked here so
    that a bad value names the flag the user typed, not ``--config``."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 1 to 65535; found {text!r}")
    return port


def serve_options(p: argparse.ArgumentParser) -> None:
    """The commands that serve on 127.0.0.1: ``--port`` and ``--no-open``."""
    p.add_argument("--port", "-p", type=serve_port, default=None, help="the port to serve on (default: a free one)")
    p.add_argument("--no-open", dest="open_browser", action="store_false",
                   help="do not open a browser, only print the URL")


def project_folder(text: str) -> str:
    """``--project DIR``: a folder that exists (a typo is told at once, not run on defaults)."""
    path = Path(text).expanduser()
    if not path.is_dir():
        what = "is not a folder" if path.exists() else "does not exist"
        raise argparse.ArgumentTypeError(f"expected the project folder (where runner.json is); {text!r} {what}")
    return text


def snapshot_options(p: argparse.ArgumentParser) -> None:
    """``--update-snapshots [all|changed|missing]`` (the bare flag means ``changed``), the
    ``updateSnapshots`` option from the command line (docs/snapshots.md)."""
    p.add_argument("--update-snapshots", nargs="?", const="changed", default=None, choices=("all", "changed", "missing"),
                   metavar="all|changed|missing",
                   help="write the baselines of match.screenshot and match.aria_snapshot: 'missing' ones, "
                        "also those that differ ('changed', the bare flag's), or every one compared ('all')")


def with_snapshot_mode(cli_config: list[Any], mode: str | None) -> list[Any]:
    """``cli_config`` with ``--update-snapshots``' mode as the last layer (it wins over every
    ``--config``), carried to the test processes as ``--port`` is."""
    return [*cli_config, {"updateSnapshots": mode}] if mode is not None else cli_config


def common_options(p: argparse.ArgumentParser) -> None:
    """The project and its configuration: ``--project``, ``--config-file``, ``--config``, ``--env``."""
    p.add_argument("--project", "-P", type=project_folder, default=None, metavar="DIR",
                   help="the project folder (default: the current folder)")
    p.add_argument("--config-file", "-C", default=None, metavar="PATH",
                   help="the configuration file (default: runner.json); 'false' runs on defaults")
    p.add_argument("--config", "-c", action="append", default=None, metavar="VALUES",
                   help="configuration values: name=value,name2=value2 or a JSON object; "
                        "may be repeated (a later flag wins per name)")
    p.add_argument("--env", "-e", action="append", default=None, metavar="VALUES",
                   help="env values: name=value,name2=value2 or a JSON object; "
                        "may be repeated (a later flag wins per name)")


def build_parser(add_commands: list[Callable[[Any], None]]) -> argparse.ArgumentParser:
    """The parser, with each command's subparser added by ``add_commands`` (in that order)."""
    parser = _Parser(prog="runner", description="Browser end-to-end tests for Python, on a real Chromium.")
    parser.add_argument("--version", action="version", version=f"runner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in add_commands:
        add(sub)
    return parser
