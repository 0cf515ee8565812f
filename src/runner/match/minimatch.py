"""A pure-Python glob matcher with the semantics of npm ``minimatch`` 3 (3.1.2).

The original JavaScript runner selects test files and routes intercepted requests with
minimatch 3; this module answers the same questions the same way, without node.

Approach
--------
Compiling a pattern follows minimatch's own steps, so its quirks carry over:

1. trim (JavaScript's whitespace set), ``#`` comments and the empty pattern, leading ``!``
   negation (each ``!`` toggles);
2. brace expansion with the semantics of ``brace-expansion`` 1.1.11, the version minimatch
   3.1.2 installs with (:mod:`runner.match._braces`);
3. each expansion is split on runs of ``/``; a segment of exactly ``**`` is the globstar,
   every other segment is parsed into the *JavaScript* regex source minimatch would build,
   character by character and with the same string surgery (extglobs, negated extglobs,
   classes that turn out invalid and are re-read literally, the ``(?!\\.)`` dot guard, ...).
   Reproducing the JavaScript source exactly, instead of writing Python regexes directly,
   is what keeps the odd corners (unclosed ``+(a|b``, ``!(x)`` followed by more text, ...)
   identical;
4. each JavaScript source is translated by :mod:`runner.match._jsregex`, which parses it
   with the JavaScript grammar (so a source JavaScript rejects matches nothing, as in
   minimatch) and emits a Python source that can never match ``/``;
5. the segments of every expansion are joined into ONE Python regex over the whole path:
   ``/+`` between segments (minimatch splits the string on runs of ``/``), ``(?:NODOT/+)*``
   for a globstar in the middle and ``NODOT(?:/+NODOT)*`` at the end (a globstar never
   matches ``.``/``..`` segments, nor dot-files without ``dot``), ``/*`` at the end
   (``a/*`` matches ``a/b/``). Expansions of a single segment under ``matchBase`` go into a
   second regex that is tried on the basename.

Matching a string is then one ``fullmatch``, maybe one more on the basename, and the negation
flags. Compiled patterns are cached (bounded) by ``(pattern, options)``, so a repeated
:func:`minimatch` call costs a dict lookup and a regex match: about 1-3 microseconds for a
URL against a typical route pattern.

Known differences from minimatch 3 (all outside what globs and URLs contain in practice):

* ``nocase`` uses Python's Unicode case-insensitivity; JavaScript's (``toUpperCase``-based) one
  differs for a handful of non-ASCII letters with irregular case mappings (``ſ``, the Kelvin
  sign, dotless ``ı``, ``ẞ``, ...).
* A brace sequence with a zero step (``{1..3..0}``) makes brace-expansion 1.1.11 loop forever;
  here the step is 1, as in later brace-expansion versions.
* In sources only reachable through minimatch's string-surgery bugs, a JavaScript
  back-reference into a group inside a repeated group, or a variable-width look-behind, has no
  exact Python equivalent.

With ``debug``, the parse is printed every time the pattern is compiled; debug patterns are
not cached, so every call prints.

JavaScript strings are UTF-16, so ``?`` matches half of an astral character (an emoji); this
module reproduces that by working on surrogate pairs when a string has astral characters.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from runner.errors import UsageError
from runner.match._jsregex import NEVER, JsRegexSyntaxError, is_valid_js_regex, translate
from runner.match.braces import BraceLimitError, brace_expand

__all__ = ["minimatch", "compile_pattern", "OPTION_NAMES"]


class _Options(NamedTuple):
    matchBase: bool = False
    dot: bool = False
    nocase: bool = False
    nonegate: bool = False
    nocomment: bool = False
    noext: bool = False
    nobrace: bool = False
    noglobstar: bool = False
    flipNegate: bool = False
    debug: bool = False


#: Accepted option keys (minimatch's camelCase names, plus snake_case spellings).
OPTION_NAMES: dict[str, str] = {name: name for name in _Options._fields}
OPTION_NAMES.update(
    {
        "match_base": "matchBase",
        "flip_negate": "flipNegate",
        "no_case": "nocase",
        "no_negate": "nonegate",
        "no_comment": "nocomment",
        "no_ext": "noext",
        "no_brace": "nobrace",
        "no_globstar": "noglobstar",
    }
)

_MAX_PATTERN_LENGTH = 1024 * 64
_CACHE_SIZE = 2048

# JavaScript's String.prototype.trim() whitespace (WhiteSpace + LineTerminator).
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SLASHES = re.compile(r"/{2,}")
_SLASH_SPLIT = re.compile(r"/+")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_GLOB_UNESCAPE = re.compile("\\\\([^\n\r\u2028\u2029])")
_HAS_BRACE_SET = re.compile("\\{(?:(?!\\{)[^\n\r\u2028\u2029])*\\}")
_PIPE_IN_TAIL = re.compile(r"((?:\\{2}){0,64})(\\?)\|")
_CLOSE_PAREN = re.compile(r"\)[+*?]?")

# Pieces of the JavaScript sources minimatch builds.
_QMARK = "[^/]"
_STAR = _QMARK + "*?"
_RE_SPECIALS = frozenset("().*{}+?[]^$\\!")
_PL_TYPES = {
    "!": ("(?:(?!(?:", "))[^/]*?)"),
    "?": ("(?:", ")?"),
    "+": ("(?:", ")+"),
    "*": ("(?:", ")*"),
    "@": ("(?:", ")"),
}


class _Globstar:
    def __repr__(self) -> str:
        return "GLOBSTAR"


GLOBSTAR: Any = _Globstar()


class _Segment(NamedTuple):
    """A parsed magic segment: the JavaScript regex source minimatch would compile."""

    js_source: str


def _surrogates(m: re.Match[str]) -> str:
    cp = ord(m.group()) - 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def _to_utf16(s: str) -> str:
    """``s`` with astral characters replaced by their UTF-16 surrogate pairs (as JS sees it)."""
    return _ASTRAL.sub(_surrogates, s)


def _js_trim(s: str) -> str:
    return s.strip(_JS_WHITESPACE)


# --- parsing one segment into minimatch's JavaScript regex source ---------------------------


class _PatternList:
    __slots__ = ("type", "re_start", "open", "close", "re_end")

    def __init__(self, type_: str, re_start: int) -> None:
        self.type = type_
        self.re_start = re_start
        self.open, self.close = _PL_TYPES[type_]
        self.re_end = -1


def _parse_start(pattern: str, opts: _Options) -> Any:
    """What minimatch's ``parse`` does before its loop: GLOBSTAR for ``**`` (read as ``*`` under
    ``noglobstar``), ``''`` for ``''``, otherwise the pattern its loop reads."""
    if pattern == "**":
        if not opts.noglobstar:
            return GLOBSTAR
        pattern = "*"
    return pattern


def _parse(pattern: str, opts: _Options, is_sub: bool) -> Any:
    """minimatch's ``parse``: GLOBSTAR, a literal str, a _Segment, or (source, magic) if sub."""
    start = _parse_start(pattern, opts)
    if start is GLOBSTAR or start == "":
        return start
    return _SegmentParser(start, opts, is_sub).parse()


