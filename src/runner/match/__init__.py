"""Glob matching with the semantics of npm ``minimatch`` 3; see :mod:`runner.match.minimatch`."""

from runner.match.minimatch import OPTION_NAMES, compile_pattern, minimatch

__all__ = ["minimatch", "compile_pattern", "OPTION_NAMES"]
