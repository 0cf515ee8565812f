"""Probes: the page's requests, whether or not a route matched them.

Routes record only the requests they match. ``runner.assert_no_request(matcher, within=...)``
and ``strictNetwork`` must see the others too, so while a probe is on, the page is watched
(cheap: see the cost rule in ``interceptor.py``) and the chain offers every request to each
probe, saying whether a route matched it. CORS preflights are the browser's, not the app's:
probes never see them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runner.errors import CommandError

from .matching import CompiledMatcher, MatchView, validate_route_matcher

__all__ = ["Probe", "SeenRequest", "StrictNetwork", "STATIC_TYPES", "matching"]

STATIC_TYPES = frozenset({"document", "stylesheet", "script", "image", "font", "media", "manifest", "texttrack"})
"""The resource types ``strictNetwork: true`` never checks: a page's own assets."""


@dataclass(frozen=True)
class SeenRequest:
    """A request a probe kept: ``routed`` says whether some route matched it."""

    method: str
    url: str
    resource_type: str
    routed: bool
    server: bool = False  # the app's server made it (through runner's proxy), not the page

    def line(self, *, say_routed: bool = True) -> str:
        where = (", a route matched it" if self.routed else ", no route matched it") if say_routed else ""
        kind = "made by the app's server" if self.server else self.resource_type
        return f"  {self.method} {self.url} ({kind}{where})"


@dataclass
class Probe:
    """Keeps the requests ``takes(view, routed)`` accepts while it is registered."""

    takes: Callable[[MatchView, bool], bool]
    seen: list[SeenRequest] = field(default_factory=list)

    def offer(self, view: MatchView, routed: bool, *, server: bool = False) -> bool:
        """Keep the request if the probe takes it; return whether it did (caller holds the lock)."""
        if not self.takes(view, routed):
            return False
        self.seen.append(SeenRequest(view.method, view.url, view.resource_type, routed, server))
        return True


def matching(matcher: CompiledMatcher) -> Probe:
    """A probe of every request ``matcher`` matches, routed or not."""
    return Probe(lambda view, routed: matcher.match(view))


class StrictNetwork:
    """``strictNetwork``: the requests of a test that no route matched and nothing allows.

    ``setting`` is the option's value: ``True`` (every request but the static assets) or
    ``{"allow": [URL globs], "allowTypes": [resource types]}`` (a glob matches as a route's
    ``url`` does; ``allowTypes`` left out means the static assets).
    """

    def __init__(self, setting: Any) -> None:
        allow: list[str] = []
        types: frozenset[str] = STATIC_TYPES
        if isinstance(setting, dict):
            allow = list(setting.get("allow", []))
            if "allowTypes" in setting:
                types = frozenset(setting["allowTypes"])
        self._allow = [CompiledMatcher(validate_route_matcher({"url": glob})) for glob in allow]
        self._types = types
        self.probe = Probe(self._unallowed)

    def _unallowed(self, view: MatchView, routed: bool) -> bool:
        if routed or view.resource_type in self._types:
            return False
        return not any(glob.match(view) for glob in self._allow)

    def failure(self) -> CommandError | None:
        """The error that fails the test, or None when every request was matched or allowed."""
        seen = list(self.probe.seen)
        if not seen:
            return None
        lines = "\n".join(r.line(say_routed=False) for r in seen[:50])
        more = f"\n  ... and {len(seen) - 50} more" if len(seen) > 50 else ""
        noun = "request" if len(seen) == 1 else "requests"
        return CommandError(
            f"strictNetwork: {_makers(seen)} made {len(seen)} {noun} that no route matched:\n{lines}{more}\n"
            f"{_how(seen)}, or allow it "
            "in strictNetwork (`allow`: URL globs, `allowTypes`: resource types)."
        )


def _how(seen: list[SeenRequest]) -> str:
    """What to write so the requests are matched: runner.intercept for the page's,
    runner.intercept_backend for the app's server's."""
    if any(r.server for r in seen):
        return ("Stub or spy on each with runner.intercept() (the page's) or runner.intercept_backend() "
                "(the app's server's) before it is made")
    return "Stub or spy on each with runner.intercept() before the page makes it"


def _makers(seen: list[SeenRequest]) -> str:
    """Who made the requests strictNetwork tells of: the page, the app's server, or both."""
    server = {r.server for r in seen}
    return "the page and the app's server" if len(server) == 2 else "the app's server" if True in server else "the page"
