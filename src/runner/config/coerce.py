"""Text to values: the coercion of ``RUNNER_*`` variables and the ``--config``/``--env`` syntax."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from runner.config.limits import parse_json
from runner.config.schema import option_names, option_schema
from runner.errors import ConfigError

__all__ = ["coerce_for_option", "coerce_value", "parse_cli_text", "parse_cli_values"]

_PAIRS = {"{": "}", "[": "]"}


def _number(text: str) -> int | float | None:
    try:
        as_int = int(text)
    except ValueError:
        pass
    else:
        return as_int if str(as_int) == text else None
    try:
        as_float = float(text)
    except ValueError:
        return None
    if math.isfinite(as_float) and repr(as_float) == text:
        return as_float
    return None


def coerce_value(text: str) -> Any:
    """Turn the text of an environment variable or CLI value into a value.

    ======================  ==========================================
    text                    value
    ======================  ==========================================
    ``"10"``, ``"-2.5"``    a number, only if it prints back identically (``"010"``, ``"1e3"``,
                            ``"+1"`` stay strings)
    ``"true"``/``"false"``  ``True``/``False`` (lower case only)
    ``"null"``              ``None``
    ``'{"a": 1}'``          parsed JSON object; ``'[1, "x"]'`` parsed JSON array;
                            ``'"quoted"'`` a JSON string
    ``"[a,b]"``             ``["a", "b"]`` (not JSON: a list of strings, items stripped)
    anything else           the text itself
    ======================  ==========================================
    """
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    number = _number(text)
    if number is not None:
        return number
    stripped = text.strip()
    if stripped[:1] in ("{", "[", '"'):
        try:
            return parse_json(stripped)
        except ValueError:
            pass
    if stripped.startswith("[") and stripped.endswith("]"):
        inner = stripped[1:-1].strip()
        return [item.strip() for item in inner.split(",")] if inner else []
    return text


def _split_top_level(text: str) -> list[str]:
    """Split at commas that are not inside ``{...}``, ``[...]`` or a double-quoted string."""
    parts: list[str] = []
    stack: list[str] = []
    current: list[str] = []
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in _PAIRS:
            stack.append(_PAIRS[char])
        elif char in ("}", "]"):
            if not stack or stack[-1] != char:
                raise ValueError(f"the `{char}` at position {index + 1} closes nothing")
            stack.pop()
        elif char == "," and not stack:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if in_string:
        raise ValueError("a double-quoted string is not closed")
    if stack:
        raise ValueError(f"a bracket is not closed (expected `{stack[-1]}`)")
    parts.append("".join(current))
    return parts


def _parse_error(option: str, text: str, why: str) -> ConfigError:
    example = (
        "--env apiUrl=http://localhost:8080,debug=true"
        if option == "--env"
        else "--config viewportWidth=800,baseUrl=http://localhost:3000"
    )
    shown = text if len(text) <= 200 else f"{text[:197]}..."
    message = (
        f"Could not parse the value of {option}: `{shown}`. {why[:1].upper()}{why[1:]}. "
        f"Expected a JSON object or name=value pairs separated by commas, for example "
        f"{example} (values in {{...}} or [...] may contain commas)."
    )
    return ConfigError(message, [message])


def _json_types(value: Any) -> set[str]:
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def coerce_for_option(name: str, text: str) -> Any:
    """:func:`coerce_value`, but keep the text when the option takes a string and not the
    coerced type: ``RUNNER_PROJECT_ID=123456`` stays ``"123456"``, ``RUNNER_PORT=8080`` is 8080."""
    value = coerce_value(text)
    if name not in option_names():
        return value
    allowed = option_schema(name).get("type", [])
    allowed = set(allowed if isinstance(allowed, list) else [allowed])
    if "string" in allowed and not (_json_types(value) & allowed):
        return text
    return value


def parse_cli_values(text: str, *, option: str) -> dict[str, Any]:
    """Parse the text of ``--config`` or ``--env`` (``option`` names it in errors).

    The text is a JSON object, or ``name=value`` pairs separated by commas; each pair is split at
    its first ``=``; commas inside ``{...}``, ``[...]`` and double quotes do not split. Values are
    coerced with :func:`coerce_value`. Raises ``ConfigError`` naming the text it could not parse.
    """
    return parse_cli_text(text, option=option, convert=lambda _name, raw: coerce_value(raw))


def parse_cli_text(text: str, *, option: str, convert: Callable[[str, str], Any]) -> dict[str, Any]:
    """:func:`parse_cli_values` with ``convert(name, raw_text)`` turning each pair's text into
    its value (JSON-object input is returned as parsed)."""
    stripped = text.strip()
    if not stripped:
        return {}
    if stripped.startswith("{"):
        try:
            parsed = parse_json(stripped)
        except ValueError as exc:
            if "=" not in stripped:
                raise _parse_error(option, text, f"it is not valid JSON ({exc})") from None
        else:
            if isinstance(parsed, dict):
                return parsed
    try:
        pairs = _split_top_level(stripped)
    except ValueError as exc:
        raise _parse_error(option, text, str(exc)) from None
    values: dict[str, Any] = {}
    for index, pair in enumerate(pairs):
        if not pair.strip():
            # `viewportWidth=1,` reads as a value cut short (`1,000`? a second pair lost?): refused, not guessed
            where = ("it ends with a comma" if index == len(pairs) - 1 else
                     "it starts with a comma" if index == 0 else "two commas have nothing between them")
            raise _parse_error(option, text, f"{where} (a pair is missing)")
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep:
            raise _parse_error(option, text, f"the part `{pair.strip()}` has no `=`")
        if not name:
            raise _parse_error(option, text, f"the part `{pair.strip()}` has no name before `=`")
        values[name] = convert(name, raw.strip())
    return values
