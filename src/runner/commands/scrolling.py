"""``scroll_to``: the page (``runner.scroll_to``) or a subject's element scrolled to a position.

The original's positions (``"top"``, ``"bottomRight"``, ``"top_left"``, ...) or coordinates (pixels,
``"75px"``, or a percentage of the scrollable range, ``"50%"``), at once or animated over
``duration`` ms (``easing``: ``"swing"`` or ``"linear"``). With ``ensure_scrollable`` (the
default) the command retries until the element (or page) can scroll, then fails as the original
does: ``scroll_to() failed because this element is not scrollable``. One script in the page does
it all (:data:`SCROLL_SCRIPT`), run on the element or on the page's scrolling element.
"""

from __future__ import annotations

import re
from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.context import Attempt, retry
from runner.commands.steps import command
from runner.errors import UsageError

__all__ = ["ScrollCommands", "scroll", "scroll_target", "shown_target"]

#: Each position as (x, y) percentages of the scrollable range, by every spelling taken.
_POSITIONS = {
    "topLeft": (0, 0), "top": (50, 0), "topRight": (100, 0),
    "left": (0, 50), "center": (50, 50), "right": (100, 50),
    "bottomLeft": (0, 100), "bottom": (50, 100), "bottomRight": (100, 100),
}
_SPELLINGS = {**_POSITIONS,
              **{re.sub(r"([A-Z])", r"_\1", k).lower(): v for k, v in _POSITIONS.items()}}
_COORD = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(%|px)?\s*$")
_EASINGS = ("swing", "linear")

# el: the element (null for the page); a: {window, x: [value, unit], y, duration, easing, ensure}.
SCROLL_SCRIPT = """async (el, a) => {
  const box = a.window ? (document.scrollingElement || document.documentElement) : el;
  if (!box) return {ok: false, reason: "gone"};
  const maxX = box.scrollWidth - box.clientWidth, maxY = box.scrollHeight - box.clientHeight;
  let scrollable = maxX > 0 || maxY > 0;
  if (!a.window) {
    const style = getComputedStyle(box), can = (o) => o === "auto" || o === "scroll" || o === "overlay";
    scrollable = (maxY > 0 && can(style.overflowY)) || (maxX > 0 && can(style.overflowX));
  }
  let name = "window";
  if (!a.window) {
    name = "<" + box.tagName.toLowerCase() + (box.id ? "#" + box.id : "")
      + (box.classList.length ? "." + Array.from(box.classList).slice(0, 3).join(".") : "") + ">";
  }
  if (a.ensure && !scrollable) return {ok: false, reason: "not scrollable", description: name};
  const to = ([v, unit], max) => unit === "%" ? v / 100 * max : v;
  const x = to(a.x, maxX), y = to(a.y, maxY), x0 = box.scrollLeft, y0 = box.scrollTop;
  const put = (left, top) => box.scrollTo({left, top, behavior: "instant"});
  if (a.duration > 0) {
    const ease = a.easing === "linear" ? (t) => t : (t) => 0.5 - Math.cos(t * Math.PI) / 2;
    const native = globalThis.__runnerNative || globalThis;  // real frames, also under runner.clock()
    const start = native.performance.now();
    for (;;) {
      await new Promise((r) => native.requestAnimationFrame(r));
      const t = Math.min(1, (native.performance.now() - start) / a.duration);
      put(x0 + (x - x0) * ease(t), y0 + (y - y0) * ease(t));
      if (t >= 1) break;
    }
  } else {
    put(x, y);
  }
  return {ok: true, left: box.scrollLeft, top: box.scrollTop};
}"""