# JavaScript reads ``sp[0]`` of GLOBSTAR (``{}``) or of ``''`` as undefined.
_UNDEFINED_SOURCE = ("undefined", False)


class _SegmentParser:
    """One run of minimatch's ``parse`` over a segment: the state its loop keeps, and one method
    per construct of its ``switch`` (escape, extglob type char, ``(``, ``)``, ``|``, ``[``,
    ``]``, any other character), then the repairs it makes after the loop (an unclosed class,
    extglobs left open, the look-ahead of negated extglobs)."""

    __slots__ = (
        "pattern",
        "opts",
        "is_sub",
        "re",
        "has_magic",
        "escaping",
        "pl_stack",
        "negative_lists",
        "state_char",
        "in_class",
        "re_class_start",
        "class_start",
    )

    def __init__(self, pattern: str, opts: _Options, is_sub: bool) -> None:
        self.pattern = pattern
        self.opts = opts
        self.is_sub = is_sub
        self.re = ""
        self.has_magic = opts.nocase
        self.escaping = False
        self.pl_stack: list[_PatternList] = []
        self.negative_lists: list[_PatternList] = []
        self.state_char = ""
        self.in_class = False
        self.re_class_start = -1
        self.class_start = -1

    def parse(self) -> Any:
        for i, c in enumerate(self.pattern):
            if self.escaping and c in _RE_SPECIALS:
                self.re += "\\" + c
                self.escaping = False
            elif c == "/":
                return False  # a segment never holds '/': minimatch's parse gives up
            elif c == "\\":
                self._clear_state_char()
                self.escaping = True
            elif c in "?*+@!":
                self._extglob_type(c, i)
            elif c == "(":
                self._open_extglob()
            elif c == ")":
                self._close_extglob()
            elif c == "|":
                self._pipe()
            elif c == "[":
                self._open_class(i)
            elif c == "]":
                self._close_class(i)
            else:
                self._other(c)
        self._reread_unclosed_class()
        self._reread_open_extglobs()
        self._clear_state_char()
        if self.escaping:
            self.re += "\\\\"
        return self._finish()

    def _sub_parser(self, text: str) -> _SegmentParser | None:
        """A parser for minimatch's ``parse(text, SUBPARSE)``, or None where that returns
        GLOBSTAR or ``''``. The caller runs it, so a nested re-read costs two stack frames
        (the caller and ``parse``) and the nesting a pattern may reach before the RecursionError
        of :func:`_checked_compile` stays where it was."""
        start = _parse_start(text, self.opts)
        if start is GLOBSTAR or start == "":
            return None
        return _SegmentParser(start, self.opts, True)

    def _clear_state_char(self) -> None:
        state_char = self.state_char
        if state_char:
            if state_char == "*":
                self.re += _STAR
                self.has_magic = True
            elif state_char == "?":
                self.re += _QMARK
                self.has_magic = True
            else:
                self.re += "\\" + state_char
            self.state_char = ""

    def _extglob_type(self, c: str, i: int) -> None:
        """``? * + @ !``: a character of a class, or the pending type of an extglob."""
        if self.in_class:
            if c == "!" and i == self.class_start + 1:
                c = "^"
            self.re += c
            return
        self._clear_state_char()
        self.state_char = c
        if self.opts.noext:
            self._clear_state_char()

    def _open_extglob(self) -> None:
        if self.in_class:
            self.re += "("
            return
        if not self.state_char:
            self.re += "\\("
            return
        self.pl_stack.append(_PatternList(self.state_char, len(self.re)))
        self.re += "(?:(?!(?:" if self.state_char == "!" else "(?:"
        self.state_char = ""

    def _close_extglob(self) -> None:
        if self.in_class or not self.pl_stack:
            self.re += "\\)"
            return
        self._clear_state_char()
        self.has_magic = True
        pl = self.pl_stack.pop()
        self.re += pl.close
        if pl.type == "!":
            self.negative_lists.append(pl)
        pl.re_end = len(self.re)

    def _pipe(self) -> None:
        if self.in_class or not self.pl_stack or self.escaping:
            self.re += "\\|"
            self.escaping = False
            return
        self._clear_state_char()
        self.re += "|"

    def _open_class(self, i: int) -> None:
        self._clear_state_char()
        if self.in_class:
            self.re += "\\["
            return
        self.in_class = True
        self.class_start = i
        self.re_class_start = len(self.re)
        self.re += "["

    def _close_class(self, i: int) -> None:
        if i == self.class_start + 1 or not self.in_class:
            self.re += "\\]"
            self.escaping = False
            return
        cs = self.pattern[self.class_start + 1 : i]
        if not is_valid_js_regex("[" + cs + "]"):
            # a class JavaScript rejects is re-read as a literal "[", its text, and "]"
            sub = self._sub_parser(cs)
            sp0, sp1 = sub.parse() if sub is not None else _UNDEFINED_SOURCE
            self.re = self.re[: self.re_class_start] + "\\[" + sp0 + "\\]"
            self.has_magic = self.has_magic or sp1
            self.in_class = False
            return
        self.has_magic = True
        self.in_class = False
        self.re += "]"

    def _other(self, c: str) -> None:
        self._clear_state_char()
        if self.escaping:
            self.escaping = False
        elif c in _RE_SPECIALS and not (c == "^" and self.in_class):
            self.re += "\\"
        self.re += c

    def _reread_unclosed_class(self) -> None:
        """An unclosed "[abc" is a literal "[" followed by the rest, re-read outside a class."""
        if self.in_class:
            cs = self.pattern[self.class_start + 1 :]
            sub = self._sub_parser(cs)
            sp0, sp1 = sub.parse() if sub is not None else _UNDEFINED_SOURCE
            self.re = self.re[: self.re_class_start] + "\\[" + sp0
            self.has_magic = self.has_magic or sp1

    def _reread_open_extglobs(self) -> None:
        """Extglobs left open: "+(a|b" is the literal "+(" then "a|b"."""
        while self.pl_stack:
            pl = self.pl_stack.pop()
            tail = self.re[pl.re_start + len(pl.open) :]
            tail = _PIPE_IN_TAIL.sub(
                lambda m: m.group(1) + m.group(1) + (m.group(2) or "\\") + "|", tail
            )
            t = _STAR if pl.type == "*" else _QMARK if pl.type == "?" else "\\" + pl.type
            self.has_magic = True
            self.re = self.re[: pl.re_start] + t + "\\(" + tail

    def _extend_negative_lookaheads(self, re_: str) -> str:
        """minimatch's look-ahead for negated extglobs must see through to the end of the
        segment."""
        for nl in reversed(self.negative_lists):
            nl_before = re_[: nl.re_start]
            nl_first = re_[nl.re_start : nl.re_end - 8]
            nl_last = re_[nl.re_end - 8 : nl.re_end]
            nl_after = re_[nl.re_end :]
            nl_last += nl_after
            clean_after = nl_after
            for _ in range(nl_before.count("(")):
                clean_after = _CLOSE_PAREN.sub("", clean_after, count=1)
            nl_after = clean_after
            dollar = "$" if nl_after == "" and not self.is_sub else ""
            re_ = nl_before + nl_first + nl_after + dollar + nl_last
        return re_

    def _pattern_start(self) -> str:
        """The guard minimatch puts before a segment starting with '[', '.' or '('."""
        if self.pattern[0] == ".":
            return ""
        if self.opts.dot:
            return "(?!(?:^|\\/)\\.{1,2}(?:$|\\/))"
        return "(?!\\.)"

    def _finish(self) -> Any:
        re_ = self.re
        add_pattern_start = re_[:1] in ("[", ".", "(")
        re_ = self._extend_negative_lookaheads(re_)
        if re_ != "" and self.has_magic:
            re_ = "(?=.)" + re_
        if add_pattern_start:
            re_ = self._pattern_start() + re_
        if self.is_sub:
            return (re_, self.has_magic)
        if not self.has_magic:
            return _GLOB_UNESCAPE.sub(r"\1", self.pattern)
        return _Segment("^" + re_ + "$")


