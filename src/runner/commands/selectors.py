"""Selectors as queries take them: CSS, with the original's common jQuery extensions.

:func:`compile_selector` returns a selector that is plain CSS unchanged (a string: the browser
reads it as it is), and one that uses ``:visible``, ``:hidden``, ``:contains(text)``,
``:first``, ``:last``, ``:eq(n)``, ``:gt(n)``, ``:lt(n)``, ``:even`` or ``:odd`` (outside
strings, attribute selectors and escapes) as a program ``dom.js`` runs (a dict: the selector's
groups, each a list of segments joined by combinators, each segment a CSS selector and the
filters after it, in order, as jQuery applies them: ``li:first`` is the first ``li`` of the
page, ``li:first span`` the ``span`` elements in it). Whether plain CSS is valid is the
browser's to say (``dom.js`` checks every selector before it runs a step); what is surely not CSS
and has an equivalent (jQuery's ``:header``, Playwright's ``:has-text()``, ``>>``) is refused
here, with that equivalent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from runner.errors import UsageError

__all__ = ["Selector", "compile_selector", "SelectorSyntaxError", "invalid_selector_message"]

#: A selector as a step carries it: CSS as given, or a program of jQuery's extensions.
Selector = str | dict[str, Any]

_FILTERS = frozenset({"visible", "hidden"})
_POSITIONS = frozenset({"first", "last", "even", "odd"})
_INDEXED = frozenset({"eq", "gt", "lt"})
_SUPPORTED = _FILTERS | _POSITIONS | _INDEXED | {"contains"}

#: Pseudo-classes of jQuery's and Playwright's that are not CSS, with what to write instead.
_HINTS = {
    "header": "the CSS selector 'h1, h2, h3, h4, h5, h6'",
    "input": "the CSS selector 'input, textarea, select, button'",
    "button": "the CSS selector 'button, input[type=button]'",
    "text": "the CSS selector 'input[type=text]' (for text content: ':contains(\"...\")' or "
            "contains(selector, content))",
    "password": "the CSS selector 'input[type=password]'",
    "radio": "the CSS selector 'input[type=radio]'",
    "checkbox": "the CSS selector 'input[type=checkbox]'",
    "file": "the CSS selector 'input[type=file]'",
    "image": "the CSS selector 'input[type=image]'",
    "submit": "the CSS selector '[type=submit]'",
    "reset": "the CSS selector '[type=reset]'",
    "parent": "the CSS pseudo-class ':not(:empty)'",
    "selected": "the CSS selector 'option:checked'",
    "animated": "an assertion on what the animation changes (should('have.css', ...))",
    "has-text": "':contains(\"...\")' or contains(selector, content)",
    "text-is": "contains(selector, re.compile(r'^...$'))",
    "text-matches": "contains(selector, re.compile(...))",
    "nth-match": "eq(n) on the subject (0-based)",
}
_PLAYWRIGHT_ENGINES = re.compile(r"^\s*(text|css|xpath|id|data-testid|role|internal:[\w-]+)\s*=|^\s*//")


class SelectorSyntaxError(UsageError):
    """A selector runner can tell is not CSS, nor one of the jQuery extensions it supports."""


@dataclass
class _Compound:
    """One compound selector: CSS text and jQuery filters, in the order written."""

    combinator: str | None  # " ", ">", "+", "~"; None for a group's first
    items: list[Any] = field(default_factory=list)  # str (CSS) or dict (a filter)


def compile_selector(selector: str) -> Selector:
    """``selector`` as a step carries it: unchanged when it uses no jQuery extension, else the
    program ``dom.js`` runs. Raises :class:`SelectorSyntaxError` for what is surely no selector
    runner can run (the message says what to write instead)."""
    engine = _PLAYWRIGHT_ENGINES.match(selector)
    if engine:
        raise SelectorSyntaxError(
            f"{selector!r} is a Playwright selector ({engine.group(0).strip()}...), not CSS: queries "
            "take CSS selectors (with jQuery's :visible, :hidden, :contains(), :first, :last, "
            ":eq(n)); for text use contains(selector, content)."
        )
    groups = [_compounds(text, selector) for text in _split(selector, ",")]
    if not any(group[0].combinator or _filtered(group) for group in groups):
        return selector
    return {"source": selector, "groups": [_program(group, selector) for group in groups]}


def _filtered(compounds: list[_Compound]) -> bool:
    return any(isinstance(item, dict) for compound in compounds for item in compound.items)


def _filters_in(argument: str, selector: str) -> dict[str, Any] | None:
    """The program of a pseudo-class's argument that holds jQuery filters (None: CSS alone;
    a leading combinator is CSS there: ``:has(> img)``)."""
    groups = [_compounds(text, selector) for text in _split(argument, ",")]
    if not any(_filtered(group) for group in groups):
        return None
    return {"source": argument, "groups": [_program(group, selector) for group in groups]}


def invalid_selector_message(command: str, selector: str, part: str) -> str:
    """The one message of a query whose selector the browser refused (``part``: the piece of a
    selector with jQuery's extensions it refused, or the whole)."""
    piece = "" if part == selector else f" (the browser refused its part {part!r})"
    return (
        f"{command}: {selector!r} is not a valid selector{piece}.\n"
        "Queries take CSS selectors, with jQuery's :visible, :hidden, :contains(\"text\"), :first, "
        ":last, :eq(n), :gt(n), :lt(n), :even and :odd; for text, contains(selector, content)."
    )


def _program(compounds: list[_Compound], selector: str) -> list[dict[str, Any]]:
    """A group as ``dom.js``'s segments: the CSS up to its first jQuery filter is one segment
    (one querySelectorAll), every compound after it a segment of its own. A group that starts
    with a combinator (``find("> li")``, as jQuery allows) starts with a compound of its own.
    Raises :class:`SelectorSyntaxError` for an empty group or a combinator with nothing after
    it (``"li:first,"``, ``"li:first >"``), which would otherwise match every element."""
    segments: list[dict[str, Any]] = []
    prefix = ""
    for compound in compounds:
        if not compound.items:
            raise SelectorSyntaxError(
                f"{selector!r} is not a valid selector: it has an empty part (a comma or a combinator "
                "with nothing after it)."
            )
        head: list[str] = []
        ops: list[dict[str, Any]] = []
        for item in compound.items:
            if isinstance(item, dict):
                ops.append(item)
            elif ops:
                ops.append({"op": "css", "css": item})
            else:
                head.append(item)
        css = "".join(head) or "*"
        if segments or compound.combinator is not None and not prefix:
            segments.append({"combinator": compound.combinator, "css": css, "ops": ops})
            continue
        prefix = f"{prefix}{_glue(compound.combinator)}{css}" if prefix else css
        if ops:
            segments.append({"combinator": None, "css": prefix, "ops": ops})
    if not segments:
        segments.append({"combinator": None, "css": prefix, "ops": []})
    return segments


def _glue(combinator: str | None) -> str:
    return " " if combinator in (None, " ") else f" {combinator} "


def _outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """Each character of ``text`` from ``start`` with its index, but for escapes (a backslash and
    what it escapes) and quoted strings, which are stepped over."""
    i = start
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char in "\"'":
            i = _string_end(text, i)
            continue
        yield i, char
        i += 1


def _split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside strings, brackets, parentheses and escapes."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, char in _outside_strings(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _string_end(text: str, start: int) -> int:
    """The index after the string starting at ``start`` (its end, when unterminated)."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _compounds(group: str, selector: str) -> list[_Compound]:
    """A group's compounds, with the jQuery filters in them taken out of their CSS."""
    compounds = [_Compound(None)]
    text = group.strip()
    css = ""
    i = 0
    while i < len(text):
        char = text[i]
        if char in " \t\n>+~":
            combinator, i = _combinator(text, i, selector)
            if css:
                compounds[-1].items.append(css)
                css = ""
            if compounds[-1].items:
                compounds.append(_Compound(combinator))
            else:
                compounds[-1].combinator = combinator  # a leading one: find("> li")
            continue
        if char == ":" and text[i + 1:i + 2] != ":":
            item, i = _pseudo(text, i, selector)
            if isinstance(item, str):
                css += item
            else:
                if css:
                    compounds[-1].items.append(css)
                    css = ""
                compounds[-1].items.append(item)
            continue
        end = _token_end(text, i)
        css += text[i:end]
        i = end
    if css:
        compounds[-1].items.append(css)
    return compounds


def _token_end(text: str, i: int) -> int:
    """The index after the CSS token at ``i`` kept as written: an escape, a string, an
    attribute selector, a pseudo-element, or one character."""
    char = text[i]
    if char == "\\":
        return i + 2
    if char in "\"'":
        return _string_end(text, i)
    if char == "[":
        return _block_end(text, i, "[", "]")
    if text.startswith("::", i):  # a pseudo-element, its argument and all: ::slotted(a b)
        name = _IDENT.match(text, i + 2)
        end = name.end() if name else i + 2
        return _block_end(text, end, "(", ")") if text.startswith("(", end) else end
    return i + 1


def _combinator(text: str, i: int, selector: str) -> tuple[str, int]:
    """The combinator at ``i`` (whitespace around it skipped) and the index after it."""
    j = i
    while j < len(text) and text[j] in " \t\n":
        j += 1
    combinator = " "
    if j < len(text) and text[j] in ">+~":
        combinator = text[j]
        if text[j] == ">" and text[j + 1:].lstrip().startswith(">"):
            raise SelectorSyntaxError(
                f"{selector!r} chains with '>>', Playwright's, not CSS: chain find() instead "
                "(get('a').find('b'))."
            )
        j += 1
        while j < len(text) and text[j] in " \t\n":
            j += 1
    return combinator, j


def _block_end(text: str, start: int, opening: str, closing: str) -> int:
    """The index after the block opened at ``start`` (nested blocks and strings skipped)."""
    depth = 0
    for i, char in _outside_strings(text, start):
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


_IDENT = re.compile(r"-?[A-Za-z_\u00a0-\uffff][\w\u00a0-\uffff-]*")


def _pseudo(text: str, start: int, selector: str) -> tuple[str | dict[str, Any], int]:
    """The pseudo-class at ``start`` (a jQuery filter as a dict, CSS as its text) and the index
    after it. Raises :class:`SelectorSyntaxError` for one that is surely not CSS."""
    match = _IDENT.match(text, start + 1)
    if match is None:
        return ":", start + 1
    name = match.group(0).lower()
    end = match.end()
    argument: str | None = None
    if end < len(text) and text[end] == "(":
        close = _block_end(text, end, "(", ")")
        argument = text[end + 1:close - 1]
        end = close
    written = text[start:end]
    if name in _SUPPORTED:
        return _filter(name, argument, written, selector), end
    inner = _filters_in(argument, selector) if argument is not None else None
    if name == "not" and inner is not None:
        return {"op": "not", "selector": inner}, end
    if name in _HINTS:
        raise SelectorSyntaxError(
            f"{selector!r} uses {written}, which is not CSS (runner supports jQuery's :visible, "
            f":hidden, :contains(), :first, :last, :eq(n), :gt(n), :lt(n), :even, :odd): use "
            f"{_HINTS[name]} instead."
        )
    if inner is not None:
        raise SelectorSyntaxError(
            f"{selector!r} uses jQuery's extensions inside :{name}(), which runner cannot run: only "
            ":not() may hold them. Query the elements, then filter() or not_() them."
        )
    return written, end


def _filter(name: str, argument: str | None, written: str, selector: str) -> dict[str, Any]:
    if name in _FILTERS or name in _POSITIONS:
        if argument is not None:
            raise SelectorSyntaxError(f"{selector!r}: :{name} takes no argument; found {written}.")
        return {"op": name}
    if argument is None:
        raise SelectorSyntaxError(f"{selector!r}: :{name}() needs an argument; found {written}.")
    if name == "contains":
        text = argument.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        return {"op": "contains", "text": text}
    try:
        index = int(argument.strip())
    except ValueError:
        raise SelectorSyntaxError(
            f"{selector!r}: :{name}() takes a whole number (:{name}(2)); found {written}."
        ) from None
    return {"op": name, "index": index}
