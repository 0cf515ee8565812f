"""A subject's pointer actions: click, hover, focus, blur, trigger, scroll_into_view, scroll_to,
screenshot.

Each waits until the element can take it (visible, enabled, still, not covered:
:meth:`Actions._prepare`); ``dblclick`` and ``rightclick`` are clicks. ``scroll_to`` is
``scrolling.py``'s, on the element.

Typing and form controls build on these in ``forms.py``; new pointer actions belong here.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any, Self

from runner import expect
from runner.commands.context import Attempt, retry
from runner.commands.dom_query import DomQuery
from runner.commands.screenshots import element_screenshot
from runner.commands.scrolling import scroll, scroll_target, shown_target
from runner.commands.steps import command
from runner.engine.actionability import why_not_actionable
from runner.engine.frames import FrameUnavailable
from runner.errors import CommandError, UsageError

__all__ = ["Actions"]

_SCROLL = {"top": "start", "center": "center", "bottom": "end", "nearest": "nearest"}
_BLOCKS = ("start", "center", "end", "nearest")  # scrollIntoView({block})
#: How long (ms) the first look at an action's element waits for it to stop moving before it
#: leaves the wait to the retrying path (whose messages name what the element is waiting for).
FIRST_LOOK_MOTION_MS = 100.0


class Actions(DomQuery):
    """What a user does to the subject's element with the pointer."""

    def _prepare(self, name: str, *, index: int = 0, force: bool = False,
                 timeout: float | None = None, multiple: bool = False,
                 scroll_behavior: Any = ..., enabled: bool = True,
                 hidden_hint: str = "") -> list[dict[str, Any]]:
        """Wait until the element(s) can take a user action (and are enabled, unless not
        ``enabled``: a pointer over a disabled control is fine); returns where to act.
        ``hidden_hint`` follows the reason when the element stays hidden (the command's way on)."""
        __tracebackhide__ = True
        config = self._ctx.config
        behavior = config.scroll_behavior if scroll_behavior is ... else scroll_behavior
        scroll = _SCROLL.get(str(behavior)) if behavior else None
        threshold = config.animation_distance_threshold if config.wait_for_animations and not force else None
        deadline_ms = self._timeout_ms(timeout)
        if not multiple and not index:
            ready = self._first_look(force=force, enabled=enabled, scroll=scroll, threshold=threshold,
                                     deadline_ms=deadline_ms)
            if ready is not None:
                return [ready]
        snap = self._existing(timeout, f"to {name}")
        count = len(snap.elements)
        if count > 1 and not multiple:
            raise CommandError(
                f"{self._label}.{name}() can only be called on a single element, but the subject "
                f"contained {count} elements.\nPass multiple=True to act on each of them, or narrow "
                "the query (first(), eq(n), a more specific selector)."
            )
        spots = []
        for i in range(count if multiple else 1):
            arg = {**self._query_arg(), "mode": "prepare", "index": index + i, "scroll": scroll,
                   "threshold": threshold, "animationTimeout": deadline_ms,
                   "checkCovered": not force, "checkEnabled": enabled}

            def attempt(arg: dict[str, Any] = arg) -> Attempt:
                spot = self._ctx.run(self._ctx.browser.dom(arg, untraced=self._ctx.quiet_read()))
                if spot.get("ok"):
                    return Attempt(True, value=spot)
                why = why_not_actionable(spot)
                return Attempt(False, f"{why}: {hidden_hint}" if hidden_hint and spot.get("reason") == "hidden" else why)

            if force:
                spot = self._ctx.run(self._ctx.browser.dom(arg))
                if spot.get("reason") == "gone":
                    raise CommandError(f"{self._label}.{name}(): the element left the page.")
                spots.append(spot)
            else:
                spots.append(retry(self._ctx, attempt, deadline_ms, f"{self._label}.{name}()"))
        return spots

    def _first_look(self, *, force: bool, enabled: bool, scroll: str | None, threshold: float | None,
                    deadline_ms: float) -> dict[str, Any] | None:
        """The common case in one evaluation instead of two (finding the subject, then checking
        it): where to act when the subject is exactly one element that can take the action now
        (any one element with ``force``); else None, and :meth:`_prepare` waits as it always
        did (for the element to exist, then to be actionable, each with its own messages). The
        look's wait for motion is short: a moving element is waited for by that slower path."""
        __tracebackhide__ = True
        arg = {**self._query_arg(), "mode": "prepare", "index": 0, "single": True, "scroll": scroll,
               "threshold": threshold, "animationTimeout": min(deadline_ms, FIRST_LOOK_MOTION_MS),
               "checkCovered": not force, "checkEnabled": enabled}
        self._ctx.checkpoint()
        try:
            spot: dict[str, Any] = self._ctx.run(self._ctx.browser.dom(arg), deadline_ms)
        except FrameUnavailable:  # the slower path waits for the frame
            return None
        if spot.get("reason") == "count" or not (force or spot.get("ok")):
            return None
        self._ctx.checkpoint()  # as retry() does after an attempt that held
        return spot

    def _one_element(self, name: str, timeout: float | None) -> expect.DomSubject:
        """Wait for the subject's element (up to the timeout); raises ``CommandError`` when there
        are several, for a command that acts on one alone (``hover``, ``scroll_to``, ...)."""
        __tracebackhide__ = True
        snap = self._existing(timeout, f"to {name}")
        if len(snap.elements) > 1:
            raise CommandError(
                f"{self._label}.{name}() can only be called on a single element, but the subject "
                f"contained {len(snap.elements)} elements.\nNarrow the query (first(), eq(n), a more "
                "specific selector)."
            )
        return snap

    @command("click")
    def click(self, *, force: bool = False, multiple: bool = False, timeout: float | None = None,
              button: str = "left", click_count: int = 1, modifiers: Sequence[str] = ()) -> Self:
        """Click the element's centre like a user (after scrolling it into view and waiting
        until it is visible, enabled, not moving and not covered)."""
        __tracebackhide__ = True
        return self._click("click", force=force, multiple=multiple, timeout=timeout, button=button,
                           click_count=click_count, modifiers=modifiers)

    def _click(self, name: str, *, force: bool = False, multiple: bool = False, timeout: float | None = None,
               button: str = "left", click_count: int = 1, modifiers: Sequence[str] = ()) -> Self:
        """``click``, ``dblclick`` and ``rightclick``: each is told (log, errors) by its own name."""
        __tracebackhide__ = True
        spots = self._prepare(name, force=force, multiple=multiple, timeout=timeout)
        for index, _spot in enumerate(spots):
            self._press(index, button, click_count, list(modifiers), force, timeout)
        self._ctx.add_log(name, self._label)
        return self

    def _press(self, index: int, button: str, count: int, modifiers: list[str], force: bool,
               timeout: float | None) -> None:
        """Click element ``index`` like a user; the engine checks, right as the event is
        dispatched, that it lands on the element (a layout shift in between is retried)."""
        __tracebackhide__ = True
        limit = self._timeout_ms(timeout)
        problem = self._ctx.run(self._ctx.browser.click_element(
            self._query_arg(), index, button=button, click_count=count, modifiers=modifiers,
            force=force, timeout_ms=limit), limit)
        if problem is not None:
            raise CommandError(f"{self._label}: the click did not happen within {int(limit)}ms: {problem}")

    @command("hover")
    def hover(self, *, force: bool = False, timeout: float | None = None) -> Self:
        """Move the mouse onto the element's centre, like a user (CSS ``:hover``, ``mouseover``,
        ``mouseenter``), once it can take it as a click would (a disabled one too: its tooltip);
        ``force=True`` skips the checks."""
        __tracebackhide__ = True
        self._one_element("hover", timeout)
        self._prepare("hover", force=force, timeout=timeout, enabled=False)
        limit = self._timeout_ms(timeout)
        problem = self._ctx.run(self._ctx.browser.hover_element(self._query_arg(), 0, force=force,
                                                                timeout_ms=limit), limit)
        if problem is not None:
            raise CommandError(f"{self._label}.hover(): the pointer did not get there within {int(limit)}ms: {problem}")
        self._ctx.add_log("hover", self._label)
        return self

    @command("dblclick")
    def dblclick(self, **options: Any) -> Self:
        return self._click("dblclick", **{"click_count": 2, **options})

    @command("rightclick")
    def rightclick(self, **options: Any) -> Self:
        return self._click("rightclick", **{"button": "right", **options})

    @command("focus")
    def focus(self) -> Self:
        self._existing()
        self._ctx.run(self._eval_first("el => el.focus()"))
        return self

    @command("blur")
    def blur(self) -> Self:
        self._existing()
        self._ctx.run(self._eval_first("el => el.blur()"))
        return self

    def _eval_first(self, script: str, arg: Any = None) -> Coroutine[Any, Any, Any]:
        """Call the JavaScript ``script(element, arg)`` on the first element (run it with ctx.run)."""
        return self._ctx.browser.eval_first(self._query_arg(), script, arg)

    @command("trigger")
    def trigger(self, event: str, **init: Any) -> Self:
        """Dispatch a DOM event (``mouseover``, ``change``, ...) on the element."""
        __tracebackhide__ = True
        self._prepare("trigger", force=bool(init.pop("force", False)))
        self._ctx.run(self._ctx.browser.dispatch_event(self._query_arg(), event, init or None))
        self._ctx.add_log("trigger", f"{self._label} {event}")
        return self

    @command("scroll_into_view")
    def scroll_into_view(self, *, block: str = "start") -> Self:
        """Scroll the first element into view, aligned by ``block`` (the DOM's ``"start"``,
        ``"center"``, ``"end"`` or ``"nearest"``)."""
        __tracebackhide__ = True
        if block not in _BLOCKS:
            raise UsageError(f"{self._label}.scroll_into_view(block=...) takes one of "
                             f"{', '.join(map(repr, _BLOCKS))}; found {block!r}.")
        self._existing()
        self._ctx.run(self._eval_first("(el, b) => el.scrollIntoView({block: b})", block))
        return self

    @command("scroll_to")
    def scroll_to(self, position_or_x: str | float, y: str | float | None = None, *, duration: float = 0,
                  easing: str = "swing", ensure_scrollable: bool = True, timeout: float | None = None) -> Self:
        """Scroll the element's content to a position (``"bottom"``, ``"topLeft"``, ...) or to
        ``x, y`` (pixels or ``"50%"``), over ``duration`` ms (see ``scrolling.py``)."""
        __tracebackhide__ = True
        target = scroll_target(position_or_x, y)
        self._one_element("scroll_to", timeout)
        shown = shown_target(position_or_x, y, duration, easing)
        scroll(self._commands, self._query_arg(), f"{self._label}.scroll_to({shown})", target, duration=duration,
               easing=easing, ensure_scrollable=ensure_scrollable, timeout_ms=self._timeout_ms(timeout))
        self._ctx.add_log("scroll_to", f"{self._label} {shown}")
        return self

    @command("screenshot")
    def screenshot(self, name: str | None = None) -> Any:
        self._existing()
        return element_screenshot(self._commands, self._query_arg(), name)

