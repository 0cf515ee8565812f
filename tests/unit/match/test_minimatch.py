"""runner.match.minimatch: minimatch 3 semantics, feature by feature (no node needed).

Every expected answer in these tables is what minimatch 3.1.2 answers (tests/fidelity checks
thousands more against the real thing).
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any

import pytest

from runner.errors import UsageError
from runner.match import compile_pattern, minimatch

MB = {"matchBase": True}

# (pattern, string, options, expected)
CASES: list[tuple[str, str, dict[str, Any], bool]] = [
    # --- URL-shaped strings: what route matching sees -----------------------------------------
    ("/users*", "/users?x=1", {}, True),
    ("/users*", "/users", {}, True),
    ("/users*", "/users/1", {}, False),
    ("/users*", "http://localhost:3000/users?x=1", {}, False),
    ("**/users*", "http://localhost:3000/users?x=1", {}, True),
    ("**/api/*", "http://localhost:3000/api/users", {}, True),
    ("**/api/*", "http://localhost:3000/api/users?x=1&y=2", {}, True),
    ("**/api/*", "http://localhost:3000/api/users/1", {}, False),
    ("**/api/**", "http://localhost:3000/api/users/1", {}, True),
    ("http://localhost:3000/api/*", "http://localhost:3000/api/users", {}, True),
    ("http://localhost:3000/**", "http://localhost:3000/a/b/c?d=e", {}, True),
    ("http://localhost:*/api/*", "http://localhost:3000/api/users", {}, True),
    ("http:/localhost:3000/api/*", "http://localhost:3000/api/users", {}, True),  # '//' is one '/'
    ("*.png", "http://h/a/b/c.png", MB, True),
    ("*.png", "http://h/a/b/c.png", {}, False),
    ("*.png", "http://h/a/b/c.png?size=2", MB, False),
    ("*.png*", "http://h/a/b/c.png?size=2", MB, True),
    ("**/*.png", "http://h/a/b/c.png", {}, True),
    ("**/*.{png,jpg}", "http://h/a/b/c.jpg", {}, True),
    ("**/*.{png,jpg}", "http://h/a/b/c.gif", {}, False),
    ("/search?q=1", "/search?q=1", {}, True),  # '?' is a wildcard...
    ("/search?q=1", "/searchXq=1", {}, True),
    ("/search\\?q=1", "/search?q=1", {}, True),  # ...and '\?' a literal question mark
    ("/search\\?q=1", "/searchXq=1", {}, False),
    ("**/search\\?q=*", "http://h.test/search?q=abc", {}, True),
    ("**/#/*", "http://h.test/#/route", {}, True),
    ("**/.well-known/*", "http://h.test/.well-known/x", {}, True),  # a literal dot segment
    ("**/x", "http://h.test/.well-known/x", {}, False),  # ** does not swallow dot segments
    ("**/x", "http://h.test/.well-known/x", {"dot": True}, True),
    ("http://h.test/.well-known/*", "http://h.test/.well-known/x", {}, True),
    # --- * and ? ------------------------------------------------------------------------------
    ("*", "abc", {}, True),
    ("*", "a/b", {}, False),
    ("*", "", {}, False),
    ("a*", "a", {}, True),
    ("*c", "abc", {}, True),
    ("a*c", "a/c", {}, False),
    ("?", "a", {}, True),
    ("?", "ab", {}, False),
    ("?", "/", {}, False),
    ("a?c", "abc", {}, True),
    ("a?c", "a/c", {}, False),
    ("***", "abc", {}, True),
    ("a/*", "a/b/", {}, True),  # a trailing slash is allowed after the last segment
    ("a/*", "a/", {}, False),
    ("a", "a/", {}, True),
    ("a/", "a", {}, False),
    ("a/b", "a//b", {}, True),
    ("a//b", "a/b", {}, True),
    ("/a", "a", {}, False),
    ("/a", "//a", {}, True),
    # --- dot files ----------------------------------------------------------------------------
    ("*", ".a", {}, False),
    ("*", ".a", {"dot": True}, True),
    (".*", ".a", {}, True),
    ("?a", ".a", {}, False),
    ("[.]a", ".a", {}, False),
    ("*", ".", {"dot": True}, False),
    ("*", "..", {"dot": True}, False),
    (".*", "..", {}, True),
    ("a/*/b", "a/.x/b", {}, False),
    ("a/.*/b", "a/.x/b", {}, True),
    # --- globstar -----------------------------------------------------------------------------
    ("**", "a/b/c", {}, True),
    ("**", "", {}, True),
    ("**", ".a/b", {}, False),
    ("**", ".a/b", {"dot": True}, True),
    ("**", "a/../b", {"dot": True}, False),  # '.' and '..' are never swallowed
    ("a/**", "a/b/c", {}, True),
    ("a/**", "a/", {}, True),
    ("a/**", "a", {}, False),
    ("a/**/c", "a/c", {}, True),
    ("a/**/c", "a/b/x/c", {}, True),
    ("a/**/c", "a/.b/c", {}, False),
    ("a/**/c", "a/.b/c", {"dot": True}, True),
    ("a/**/c", "a/./c", {"dot": True}, False),
    ("a/**/*", "a/b/", {}, True),
    ("**/b", "b", {}, True),
    ("**/b", "/b", {}, True),
    ("a**/b", "ab/b", {}, True),  # not a whole segment: ** is just *
    ("a**/b", "ab/x/b", {}, False),
    ("**", "a/b", {"noglobstar": True}, False),
    ("**", "ab", {"noglobstar": True}, True),
    ("a/**/b", "a/x/y/b", {"noglobstar": True}, False),
    ("a/**/b", "a/x/b", {"noglobstar": True}, True),
    # --- character classes --------------------------------------------------------------------
    ("a[bc]d", "abd", {}, True),
    ("a[bc]d", "aed", {}, False),
    ("a[!b]d", "abd", {}, False),
    ("a[!b]d", "acd", {}, True),
    ("a[^b]d", "acd", {}, True),
    ("a[^b]d", "a/d", {}, False),
    ("a[a-z]c", "a-c", {}, False),
    ("a[a-z]c", "amc", {}, True),
    ("a[-z]c", "a-c", {}, True),
    ("a[]]c", "a]c", {}, True),
    ("a[[]c", "a[c", {}, True),
    ("[z-a]", "a", {}, False),  # an invalid class is literal text
    ("[z-a]", "[z-a]", {}, True),
    ("a[b", "a[b", {}, True),  # so is an unclosed one
    ("a[b", "ab", {}, False),
    ("[!]", "x", {}, True),  # JavaScript's [^] matches anything
    ("[[:alpha:]]", "x", {}, False),  # minimatch 3 has no POSIX classes:
    ("[[:alpha:]]", "a]", {}, True),  # this is "one of [:alph" followed by "]"
    ("[[:alpha:]]", ":]", {}, True),
    ("a[\\]]c", "a]c", {}, True),
    ("a[\\-z]c", "a-c", {}, True),
    ("a[b\\-d]c", "acc", {}, True),  # the backslash is dropped inside a class: [b-d]
    # --- braces -------------------------------------------------------------------------------
    ("a{b,c}d", "abd", {}, True),
    ("a{b,c}d", "acd", {}, True),
    ("a{b,c}d", "aed", {}, False),
    ("a{b,c{d,e}f}g", "acefg", {}, True),
    ("a{1..3}", "a2", {}, True),
    ("a{1..3}", "a4", {}, False),
    ("a{1..10..3}", "a7", {}, True),
    ("a{1..10..3}", "a8", {}, False),
    ("a{01..10}", "a05", {}, True),
    ("a{01..10}", "a5", {}, False),
    ("{a..e..2}", "c", {}, True),
    ("{a..e..2}", "d", {}, False),
    ("{3..1}", "2", {}, True),
    ("a{b}c", "a{b}c", {}, True),
    ("a{,b}", "a", {}, True),
    ("a{,b}", "ab", {}, True),
    ("{a,b}", "{a,b}", {"nobrace": True}, True),
    ("{a,b}", "a", {"nobrace": True}, False),
    ("{}", "{}", {}, True),
    ("${a,b}", "${a,b}", {}, True),
    ("\\{a,b}", "{a,b}", {}, True),
    ("{a},b}", "a}", {}, True),  # Bash's quirk: {a},b} is a} and b
    ("{a},b}", "{a}", {}, False),
    ("{a},b}", "b", {}, True),
    ("{,}", "", {}, False),
    ("!{,}", "anything", {}, True),
    ("{/users,/api}/**", "/api/x", {}, True),
    # --- extglobs -----------------------------------------------------------------------------
    ("+(a|b)", "abba", {}, True),
    ("+(a|b)", "", {}, False),
    ("*(a|b)", "ab", {}, True),
    ("a*(b)", "a", {}, True),
    ("?(a|b)", "a", {}, True),
    ("?(a|b)", "ab", {}, False),
    ("@(a|b)", "b", {}, True),
    ("@(a|b)", "ab", {}, False),
    ("x!(a)", "xb", {}, True),
    ("x!(a)", "xa", {}, False),
    ("!(a)", "a", {}, True),  # a leading '!' negates the pattern '(a)' instead
    ("!(*.json)", "a.js", {"nonegate": True}, True),
    ("!(*.json)", "a.json", {"nonegate": True}, False),
    ("*.!(js)", "a.txt", {}, True),
    ("*.!(js)", "a.js", {}, False),
    ("*.!(x).!(y|z)", "a.xyz.yz", {}, True),
    ("*.!(x).!(y|z)", "a.x.y", {}, False),
    ("/users/+([0-9])", "/users/42", {}, True),
    ("/users/+([0-9])", "/users/4x", {}, False),
    ("+(a|b)", "+(a|b)", {"noext": True}, True),
    ("+(a|b)", "a", {"noext": True}, False),
    ("+(a", "+(a", {}, True),  # an unclosed extglob is literal
    ("@(a|b", "@(a|b", {}, True),
    ("a(b)", "a(b)", {}, True),
    ("a|b", "a|b", {}, True),
    # --- negation -----------------------------------------------------------------------------
    ("!*.js", "a.js", {}, False),
    ("!*.js", "a.ts", {}, True),
    ("!!*.js", "a.js", {}, True),
    ("!!!*.js", "a.js", {}, False),
    ("!*.js", "!a.js", {"nonegate": True}, True),
    ("!*.js", "a.ts", {"nonegate": True}, False),
    ("!*.js", "a.js", {"flipNegate": True}, True),
    ("!*.js", "a.ts", {"flipNegate": True}, False),
    ("!", "a", {}, True),
    ("!", "", {}, False),
    # --- comments, empty, whitespace ----------------------------------------------------------
    ("#a", "#a", {}, False),
    ("#a", "#a", {"nocomment": True}, True),
    ("#", "", {}, False),
    ("", "", {}, True),
    ("", "a", {}, False),
    ("  a  ", "a", {}, True),  # patterns are trimmed
    ("a", " a", {}, False),
    ("a b", "a b", {}, True),
    # --- nocase -------------------------------------------------------------------------------
    ("abc", "ABC", {"nocase": True}, True),
    ("abc", "ABC", {}, False),
    ("a*", "ABC", {"nocase": True}, True),
    ("[A-Z]", "b", {"nocase": True}, True),
    ("**/API/*", "http://h/api/users", {"nocase": True}, True),
    # --- escaping -----------------------------------------------------------------------------
    ("a\\*b", "a*b", {}, True),
    ("a\\*b", "axb", {}, False),
    ("a\\b", "ab", {}, True),
    ("a\\\\b", "a\\b", {}, True),
    ("a\\", "a\\", {}, True),
    ("\\!a", "!a", {}, True),
    ("\\#a", "#a", {}, True),
    ("a.b", "axb", {}, False),
    ("a^b$", "a^b$", {}, True),
    ("a+b", "a+b", {}, True),
    # --- line terminators and astral characters, as JavaScript sees them --------------------
    ("a*b", "a\nb", {}, True),
    ("*", "\n", {}, False),  # JavaScript's '.' in (?=.) does not match a line terminator
    ("abc", "abc\n", {}, False),
    ("?", "😀", {}, False),  # JavaScript strings are UTF-16: an emoji is two characters
    ("??", "😀", {}, True),
    # --- matchBase ----------------------------------------------------------------------------
    ("b", "a/b", MB, True),
    ("b", "a/b/", MB, True),
    ("*.js", "a/b/c.js", MB, True),
    ("a/*.js", "x/a/b.js", MB, False),  # only for patterns without a slash
    ("*", "", MB, False),
    ("**", "a/.b", MB, False),
    # --- snake_case option spellings ----------------------------------------------------------
    ("*.png", "http://h/a/b/c.png", {"match_base": True}, True),
    ("!*.js", "a.js", {"flip_negate": True}, True),
]


@pytest.mark.parametrize(
    ("pattern", "string", "options", "expected"),
    CASES,
    ids=[f"{p!r}~{s!r}{o or ''}" for p, s, o, _ in CASES],
)
def test_minimatch_table(
    pattern: str, string: str, options: dict[str, Any], expected: bool
) -> None:
    assert minimatch(string, pattern, options) is expected
    assert compile_pattern(pattern, options)(string) is expected


def test_options_none_and_empty_are_the_defaults() -> None:
    assert minimatch("a.js", "*.js") is True
    assert minimatch("a.js", "*.js", None) is True
    assert minimatch("a.js", "*.js", {}) is True
    assert minimatch(".a.js", "*.js", {"dot": False}) is False


def test_option_values_are_truthiness() -> None:
    assert minimatch(".a", "*", {"dot": 1}) is True
    assert minimatch(".a", "*", {"dot": 0}) is False


def test_unknown_option_names_the_key_and_lists_valid_ones() -> None:
    with pytest.raises(UsageError) as err:
        minimatch("a", "a", {"matchbase": True})
    text = str(err.value)
    assert "'matchbase'" in text
    for name in ("matchBase", "dot", "nocase", "nonegate", "nocomment", "noext", "nobrace"):
        assert name in text
    with pytest.raises(UsageError):
        compile_pattern("a", {"partial": True})


@pytest.mark.parametrize("bad", [None, 3, b"*.js", ["*.js"]])
def test_non_string_pattern_is_a_usage_error(bad: Any) -> None:
    with pytest.raises(UsageError) as err:
        minimatch("a", bad)
    text = str(err.value)
    assert repr(bad) in text and "expected a string" in text
    with pytest.raises(UsageError):
        compile_pattern(bad)


def test_non_string_subject_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="expected a str"):
        minimatch(None, "*")  # type: ignore[arg-type]


def test_too_long_pattern_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="65536"):
        minimatch("a", "a" * 70_000)


def test_zero_step_sequence_uses_step_one() -> None:
    # brace-expansion 1.1.11 loops forever here; we behave like later versions.
    assert minimatch("2", "{1..3..0}") is True


def test_compile_pattern_returns_a_reusable_callable() -> None:
    match = compile_pattern("**/api/*")
    assert callable(match)
    assert [match(u) for u in ("http://h/api/a", "http://h/api/a/b", "/api/x")] == [
        True,
        False,
        True,
    ]
    assert compile_pattern("**/api/*") is match  # cached


def test_cache_is_bounded() -> None:
    mod = sys.modules["runner.match.minimatch"]
    for i in range(mod._CACHE_SIZE + 50):
        minimatch("x", f"x{i}*")
    assert len(mod._fast) <= mod._CACHE_SIZE
    assert len(mod._compiled) <= mod._CACHE_SIZE


def test_debug_prints_the_parse_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert minimatch("a/b.js", "!a/{b,c}.js", {"debug": True}) is False
    err = capsys.readouterr().err
    assert "brace-expanded set: ['a/b.js', 'a/c.js']" in err
    assert "negate=True" in err
    assert "segments: [['a', 'b.js'], ['a', 'c.js']]" in err
    assert "regex" in err
    minimatch("a.js", "*.js", {"debug": True})
    err = capsys.readouterr().err
    assert "(?=.)" in err  # the JavaScript source minimatch builds
    assert re.search(r"whole-path regex: .+", err)


def test_cached_match_is_fast() -> None:
    url = "http://localhost:3000/api/users?x=1"
    minimatch(url, "**/api/*")
    n = 2000
    start = time.perf_counter()
    for _ in range(n):
        minimatch(url, "**/api/*")
    per_call = (time.perf_counter() - start) / n
    assert per_call < 50e-6  # a few microseconds normally; generous for slow CI machines
