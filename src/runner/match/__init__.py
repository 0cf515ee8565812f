"""Glob matching with the semantics of npm ``minimatch`` 3; see :mod:`runner.match.minimatch`."""

from typing import Any

from runner.match.minimatch import OPTION_NAMES, compile_pattern, minimatch

__all__ = ["minimatch", "compile_pattern", "pattern_list", "OPTION_NAMES"]


def pattern_list(value: Any) -> list[str]:
    """A configuration value holding globs (a string, a list of strings, or None) as a list."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
