"""Translate JavaScript (non-unicode, Annex B) regular-expression source into Python ``re`` source.

minimatch 3 builds one JavaScript regular expression per path segment by string manipulation,
and a few of its quirks (an unclosed extglob inside a negated one, an escaped ``)`` after a
``!(...)``) produce sources whose meaning is defined only by the JavaScript regex grammar. Rather
than guessing, :mod:`runner.match.minimatch` reproduces minimatch's source strings exactly and
this module translates them: it parses the source with the JavaScript grammar (raising
:class:`JsRegexSyntaxError` wherever ``new RegExp(source)`` would throw) and emits Python source
with the same meaning.

The emitted Python source is *segment-safe*: it is meant to be embedded between ``/`` separators
of a whole path, so no atom of it can match ``/`` (a segment never contains one), ``^`` and ``$``
become "start/end of this segment" look-arounds, and JavaScript's ``.`` (which excludes line
terminators) is spelled out. JavaScript strings are UTF-16, so callers pass strings whose astral
characters were already split into surrogate pairs.
"""

from __future__ import annotations

import itertools
import re

__all__ = ["JsRegexSyntaxError", "translate", "is_valid_js_regex"]


class JsRegexSyntaxError(Exception):
    """``new RegExp(source)`` would throw a SyntaxError for this source."""


_MAX_CP = 0x10FFFF
_SLASH = 0x2F
_Ranges = list[tuple[int, int]]

_DIGITS: _Ranges = [(0x30, 0x39)]
_WORD: _Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_SPACE: _Ranges = [
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
]  # fmt: skip
_LINE_TERMINATORS: _Ranges = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]

#: An atom that never matches (an empty class is not valid Python, this is).
NEVER = "[^\\x00-\\U0010ffff]"
_SEG_START = "(?<![^/])"
_SEG_END = "(?![^/])"
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_BRACED_QUANT = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")
_GROUP_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_uid = itertools.count()


