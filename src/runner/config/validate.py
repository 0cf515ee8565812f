"""Validation of configuration documents with ``Draft4Validator``, mapped to readable messages.

Every problem becomes one line that names the property path (``e2e.viewportWidth``,
``clientCertificates[0].certs[1].key``), says what was expected (the schema's ``x-expected``
phrase) and shows what was found (as JSON). All problems of a document are reported at once.

Beyond the schema, the values are checked against the limits of :mod:`runner.config.limits`
(nesting, NaN and infinities, paths the system cannot use: the schema's ``x-path`` nodes) and
the globs (the schema's ``x-glob`` nodes) against those of :mod:`runner.match.braces`, so a value that
would crash or stall a run later is refused here, named. A document the schema found valid in an
earlier run is not checked against it again (:mod:`runner.config.valid_cache`): jsonschema is
loaded only when a document needs it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.config.limits import path_problem, structure_problems
from runner.config.retries import retries_problem
from runner.config.schema import BLOCK_KEYS, _schema, flat_schema, option_names, option_schema
from runner.config.valid_cache import digest, is_known_valid, remember_valid
from runner.config.web_server import web_server_problems
from runner.errors import ConfigError
from runner.match.braces import expansion_problem

if TYPE_CHECKING:  # jsonschema is loaded only to check a document not found valid before (valid_cache.py)
    from jsonschema import Draft4Validator
    from jsonschema.exceptions import ValidationError

__all__ = [
    "Problem",
    "describe_value",
    "file_error",
    "format_path",
    "problems_error",
    "problems_of",
    "suggest",
    "values_error",
]

_MAX_VALUE_CHARS = 200


@dataclass(frozen=True)
class Problem:
    """One problem: its display ``path``, the message ``text`` and where it sits in the document."""

    path: str
    text: str
    parts: tuple[str | int, ...]

    @property
    def top(self) -> str:
        """The top-level property the problem is about (the source of a value is kept per key)."""
        return str(self.parts[0]) if self.parts else ""


def describe_value(value: Any) -> str:
    """The value as compact JSON in backticks, shortened when long."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    # a lone surrogate (JSON's "\ud800") cannot be printed as UTF-8: show it escaped
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) > _MAX_VALUE_CHARS:
        text = text[: _MAX_VALUE_CHARS - 3] + "..."
    return f"`{text}`"


