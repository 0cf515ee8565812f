"""StaticResponse: classification, validation (1b.2), shorthands (1b.5) and normalisation (1b.3).

A StaticResponse dict is validated and normalised once into a :class:`StaticResponse` object
with canonical fields; the bytes sent to the page are produced by :func:`render` when it is used
(fixtures are read then, so a fixture edited during a run is served fresh).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from runner.errors import UsageError
from runner.net.bodies import body_refusal, encode_body, split_spec, text_in_encoding

from ._util import (
    MISSING,
    guess_content_type,
    is_finite_non_negative,
    is_number,
    looks_like_html,
    show,
)
from .headers import header_has, header_set, headers_problem

__all__ = [
    "STATIC_KEYS",
    "StaticResponse",
    "is_static_like",
    "mistaken_keys",
    "mistaken_static_warning",
    "parse_static",
    "parse_shorthand",
]

# canonical keys, and the snake_case spellings accepted for them
STATIC_KEYS = ("body", "fixture", "statusCode", "headers", "forceNetworkError", "delay", "throttleKbps", "log")
_ALIASES = {
    "status_code": "statusCode",
    "force_network_error": "forceNetworkError",
    "throttle_kbps": "throttleKbps",
}


def _canon(key: Any) -> Any:
    return _ALIASES.get(key, key) if isinstance(key, str) else key


def is_static_like(value: Any) -> bool:
    """A dict with any StaticResponse key, or an empty dict, is a StaticResponse (1a.10)."""
    return isinstance(value, dict) and (not value or any(_canon(k) in STATIC_KEYS for k in value))


# Near misses of StaticResponse keys, by their letters alone (lower case, no "_" or "-"):
# the keys one edit away from these read as the StaticResponse key.
_NEAR = {"statuscode": "statusCode", "headers": "headers", "fixture": "fixture", "delay": "delay",
         "throttlekbps": "throttleKbps", "forcenetworkerror": "forceNetworkError"}
# ... and the spellings further away that people write for them (and one edit from those)
_WRITTEN = {"status": "statusCode", "delayms": "delay", "throttle": "throttleKbps", "networkerror": "forceNetworkError"}


def _near_key(key: Any) -> str | None:
    """The StaticResponse key ``key`` misspells (``status``, ``header``, ``delay_ms``, ``fixtures``,
    ``StatusCode``), else None. A key StaticResponse accepts is no misspelling."""
    if not isinstance(key, str) or _canon(key) in STATIC_KEYS:
        return None
    letters = key.lower().replace("_", "").replace("-", "")
    if letters in _WRITTEN:
        return _WRITTEN[letters]
    return next((real for near, real in (*_NEAR.items(), *_WRITTEN.items()) if _one_edit(letters, near)), None)


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` or one insertion, deletion, substitution or swap of two
    neighbouring letters away from it."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _fits(real: str, value: Any) -> bool:
    """Whether ``value`` is what the StaticResponse key ``real`` takes (a status 100-599, a dict
    of headers, a fixture path, a number of ms or kbps, a flag)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if real == "statusCode":
        return isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599
    if real == "headers":
        return isinstance(value, Mapping) and all(
            isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in value.items())
    if real == "fixture":
        return isinstance(value, str)
    if real == "forceNetworkError":
        return isinstance(value, bool)
    return number and value >= 0  # delay, throttleKbps


def mistaken_keys(value: Any) -> dict[str, str]:
    """For a dict sent as a JSON body (it has no StaticResponse key) that reads as a mistaken
    StaticResponse: each of its keys and the StaticResponse key it misspells. Only when every
    key misspells one and holds what that key takes (``{"status": 500}``, ``{"status": 404,
    "header": {...}}``), so a body like ``{"status": "ok"}`` or ``{"status": 200, "data": [...]}``
    gives ``{}``."""
    if not isinstance(value, dict) or is_static_like(value):
        return {}
    found = {key: _near_key(key) for key in value}
    if not all(real is not None and _fits(real, value[key]) for key, real in found.items()):
        return {}
    return {key: real for key, real in found.items() if real is not None}


def mistaken_static_warning(value: dict[str, Any], keys: Mapping[str, str]) -> str:
    """The warning for a body dict whose ``keys`` misspell StaticResponse keys."""
    meant = ", ".join(f"`{real}` for `{key}`" for key, real in keys.items())
    fixed = {keys.get(k, k): v for k, v in value.items()}
    return (
        f"runner.intercept() sends {show(value)} as the JSON body of a 200 response: a dict with no "
        f"StaticResponse key is the body. Did you mean {meant}? As a StaticResponse: {show(fixed)}. "
        f'To send this dict as the body and not be told again, write {{"body": {show(value)}}}.'
    )


