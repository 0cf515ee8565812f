"""The special sequences of ``type()``: ``{enter}``, ``{backspace}``, ``{selectall}``, ...

``parse_sequence`` is pure (tested without a browser); ``type_sequence`` sends the keys.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from runner.errors import UsageError

if TYPE_CHECKING:
    from runner.engine.browser import BrowserSession

__all__ = ["SPECIAL_KEYS", "parse_sequence", "type_sequence", "typed_texts"]

SPECIAL_KEYS: dict[str, str] = {
    "enter": "Enter",
    "backspace": "Backspace",
    "del": "Delete",
    "esc": "Escape",
    "tab": "Tab",
    "uparrow": "ArrowUp",
    "downarrow": "ArrowDown",
    "leftarrow": "ArrowLeft",
    "rightarrow": "ArrowRight",
    "home": "Home",
    "end": "End",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "insert": "Insert",
    "selectall": "ControlOrMeta+A",
    "movetostart": "Home",
    "movetoend": "End",
}


def parse_sequence(text: str, parse_special: bool = True) -> list[tuple[str, str]]:
    """Split ``text`` into ``("text", chunk)`` and ``("key", name)`` parts.

    Raises ``UsageError`` for an unknown ``{name}`` with the list of known ones.
    """
    if not parse_special:
        return [("text", text)]
    parts: list[tuple[str, str]] = []
    pos = 0
    for match in re.finditer(r"\{\{\}|\{([^{}]*)\}", text):
        if match.start() > pos:
            parts.append(("text", text[pos:match.start()]))
        if match.group(0) == "{{}":
            parts.append(("text", "{"))
        else:
            name = match.group(1).lower()
            if name not in SPECIAL_KEYS:
                known = ", ".join("{" + k + "}" for k in SPECIAL_KEYS)
                raise UsageError(
                    f"type() does not know the special character sequence {{{match.group(1)}}}.\n"
                    f"Known sequences: {known}, and {{{{}} for a literal '{{'.\n"
                    "Pass parse_special_char_sequences=False to type the text as it is."
                )
            parts.append(("key", SPECIAL_KEYS[name]))
        pos = match.end()
    if pos < len(text):
        parts.append(("text", text[pos:]))
    return parts


def typed_texts(text: str, parse_special: bool = True) -> list[str]:
    """What typing ``text`` gives the page: each run of plain text (Playwright types each on its
    own) and all of them together (the field's value around ``{selectall}`` or ``{enter}``).
    Empty for an unknown sequence (``type`` then fails before any key is sent)."""
    try:
        parts = parse_sequence(text, parse_special)
    except UsageError:
        return []
    texts = [value for kind, value in parts if kind == "text"]
    return [*texts, "".join(texts)]


async def type_sequence(browser: BrowserSession, text: str, delay: float, parse_special: bool) -> None:
    """Type ``text`` into the focused element, pressing the keys its ``{name}`` sequences name.

    Raises ``UsageError`` for an unknown sequence, before any key is sent.
    """
    for kind, value in parse_sequence(text, parse_special):
        if kind == "text":
            await browser.type_text(value, delay)
        else:
            await browser.press_key(value)