def format_path(parts: Iterable[str | int]) -> str:
    """``["clientCertificates", 0, "url"]`` -> ``clientCertificates[0].url``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def _normalised(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def suggest(name: str, candidates: Sequence[str] | None = None) -> str | None:
    """The option ``name`` was probably meant to be, or ``None``.

    A case-insensitive match comes first (also ignoring ``_`` and ``-``: ``base_url`` ->
    ``baseUrl``), then the closest match by ``difflib`` (``viewportWidht`` -> ``viewportWidth``).
    """
    pool = list(candidates) if candidates is not None else option_names()
    if name in pool:
        return None
    for candidate in pool:
        if candidate.lower() == name.lower():
            return candidate
    for candidate in pool:
        if _normalised(candidate) == _normalised(name):
            return candidate
    by_lower = {candidate.lower(): candidate for candidate in pool}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[close[0]] if close else None


def _unknown_text(parts: tuple[str | int, ...], name: str, allowed: Sequence[str]) -> str:
    path = format_path((*parts, name))
    in_options = not parts or (len(parts) == 1 and parts[0] in BLOCK_KEYS)
    if in_options and name in BLOCK_KEYS:
        if parts:
            return (
                f"Unknown property `{path}`: `e2e` and `component` blocks can only be used at "
                "the top level of runner.json, not inside each other."
            )
        return (
            f"Unknown property `{path}`: only runner.json has `e2e` and `component` blocks; "
            "values set anywhere else already apply to the testing type being run, so set the "
            "options themselves."
        )
    guess = suggest(name, allowed)
    hint = f" Did you mean `{format_path((*parts, guess))}`?" if guess else ""
    if in_options:
        return (
            f"Unknown property `{path}`.{hint} Only the documented options are accepted "
            "(`runner schema` lists them); put custom values under `env` instead."
        )
    names = ", ".join(f"`{a}`" for a in allowed)
    return f"Unknown property `{path}`.{hint} `{format_path(parts)}` accepts only {names}."


def _expected_text(parts: tuple[str | int, ...], phrase: str, value: Any) -> str:
    return (
        f"Expected `{format_path(parts)}` to be {phrase}. "
        f"Instead the value was: {describe_value(value)}"
    )


def _option_parts(parts: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """The path of the option a deep path belongs to (``e2e.retries.runMode`` -> ``e2e.retries``)."""
    if len(parts) >= 2 and parts[0] in BLOCK_KEYS:
        return parts[:2]
    return parts[:1]


def _value_at(doc: Any, parts: Sequence[str | int]) -> Any:
    value = doc
    for part in parts:
        value = value[part]
    return value


def _best_branch(error: ValidationError) -> list[ValidationError] | None:
    """The errors of the ``oneOf`` branch the instance was most likely meant to match."""
    instance = error.instance
    if not isinstance(instance, dict) or not error.context:
        return None
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        index = sub.relative_schema_path[0]
        if isinstance(index, int):
            branches.setdefault(index, []).append(sub)
    options = error.schema.get(error.validator, [])
    best: tuple[int, int] | None = None
    chosen: list[ValidationError] | None = None
    for index, errors in sorted(branches.items()):
        if any(e.validator == "type" and e.absolute_path == error.absolute_path for e in errors):
            continue
        branch = _resolve(options[index]) if index < len(options) else {}
        required = set(branch.get("required", []))
        score = (len(required & set(instance)), -len(errors))
        if best is None or score > best:
            best, chosen = score, errors
    return chosen


def _resolve(subschema: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = subschema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return subschema
    node: Any = _schema()
    for key in ref[2:].split("/"):
        node = node[key]
    resolved: Mapping[str, Any] = node
    return resolved


def _map_error(error: ValidationError, doc: Any) -> list[Problem]:
    parts = tuple(error.absolute_path)
    option = _option_parts(parts)
    is_option_value = bool(option) and parts == option and option[-1] not in BLOCK_KEYS
    # An option that is one entry or an array of entries (webServer) names an unknown key of
    # its entry as it does in the array's entries; other objects are told as a whole.
    entry_option = is_option_value and "items" in error.schema
    if (
        error.validator == "additionalProperties"
        and isinstance(error.instance, dict)
        and (not is_option_value or entry_option)
    ):
        allowed = list(error.schema.get("properties", {}))
        return [
            Problem(
                format_path((*parts, name)), _unknown_text(parts, name, allowed), (*parts, name)
            )
            for name in error.instance
            if name not in allowed
        ]
    if error.validator == "required" and isinstance(error.instance, dict):
        out = []
        for name in error.validator_value:
            if name in error.instance:
                continue
            sub = _resolve(error.schema.get("properties", {}).get(name, {}))
            phrase = sub.get("x-expected", "set")
            path = format_path((*parts, name))
            out.append(
                Problem(
                    path, f"Missing `{path}`: it is required and must be {phrase}.", (*parts, name)
                )
            )
        return out
    if error.validator in ("oneOf", "anyOf") and len(parts) > len(option):
        branch = _best_branch(error)
        if branch:
            return [problem for sub in branch for problem in _map_error(sub, doc)]
    phrase = error.schema.get("x-expected")
    if isinstance(phrase, str):
        return [Problem(format_path(parts), _expected_text(parts, phrase, error.instance), parts)]
    name = option[-1] if option else ""
    phrase = (
        option_schema(str(name)).get("x-expected", "valid") if name in option_names() else "valid"
    )
    value = _value_at(doc, option)
    return [Problem(format_path(option), _expected_text(option, phrase, value), option)]


@cache
def _validator(flat: bool) -> Draft4Validator:
    from jsonschema import Draft4Validator

    return Draft4Validator(flat_schema() if flat else _schema())


def _schema_problems(plain: dict[str, Any], flat: bool) -> list[Problem]:
    """The schema's problems of ``plain``; none, without a check, for a document the schema
    found valid before (config/valid_cache.py)."""
    key = digest(plain, flat)
    if key is not None and is_known_valid(key):
        return []
    errors = list(_validator(flat).iter_errors(plain))
    if key is not None and not errors:
        remember_valid(key)
    return [problem for error in errors for problem in _map_error(error, plain)]


def _order(doc: Any, parts: tuple[str | int, ...]) -> tuple[int, ...]:
    """Position of a path in the document, so problems come out in the order of the file."""
    key: list[int] = []
    node = doc
    for part in parts:
        if isinstance(node, dict):
            names = list(node)
            key.append(names.index(part) if part in node else len(names))
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int):
            key.append(part)
            node = node[part] if 0 <= part < len(node) else None
        else:
            key.append(0)
            node = None
    return tuple(key)


def _structure_problem(parts: tuple[str | int, ...], phrase: str, value: Any) -> Problem:
    path = format_path(parts)
    shown = path if len(parts) <= 8 else f"{format_path(parts[:6])}... ({len(parts)} levels down)"
    if phrase.startswith("not a finite number"):
        text = (
            f"Expected `{shown}` to be a finite number (JSON has no NaN or Infinity). Instead the "
            f"value was: {describe_value(value)}"
        )
    elif phrase.startswith("nested"):
        text = f"`{shown}` is {phrase}; configuration values may nest at most that deep."
    else:
        text = f"`{shown}` is {phrase}; configuration values must be JSON, which cannot."
    return Problem(path, text, parts)


def _marked(node: Mapping[str, Any], value: Any, parts: tuple[str | int, ...], mark: str,
            out: dict[tuple[str | int, ...], str]) -> None:
    """Collect into ``out`` the strings of ``value`` that the schema ``node`` marks with
    ``mark`` (``x-path``, ``x-glob``), by path; a marked array gives each string item. The
    schema is a few levels deep, and the value was checked for depth before."""
    node = _resolve(node)
    if mark in node:
        if isinstance(value, str):
            out[parts] = value
        elif isinstance(value, list):
            out.update({(*parts, i): item for i, item in enumerate(value) if isinstance(item, str)})
        return
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, []):
            _marked(branch, value, parts, mark, out)
    if isinstance(value, dict):
        for name, sub in node.get("properties", {}).items():
            if name in value:
                _marked(sub, value[name], (*parts, name), mark, out)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            _marked(node["items"], item, (*parts, i), mark, out)


def _limit_problems(doc: dict[str, Any], flat: bool, root: Path | None) -> list[Problem]:
    """Paths the system cannot use and globs past the brace limits (see the module docstring)."""
    top = flat_schema() if flat else _schema()
    problems: list[Problem] = []
    paths: dict[tuple[str | int, ...], str] = {}
    _marked(top, doc, (), "x-path", paths)
    for parts, value in paths.items():
        phrase = path_problem(value, root)
        if phrase is not None:
            problems.append(Problem(format_path(parts), _expected_text(parts, phrase, value), parts))
    globs: dict[tuple[str | int, ...], str] = {}
    _marked(top, doc, (), "x-glob", globs)
    for parts, value in globs.items():
        problem = expansion_problem(value)
        if problem is not None:
            path = format_path(parts)
            text = (
                f"`{path}` {problem}. Use fewer brace groups, or several patterns. The pattern "
                f"was: {describe_value(value)}"
            )
            problems.append(Problem(path, text, parts))
    return problems


def _retries_problems(doc: dict[str, Any], flat: bool) -> list[Problem]:
    """A refused ``retries`` object (config/retries.py), as the ``retries`` message with the
    reason: it replaces the schema's same message at that path."""
    places: list[tuple[str | int, ...]] = [("retries",)]
    if not flat:
        places += [(block, "retries") for block in BLOCK_KEYS if isinstance(doc.get(block), dict)]
    problems = []
    for parts in places:
        try:
            value = _value_at(doc, parts)
        except (KeyError, TypeError):
            continue
        reason = retries_problem(value)
        if reason is not None:
            phrase = option_schema("retries")["x-expected"]
            text = f"{_expected_text(parts, phrase, value)} ({reason})."
            problems.append(Problem(format_path(parts), text, parts))
    return problems


