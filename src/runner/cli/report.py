"""``runner report --from FILE``: a recorded run's events fed to a reporter, or made the HTML
report (the work is :mod:`runner.reporters.replay`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    report = sub.add_parser(
        "report", help="replay a run's events file through a reporter",
        description="Feed the events file a run wrote (eventsFile, runner/results/events.jsonl by "
                    "default) to any reporter: the same output as the live run.")
    report.add_argument("--from", dest="events_from", required=True, metavar="FILE",
                        help="the events file to replay")
    report.add_argument("--reporter", "-r", default="spec", help="the reporter (default: spec)")
    report.add_argument("--reporter-options", "-o", action="append", default=None, metavar="VALUES",
                        help="reporter options: name=value,... or a JSON object; may be repeated")
    report.add_argument("--project", "-P", default=None, metavar="DIR",
                        help="the folder relative output paths and custom reporters are found in "
                             "(default: the current folder)")


def command(args: argparse.Namespace) -> int:
    project = Path(args.project) if args.project else Path.cwd()
    if args.reporter == "html":
        from runner.engine.trace_viewer import viewer_folder
        from runner.reporters.replay import html_report_command

        return html_report_command(args.events_from, args.reporter_options, project, viewer=viewer_folder())
    from runner.reporters.replay import report_command

    return report_command(args.events_from, args.reporter, args.reporter_options, project)