# --- compiling a whole pattern ----------------------------------------------------------------


def _segment_py(part: Any) -> tuple[str, bool]:
    """Python source for one non-globstar segment (never matching '/'), and whether it is
    anchored (it then never matches an empty segment unless it is the literal '')."""
    if isinstance(part, str):
        return re.escape(part), True  # a literal segment never contains '/'
    assert isinstance(part, _Segment)
    try:
        py, anchored = translate(part.js_source, strip_anchors=True)
    except JsRegexSyntaxError:
        return NEVER, True  # minimatch falls back to /$./, which matches nothing
    if anchored:
        return f"(?:{py})", True
    # JavaScript *searches* an unanchored source inside the segment.
    return f"(?:[^/]*?(?:{py})[^/]*)", False


def _entry_py(parts: list[Any], segments: list[str | None], nodot: str, sep: str) -> str:
    out = ""
    n = len(parts)
    for idx, (part, seg) in enumerate(zip(parts, segments, strict=True)):
        last = idx == n - 1
        if part is GLOBSTAR:
            out += f"{nodot}(?:{sep}{nodot})*" if last else f"(?:{nodot}{sep})*"
        else:
            assert seg is not None
            out += seg + ("" if last else sep)
    return out


def _compile_alternatives(entries: list[str], tail: str, flags: int) -> re.Pattern[str] | None:
    if not entries:
        return None
    try:
        return re.compile("(?:" + "|".join(entries) + ")" + tail, flags)
    except re.error:
        # Only reachable from sources built by minimatch's string-surgery quirks that Python's
        # engine refuses (see the module docstring); drop just the offending alternatives.
        kept = []
        for e in entries:
            try:
                re.compile(e, flags)
            except re.error:
                continue
            kept.append(e)
        return re.compile("(?:" + "|".join(kept) + ")" + tail, flags) if kept else None