def _web_server_problems(doc: dict[str, Any], flat: bool) -> list[Problem]:
    """``webServer`` entries that wait for neither or both of ``url`` and ``port``
    (config/web_server.py): what the schema cannot say."""
    places: list[tuple[str | int, ...]] = [()]
    if not flat:
        places += [(block,) for block in BLOCK_KEYS if isinstance(doc.get(block), dict)]
    problems = []
    for block in places:
        try:
            value = _value_at(doc, (*block, "webServer"))
        except (KeyError, TypeError):
            continue
        for parts, reason in web_server_problems(value):
            full = (*block, *parts)
            phrase = "a web server entry with `url` or `port`"
            text = f"{_expected_text(full, phrase, _value_at(doc, full))} ({reason})."
            problems.append(Problem(format_path(full), text, full))
    return problems


def problems_of(
    doc: Mapping[str, Any], *, flat: bool = False, root: Path | None = None
) -> list[Problem]:
    """Every problem of a configuration document, in document order, one per path.

    ``flat=False`` checks a whole ``runner.json`` (with ``e2e``/``component`` blocks and
    ``$schema``); ``flat=True`` checks one flat set of options (env, CLI, plugins file, marks).
    ``root`` is the project root the path options will be resolved against (their length is
    checked as resolved); without it they are checked as written.
    """
    plain = dict(doc)
    found: dict[str, Problem] = {}
    endless = False
    for parts, phrase, value in structure_problems(plain):
        endless = endless or not phrase.startswith("not a finite number")
        problem = _structure_problem(parts, phrase, value)
        found.setdefault(problem.path, problem)
    if not endless:  # the schema validator and the walks below recurse: only on values with an end
        for problem in _schema_problems(plain, flat):
            found.setdefault(problem.path, problem)
        for problem in _limit_problems(plain, flat, root):
            found.setdefault(problem.path, problem)
        for problem in _retries_problems(plain, flat):  # the schema's message, with the reason
            found[problem.path] = problem
        for problem in _web_server_problems(plain, flat):
            found.setdefault(problem.path, problem)
    return sorted(found.values(), key=lambda p: (_order(plain, p.parts), p.path))


