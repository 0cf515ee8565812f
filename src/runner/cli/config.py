"""``runner config``: the resolved configuration and where each value came from, secrets hidden."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from runner.cli.parser import common_options

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    cfg = sub.add_parser("config", help="print the resolved configuration and where each value came from")
    common_options(cfg)
    kind = cfg.add_mutually_exclusive_group()
    kind.add_argument("--e2e", dest="testing_type", action="store_const", const="e2e", default="e2e")
    kind.add_argument("--component", dest="testing_type", action="store_const", const="component")
    cfg.add_argument("--json", action="store_true", help="print the resolved values as JSON")
    cfg.add_argument("--show-secrets", action="store_true",
                     help="show the values of secret env entries (runner.env.json, RUNNER_*) as they are, "
                          "not [redacted]")


def command(args: argparse.Namespace) -> int:
    import json

    from runner.config import format_resolved
    from runner.redaction import redact_config
    from runner.run.session import RunSession

    # The plugins file runs as it does for a run: what is shown is what a run would use.
    session = RunSession.create(root=args.project, config_file=args.config_file, testing_type=args.testing_type,
                                cli_config=args.config, cli_env=args.env, mode="config")
    config = session.config
    redactor = session.redactor
    session.close()
    for warning in config.warnings:
        print(f"runner: warning: {warning}", file=sys.stderr)
    values = config.as_dict() if args.show_secrets else redact_config(redactor, config.as_dict())
    if args.json:
        print(json.dumps(values, indent=2, sort_keys=True))
    else:
        print(format_resolved(config, values))
    return 0
