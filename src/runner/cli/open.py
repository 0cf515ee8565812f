"""``runner open``: the interactive mode (the work is :mod:`runner.ui`)."""

from __future__ import annotations

import argparse
from typing import Any

from runner.cli.parser import common_options, serve_options, snapshot_options, with_snapshot_mode

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "open", help="the interactive mode: a web UI to run specs and watch them (127.0.0.1)",
        description="Serve the interactive mode on 127.0.0.1 (a token in the printed URL): pick specs, "
                    "watch the command log, the app, routes and requests, time-travel, re-run on save.")
    common_options(p)
    p.add_argument("--browser", "-b", default=None, metavar="NAME|PATH",
                   help="chromium, chrome, or the path of a browser executable")
    p.add_argument("--headed", action="store_true", help="show the browser's own window too")
    serve_options(p)
    snapshot_options(p)
    p.add_argument("--no-spare", dest="spare", action="store_false",
                   help="start each run in a new process from scratch, with no spare child prepared ahead "
                        "(less memory, a slower start)")
    open_kind = p.add_mutually_exclusive_group()
    open_kind.add_argument("--e2e", dest="testing_type", action="store_const", const="e2e", default="e2e",
                           help="the end-to-end specs of integrationFolder (the default)")
    open_kind.add_argument("--component", dest="testing_type", action="store_const", const="component",
                           help="the component specs of componentFolder, with the component block applied")


def command(args: argparse.Namespace) -> int:
    from runner.ui.command import open_command

    cli_config = with_snapshot_mode(list(args.config or []), args.update_snapshots)
    return open_command(project=args.project, config_file=args.config_file, cli_config=cli_config,
                        cli_env=args.env, browser=args.browser, headed=args.headed, port=args.port,
                        open_browser=args.open_browser, testing_type=args.testing_type, spare=args.spare)