def _count(n: int) -> str:
    return f"{n} problem" if n == 1 else f"{n} problems"


def _bullets(lines: Sequence[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def problems_error(header: str, lines: Sequence[str]) -> ConfigError:
    """``<header> (N problems):`` then one bullet per line; ``problems`` holds the lines."""
    return ConfigError(f"{header} ({_count(len(lines))}):\n{_bullets(lines)}", list(lines))


def file_error(path: str, problems: Sequence[Problem] | Sequence[str]) -> ConfigError:
    """One ``ConfigError`` for all problems of a file, named by its absolute path."""
    lines = [p.text if isinstance(p, Problem) else p for p in problems]
    return problems_error(f"Your configuration file {path} is invalid", lines)


def values_error(
    problems: Sequence[Problem], source_of: Mapping[str, str], *, header: str | None = None
) -> ConfigError:
    """One ``ConfigError`` for values that came from no file (env, CLI, plugins file, marks).

    ``source_of`` maps a top-level key to a phrase such as "the environment variable
    RUNNER_VIEWPORT_WIDTH" or "--config". With one source it goes in the header, otherwise each
    line names its own.
    """
    sources = {source_of.get(p.top, "") for p in problems}
    if len(sources) == 1:
        (source,) = sources
        lines = [p.text for p in problems]
        where = f" from {source}" if source else ""
    else:
        lines = [
            f"{p.text} (set from {source_of[p.top]})" if source_of.get(p.top) else p.text
            for p in problems
        ]
        where = ""
    return problems_error(header or f"An invalid configuration value was set{where}", lines)
