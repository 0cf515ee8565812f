"""Why an element cannot take a user action now, in words: the reasons ``dom.js``'s "prepare"
mode gives (``hidden``, ``disabled``, ``covered``, ``animating``, ``outside``, ``gone``).

One place for these words: the commands' retry loop says them when an action times out, and
the click verb says them when the element changes between its check and the mouse going down.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["why_not_actionable"]


def why_not_actionable(spot: Mapping[str, Any]) -> str:
    """The reason in ``spot`` (``dom.js``'s answer) as a sentence naming the element."""
    reason = spot.get("reason")
    what = spot.get("description", "the element")
    if reason == "hidden":
        return f"{what} is not visible (it or an ancestor is hidden, or it has no size)"
    if reason == "disabled":
        return f"{what} is disabled"
    if reason == "covered":
        return f"{what} is being covered by another element: {spot.get('by')}"
    if reason == "animating":
        return f"{what} is still animating (waitForAnimations)"
    if reason == "outside":
        # the original's words, then where the centre was and how to get it into view
        return (
            f"the center of this element is hidden from view: {what} (its centre is at "
            f"({float(spot.get('x', 0)):.0f}, {float(spot.get('y', 0)):.0f}), outside the "
            f"{float(spot.get('width', 0)):.0f}x{float(spot.get('height', 0)):.0f} viewport).\n"
            "Let runner scroll it into view (scrollBehavior other than false), call "
            "scroll_into_view() first, or pass force=True to act without the check"
        )
    return "the element left the page"
