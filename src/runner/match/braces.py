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

__all__ = [
    "BraceLimitError",
    "MAX_BRACES",
    "MAX_EXPANDED_CHARS",
    "MAX_EXPANSIONS",
    "brace_expand",
    "expansion_problem",
]

#: The most patterns one pattern may expand to. Real globs expand to a handful
#: (``**/*.{js,ts}``: 2; ``{a,b}/{c,d}/{e,f}``: 8) and each ``{a,b}`` group doubles the count:
#: 19 of them were 524,288 patterns, which took 40 s and 2.2 GB to compile.
MAX_EXPANSIONS = 1_000
#: The most characters the expansions of one pattern may hold in all (when it has two or more:
#: a pattern that expands to itself is only as long as it is). Compiling costs up to about 15
#: microseconds per character of expanded pattern (extglobs and classes in every expansion), so
#: a pattern at the limits compiles in about 0.3 s; a 2,000-character pattern with
#: ``{1..1000}`` (1,000 patterns, 2 million characters) took 11 s.
MAX_EXPANDED_CHARS = 20_000
#: The most ``{`` one pattern may hold (escaped ``\\{`` do not count). Real globs hold a few.
#: Finding a group rescans the unmatched ``{`` before it and expanding recurses once per nested
#: group, so this keeps both the time (milliseconds) and the depth (far from Python's recursion
#: limit) small whatever the pattern.
MAX_BRACES = 100

# Sentinels standing in for escaped characters while expanding (NULs never occur in globs).
_ESC_SLASH = "\0SLASH\0"
_ESC_OPEN = "\0OPEN\0"
_ESC_CLOSE = "\0CLOSE\0"
_ESC_COMMA = "\0COMMA\0"
_ESC_PERIOD = "\0PERIOD\0"

_MAX = 100_000  # a sequence longer than this is cut (JavaScript would run out of memory)
_COMMA_THEN_CLOSE = re.compile("[,][^\\n\\r\\u2028\\u2029]*[}]")

# A `{...}` without a `{` inside: minimatch brace-expands only a pattern that has one.
_HAS_BRACE_SET = re.compile("\\{(?:(?!\\{)[^\n\r\u2028\u2029])*\\}")
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
    """Split on top-level commas, keeping nested ``{...}`` groups whole.

    A loop over the groups of ``s`` rather than a recursion on what follows each group, so a
    body with thousands of groups cannot exhaust the stack."""
    if not s:
        return [""]
    out = [""]
    while True:
        r = _range(s)
        if r is None:
            pieces = s.split(",")
            out[-1] += pieces[0]
            out.extend(pieces[1:])
            return out
        pre, body, post = s[: r[0]], s[r[0] + 1 : r[1]], s[r[1] + 1 :]
        pieces = pre.split(",")
        out[-1] += pieces[0]
        out.extend(pieces[1:])
        out[-1] += "{" + body + "}"
        if not post:
            return out
        s = post


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