def _normalize(ranges: _Ranges) -> _Ranges:
    out: _Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: _Ranges) -> _Ranges:
    out: _Ranges = []
    nxt = 0
    for lo, hi in _normalize(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAX_CP:
        out.append((nxt, _MAX_CP))
    return out


def _without_slash(ranges: _Ranges) -> _Ranges:
    out: _Ranges = []
    for lo, hi in ranges:
        if lo <= _SLASH <= hi:
            if lo < _SLASH:
                out.append((lo, _SLASH - 1))
            if hi > _SLASH:
                out.append((_SLASH + 1, hi))
        else:
            out.append((lo, hi))
    return out


def _cp(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _emit_class(ranges: _Ranges, negated: bool) -> str:
    """A Python class for the JavaScript class ``ranges``, never matching ``/``."""
    if negated:
        ranges = _normalize(ranges + [(_SLASH, _SLASH)])
        body = "".join(_cp(lo) if lo == hi else f"{_cp(lo)}-{_cp(hi)}" for lo, hi in ranges)
        return f"[^{body}]"
    ranges = _normalize(_without_slash(ranges))
    if not ranges:
        return NEVER
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _cp(ranges[0][0])
    body = "".join(_cp(lo) if lo == hi else f"{_cp(lo)}-{_cp(hi)}" for lo, hi in ranges)
    return f"[{body}]"


def _literal(cp: int) -> str:
    if cp == _SLASH:
        return NEVER
    ch = chr(cp)
    if ch.isascii():
        return re.escape(ch)
    return ch


class _Scanner:
    """A position in a JavaScript regex source, and the error that source is given."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0

    def fail(self, why: str) -> JsRegexSyntaxError:
        return JsRegexSyntaxError(f"Invalid regular expression: /{self.src}/: {why}")


# --- read ahead of the grammar; the escapes and classes it reads ----------------------------


def _scan_groups(src: str) -> tuple[int, list[str], dict[str, int]]:
    """The capture groups of ``src``, read ahead of the parse (a back-reference may name a later
    group): their count, the group names in order, and the number of the first group of each
    name."""
    n, i, in_class, count = len(src), 0, False, 0
    names: list[str] = []
    name_indexes: dict[str, int] = {}
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        elif c == "(":
            if not src.startswith("?", i + 1):
                count += 1
            elif src.startswith("?<", i + 1) and not src.startswith(("?<=", "?<!"), i + 1):
                count += 1
                m = _GROUP_NAME.match(src, i + 3)
                if m:
                    names.append(m.group())
                    name_indexes.setdefault(m.group(), count)
        i += 1
    return count, names, name_indexes


def _octal(sc: _Scanner) -> int:
    """Annex B legacy octal escape at ``sc.i`` (first char is an octal digit)."""
    src, i = sc.src, sc.i
    first = src[i]
    limit = 3 if first in "0123" else 2
    j = i + 1
    while j < len(src) and j - i < limit and src[j] in "01234567":
        j += 1
    sc.i = j
    return int(src[i:j], 8)


def _char_escape(sc: _Scanner, in_class: bool) -> tuple[int | None, _Ranges | None]:
    """Parse after the backslash; returns a code point or a set of ranges."""
    src = sc.src
    if sc.i >= len(src):
        raise sc.fail("\\ at end of pattern")
    c = src[sc.i]
    if c in "dDwWsS":
        sc.i += 1
        base = {"d": _DIGITS, "w": _WORD, "s": _SPACE}[c.lower()]
        return None, (base if c.islower() else _complement(base))
    if c in _CONTROL:
        sc.i += 1
        return _CONTROL[c], None
    if c == "c":
        nxt = src[sc.i + 1] if sc.i + 1 < len(src) else ""
        ok = nxt.isascii() and (nxt.isalpha() or (in_class and (nxt.isdigit() or nxt == "_")))
        if nxt and ok:
            sc.i += 2
            return ord(nxt) % 32, None
        return ord("\\"), None  # the backslash is literal; 'c' is read next
    if c in "xu":
        width = 2 if c == "x" else 4
        h = src[sc.i + 1 : sc.i + 1 + width]
        if len(h) == width and all(ch in "0123456789abcdefABCDEF" for ch in h):
            sc.i += 1 + width
            return int(h, 16), None
        sc.i += 1
        return ord(c), None
    if c.isascii() and c.isdigit():
        # 8 and 9 are literal, other digits octal (outside a class the caller took backreferences)
        if c in "89":
            sc.i += 1
            return ord(c), None
        return _octal(sc), None
    if in_class and c == "b":
        sc.i += 1
        return 0x08, None
    sc.i += 1
    return ord(c), None


def _class_atom(sc: _Scanner) -> tuple[int | None, _Ranges | None]:
    src = sc.src
    c = src[sc.i]
    if c == "\\":
        sc.i += 1
        return _char_escape(sc, True)
    sc.i += 1
    return ord(c), None


def _char_class(sc: _Scanner) -> str:
    """The class at ``sc.i`` (its ``[``) as a Python class that never matches ``/``."""
    src = sc.src
    sc.i += 1
    negated = False
    if sc.i < len(src) and src[sc.i] == "^":
        negated = True
        sc.i += 1
    ranges: _Ranges = []
    while True:
        if sc.i >= len(src):
            raise sc.fail("Unterminated character class")
        if src[sc.i] == "]":
            sc.i += 1
            break
        a_cp, a_set = _class_atom(sc)
        if sc.i + 1 < len(src) and src[sc.i] == "-" and src[sc.i + 1] != "]":
            sc.i += 1
            b_cp, b_set = _class_atom(sc)
            if a_set is not None or b_set is not None:  # Annex B: a union, '-' included
                for cp, st in ((a_cp, a_set), (b_cp, b_set)):
                    if st is not None:
                        ranges.extend(st)
                    elif cp is not None:
                        ranges.append((cp, cp))
                ranges.append((0x2D, 0x2D))
                continue
            assert a_cp is not None and b_cp is not None
            if a_cp > b_cp:
                raise sc.fail("Range out of order in character class")
            ranges.append((a_cp, b_cp))
            continue
        if a_set is not None:
            ranges.extend(a_set)
        elif a_cp is not None:
            ranges.append((a_cp, a_cp))
    return _emit_class(ranges, negated)


# --- the grammar -----------------------------------------------------------------------------


class _Translator(_Scanner):
    """The JavaScript grammar (disjunction, alternative, term, quantifier, group, escape) over
    one source, emitting the Python source as it goes."""

    def __init__(self, src: str, strip_anchors: bool = False) -> None:
        super().__init__(src)
        self.strip_anchors = strip_anchors
        self.prefix = f"g{next(_uid)}_"
        self.ncap, self.names, self._name_indexes = _scan_groups(src)
        self.cap_index = 0

    def translate(self) -> tuple[str, bool]:
        alts = self.disjunction()
        if self.i < len(self.src):  # a ')' nobody opened
            raise self.fail("Unmatched ')'")
        anchored = len(alts) == 1 and alts[0][1] == "^" and alts[0][2] == "$"
        if anchored and self.strip_anchors:
            # The caller puts the segment between '/' separators (or the ends of the string),
            # which already are the start and end of the segment.
            body = alts[0][0]
            return body[len(_SEG_START) : len(body) - len(_SEG_END)], True
        return "|".join(a[0] for a in alts), anchored

    def disjunction(self) -> list[tuple[str, str, str]]:
        alts = [self.alternative()]
        while self.i < len(self.src) and self.src[self.i] == "|":
            self.i += 1
            alts.append(self.alternative())
        return alts

    def alternative(self) -> tuple[str, str, str]:
        parts: list[str] = []
        kinds: list[str] = []
        src = self.src
        while self.i < len(src) and src[self.i] not in "|)":
            py, kind = self.term()
            parts.append(py)
            kinds.append(kind)
        return "".join(parts), (kinds[0] if kinds else ""), (kinds[-1] if kinds else "")

    def term(self) -> tuple[str, str]:
        src, i = self.src, self.i
        c = src[i]
        quantifiable = True
        simple = False
        kind = "atom"
        if c == "^":
            self.i += 1
            py, quantifiable, kind = _SEG_START, False, "^"
        elif c == "$":
            self.i += 1
            py, quantifiable, kind = _SEG_END, False, "$"
        elif c == "\\" and src.startswith(("\\b", "\\B"), i):
            self.i += 2
            w = "[A-Za-z0-9_]"
            if src[i + 1] == "b":
                py = f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))"
            else:
                py = f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))"
            quantifiable = False
        elif c == "(":
            py, quantifiable = self.group()
        elif c == ".":
            self.i += 1
            py, simple = _emit_class(_LINE_TERMINATORS, True), True
        elif c == "[":
            py, simple = _char_class(self), True
        elif c == "\\":
            py, simple = self.atom_escape()
        elif c in "*+?":
            raise self.fail("Nothing to repeat")
        elif c == "{":
            if _BRACED_QUANT.match(src, i):
                raise self.fail("Nothing to repeat")
            self.i += 1
            py, simple = _literal(ord(c)), True
        else:
            self.i += 1
            py, simple = _literal(ord(c)), True
        quant = self.quantifier()
        if quant:
            if not quantifiable:
                raise self.fail("Nothing to repeat")
            py = (py if simple else f"(?:{py})") + quant
            kind = "atom"
        return py, kind

    def quantifier(self) -> str:
        src, i = self.src, self.i
        if i >= len(src):
            return ""
        c = src[i]
        if c in "*+?":
            q = c
            self.i += 1
        else:
            m = _BRACED_QUANT.match(src, i)
            if not m:
                return ""
            lo = int(m.group(1))
            if m.group(2) and m.group(3) and int(m.group(3)) < lo:
                raise self.fail("numbers out of order in {} quantifier")
            q = m.group()
            self.i = m.end()
        if self.i < len(src) and src[self.i] == "?":
            self.i += 1
            # Whether a match exists does not depend on greediness when nothing is captured,
            # and a greedy [^/]* runs to the next '/' instead of growing one character at a time.
            if self.ncap:
                q += "?"
        return q

    def group(self) -> tuple[str, bool]:
        src, i = self.src, self.i
        quantifiable = True
        if src.startswith(("(?=", "(?!"), i):
            opener, self.i = src[i : i + 3], i + 3
        elif src.startswith(("(?<=", "(?<!"), i):
            opener, self.i, quantifiable = src[i : i + 4], i + 4, False
        elif src.startswith("(?:", i):
            opener, self.i = "(?:", i + 3
        elif src.startswith("(?<", i):
            m = _GROUP_NAME.match(src, i + 3)
            if not m or not src.startswith(">", m.end()):
                raise self.fail("Invalid capture group name")
            self.cap_index += 1
            opener, self.i = f"(?P<{self.prefix}{self.cap_index}>", m.end() + 1
        elif src.startswith("(?", i):
            raise self.fail("Invalid group")
        else:
            self.cap_index += 1
            opener, self.i = f"(?P<{self.prefix}{self.cap_index}>", i + 1
        alts = self.disjunction()
        if self.i >= len(src) or src[self.i] != ")":
            raise self.fail("Unterminated group")
        self.i += 1
        return opener + "|".join(a[0] for a in alts) + ")", quantifiable

    def atom_escape(self) -> tuple[str, bool]:
        src = self.src
        self.i += 1  # the backslash
        if self.i < len(src):
            c = src[self.i]
            if c.isascii() and c.isdigit() and c != "0":
                m = re.compile(r"\d+").match(src, self.i)
                assert m is not None
                num = int(m.group())
                if num <= self.ncap:
                    self.i = m.end()
                    name = f"{self.prefix}{num}"
                    return f"(?({name})(?P={name})|)", False
            if c == "k" and self.names:
                m = re.compile(r"k<([A-Za-z_$][A-Za-z0-9_$]*)>").match(src, self.i)
                if not m or m.group(1) not in self.names:
                    raise self.fail("Invalid named reference")
                self.i = m.end()
                num = self._named_index(m.group(1))
                name = f"{self.prefix}{num}"
                return f"(?({name})(?P={name})|)", False
        cp, ranges = _char_escape(self, False)
        if ranges is not None:
            return _emit_class(ranges, False), True
        assert cp is not None
        return _literal(cp), True

    def _named_index(self, wanted: str) -> int:
        """The number of the first group named ``wanted`` (else the count of all groups)."""
        return self._name_indexes.get(wanted, self.ncap)


def translate(src: str, strip_anchors: bool = False) -> tuple[str, bool]:
    """Python source equivalent to the JavaScript regex ``src`` applied to one path segment.

    Returns ``(python_source, anchored)``; ``anchored`` is true when the source has the shape
    ``^...$`` (no top-level alternation), so the Python source matches exactly the whole
    segment. With ``strip_anchors``, an anchored source is returned without its ``^``/``$``
    look-arounds (for a caller that places it between ``/`` separators). Raises
    :class:`JsRegexSyntaxError` where JavaScript would.
    """
    return _Translator(src, strip_anchors).translate()


def is_valid_js_regex(src: str) -> bool:
    """Whether ``new RegExp(src)`` (no flags) would succeed."""
    try:
        _Translator(src).translate()
    except JsRegexSyntaxError:
        return False
    return True
