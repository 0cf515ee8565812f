"""``runner show-report [FOLDER]``: a run's HTML report served and opened (the server is
:mod:`runner.serve.report`); this module finds the folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from runner.cli.parser import common_options, fail, serve_options

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    show = sub.add_parser(
        "show-report", help="open a run's HTML report (served on 127.0.0.1)",
        description="Serve the HTML report a run wrote (reportFolder, runner/report by default) on "
                    "127.0.0.1, print its URL and open it in the browser, until Ctrl-C.")
    show.add_argument("folder", nargs="?", default=None, metavar="FOLDER",
                      help="the report's folder (default: the project's reportFolder)")
    common_options(show)
    serve_options(show)


def command(args: argparse.Namespace) -> int:
    from runner.serve.report import show_report

    if args.folder is not None:
        folder = Path(args.folder)
    else:
        from runner.config import load_config

        config = load_config(args.project, config_file=args.config_file, cli_config=args.config,
                             cli_env=args.env)
        where = config.path("reportFolder")
        if where is None:
            return fail("reportFolder is false in this project's configuration, so no run writes a report "
                        "here. Name the report's folder: runner show-report FOLDER")
        folder = where
    return show_report(folder, args.port, args.open_browser)
