"""Iframes: a query's frame path resolved to the Playwright frame its steps run in.

A query (``{"steps": [...], ...}``, see ``element_verbs.py``) may begin with frame steps,
``{"op": "frame", "selector": "#pay"}``, one per level (``runner.frame("#outer").frame("#inner")``).
:func:`split_frames` takes them off (``dom.js`` never sees them) and :func:`resolve_frame` finds
the frame again at every call, from the page's main frame down: the iframe element (the one
element its selector matches in the frame above), then its content frame. Nothing is kept
between calls, so an iframe that appears late, is replaced, or navigates is found as it is now.
Playwright reaches the frames of other origins too (Chromium runs them out of process), so a
cross-origin frame is queried like a same-origin one.

What stops the path is told by :class:`FrameUnavailable` (a ``CommandError``: the commands'
retry loop tries again while it holds, and its message is what the test reads at the timeout);
what no retry can mend (several iframes match, an invalid selector) is a plain ``CommandError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playwright.async_api import ElementHandle, Frame, JSHandle, Page
from playwright.async_api import Error as PlaywrightError

from runner.errors import CommandError

__all__ = ["FrameUnavailable", "split_frames", "resolve_frame", "frame_point", "frame_label"]

# The frame's iframe element, found by its selector in the document of the frame above: the
# element itself, or why not (a word and what it found).
_FIND_IFRAME = """(sel) => {
  let found;
  try { found = document.querySelectorAll(sel); } catch (e) { return {problem: "invalid", detail: String(e.message)}; }
  if (found.length === 0) return {problem: "none"};
  const el = found[0];
  const tag = el.tagName.toLowerCase();
  const name = "<" + tag + (el.id ? "#" + el.id : "") + ">";
  if (found.length > 1) return {problem: "several", detail: String(found.length)};
  if (tag !== "iframe" && tag !== "frame") return {problem: "tag", detail: name};
  return {element: el};
}"""

# Where the iframe's document starts in its own frame's viewport: its border box plus its
# border and padding (Playwright's bounding box of the element is in the page's viewport).
_CONTENT_INSET = """(el) => {
  const s = getComputedStyle(el);
  return [el.clientLeft + parseFloat(s.paddingLeft || "0"), el.clientTop + parseFloat(s.paddingTop || "0")];
}"""

# The iframe's source: its src attribute, and whether it has a srcdoc (which wins over src).
_SOURCE = "(el) => [el.getAttribute('src'), el.hasAttribute('srcdoc')]"

# What the iframe's own document has at a point of its viewport, when it is not the iframe.
_HIT = """(el, [x, y]) => {
  const hit = el.ownerDocument.elementFromPoint(x, y);
  if (hit === el) return null;
  if (!hit) return "nothing (the point is outside the view of the document around the frame)";
  let s = hit.tagName.toLowerCase();
  if (hit.id) s += "#" + hit.id;
  if (hit.classList && hit.classList.length) s += "." + Array.from(hit.classList).slice(0, 3).join(".");
  return "<" + s + ">";
}"""

_INTO_VIEW = "(el) => el.scrollIntoView({block: 'nearest', inline: 'nearest'})"


class FrameUnavailable(CommandError):
    """A query's frame cannot be reached now (no iframe yet, not an iframe, its document not
    loaded): retried like an element that is not there yet; the message names the frame."""


def frame_label(path: Sequence[str], depth: int | None = None) -> str:
    """``frame('#outer').frame('#inner')``: the first ``depth`` levels of ``path`` as a test writes them."""
    return ".".join(f"frame({selector!r})" for selector in list(path)[:depth])


def split_frames(query: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The frame path of ``query`` (its leading frame steps' selectors) and the query left for
    ``dom.js`` (the same object when it has no frame steps)."""
    steps = query.get("steps") or []
    path: list[str] = []
    for step in steps:
        if step.get("op") != "frame":
            break
        path.append(str(step["selector"]))
    if not path:
        return path, query
    return path, {**query, "steps": steps[len(path):]}


async def resolve_frame(page: Page, path: Sequence[str]) -> Frame:
    """The frame at the end of ``path`` (the page's main frame for an empty one), as it is now.

    Raises :class:`FrameUnavailable` when a level is not there (yet), ``CommandError`` when its
    selector is invalid or matches several elements.
    """
    frame = page.main_frame
    for depth in range(len(path)):
        element = await _iframe_element(frame, path, depth)
        try:
            frame = await _content_frame(element, path, depth)
        finally:
            await _dispose(element)
    return frame


