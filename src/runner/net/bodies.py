"""How an HTTP body is handed to user code, and how a value from user code becomes a body.

One rule for every body a test sees: intercepted requests and responses (``runner.intercept()``)
and the responses of ``runner.request()``.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

__all__ = ["KEPT_BODY_BYTES", "MAX_READ_BODY_BYTES", "NULL_ENCODINGS", "body_record", "body_refusal", "decode_body", "encode_body",
           "is_binary", "is_json_type", "json_body_problem", "split_spec", "text_in_encoding", "to_json_bytes"]

_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]+\+)?json\b|^text/json\b", re.I)


def is_json_type(content_type: str | None) -> bool:
    return bool(content_type) and bool(_JSON_TYPE.match(content_type.strip()))  # type: ignore[union-attr]


_CONTROL_BYTES = re.compile(rb"[\x00-\x08]")


def is_binary(data: bytes, content_type: str | None) -> bool:
    """Whether a body should be handed to user code as bytes rather than text.

    The original's rule: a declared ``charset=utf-8`` is text and multipart is binary; otherwise
    a body holding a control character at or below 8 (NUL, backspace...) or anything that is not
    UTF-8 is binary. (The original looks at three 24-byte samples of the body; we look at all of
    it, so a text whose middle is not UTF-8 is never handed over with replacement characters.)
    """
    ctype = (content_type or "").lower()
    if "charset=utf-8" in ctype.replace('"', "").replace(" ", ""):
        return False
    if ctype.startswith("multipart/"):
        return True  # files inside form data would be corrupted as text
    if _CONTROL_BYTES.search(data):
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def decode_body(data: bytes | None, content_type: str | None, *, parse_json: bool = True) -> tuple[Any, bool]:
    """The body as user code sees it, and whether it was JSON-parsed.

    bytes if binary, else text; JSON-parsed when the content type is JSON-like and the text is
    valid JSON. No body gives ``""``.
    """
    if not data:
        return "", False
    if is_binary(data, content_type):
        return bytes(data), False
    text = data.decode("utf-8", errors="replace")
    if parse_json and is_json_type(content_type):
        try:
            return json.loads(text), True
        except ValueError:
            return text, False
    return text, False


#: The encodings that mean "the file's bytes as they are" (``"logo.png,null"``).
NULL_ENCODINGS = ("null", "none")


def split_spec(spec: str) -> tuple[str, str | None, bool]:
    """Split a fixture spec ``"path,encoding"`` (``runner.fixture`` and a StaticResponse's
    ``fixture``). Returns (path, encoding or None for the bytes, whether an encoding was given)."""
    if "," in spec:
        path, encoding = spec.rsplit(",", 1)
        encoding = encoding.strip()
        return path.strip(), (None if encoding.lower() in NULL_ENCODINGS else encoding), True
    return spec.strip(), None, False


_ENCODING_NAMES = {"utf8": "utf-8", "binary": "latin-1", "latin1": "latin-1", "ucs2": "utf-16-le",
                   "ucs-2": "utf-16-le", "utf16le": "utf-16-le"}


def text_in_encoding(data: bytes, encoding: str) -> str:
    """``data`` read as text in ``encoding``: a Python codec name, or one of the original's
    (``utf8``, ``latin1``, ``binary``, ``ucs2``, ``utf16le``, ``ascii``, ``base64``, ``hex``).
    Raises LookupError for an unknown encoding and UnicodeDecodeError for bytes it cannot read."""
    name = encoding.strip().lower()
    if name == "base64":
        return base64.b64encode(data).decode("ascii")
    if name == "hex":
        return data.hex()
    return data.decode(_ENCODING_NAMES.get(name, name))


def to_json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_ACCEPTED = ("str, bytes, or JSON data (dict, list or tuple, str, int, finite float, bool, None; "
             "dict keys str, int, float, bool or None)")


def json_body_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a body (None when it can): what :func:`encode_body` accepts is a
    str, bytes, or JSON data. The first bad value is named, with where it is (``[1]["a"]``)."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return None
    return _json_problem(value, "", set())


def _json_problem(value: Any, where: str, open_ids: set[int]) -> str | None:
    at = f" at {where}" if where else ""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return f"the float {value!r}{at} is not JSON (JSON has no NaN or Infinity)"
        return None
    if isinstance(value, (dict, list, tuple)):
        if id(value) in open_ids:
            return f"the {type(value).__name__}{at} contains itself (a circular reference)"
        open_ids.add(id(value))
        try:
            if isinstance(value, dict):
                for key, item in value.items():
                    if not (key is None or isinstance(key, (str, int, float, bool))):
                        return f"the dict key {key!r}{at} is a {type(key).__name__}"
                    problem = _json_problem(item, f"{where}[{key!r}]", open_ids)
                    if problem:
                        return problem
            else:
                for index, item in enumerate(value):
                    problem = _json_problem(item, f"{where}[{index}]", open_ids)
                    if problem:
                        return problem
        finally:
            open_ids.discard(id(value))
        return None
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"{shown}{at} is of type {type(value).__name__}, which is not JSON"


def body_refusal(value: Any, what: str) -> str | None:
    """The message refusing ``value`` as ``what`` (a body given by the user), or None."""
    problem = json_body_problem(value)
    if problem is None:
        return None
    return (f"{what} must be {_ACCEPTED}; {problem}. Convert it first (a set to a list, a Decimal to "
            "a str or float, a generator to a list), or send bytes or a str you encoded yourself.")


def encode_body(value: Any) -> tuple[bytes, bool]:
    """Bytes of a user body, and whether it was JSON-encoded (objects, numbers, booleans, None)."""
    if isinstance(value, str):
        return value.encode("utf-8"), False
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value), False
    return to_json_bytes(value), True


#: The most of one response body runner reads itself, once decompressed (a handler route's
#: response, ``runner.request()``, a clientCertificates request): past it the body is refused,
#: so a small compressed "bomb" cannot take the test process to gigabytes (docs/interception.md).
MAX_READ_BODY_BYTES = 128 * 1024 * 1024


#: The most of one body a run's events keep (the rest is cut, its size still told).
KEPT_BODY_BYTES = 1024 * 1024


def body_record(data: bytes | None, content_type: str | None, *, limit: int = KEPT_BODY_BYTES) -> dict[str, Any] | None:
    """A body as the run's events keep it (plain JSON): ``size`` (bytes), ``content_type``,
    ``encoding`` ("utf-8" for text, "base64" for anything else), ``data`` (at most ``limit``
    bytes of it) and ``cut`` (whether it was longer). None for no body at all."""
    if data is None:
        return None
    kept = data[:limit]
    binary = is_binary(kept, content_type)
    if not binary:
        text = kept.decode("utf-8", errors="ignore")  # a cut may split a character: drop its half
    else:
        import base64

        text = base64.b64encode(kept).decode("ascii")
    return {"size": len(data), "content_type": content_type or "", "encoding": "base64" if binary else "utf-8",
            "data": text, "cut": len(data) > limit}
