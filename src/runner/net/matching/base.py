"""What every RouteMatcher field is: the :class:`Field` base class and :class:`MatcherProblem`.

A field is one key of a RouteMatcher dict (``url``, ``method``, ``headers``, ...). Its class holds
everything runner knows about that key, respx-style: how the user's value is validated (and
normalised), how it is compiled, how a request is matched on it and how it is described.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from .view import MatchView

__all__ = ["Field", "MatcherProblem"]


class MatcherProblem(Exception):
    """Why a field's value is refused: the sentence the user reads, between the RouteMatcher
    message's prefix and its ``You passed: ...`` (added by ``validate_route_matcher``)."""


class Field:
    """One RouteMatcher key. A subclass sets :attr:`key`, overrides :meth:`validate` (raising
    :class:`MatcherProblem`), compiles its value in ``__init__`` and overrides :meth:`match`."""

    #: the key as the valid-keys list and the canonical dict spell it
    key: ClassVar[str]
    #: other spellings accepted for the key (snake_case forms)
    spellings: ClassVar[tuple[str, ...]] = ()
    #: whether a CORS preflight of the request is matched on this field too
    on_preflight: ClassVar[bool] = False
    #: whether matching reads the body (such fields are tried once the others matched)
    reads_body: ClassVar[bool] = False
    #: whether the field matches requests (False: it configures the route instead)
    matches_requests: ClassVar[bool] = True
    #: whether the field shows in the matcher's description (the Routes table, messages)
    described: ClassVar[bool] = True

    def __init__(self, value: Any) -> None:
        """``value``: what :meth:`validate` returned for the user's value."""
        self.value = value

    @classmethod
    def validate(cls, value: Any) -> Any:
        """The user's value, normalised; raises :class:`MatcherProblem` when it is refused."""
        return value

    def match(self, view: MatchView) -> bool:
        """Whether the request ``view`` satisfies this field."""
        return True

    def describe(self) -> Any:
        """The field's value as the matcher's description shows it (made JSON by ``show``)."""
        return self.value