@dataclass
class StaticResponse:
    """A validated StaticResponse. ``body`` is :data:`MISSING` when not given."""

    body: Any = MISSING
    fixture: str | None = None
    status_code: int | None = None
    headers: dict[str, str] | None = None
    force_network_error: bool = False
    delay: float | None = None
    throttle_kbps: float | None = None
    log: bool | None = None
    given: tuple[str, ...] = field(default=())

    @property
    def is_response(self) -> bool:
        """False for a dict whose only key is ``log``: such a route only spies (1b.3). An empty
        dict is a response: an empty 200 (1a.10)."""
        return not self.given or any(k != "log" for k in self.given)


def _prefix(cmd: str) -> str:
    return f"An invalid StaticResponse was supplied to `{cmd}()`."


def parse_static(value: Mapping[str, Any], cmd: str) -> StaticResponse:
    """Validate a StaticResponse dict (1b.2 with our stricter decisions). Raises UsageError."""

    def fail(message: str) -> UsageError:
        return UsageError(f"{_prefix(cmd)} {message} You passed: {show(value)}")

    canon: dict[str, Any] = {}
    unknown = []
    for key, item in value.items():
        ckey = _canon(key)
        if ckey in STATIC_KEYS:
            canon[ckey] = item
        else:
            unknown.append(str(key))
    if unknown:
        listed = ", ".join(f"`{k}`" + (f" (did you mean `{_near_key(k)}`?)" if _near_key(k) else "") for k in unknown)
        raise fail(
            f"Unknown StaticResponse key(s): {listed}. Valid keys are: {', '.join(STATIC_KEYS)}. "
            'To send a dict as the response body, put it under `body`: {"body": {...}}.'
        )
    fne = canon.get("forceNetworkError", False)
    if fne and any(canon.get(k) is not None for k in ("body", "statusCode", "headers")):
        raise fail("`forceNetworkError`, if passed, must be the only option in the StaticResponse.")
    body = canon.get("body", MISSING)
    if body not in (MISSING, None, "", b"") and canon.get("fixture"):
        raise fail("`body` and `fixture` cannot both be set, pick one.")
    refusal = body_refusal(body, "`body`") if body not in (MISSING, None) else None
    if refusal is not None:  # refused now, not when a request arrives (json.dumps would fail then)
        raise UsageError(f"{_prefix(cmd)} {refusal}")  # names the bad value itself (show() would disguise it)
    fixture = canon.get("fixture")
    if fixture is not None and not isinstance(fixture, str):
        raise fail(
            "`fixture` must be a string containing a path and, optionally, an encoding separated "
            'by a comma (for example, "foo.txt,ascii").'
        )
    status = canon.get("statusCode")
    if status is not None and not (isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 999):
        raise fail("`statusCode` must be a number between 100 and 999 (inclusive).")
    headers = canon.get("headers")
    if headers is not None and not (
        isinstance(headers, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
    ):
        raise fail("`headers` must be a map of strings to strings.")
    problem = headers_problem(headers) if headers is not None else None
    if problem is not None:
        raise fail(problem)
    throttle = canon.get("throttleKbps")
    if throttle is not None and not is_finite_non_negative(throttle):
        raise fail("`throttleKbps` must be a finite, positive number.")
    delay = canon.get("delay")
    if delay is not None and not is_finite_non_negative(delay):
        raise fail("`delay` must be a finite, positive number.")
    log = canon.get("log")
    if log is not None and not isinstance(log, bool):
        raise fail("`log` must be a boolean.")
    return StaticResponse(
        body=body,
        fixture=fixture or None,
        status_code=status,
        headers=dict(headers) if headers is not None else None,
        force_network_error=bool(fne),
        delay=delay,
        throttle_kbps=throttle,
        log=log,
        given=tuple(canon),
    )


def parse_shorthand(args: tuple[Any, ...], kwargs: Mapping[str, Any], cmd: str) -> StaticResponse | None:
    """The StaticResponse meant by ``req.reply(...)`` / ``res.send(...)`` arguments (1b.5).

    ``()`` gives None. ``(status, body?, headers?)``; ``(body, headers?)`` for a str, bytes,
    list or non-StaticResponse dict; otherwise ``(static_response)``. Keyword arguments are
    StaticResponse keys (``status_code=404, body=...``) and may complete a positional form.
    """
    if not args and not kwargs:
        return None
    spec: dict[str, Any] = {}
    if args:
        first = args[0]
        if is_number(first) and len(args) <= 3:
            spec["statusCode"] = first
            if len(args) > 1 and args[1] is not None:
                spec["body"] = args[1]
            if len(args) > 2 and isinstance(args[2], Mapping):
                spec["headers"] = args[2]
        elif len(args) <= 2 and (
            isinstance(first, (str, bytes, bytearray, list)) or (isinstance(first, dict) and not is_static_like(first))
        ):
            spec["body"] = first
            if len(args) > 1 and isinstance(args[1], Mapping):
                spec["headers"] = args[1]
        elif len(args) == 1 and isinstance(first, dict):
            spec.update(first)
        else:
            raise UsageError(
                f"{_prefix(cmd)} Pass a StaticResponse dict, `(body, headers?)` or "
                f"`(status_code, body?, headers?)`. You passed: {show(list(args))}"
            )
    spec.update(kwargs)
    if "log" in spec:
        raise UsageError(
            f"{_prefix(cmd)} `log` can only be given when defining the route with "
            f"`runner.intercept()`, not in `{cmd}()`. You passed: {show(spec)}"
        )
    return parse_static(spec, cmd)


@dataclass
class Rendered:
    """A StaticResponse turned into what the page receives (before the CORS headers)."""

    status: int
    headers: dict[str, str]
    body: bytes
    body_value: Any  # what the interception record shows as the body
    delay: float | None
    throttle_kbps: float | None


def load_fixture_body(spec: str, load: Callable[[str], bytes]) -> tuple[bytes, str]:
    """The fixture's bytes and its guessed content type (extension, else content).

    ``"path,encoding"`` decodes the file with that encoding and sends the text (as UTF-8, the
    content type saying so); ``"path,null"`` and a plain path send the file's bytes as they are.
    Raises ValueError for an encoding that cannot read the file."""
    data = load(spec)
    path, encoding, _given = split_spec(spec)
    ctype = guess_content_type(path, data)
    if encoding:
        try:
            text = text_in_encoding(data, encoding)
        except LookupError as err:
            raise ValueError(f"the encoding {encoding!r} is not one Python knows (expected e.g. "
                             "utf8, latin1, base64, hex, or null for the file's bytes)") from err
        except UnicodeDecodeError as err:
            raise ValueError(f"the file is not valid {encoding}: {err}") from err
        data = text.encode("utf-8")
        if ctype.startswith("text/") or ctype in ("application/json", "application/javascript"):
            ctype = f"{ctype}; charset=utf-8"
    if ctype.startswith("application/json") and data.strip() == b"null":
        data = b'""'  # a fixture whose content is null is served as "" (JSON for an empty string)
    return data, ctype


def render(static: StaticResponse, load: Callable[[str], bytes]) -> Rendered:
    """Normalise a StaticResponse for fulfilment (1b.3, 1b.4). Defaults: 200, {}, ``""``."""
    headers = dict(static.headers or {})
    body_value: Any
    if static.fixture:
        body, ctype = load_fixture_body(static.fixture, load)
        if not header_has(headers, "content-type"):
            headers["content-type"] = ctype
        body_value = body
    elif static.body is MISSING:
        body, body_value = b"", ""
    else:
        body, as_json = encode_body(static.body)
        body_value = static.body
        if as_json and not header_has(headers, "content-type"):
            headers["content-type"] = "application/json"
    if not header_has(headers, "content-type") and body:
        try:
            if looks_like_html(body.decode("utf-8")):
                header_set(headers, "content-type", "text/html")
        except UnicodeDecodeError:
            pass
    return Rendered(
        status=static.status_code or 200,
        headers=headers,
        body=body,
        body_value=body_value,
        delay=static.delay,
        throttle_kbps=static.throttle_kbps,
    )


def throttle_seconds(size: int, kbps: float | None) -> float:
    """Seconds the body of ``size`` bytes takes at ``kbps`` kilobits per second (1 kbps = 1000 bit/s)."""
    if not kbps or size <= 0:
        return 0.0  # 0 means "no throttle"
    return size * 8 / (kbps * 1000)

