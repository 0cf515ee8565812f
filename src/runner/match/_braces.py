"""Brace expansion with the semantics of npm ``brace-expansion`` 1.1.11.

minimatch 3 expands ``a{b,c}d`` into ``abd``/``acd`` with ``brace-expansion`` 1.1.x, which follows
Bash: comma lists (nested, ``a{b,c{d,e}f}g``), numeric and alphabetic sequences with optional
increment and zero padding (``{1..10..2}``, ``{a..e}``, ``{01..10}``), Bash's ``{a},b}`` quirk,
``${`` left alone (and everything after it), a leading ``{}`` kept literally, empty results
dropped at the top level when the first group is a comma list, and ``\\{ \\} \\, \\.`` ``\\\\``
escapes (whose backslash the expansion removes). Group boundaries are found like the
``balanced-match`` package does, including its handling of unmatched ``{``.
"""

from __future__ import annotations

import re

__all__ = ["brace_expand"]

# Sentinels standing in for escaped characters while expanding (NULs never occur in globs).
_ESC_SLASH = "\0SLASH\0"
_ESC_OPEN = "\0OPEN\0"
_ESC_CLOSE = "\0CLOSE\0"
_ESC_COMMA = "\0COMMA\0"
_ESC_PERIOD = "\0PERIOD\0"

_MAX = 100_000  # a sequence longer than this is cut (JavaScript would run out of memory)
_COMMA_THEN_CLOSE = re.compile("[,][^\\n\\r\\u2028\\u2029]*[}]")

_NUMERIC_SEQ = re.compile(r"-?\d+\.\.-?\d+(?:\.\.-?\d+)?", re.ASCII)
_ALPHA_SEQ = re.compile(r"[a-zA-Z]\.\.[a-zA-Z](?:\.\.-?\d+)?")
_PADDED = re.compile(r"-?0\d", re.ASCII)


def _escape(s: str) -> str:
    return (
        s.replace("\\\\", _ESC_SLASH)
        .replace("\\{", _ESC_OPEN)
        .replace("\\}", _ESC_CLOSE)
        .replace("\\,", _ESC_COMMA)
        .replace("\\.", _ESC_PERIOD)
    )


def _unescape(s: str) -> str:
    return (
        s.replace(_ESC_SLASH, "\\")
        .replace(_ESC_OPEN, "{")
        .replace(_ESC_CLOSE, "}")
        .replace(_ESC_COMMA, ",")
        .replace(_ESC_PERIOD, ".")
    )


def _range(s: str) -> tuple[int, int] | None:
    """``balanced-match``'s ``range('{', '}', s)``: the first balanced group, or None."""
    ai = s.find("{")
    bi = s.find("}", ai + 1)
    i = ai
    result: tuple[int, int] | None = None
    if ai >= 0 and bi > 0:
        begs: list[int] = []
        left = len(s)
        right = -1
        while i >= 0 and result is None:
            if i == ai:
                begs.append(i)
                ai = s.find("{", i + 1)
            elif len(begs) == 1:
                result = (begs.pop(), bi)
            else:
                beg = begs.pop()
                if beg < left:
                    left = beg
                    right = bi
                bi = s.find("}", i + 1)
            i = ai if 0 <= ai < bi else bi
        if begs:
            result = (left, right)
    return result


def _parse_comma_parts(s: str) -> list[str]:
    """Split on top-level commas, keeping nested ``{...}`` groups whole."""
    if not s:
        return [""]
    r = _range(s)
    if r is None:
        return s.split(",")
    pre, body, post = s[: r[0]], s[r[0] + 1 : r[1]], s[r[1] + 1 :]
    p = pre.split(",")
    p[-1] += "{" + body + "}"
    post_parts = _parse_comma_parts(post)
    if post:
        p[-1] += post_parts.pop(0)
        p.extend(post_parts)
    return p


def _numeric(s: str) -> int:
    try:
        return int(s, 10)
    except ValueError:
        return ord(s[0]) if s else 0


def _sequence(n: list[str], alpha: bool) -> list[str]:
    x, y = _numeric(n[0]), _numeric(n[1])
    width = max(len(n[0]), len(n[1]))
    # brace-expansion 1.1.11 loops forever on a zero step; later versions use 1, so do we.
    incr = max(abs(_numeric(n[2])), 1) if len(n) == 3 else 1
    reverse = y < x
    if reverse:
        incr = -incr
    pad = any(_PADDED.match(part) for part in n)
    out: list[str] = []
    i = x
    while i >= y if reverse else i <= y:
        if alpha:
            c = chr(i)
            if c == "\\":
                c = ""
        else:
            c = str(i)
            if pad:
                need = width - len(c)
                if need > 0:
                    c = "-" + "0" * need + c[1:] if i < 0 else "0" * need + c
        out.append(c)
        i += incr
        if len(out) >= _MAX:
            break
    return out


def _expand(s: str, is_top: bool) -> list[str]:
    r = _range(s)
    if r is None:
        return [s]
    pre, body, post = s[: r[0]], s[r[0] + 1 : r[1]], s[r[1] + 1 :]
    if pre.endswith("$"):  # `${` is never expanded, nor is anything after it
        return [s]
    is_numeric = _NUMERIC_SEQ.fullmatch(body) is not None
    is_alpha = _ALPHA_SEQ.fullmatch(body) is not None
    is_sequence = is_numeric or is_alpha
    if not is_sequence and "," not in body:
        if _COMMA_THEN_CLOSE.search(post):  # Bash's {a},b}
            return _expand(pre + "{" + body + _ESC_CLOSE + post, False)
        return [s]

    if is_sequence:
        values = _sequence(body.split(".."), is_alpha)
    else:
        parts = _parse_comma_parts(body)
        if len(parts) == 1:  # x{{a,b}}y ==> x{a}y x{b}y
            parts = ["{" + e + "}" for e in _expand(parts[0], False)]
            if len(parts) == 1:
                posts = _expand(post, False) if post else [""]
                return [pre + parts[0] + p for p in posts]
        values = [v for part in parts for v in _expand(part, False)]

    posts = _expand(post, False) if post else [""]
    out: list[str] = []
    for v in values:
        for p in posts:
            expansion = pre + v + p
            if not is_top or is_sequence or expansion:
                out.append(expansion)
    return out


def brace_expand(pattern: str) -> list[str]:
    """All expansions of ``pattern``, like ``require('brace-expansion')(pattern)``."""
    if not pattern:
        return []
    if pattern.startswith("{}"):
        pattern = "\\{\\}" + pattern[2:]
    return [_unescape(e) for e in _expand(_escape(pattern), True)]