class _Matcher:
    """One compiled pattern; calling it matches a path or URL string."""

    __slots__ = (
        "pattern",
        "options",
        "kind",
        "full",
        "base",
        "normalize",
        "on_hit",
        "on_miss",
        "__weakref__",
    )

    def __init__(self, pattern: str, opts: _Options) -> None:
        self.pattern = pattern
        self.options = opts
        self.kind = "glob"
        self.full: Callable[[str], Any] | None = None
        self.base: Callable[[str], Any] | None = None
        self.on_hit = True
        self.on_miss = False
        self.normalize = False
        self._make(_to_utf16(pattern) if _ASTRAL.search(pattern) else pattern)

    def _make(self, pattern: str) -> None:
        opts = self.options
        pattern = _js_trim(pattern)
        if not opts.nocomment and pattern[:1] == "#":
            self.kind = "comment"
            if opts.debug:
                self._debug(f"pattern {self.pattern!r} is a comment: it matches nothing")
            return
        if not pattern:
            self.kind = "empty"
            if opts.debug:
                self._debug(f"pattern {self.pattern!r} is empty: it matches only ''")
            return

        negate = False
        if not opts.nonegate:
            offset = len(pattern) - len(pattern.lstrip("!"))
            negate = offset % 2 == 1
            pattern = pattern[offset:]
        if opts.flipNegate:
            self.on_hit, self.on_miss = True, False
        else:
            self.on_hit, self.on_miss = not negate, negate

        expanded = self._expand_braces(pattern)
        glob_parts = [_SLASH_SPLIT.split(s) for s in expanded]
        parsed = [[_parse(seg, opts, False) for seg in parts] for parts in glob_parts]
        parsed = [parts for parts in parsed if False not in parts]
        full, base = self._compile_regexes(parsed)
        self.full = full.fullmatch if full is not None else None
        self.base = base.fullmatch if base is not None else None
        if opts.debug:
            self._debug_compiled(negate, expanded, glob_parts, parsed, full, base)

    def _expand_braces(self, pattern: str) -> list[str]:
        if self.options.nobrace or not _HAS_BRACE_SET.search(pattern):
            return [pattern]
        try:
            return brace_expand(pattern)
        except BraceLimitError as err:
            raise UsageError(
                f"glob pattern {shown_pattern(self.pattern)} {err}. Use fewer brace groups, "
                "or several patterns."
            ) from None

    def _compile_regexes(
        self, parsed: list[list[Any]]
    ) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
        """The whole-path regex and the basename one (``matchBase``) of the parsed expansions;
        sets :attr:`normalize`."""
        opts = self.options
        nodot = "(?!\\.\\.?(?![^/]))[^/]*" if opts.dot else "(?!\\.)[^/]*"
        flags = re.IGNORECASE if opts.nocase else 0
        translated = [
            [None if p is GLOBSTAR else _segment_py(p) for p in parts] for parts in parsed
        ]
        # minimatch splits the string on runs of '/'. When every segment regex is anchored
        # (always, except after minimatch's string-surgery quirks) the regex itself can take
        # '/+' as the separator, so matching needs no normalization of the string.
        self.normalize = not all(t is None or t[1] for ts in translated for t in ts)
        sep, tail = ("/", "/?") if self.normalize else ("/+", "/*")
        full_entries: list[str] = []
        base_entries: list[str] = []
        for parts, ts in zip(parsed, translated, strict=True):
            segs = [None if t is None else t[0] for t in ts]
            target = base_entries if opts.matchBase and len(parts) == 1 else full_entries
            target.append(_entry_py(parts, segs, nodot, sep))
        return (
            _compile_alternatives(full_entries, tail, flags),
            _compile_alternatives(base_entries, tail, flags),
        )

    def _debug_compiled(
        self,
        negate: bool,
        expanded: list[str],
        glob_parts: list[list[str]],
        parsed: list[list[Any]],
        full: re.Pattern[str] | None,
        base: re.Pattern[str] | None,
    ) -> None:
        """Print (``debug``) each step of the compilation of a glob pattern."""
        lines = [
            f"pattern {self.pattern!r} (negate={negate}, options={self._set_options()})",
            f"  brace-expanded set: {expanded!r}",
            f"  segments: {glob_parts!r}",
            "  parsed segments (literal str, GLOBSTAR, or JavaScript regex source):",
        ]
        for parts in parsed:
            shown = [p.js_source if isinstance(p, _Segment) else p for p in parts]
            lines.append(f"    {shown!r}")
            for p in parts:
                if isinstance(p, _Segment):
                    if not is_valid_js_regex(p.js_source):
                        lines.append(
                            f"      {p.js_source!r} is not a valid JavaScript regex: "
                            "minimatch (and so this segment) matches nothing"
                        )
        if full is not None:
            lines.append(f"  whole-path regex: {full.pattern}")
        if base is not None:
            lines.append(f"  basename regex (matchBase): {base.pattern}")
        if full is None and base is None:
            lines.append("  no alternative compiled: the glob part matches nothing")
        self._debug("\n".join(lines))

    def _set_options(self) -> dict[str, bool]:
        return {k: v for k, v in self.options._asdict().items() if v}

    @staticmethod
    def _debug(text: str) -> None:
        print(f"minimatch: {text}", file=sys.stderr)

    def __call__(self, string: str) -> bool:
        kind = self.kind
        if kind != "glob":
            if kind == "comment":
                return False
            return string == ""
        if not string.isascii() and _ASTRAL.search(string):
            string = _to_utf16(string)
        if self.normalize and "//" in string:
            string = _SLASHES.sub("/", string)
        full = self.full
        if full is not None and full(string) is not None:
            return self.on_hit
        base = self.base
        if base is not None:
            trimmed = string.rstrip("/")
            if base(trimmed[trimmed.rfind("/") + 1 :]) is not None:
                return self.on_hit
        return self.on_miss

    def __repr__(self) -> str:
        return f"compile_pattern({self.pattern!r}, {self._set_options()!r})"