async def frame_point(page: Page, path: Sequence[str], x: float, y: float) -> tuple[float, float, str | None]:
    """The point ``x, y`` of the document of the frame at the end of ``path`` (``dom.js``
    measures in its own frame's viewport) in the page's viewport, where the mouse moves; and
    what lies over it in a document around the frame (an element of the page over the iframe,
    say: its description), else None.

    Each iframe of the path is first scrolled into its parent's view, the least it takes:
    ``dom.js`` scrolls the element into view within the frame's document only.
    """
    if not path:
        return x, y, None
    elements: list[ElementHandle] = []
    try:
        frame = page.main_frame
        for depth in range(len(path)):
            elements.append(await _iframe_element(frame, path, depth))
            if depth < len(path) - 1:
                frame = await _content_frame(elements[-1], path, depth)
        for element in reversed(elements):
            await element.evaluate(_INTO_VIEW)
        origins = [(0.0, 0.0)]  # where each document of the path starts: the page's first
        for element in elements:
            box = await element.bounding_box()
            if box is None:
                raise FrameUnavailable(f"{frame_label(path)}: an iframe of the path is not rendered "
                                       "(display: none?), so nothing in it can be clicked.")
            inset = await element.evaluate(_CONTENT_INSET)
            origins.append((box["x"] + float(inset[0]), box["y"] + float(inset[1])))
        px, py = x + origins[-1][0], y + origins[-1][1]
        for element, (ox, oy) in zip(elements, origins, strict=False):
            cover = await element.evaluate(_HIT, [px - ox, py - oy])
            if cover is not None:
                return px, py, cover
        return px, py, None
    except PlaywrightError as err:  # a frame of the path navigated or went away meanwhile
        raise FrameUnavailable(f"{frame_label(path)}: the frame was being replaced "
                               f"({str(err).splitlines()[0]})") from err
    finally:
        for element in elements:
            await _dispose(element)


async def _iframe_element(frame: Frame, path: Sequence[str], depth: int) -> ElementHandle:
    """The iframe element of level ``depth`` in ``frame`` (the document of the level above)."""
    selector = path[depth]
    label = frame_label(path, depth + 1)
    where = f" in {frame_label(path, depth)}" if depth else ""
    try:
        handle = await frame.evaluate_handle(_FIND_IFRAME, selector)
        try:
            found = await handle.get_property("element")
            element = found.as_element()
            if element is not None:
                return element
            await _dispose(found)
            answer = await handle.json_value()
        finally:
            await _dispose(handle)
    except PlaywrightError as err:  # the frame above is navigating or was detached
        raise FrameUnavailable(f"{label}: the document{where or ' of the page'} was being replaced "
                               f"({str(err).splitlines()[0]})") from err
    problem, detail = answer.get("problem"), answer.get("detail")
    if problem == "invalid":
        raise CommandError(f"{label}: {selector!r} is not a valid CSS selector: {detail}")
    if problem == "several":
        raise CommandError(
            f"{label}: {detail} elements matched {selector!r}{where}, and a frame is one iframe.\n"
            f"Narrow the selector to one (an id, 'iframe[name=...]', 'iframe[src*=...]', ':nth-of-type(n)')."
        )
    if problem == "tag":
        raise FrameUnavailable(f"{label}: {selector!r} is not an iframe: it matched {detail}{where}.")
    raise FrameUnavailable(f"{label}: no iframe matched {selector!r}{where}.")


async def _content_frame(element: ElementHandle, path: Sequence[str], depth: int) -> Frame:
    """The frame the iframe ``element`` shows, once it holds the document of its ``src``."""
    label = frame_label(path, depth + 1)
    try:
        frame = await element.content_frame()
        src, srcdoc = await element.evaluate(_SOURCE)
    except PlaywrightError as err:  # the iframe left its document meanwhile
        raise FrameUnavailable(f"{label}: the iframe left the page ({str(err).splitlines()[0]})") from err
    if frame is None or frame.is_detached():
        raise FrameUnavailable(f"{label}: the iframe never loaded its document (it has no frame yet).")
    # Until its navigation commits, an iframe holds the empty document every frame starts with
    # (Playwright gives its URL as "" or about:blank): querying it would find nothing and say
    # "not found" of a page still loading.
    if frame.url in ("", "about:blank") and not srcdoc and src and src.strip() not in ("", "about:blank"):
        raise FrameUnavailable(f"{label}: the iframe never loaded its document (src={src!r}; "
                               "it is still at about:blank).")
    return frame


async def _dispose(handle: JSHandle) -> None:
    """Let go of ``handle``; one whose document is gone is gone already."""
    try:
        await handle.dispose()
    except PlaywrightError:
        pass
