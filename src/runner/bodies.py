"""How an HTTP body is handed to user code, and how a value from user code becomes a body.

One rule for every body a test sees: intercepted requests and responses (``runner.intercept()``)
and the responses of ``runner.request()``.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["decode_body", "encode_body", "is_binary", "is_json_type", "to_json_bytes"]

_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]+\+)?json\b|^text/json\b", re.I)


def is_json_type(content_type: str | None) -> bool:
    return bool(content_type) and bool(_JSON_TYPE.match(content_type.strip()))  # type: ignore[union-attr]


def is_binary(data: bytes, content_type: str | None) -> bool:
    """Whether a body should be handed to user code as bytes rather than text."""
    ctype = (content_type or "").lower()
    if ctype.startswith("multipart/"):
        return True  # files inside form data would be corrupted as text
    if "charset=utf-8" in ctype.replace('"', "").replace(" ", ""):
        return False
    if b"\x00" in data:
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


def to_json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def encode_body(value: Any) -> tuple[bytes, bool]:
    """Bytes of a user body, and whether it was JSON-encoded (objects, numbers, booleans, None)."""
    if isinstance(value, str):
        return value.encode("utf-8"), False
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value), False
    return to_json_bytes(value), True
