"""runner.match.braces: brace expansion is refused, fast and by name, past its limits; below them it
expands exactly as before (tests/fidelity compares it with the real minimatch)."""

from __future__ import annotations

import random
import time

import pytest

from runner.errors import UsageError
from runner.match import compile_pattern, minimatch
from runner.match.braces import (
    MAX_BRACES,
    MAX_EXPANDED_CHARS,
    MAX_EXPANSIONS,
    BraceLimitError,
    _count,
    _expand,
    _prepare,
    _unescape,
    brace_expand,
    expansion_problem,
)

FAST = 1.0  # seconds: a generous bound for what takes milliseconds (the machine may be busy)


def test_the_limits_are_what_the_docs_say() -> None:
    assert (MAX_EXPANSIONS, MAX_EXPANDED_CHARS, MAX_BRACES) == (1_000, 20_000, 100)


@pytest.mark.parametrize("groups", [19, 40, 13_000])
def test_many_groups_are_refused_at_once(groups: int) -> None:
    pattern = "{a,b}" * groups
    started = time.perf_counter()
    problem = expansion_problem(pattern)
    with pytest.raises(BraceLimitError):
        brace_expand(pattern)
    with pytest.raises(UsageError) as caught:
        minimatch("ab", pattern)
    assert time.perf_counter() - started < FAST
    assert problem is not None
    message = str(caught.value)
    assert repr(pattern[:100]) in message  # names the pattern (cut when long)
    assert "at most" in message and "brace groups" in message


def test_the_refusal_names_the_limit() -> None:
    pattern = "/api/{a,b,c,d,e,f,g,h,i,j}/{1..10}/{x,y,z,w,v,u,t,s,r,q,p}"  # 1,100 patterns
    assert expansion_problem(pattern) == (
        "expands to more than 1,000 patterns or 20,000 characters in all; at most 1,000 patterns "
        "of 20,000 characters in all are accepted. Each brace group multiplies them: `{a,b}` ten "
        "times is already 1,024 patterns"
    )
    with pytest.raises(UsageError, match=r"glob pattern '/api/\{a,b,c.*expands to more than 1,000"):
        compile_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "refused"),
    [
        ("{1..1000}", False),  # exactly the limit
        ("{1..1001}", True),
        ("{1..100000}", True),
        ("{a,b}" * 9, False),  # 512
        ("{a,b}" * 10, True),  # 1,024
        ("{a,b,c,d,e,f,g,h,i,j}{1..100}", False),  # exactly 1,000
        ("{a,b,c,d,e,f,g,h,i,j}{0..100}", True),  # 1,010
        ("x" * 1_990 + "{1..10}", False),  # 10 patterns of 19,911 characters in all
        ("x" * 2_000 + "{1..10}", True),  # 10 patterns of 20,011 characters
        ("x" * 30_000 + "{a}", False),  # a long pattern that expands to itself only
        ("x" * 10_000 + "{a,b}", True),  # 20,002 characters
        ("{" * 100 + "a,b" + "}" * 100, False),  # 100 `{`, nested: 2 patterns
        ("{" * 101 + "a,b" + "}" * 101, True),
        ("\\{" * 500 + "{a,b}", False),  # escaped braces do not count
        ("{a}" * 100, False),  # groups without a comma expand to themselves
        ("{a}" * 101, True),
        ("{,}" * 10, True),  # 1,024 empty results are built before they are dropped
        ("${a,b}" * 50, False),  # `${` is never expanded
        ("{" * 150 + "a,b", False),  # no `{...}` group: minimatch never expands it
    ],
)
def test_limits_at_their_boundaries(pattern: str, refused: bool) -> None:
    started = time.perf_counter()
    problem = expansion_problem(pattern)
    assert (problem is not None) == refused, problem
    if refused:
        with pytest.raises(UsageError):
            compile_pattern(pattern)
    else:
        assert len(brace_expand(pattern)) <= MAX_EXPANSIONS
    assert time.perf_counter() - started < FAST


@pytest.mark.parametrize(
    "pattern",
    [
        "{" * 30_000 + "a,b" + "}" * 30_000,  # nested far past Python's recursion limit
        "{a," * 20_000 + "}" * 20_000,
        "{1..1}" * 10_000,  # one pattern each, thousands of groups
        "{a}" * 16_000 + ",}",  # Bash's {a},b} quirk on every group
        "{" + "," * 60_000 + "}",
        "{" * 60_000 + "}",
    ],
)
def test_pathological_patterns_are_refused_fast_and_never_crash(pattern: str) -> None:
    started = time.perf_counter()
    with pytest.raises(UsageError):
        compile_pattern(pattern)
    assert time.perf_counter() - started < FAST


TOKENS = [
    "{", "}", ",", "a", "b", "$", "\\", "..", "1", "3", "-", "0", "z", "/", "*", "{a,b}", "{1..3}",
    "{a..c}", "{}", "\\,", "\\{", "\\}", "\\.", "é", "{,}", "{a,}", "{{a,b}}", "${",
]  # fmt: skip


def test_the_count_is_the_number_of_expansions_and_their_characters() -> None:
    """Counting without expanding agrees with expanding, on thousands of brace-heavy patterns
    (the same tokens tests/fidelity feeds the real brace-expansion)."""
    rng = random.Random(2024)
    checked = 0
    while checked < 3_000:
        pattern = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 12)))
        if "..0" in pattern:  # a zero step: brace-expansion 1.1.11 never ends (see minimatch.py)
            continue
        escaped = _prepare(pattern)
        expansions = [_unescape(e) for e in _expand(escaped, False)]
        assert _count(escaped, 10**9, 10**12) == (len(expansions), sum(map(len, expansions))), pattern
        checked += 1


def test_expansion_is_unchanged_below_the_limits() -> None:
    assert brace_expand("a{b,c}d") == ["abd", "acd"]
    assert brace_expand("a{b,c{d,e}f}g") == ["abg", "acdfg", "acefg"]
    assert brace_expand("{1..10..3}") == ["1", "4", "7", "10"]
    assert brace_expand("x{{a,b}}y") == ["x{a}y", "x{b}y"]
    assert brace_expand("{a},b}") == ["a}", "b"]
    assert brace_expand("{,a}") == ["a"]
    assert brace_expand("${a,b}{c,d}") == ["${a,b}{c,d}"]
    assert brace_expand("{a,b}" * 9)[:3] == ["aaaaaaaaa", "aaaaaaaab", "aaaaaaaba"]
    assert len(brace_expand("{a,b}" * 9)) == 512


def test_a_pattern_too_deep_for_the_glob_parser_is_a_usage_error() -> None:
    """Unclosed classes nest the parse once each: a clear error, not a RecursionError."""
    with pytest.raises(UsageError, match="too deeply"):
        compile_pattern("[" * 2_000)
