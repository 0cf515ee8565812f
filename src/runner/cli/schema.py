"""``runner schema``: the JSON schema of runner.json (draft-04) on stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parser", "command"]


def add_parser(sub: Any) -> None:
    sub.add_parser("schema", help="print the JSON schema of runner.json (draft-04)")


def command(args: argparse.Namespace) -> int:
    from runner.config import schema_text

    sys.stdout.write(schema_text().rstrip("\n") + "\n")
    return 0
