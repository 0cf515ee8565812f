"""runner.match against the real minimatch 3 (npm), on thousands of patterns and strings.

The oracle is minimatch 3.1.2 with brace-expansion 1.1.11, pinned by ``package.json`` and
``package-lock.json`` next to this file and installed with ``npm ci`` on first use. ONE node
process (``oracle.js``) answers every case; any disagreement fails the test, listing the first
ones. Node and the npm registry are part of the test machine: their absence is a failure, not a
skip.

Cases are (pattern, string, options): hand-written tricky ones, then deterministic
pseudo-random ones from a seeded generator over glob syntax and path/URL pieces.

Excluded on purpose (never generated):

* a brace sequence with a zero step (``{1..3..0}``): brace-expansion 1.1.11 loops forever on
  it (node hangs until it runs out of memory); runner.match uses a step of 1, like later
  brace-expansion versions;
* ``nocase`` with non-ASCII letters whose upper/lower mappings are irregular (``ſ``, the Kelvin
  sign, ...): Python's and JavaScript's case-insensitive matching differ there (see the module
  docstring of runner.match.minimatch). Plain non-ASCII letters such as ``é`` are generated.

minimatch 3 throws only for a non-string or over-long (> 65536 characters) pattern; the one
over-long case here is recorded as ``"error"`` on both sides.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from runner.errors import UsageError
from runner.match import minimatch

HERE = Path(__file__).parent
MINIMATCH_VERSION = "3.1.2"
BRACE_EXPANSION_VERSION = "1.1.11"

Case = tuple[str, str, dict[str, bool]]

URLS = [
    "http://localhost:3000/api/users",
    "http://localhost:3000/api/users?x=1",
    "https://example.test/a/b/c.png",
    "https://example.test/a/b/c.png?size=2#top",
    "/users?x=1",
    "/users",
    "/users/",
    "/users/1/edit",
    "http://h.test:8080/.well-known/x",
    "http://h.test/search?q=a/b&sort=asc",
    "http://h.test/a//b",
    "http://h.test/#/route",
    "/api/v1/items.json",
    "api/v1/items.json?page=2",
    "",
    "/",
    "//",
    ".",
    "..",
    "./a",
    "../a",
    "a/./b",
    "a/../b",
]

HAND_PATTERNS = [
    "/users*",
    "/users?x=1",
    "/users\\?x=1",
    "**/api/*",
    "**/api/**",
    "*.png",
    "**/*.png",
    "**/*.{png,jpg}",
    "http://localhost:3000/**",
    "http://localhost:3000/api/*",
    "http://*/api/*",
    "**/users*",
    "**/users?*",
    "/users/*",
    "/users/**",
    "/users/*/edit",
    "**",
    "*",
    "?",
    "**/",
    "*/",
    "/**",
    "/*",
    "**/*",
    ".*",
    "**/.*",
    "a/**/b",
    "a/**",
    "**/b",
    "*.json",
    "**/*.json",
    "api/**",
    "*/api/*",
    "**/search?q=*",
    "**/#/*",
    "**/.well-known/*",
    "http:/**",
    "http://h.test/a/b",
    "#comment",
    "!**/*.png",
    "!!**/*.png",
    "!*.json",
    "{/users,/api}/**",
    "/users{,/*}",
    "**/v{1..3}/*",
    "+(a|b)",
    "!(a)",
    "*.!(png)",
    "/users/+([0-9])/*",
    "/users/@(1|2)/edit",
    "**/?(*.)json",
    "[a-z]*",
    "[!a]*",
    "[^/]*",
    "[[:alpha:]]*",
    "**/items.json",
    "a/./b",
    "a/../b",
    "./a",
    "../a",
    ".",
    "..",
    "",
    " ",
    "\\*",
    "a\\",
    "[",
    "]",
    "[]",
    "[!]",
    "[]]",
    "a[",
    "a[]",
    "a[*",
    "[**",
    "+(",
    "!(",
    "@(a|b",
    "*(a|!(b)",
    "+(a|!(b)c",
    "(!(a)\\)1",
    "!(a)b",
    "*.!(x).!(y|z)",
    "*(*.js|!(*.json))",
    "{a,b}{c,d}",
    "{{a,b}}",
    "{a},b}",
    "a{},b}c",
    "{}",
    "${a,b}",
    "a{1..3}b",
    "{a..e..2}",
    "{01..10}",
    "{-1..1}",
    "{10..1..3}",
    "{Z..a}",
    "\\{a,b}",
    "{a\\,b,c}",
    "{a,b\\}",
    "a{,b}",
    "{,}",
    "{a,}",
    "!{,}",
]

OPTION_SETS: list[dict[str, bool]] = [
    {},
    {"matchBase": True},
    {"dot": True},
    {"nocase": True},
    {"noext": True},
    {"nobrace": True},
    {"noglobstar": True},
    {"nonegate": True},
    {"nocomment": True},
    {"flipNegate": True},
    {"matchBase": True, "dot": True},
    {"dot": True, "nocase": True},
    {"matchBase": True, "nocase": True, "noext": True},
    {"nonegate": True, "flipNegate": True},
    {"noglobstar": True, "dot": True, "nobrace": True},
]

GLOB_TOKENS = [
    "a",
    "b",
    "c",
    "x",
    "A",
    "é",
    "1",
    "3",
    ".",
    "..",
    "/",
    "//",
    "*",
    "**",
    "?",
    "[",
    "]",
    "!",
    "^",
    "-",
    "{",
    "}",
    ",",
    "..",
    "(",
    ")",
    "|",
    "+",
    "@",
    "\\",
    "#",
    " ",
    "=",
    "&",
    ":",
    "%",
    "$",
    "[a-c]",
    "[!a]",
    "[^/]",
    "[z-a]",
    "[[:alpha:]]",
    "{a,b}",
    "{1..3}",
    "{a..c}",
    "+(",
    "*(",
    "?(",
    "@(",
    "!(",
    ".js",
    "api",
    "users",
    "?x=1",
    "http://h",
    "😀",
    "\n",
]
PATH_PIECES = [
    "a",
    "b",
    "c",
    "x",
    "A",
    "é",
    "1",
    "3",
    ".",
    "..",
    "/",
    "//",
    "?",
    "=",
    "&",
    "#",
    " ",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    "!",
    "+",
    "@",
    "\\",
    "-",
    "$",
    "|",
    "^",
    "%20",
    "ab",
    ".js",
    ".json",
    ".png",
    "api",
    "users",
    "http://h.test",
    ":8080",
    "?q=1",
    "#f",
    "😀",
    "\n",
]
MAGIC = set("*?[]{}()!|+@\\")


def hand_written_cases() -> list[Case]:
    cases: list[Case] = []
    for pattern in HAND_PATTERNS:
        for options in ({}, {"matchBase": True}, {"dot": True}, {"nocase": True}):
            for url in URLS:
                cases.append((pattern, url, options))
    extra: list[Case] = [
        ("a" * 70_000, "a", {}),  # minimatch throws "pattern is too long"
        ("abc", "ABC", {"nocase": True}),
        ("a*", "ABC", {"nocase": True}),
        ("[A-Z]", "b", {"nocase": True}),
        ("[^a]", "A", {"nocase": True}),
        ("?", "😀", {}),
        ("??", "😀", {}),
        ("*", "😀", {}),
        ("[😀]", "😀", {}),
        ("a*b", "a\nb", {}),
        ("a/*", "a/b\n", {}),
        ("abc", "abc\n", {}),
        ("ab*", "abc\n", {}),
        ("\ta ", "a", {}),
        ("\ufeffa", "a", {}),
        ("\x1ca", "\x1ca", {}),
    ]
    return cases + extra


ZERO_STEP = re.compile(r"\{-?\d+\.\.-?\d+\.\.-?0+\}|\{[a-zA-Z]\.\.[a-zA-Z]\.\.-?0+\}")


def _has_zero_step(pattern: str) -> bool:
    return ZERO_STEP.search(pattern) is not None


def generated_cases(count: int, seed: int = 20261122) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    while len(cases) < count:
        pattern = "".join(rng.choice(GLOB_TOKENS) for _ in range(rng.randint(1, 8)))
        if rng.random() < 0.1:
            pattern = rng.choice(["!", "!!", "#", " "]) + pattern
        if _has_zero_step(pattern):
            continue  # see the module docstring: brace-expansion 1.1.11 loops forever
        options = rng.choice(OPTION_SETS)
        for _ in range(3):
            roll = rng.random()
            if roll < 0.45:
                # strings shaped like the pattern find the interesting near-misses
                text = "".join(
                    rng.choice(["", "a", "b", ".", "x", "/", "ab", ch]) if ch in MAGIC else ch
                    for ch in pattern.lstrip("!#")
                )
            elif roll < 0.6:
                text = rng.choice(URLS)
            else:
                text = "".join(rng.choice(PATH_PIECES) for _ in range(rng.randint(0, 7)))
            if options.get("nocase") and rng.random() < 0.5:
                text = text.swapcase()
            cases.append((pattern, text, options))
    return cases


BRACE_TOKENS = [
    "{", "}", ",", "a", "b", "$", "\\", "..", "1", "3", "-", "0", "z", "A", "/", "*", "{a,b}",
    "{1..3}", "{a..c}", "{}", "\\,", "\\{", "\\}", "\\.", "😀", "é", "É", "!",
]  # fmt: skip


def brace_cases(count: int, seed: int = 1122) -> list[Case]:
    """Brace-heavy patterns, tried on strings made from their own expansions (so many match)."""
    from runner.match.braces import brace_expand

    rng = random.Random(seed)
    cases: list[Case] = []
    while len(cases) < count:
        pattern = "".join(rng.choice(BRACE_TOKENS) for _ in range(rng.randint(1, 10)))
        if _has_zero_step(pattern):
            continue
        options = rng.choice([{}, {"nocase": True}, {"nobrace": True}, {"matchBase": True}])
        texts = brace_expand(pattern)[:4]
        texts += [text.replace("*", "x") for text in texts]
        texts.append("".join(rng.choice("ab123{},$\\/zé😀") for _ in range(rng.randint(0, 6))))
        cases.extend((pattern, text, options) for text in dict.fromkeys(texts))
    return cases


@pytest.fixture(scope="session")
def oracle_node() -> str:
    node = shutil.which("node")
    npm = shutil.which("npm")
    if not node or not npm:
        pytest.fail(
            "node and npm are required to compare runner.match with the real minimatch 3 "
            f"(found node={node!r}, npm={npm!r}); install Node.js 18+ with npm.",
            pytrace=False,
        )
    installed = HERE / "node_modules" / "minimatch" / "package.json"
    if not installed.is_file():
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=HERE,
                capture_output=True,
                text=True,
                timeout=120,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"'npm ci' in {HERE} took more than 120 s", pytrace=False)
        if done.returncode != 0 or not installed.is_file():
            pytest.fail(
                f"'npm ci --no-audit --no-fund' in {HERE} failed (exit {done.returncode}):\n"
                f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}",
                pytrace=False,
            )
    return node


def ask_oracle(node: str, cases: list[Case], tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases), encoding="utf-8")
    try:
        done = subprocess.run(
            [node, str(HERE / "oracle.js"), str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            encoding="utf-8",
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the minimatch oracle (node oracle.js) ran past 60 s", pytrace=False)
    assert done.returncode == 0, f"node oracle.js failed:\n{done.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def ours(pattern: str, text: str, options: dict[str, bool]) -> bool | str:
    try:
        return minimatch(text, pattern, options)
    except UsageError:
        return "error"


def test_agrees_with_minimatch3(oracle_node: str, tmp_path: Path) -> None:
    cases = hand_written_cases() + generated_cases(6000) + brace_cases(2000)
    reply = ask_oracle(oracle_node, cases, tmp_path)
    assert reply["version"] == MINIMATCH_VERSION
    assert reply["braceExpansion"] == BRACE_EXPANSION_VERSION
    answers = reply["answers"]
    assert len(answers) == len(cases)

    disagreements = []
    for (pattern, text, options), theirs in zip(cases, answers, strict=True):
        mine = ours(pattern, text, options)
        if mine != theirs:
            shown = pattern if len(pattern) < 200 else pattern[:40] + f"...({len(pattern)} chars)"
            disagreements.append(
                f"  pattern={shown!r} string={text!r} options={options} "
                f"minimatch={theirs!r} ours={mine!r}"
            )
    assert not disagreements, (
        f"{len(disagreements)} of {len(cases)} cases disagree with minimatch "
        f"{MINIMATCH_VERSION}:\n" + "\n".join(disagreements[:20])
    )
    assert len(cases) > 5000