# --- public API -------------------------------------------------------------------------------


def _pattern_error(pattern: object) -> UsageError:
    return UsageError(
        f"glob pattern: got {pattern!r} ({type(pattern).__name__}), expected a string "
        f"such as '**/*.spec.py' or '/api/*'; pass the pattern as a str."
    )


def _normalize_options(options: Mapping[str, Any] | None) -> _Options:
    if not options:
        return _Options()
    values: dict[str, bool] = {}
    for key, value in options.items():
        name = OPTION_NAMES.get(key) if isinstance(key, str) else None
        if name is None:
            valid = ", ".join(_Options._fields)
            raise UsageError(
                f"minimatch option {key!r} is not known; valid options are: {valid} "
                f"(snake_case spellings such as 'match_base' and 'flip_negate' work too)."
            )
        values[name] = bool(value)
    return _Options(**values)


_compiled: dict[tuple[str, _Options], _Matcher] = {}
_fast: dict[Any, _Matcher] = {}


def _evict_oldest(cache: dict[Any, _Matcher]) -> None:
    try:
        del cache[next(iter(cache))]
    except (KeyError, RuntimeError, StopIteration):  # another thread got there first
        pass


def _compile(pattern: str, opts: _Options) -> _Matcher:
    key = (pattern, opts)
    matcher = _compiled.get(key)
    if matcher is None or opts.debug:
        matcher = _Matcher(pattern, opts)
        if len(_compiled) >= _CACHE_SIZE:
            _evict_oldest(_compiled)
        _compiled[key] = matcher
    return matcher


