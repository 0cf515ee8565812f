"""``runner show-trace PATH``: one trace in Playwright's trace viewer (the server is
:mod:`runner.serve.trace`)."""

from __future__ import annotations

import argparse
from typing import Any

from runner.cli.parser import serve_options

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    show = sub.add_parser(
        "show-trace", help="open a test's trace in Playwright's trace viewer (served on 127.0.0.1)",
        description="Serve Playwright's trace viewer (the one the installed Playwright ships) and "
                    "one trace on 127.0.0.1, print its URL and open it in the browser, until Ctrl-C.")
    show.add_argument("trace", metavar="PATH", help="the trace file (runner/traces/<spec>/<test>.zip)")
    serve_options(show)


def command(args: argparse.Namespace) -> int:
    from runner.serve.trace import show_trace

    return show_trace(args.trace, args.port, args.open_browser)
