"""Probes: every request of the page a matcher takes, whether or not a route matched it.

Routes record only the requests they match. ``runner.assert_no_request(matcher, within=...)``
must see the others too, so while a probe is on the page is watched (cheap: see the cost rule
in ``interceptor.py``) and the chain offers every request to each probe before it looks at the
routes. CORS preflights are the browser's, not the app's: probes never see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .matcher import CompiledMatcher, MatchView

__all__ = ["Probe", "SeenRequest"]


@dataclass(frozen=True)
class SeenRequest:
    """A request a probe saw: ``routed`` says whether some route matched it."""

    method: str
    url: str
    resource_type: str
    routed: bool

    def line(self) -> str:
        where = "a route matched it" if self.routed else "no route matched it"
        return f"  {self.method} {self.url} ({self.resource_type}, {where})"


@dataclass
class Probe:
    """Collects the requests ``matcher`` takes (every request when None) while registered."""

    matcher: CompiledMatcher | None
    seen: list[SeenRequest] = field(default_factory=list)

    def offer(self, view: MatchView, routed: bool) -> bool:
        """Keep the request if the matcher takes it; return whether it did (caller holds the lock)."""
        if self.matcher is not None and not self.matcher.match(view):
            return False
        self.seen.append(SeenRequest(view.method, view.url, view.resource_type, routed))
        return True