def compile_pattern(
    pattern: str, options: Mapping[str, Any] | None = None
) -> Callable[[str], bool]:
    """Compile ``pattern`` once; the result matches a string like ``minimatch(string, pattern)``.

    Raises :class:`~runner.errors.UsageError` for a non-string or too long pattern and for
    unknown option keys.
    """
    return _checked_compile(pattern, options)


def shown_pattern(pattern: str) -> str:
    """``pattern`` for a message: its repr, cut after 120 characters (with its length)."""
    if len(pattern) <= 120:
        return repr(pattern)
    return f"{pattern[:100]!r}... ({len(pattern):,} characters)"


def _checked_compile(pattern: object, options: Mapping[str, Any] | None) -> _Matcher:
    if not isinstance(pattern, str):
        raise _pattern_error(pattern)
    if len(pattern) > _MAX_PATTERN_LENGTH:
        raise UsageError(
            f"glob pattern: got a pattern of {len(pattern)} characters, expected at most "
            f"{_MAX_PATTERN_LENGTH} (minimatch's limit); use a shorter pattern."
        )
    opts = _normalize_options(options)
    try:
        return _compile(pattern, opts)
    except RecursionError:
        # Parsing recurses once per extglob or class nested in another (after minimatch's
        # string surgery); a pattern that deep is never meant, and must not crash the caller.
        raise UsageError(
            f"glob pattern {shown_pattern(pattern)} nests extglobs, classes or braces too deeply "
            "to be compiled; use a simpler pattern."
        ) from None


def minimatch(string: str, pattern: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether ``string`` (a path or URL) matches the glob ``pattern``, like minimatch 3.

    Options (minimatch's names; snake_case spellings accepted): ``matchBase``, ``dot``,
    ``nocase``, ``nonegate``, ``nocomment``, ``noext``, ``nobrace``, ``noglobstar``,
    ``flipNegate``, ``debug`` (print how the pattern was parsed to stderr).
    """
    if not isinstance(pattern, str):
        raise _pattern_error(pattern)
    if options is None:
        key: Any = pattern
    else:
        try:
            key = (pattern, tuple(options.items()))
            hash(key)
        except TypeError:
            key = None
    matcher = _fast.get(key) if key is not None else None
    if matcher is None:
        matcher = _checked_compile(pattern, options)
        if key is not None and not matcher.options.debug:
            if len(_fast) >= _CACHE_SIZE:
                _evict_oldest(_fast)
            _fast[key] = matcher
    if not isinstance(string, str):
        raise UsageError(
            f"minimatch: the string to match is {string!r} ({type(string).__name__}), "
            f"expected a str path or URL; convert it with str() first."
        )
    return matcher(string)