def _sequence_length(n: list[str]) -> int:
    """``len(_sequence(n, ...))``, computed: the values run from x to y in steps of incr."""
    x, y = _numeric(n[0]), _numeric(n[1])
    incr = max(abs(_numeric(n[2])), 1) if len(n) == 3 else 1
    return min(abs(y - x) // incr + 1, _MAX)


def _expand(s: str, is_top: bool, budget: int | None = None) -> list[str]:
    """brace-expansion's ``expand``. It recurses into the alternatives of a group (so only as
    deep as groups nest), and loops over the groups that follow one another: ``heads`` holds the
    expansions of what was read so far, in brace-expansion's order. With a ``budget``, raises
    _TooMany before any list it builds would hold more than ``budget`` strings."""
    heads = [""]
    drop_empty = False  # the top call's first group is a comma list: drop empty results
    while True:
        r = _range(s)
        if r is None:
            break
        pre, body, post = s[: r[0]], s[r[0] + 1 : r[1]], s[r[1] + 1 :]
        if pre.endswith("$"):  # `${` is never expanded, nor is anything after it
            break
        is_numeric = _NUMERIC_SEQ.fullmatch(body) is not None
        is_alpha = _ALPHA_SEQ.fullmatch(body) is not None
        is_sequence = is_numeric or is_alpha
        if not is_sequence and "," not in body:
            if _COMMA_THEN_CLOSE.search(post):  # Bash's {a},b}
                s = pre + "{" + body + _ESC_CLOSE + post
                is_top = False
                continue
            break
        if is_sequence:
            if budget is not None and _sequence_length(body.split("..")) > budget:
                raise _TooMany()
            values = _sequence(body.split(".."), is_alpha)
        else:
            parts = _parse_comma_parts(body)
            if len(parts) == 1:  # x{{a,b}}y ==> x{a}y x{b}y
                parts = ["{" + e + "}" for e in _expand(parts[0], False, budget)]
                if len(parts) == 1:  # kept as it is, and never filtered
                    heads = [h + pre + parts[0] for h in heads]
                    is_top = False
                    s = post
                    continue
            values = []
            for part in parts:
                values.extend(_expand(part, False, budget))
                if budget is not None and len(values) > budget:
                    raise _TooMany()
        if budget is not None and len(heads) * len(values) > budget:
            raise _TooMany()
        drop_empty = drop_empty or (is_top and not is_sequence)
        is_top = False
        heads = [h + pre + v for h in heads for v in values]
        s = post
    out = [h + s for h in heads]
    return [e for e in out if e] if drop_empty else out


class _TooMany(Exception):
    """The expansion would hold more patterns, or more characters, than allowed."""


def _ulen(s: str) -> int:
    """The length of ``s`` once its escape sentinels are turned back into characters."""
    return len(_unescape(s)) if "\0" in s else len(s)


def _count(s: str, most: int, most_chars: int) -> tuple[int, int]:
    """``(len(e), sum of the lengths of e)`` for ``e = _expand(s, False)``, without building the
    expansions (empty results count, as the expansion builds them before it drops them). Walks
    the groups as :func:`_expand` does: each group multiplies the expansions so far by its own.
    Raises _TooMany as soon as the count passes ``most``, or the characters of more than one
    expansion pass ``most_chars``."""
    n, chars = 1, 0  # the expansions of what was read so far, and their characters in all

    def grow(pre: str, nv: int, chars_v: int) -> None:
        nonlocal n, chars
        chars = chars * nv + n * nv * _ulen(pre) + n * chars_v
        n *= nv
        if n > most or (n > 1 and chars > most_chars):  # one pattern is just the pattern
            raise _TooMany()

    while True:
        r = _range(s)
        if r is None:
            break
        pre, body, post = s[: r[0]], s[r[0] + 1 : r[1]], s[r[1] + 1 :]
        if pre.endswith("$"):
            break
        is_alpha = _ALPHA_SEQ.fullmatch(body) is not None
        is_sequence = is_alpha or _NUMERIC_SEQ.fullmatch(body) is not None
        if not is_sequence and "," not in body:
            if _COMMA_THEN_CLOSE.search(post):
                s = pre + "{" + body + _ESC_CLOSE + post
                continue
            break
        if is_sequence:
            if _sequence_length(body.split("..")) > most:
                raise _TooMany()
            values = _sequence(body.split(".."), is_alpha)
            grow(pre, len(values), sum(len(v) for v in values))
            s = post
            continue
        parts = _parse_comma_parts(body)
        if len(parts) == 1:
            # What follows depends on the text of each inner expansion: build them, which
            # the budget keeps cheap.
            inner = _expand(parts[0], False, most)
            if len(inner) == 1:
                grow(pre + "{" + inner[0] + "}", 1, 0)
                s = post
                continue
            parts = ["{" + e + "}" for e in inner]
        nv, chars_v = 0, 0
        for part in parts:
            part_n, part_chars = _count(part, most, most_chars)
            nv, chars_v = nv + part_n, chars_v + part_chars
            if nv > most or (nv > 1 and chars_v > most_chars):
                raise _TooMany()
        grow(pre, nv, chars_v)
        s = post
    grow(s, 1, 0)
    return n, chars


def _prepare(pattern: str) -> str:
    if pattern.startswith("{}"):
        pattern = "\\{\\}" + pattern[2:]
    return _escape(pattern)


def expansion_problem(pattern: str) -> str | None:
    """Why ``pattern`` may not be brace-expanded, as a phrase ("expands to more than 1,000
    patterns; ..."), or None when it may. It costs little whatever the pattern would expand to:
    the ``{`` are counted, then the expansions and their characters, without building them. A
    pattern without a ``{...}`` group is never expanded (as in minimatch), so never refused."""
    if not _HAS_BRACE_SET.search(pattern):
        return None
    escaped = _prepare(pattern)
    braces = escaped.count("{")
    if braces > MAX_BRACES:
        return (
            f"has {braces:,} `{{` (brace groups); at most {MAX_BRACES} are accepted "
            "(write a literal `{` as `\\{`)"
        )
    try:
        _count(escaped, MAX_EXPANSIONS, MAX_EXPANDED_CHARS)
    except _TooMany:
        return (
            f"expands to more than {MAX_EXPANSIONS:,} patterns or {MAX_EXPANDED_CHARS:,} "
            f"characters in all; at most {MAX_EXPANSIONS:,} patterns of {MAX_EXPANDED_CHARS:,} "
            "characters in all are accepted. Each brace group multiplies them: `{a,b}` ten times "
            "is already 1,024 patterns"
        )
    return None


class BraceLimitError(ValueError):
    """A pattern past :data:`MAX_BRACES`, :data:`MAX_EXPANSIONS` or :data:`MAX_EXPANDED_CHARS`;
    ``str()`` is the phrase of :func:`expansion_problem`."""


def brace_expand(pattern: str) -> list[str]:
    """All expansions of ``pattern``, like ``require('brace-expansion')(pattern)``.

    Raises :class:`BraceLimitError` (before expanding anything) when the pattern holds more than
    :data:`MAX_BRACES` ``{`` or would expand to more than :data:`MAX_EXPANSIONS` patterns or
    :data:`MAX_EXPANDED_CHARS` characters in all.
    """
    if not pattern:
        return []
    problem = expansion_problem(pattern)
    if problem is not None:
        raise BraceLimitError(problem)
    return [_unescape(e) for e in _expand(_prepare(pattern), True)]
