"""Text patterns, and the two shapes of field built on them: one text, or a dict of named texts.

Most RouteMatcher fields take a *text pattern*: a string is a glob (the value is equal to it, or
minimatch with ``matchBase`` matches), an ``re.Pattern`` is searched. :class:`TextField` is a
field of one such pattern (``path``, ``hostname``, ...), :class:`TextGroupField` a dict of them
by name (``headers``, ``query``, ``auth``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from runner.match.braces import expansion_problem

from .base import Field, MatcherProblem
from .view import MatchView

__all__ = ["TextPattern", "TextField", "TextGroupField", "compile_glob", "check_text", "check_glob"]


def compile_glob(pattern: str) -> Callable[[str], bool]:
    from runner.match import compile_pattern

    return compile_pattern(pattern, {"matchBase": True})


def check_text(name: str, value: Any) -> None:
    """Refuse a value that is neither a string nor a regular expression."""
    if not isinstance(value, (str, re.Pattern)):
        raise MatcherProblem(f"`{name}` must be a string or a regular expression.")


def check_glob(name: str, glob: str) -> None:
    """Refuse a glob past the brace limits here, where the route is defined: compiling it would
    take seconds to minutes (a lazily compiled variant would fail on a request)."""
    problem = expansion_problem(glob)
    if problem is not None:
        raise MatcherProblem(
            f"`{name}` {problem}. Use fewer brace groups, a regular expression, or several routes."
        )


class TextPattern:
    """One text pattern, compiled once: a regex (``search``) or a glob (equality, then minimatch
    with matchBase). ``lower``: the glob and the value are compared in lower case."""

    __slots__ = ("regex", "text", "lower", "_glob")

    def __init__(self, value: str | re.Pattern[str], *, lower: bool = False) -> None:
        self.lower = lower
        self.regex: re.Pattern[str] | None = value if isinstance(value, re.Pattern) else None
        text = "" if isinstance(value, re.Pattern) else value
        self.text: str = text.lower() if lower else text
        # compiled once, when the route is defined
        self._glob: Callable[[str], bool] | None = compile_glob(self.text) if self.regex is None else None

    def test(self, value: str) -> bool:
        if self.regex is not None:
            return self.regex.search(value) is not None
        if self.lower:
            value = value.lower()
        return value == self.text or (self._glob is not None and self._glob(value))


class TextField(Field):
    """A field of one text pattern, compared with the part of the request :meth:`read` gives."""

    @classmethod
    def validate(cls, value: Any) -> Any:
        check_text(cls.key, value)
        if isinstance(value, str):
            check_glob(cls.key, value)
        return value

    def __init__(self, value: str | re.Pattern[str]) -> None:
        super().__init__(value)
        self.pattern = self.compile(value)

    def compile(self, value: str | re.Pattern[str]) -> TextPattern:
        """The field's value as the pattern requests are tested with."""
        return TextPattern(value)

    def read(self, view: MatchView) -> str:
        """The part of the request this field is compared with."""
        raise NotImplementedError

    def match(self, view: MatchView) -> bool:
        return self.pattern.test(self.read(view))


class TextGroupField(Field):
    """A field of text patterns by name; every one must match the part :meth:`read` gives for its
    name (a missing part reads as ``""``)."""

    @classmethod
    def validate(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise MatcherProblem(f"`{cls.key}` must be a dict of names to strings or regular expressions.")
        for name, pattern in value.items():
            cls.check_name(name)
            check_text(f"{cls.key}.{name}", pattern)
        for name, pattern in value.items():
            if isinstance(pattern, str):
                check_glob(f"{cls.key}.{name}", pattern)
        return value

    @classmethod
    def check_name(cls, name: Any) -> None:
        """Refuse a name the field does not take (any name, unless a subclass says otherwise)."""

    def __init__(self, value: Mapping[Any, str | re.Pattern[str]]) -> None:
        super().__init__(value)
        self.patterns = {self.name_key(name): TextPattern(pattern) for name, pattern in value.items()}

    def name_key(self, name: Any) -> Any:
        """A name as :meth:`read` takes it."""
        return name

    def read(self, view: MatchView, name: Any) -> str:
        """The part of the request the pattern of ``name`` is compared with."""
        raise NotImplementedError

    def match(self, view: MatchView) -> bool:
        return all(pattern.test(self.read(view, name)) for name, pattern in self.patterns.items())