def _coordinate(value: Any, what: str) -> list[Any]:
    """``[number, unit]`` of one coordinate: a number (pixels), ``"75px"`` or ``"50%"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value), "px"]
    match = _COORD.match(value) if isinstance(value, str) else None
    if match is None:
        raise UsageError(
            f"scroll_to() takes {what} as pixels (250, '250px') or a percentage ('50%'); found {value!r}."
        )
    return [float(match.group(1)), match.group(2) or "px"]


def scroll_target(position_or_x: Any, y: Any) -> tuple[list[Any], list[Any]]:
    """The x and y coordinates of ``scroll_to(position)`` or ``scroll_to(x, y)``; raises
    ``UsageError`` for an unknown position or a coordinate that is neither pixels nor a
    percentage."""
    if y is None and isinstance(position_or_x, str) and not _COORD.match(position_or_x):
        if position_or_x not in _SPELLINGS:
            names = ", ".join(repr(k) for k in _POSITIONS)
            raise UsageError(
                f"scroll_to({position_or_x!r}): not a position. Positions: {names} "
                "(or their snake_case spellings), or coordinates scroll_to(x, y)."
            )
        px, py = _SPELLINGS[position_or_x]
        return [float(px), "%"], [float(py), "%"]
    if y is None:
        raise UsageError(
            f"scroll_to({position_or_x!r}) needs y as well: scroll_to(x, y), each pixels or a "
            "percentage ('50%'), or a position such as 'bottom'."
        )
    return _coordinate(position_or_x, "x"), _coordinate(y, "y")


def scroll(commands: CommandsBase, query: dict[str, Any] | None, label: str, target: tuple[Any, Any], *,
           duration: float, easing: str, ensure_scrollable: bool, timeout_ms: float) -> dict[str, Any]:
    """Scroll the first element of ``query`` (None: the page) to ``target`` (:func:`scroll_target`);
    retried until it can scroll (with ``ensure_scrollable``). Returns where it ended
    (``left``, ``top``)."""
    __tracebackhide__ = True
    if not isinstance(duration, (int, float)) or isinstance(duration, bool) or duration < 0:
        raise UsageError(f"{label}: duration must be a number of milliseconds, 0 or more; found {duration!r}.")
    if easing not in _EASINGS:
        raise UsageError(f"{label}: easing must be 'swing' or 'linear'; found {easing!r}.")
    ctx = commands._ctx
    arg = {"window": query is None, "x": target[0], "y": target[1], "duration": float(duration),
           "easing": easing, "ensure": bool(ensure_scrollable)}
    where = query if query is not None else {"mode": "elements", "steps": [{"op": "get", "selector": ":root"}],
                                              "shadow": False}

    def attempt() -> Attempt:
        done = ctx.run(ctx.browser.eval_first(where, SCROLL_SCRIPT, arg), timeout_ms + float(duration))
        if done.get("ok"):
            return Attempt(True, value={"left": done["left"], "top": done["top"]})
        if done.get("reason") == "gone":
            return Attempt(False, "the element left the page")
        return Attempt(False, f"failed because this element is not scrollable: {done['description']}\n"
                              "Scroll the element that has the overflow, or pass ensure_scrollable=False "
                              "(then nothing moves).")

    result: dict[str, Any] = retry(ctx, attempt, timeout_ms, label)
    return result


class ScrollCommands(CommandsBase):
    """``runner.scroll_to``: the page's own scrolling."""

    @command("scroll_to")
    def scroll_to(self, position_or_x: str | float, y: str | float | None = None, *, duration: float = 0,
                  easing: str = "swing", ensure_scrollable: bool = True,
                  timeout: float | None = None) -> dict[str, Any]:
        """Scroll the page to a position (``"bottom"``, ``"topLeft"``, ...) or to ``x, y`` (pixels or
        ``"50%"``), over ``duration`` ms. Returns where it ended: ``{"left": ..., "top": ...}``."""
        __tracebackhide__ = True
        target = scroll_target(position_or_x, y)
        limit = float(timeout if timeout is not None else self._ctx.config.default_command_timeout)
        shown = shown_target(position_or_x, y, duration, easing)
        where = scroll(self, None, f"scroll_to({shown})", target, duration=duration, easing=easing,
                       ensure_scrollable=ensure_scrollable, timeout_ms=limit)
        self._ctx.add_log("scroll_to", f"window {shown}")
        return where


def shown_target(position_or_x: Any, y: Any, duration: Any = 0, easing: Any = "swing") -> str:
    """The target as the command log shows it: ``'bottom'``, ``0, '50%'``, with ``duration``
    and ``easing`` when given (``0, 0, duration=600, easing='linear'``)."""
    shown = repr(position_or_x) if y is None else f"{position_or_x!r}, {y!r}"
    if duration:
        shown += f", duration={duration!r}"
    return shown + (f", easing={easing!r}" if easing != "swing" else "")
