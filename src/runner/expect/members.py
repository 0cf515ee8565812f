"""The ``members`` chainers of a list, tuple or set: the same members (counted), included
members, the same ordered members, and ordered members at the start; with ``kinds.same``'s
equality."""

from __future__ import annotations

from typing import Any

from .arguments import need
from .kinds import is_collection, same
from .messages import a_type, short
from .spec import Checker, Mismatch, Spec, Verdict, verdict

__all__ = ["SPECS", "MEMBERS_ARG"]

#: The argument of the members chainers and of ``be.oneOf``.
MEMBERS_ARG = need(is_collection, "a list, tuple or set")
_SEQUENCE_ARG = need(lambda x: isinstance(x, (list, tuple)), "a list or tuple")


def _count_in(items: list[Any], item: Any) -> int:
    return sum(1 for x in items if same(x, item))


def _members(mode: str) -> Checker:
    def checker(subject: Any, args: tuple[Any, ...], neg: bool) -> Verdict:
        if not is_collection(subject):
            raise Mismatch(
                f"'members' needs a list, tuple or set, and the subject is {a_type(subject)}"
            )
        have, want = list(subject), list(args[0])
        if mode == "same":
            holds = len(have) == len(want) and all(
                _count_in(have, x) == _count_in(want, x) for x in want
            )
        elif mode == "include":
            holds = all(any(same(h, w) for h in have) for w in want)
        elif mode == "ordered":
            holds = same(have, want)
        else:  # include ordered: a prefix
            holds = len(want) <= len(have) and same(have[: len(want)], want)
        return verdict(holds, neg)

    return checker


# fmt: off
SPECS: list[Spec] = [
    Spec(("have.members", "have.same.members", "have.deep.members", "have.same.deep.members"),
         1, 1, lambda a: f"have the same members as {short(a[0])}",
         "'have.members', [1, 2]", value=_members("same"), argcheck=MEMBERS_ARG),
    Spec(("include.members", "contain.members", "include.deep.members"), 1, 1,
         lambda a: f"include members {short(a[0])}", "'include.members', [1]",
         value=_members("include"), argcheck=MEMBERS_ARG),
    Spec(("have.ordered.members", "have.same.ordered.members"), 1, 1,
         lambda a: f"have the same ordered members as {short(a[0])}",
         "'have.ordered.members', [1, 2]", value=_members("ordered"), argcheck=_SEQUENCE_ARG),
    Spec(("include.ordered.members",), 1, 1,
         lambda a: f"start with the ordered members {short(a[0])}",
         "'include.ordered.members', [1]", value=_members("include_ordered"),
         argcheck=_SEQUENCE_ARG),
]
# fmt: on
