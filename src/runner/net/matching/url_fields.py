"""The RouteMatcher fields read from the request's URL: ``url``, ``path``, ``pathname``,
``hostname``, ``port``, ``https`` and ``query``.

All of them are matched on a CORS preflight too (its URL is the request's).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .._util import is_number
from .base import Field, MatcherProblem
from .text import TextField, TextGroupField, TextPattern, check_glob, check_text, compile_glob
from .view import MatchView

__all__ = ["UrlField", "PathField", "PathnameField", "HostnameField", "PortField", "HttpsField", "QueryField"]

_HOST_LABEL = re.compile(r"^[\w*?{}\[\]!(),+@|-]+$", re.U)
_IPV6ISH = re.compile(r"^\[?[0-9a-fA-F:.*?]+\]?$")


class UrlField(Field):
    """``url``: the full URL, then the path (path plus query); a glob also gets a leading slash."""

    key = "url"
    on_preflight = True

    @classmethod
    def validate(cls, value: Any) -> Any:
        check_text(cls.key, value)
        if isinstance(value, str):
            check_glob(cls.key, value)
            if not value.startswith("/"):
                check_glob(cls.key, "/" + value)  # the variant tried with a leading "/"
        return value

    def __init__(self, value: str | re.Pattern[str]) -> None:
        super().__init__(value)
        self.pattern = TextPattern(value)
        self._slash_glob: Callable[[str], bool] | None = None  # compiled when first needed

    def match(self, view: MatchView) -> bool:
        test = self.pattern.test
        return test(view.url) or self._test_slashed(view.url) or test(view.path) or self._test_slashed(view.path)

    def _test_slashed(self, value: str) -> bool:
        """The glob with a leading slash added (a glob without one), on a value that starts with one."""
        if self.pattern.regex is not None or not value.startswith("/") or self.pattern.text.startswith("/"):
            return False
        if self._slash_glob is None:
            self._slash_glob = compile_glob("/" + self.pattern.text)
        return self._slash_glob(value)


class PathField(TextField):
    """``path``: the path with its query string (``/users?page=2``)."""

    key = "path"
    on_preflight = True

    def read(self, view: MatchView) -> str:
        return view.path


class PathnameField(TextField):
    """``pathname``: the path without its query string."""

    key = "pathname"
    on_preflight = True

    def read(self, view: MatchView) -> str:
        return view.pathname


class HostnameField(TextField):
    """``hostname``: the URL's host (no port); a string must be a host name or a glob of one."""

    key = "hostname"
    on_preflight = True

    @classmethod
    def validate(cls, value: Any) -> Any:
        super().validate(value)
        if isinstance(value, str) and not _valid_hostname(value):
            raise MatcherProblem("`hostname` must be a valid host name or domain name.")
        return value

    def read(self, view: MatchView) -> str:
        return view.hostname


def _valid_hostname(host: str) -> bool:
    if not host or len(host) > 253:
        return False
    if ":" in host:
        return bool(_IPV6ISH.match(host))
    return all(label and _HOST_LABEL.match(label) for label in host.split("."))


class PortField(Field):
    """``port``: a number or a list of them (the URL's port, else 80 or 443 by the scheme)."""

    key = "port"
    on_preflight = True

    @classmethod
    def validate(cls, value: Any) -> Any:
        ports = value if isinstance(value, list) else [value]
        if not (isinstance(value, (list, int, float)) and not isinstance(value, bool)) or not all(
            is_number(p) and int(p) == p for p in ports
        ):
            raise MatcherProblem("`port` must be a number or a list of numbers.")
        return [int(p) for p in value] if isinstance(value, list) else int(value)

    def __init__(self, value: int | list[int]) -> None:
        super().__init__(value)
        self.ports = frozenset(value if isinstance(value, list) else [value])

    def match(self, view: MatchView) -> bool:
        return view.port in self.ports


class HttpsField(Field):
    """``https``: True for an ``https`` URL, False for the others."""

    key = "https"
    on_preflight = True

    @classmethod
    def validate(cls, value: Any) -> Any:
        if not isinstance(value, bool):
            raise MatcherProblem("`https` must be a boolean.")
        return value

    def match(self, view: MatchView) -> bool:
        return view.https is self.value


class QueryField(TextGroupField):
    """``query``: the query parameters by name (a repeated one as its values joined by ``,``)."""

    key = "query"
    on_preflight = True

    def read(self, view: MatchView, name: Any) -> str:
        return view.query.get(name, "")
