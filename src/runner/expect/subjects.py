"""What an assertion is checked on, and what it answers: the snapshot of the elements a query
matched at one poll (:class:`DomSubject` of :class:`ElementSnapshot`) and the verdict
(:class:`Outcome`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["ElementSnapshot", "DomSubject", "Outcome"]


@dataclass(frozen=True)
class ElementSnapshot:
    """What the page reported about one matched element at one poll.

    Only ``tag`` is required (handy in tests); an empty ``description`` is built from the tag,
    classes and id, e.g. ``<li.user#u1>``.
    """

    tag: str
    text: str = ""
    inner_text: str = ""
    html: str = ""
    value: str | None = None
    visible: bool = True
    attrs: dict[str, str] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    checked: bool = False
    selected: bool = False
    disabled: bool = False
    focused: bool = False
    css: dict[str, str] = field(default_factory=dict)
    props: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        if not self.description:
            desc = "<" + self.tag.lower()
            desc += "".join("." + c for c in self.classes)
            if self.attrs.get("id"):
                desc += "#" + self.attrs["id"]
            object.__setattr__(self, "description", desc + ">")


@dataclass(frozen=True)
class DomSubject:
    """The result of a query: the selector and the elements it matched (maybe none)."""

    selector: str
    elements: tuple[ElementSnapshot, ...] = ()
    # How many elements matched, when only the first ``elements`` were read: an assertion that
    # only counts (:func:`~runner.expect.checks.counts_only`) does not read 200,000 elements to
    # count them.
    total: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.elements, tuple):
            object.__setattr__(self, "elements", tuple(self.elements))

    @property
    def count(self) -> int:
        """How many elements matched."""
        return len(self.elements) if self.total is None else self.total


class Outcome(NamedTuple):
    """The verdict of :func:`~runner.expect.checks.check`.

    ``message`` is chai-like. When ``ok`` is False it says what was expected and what was
    found; when ``ok`` is True it describes the assertion that held (for the command log).
    """

    ok: bool
    message: str
