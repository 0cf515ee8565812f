"""An intercepted body as the report shows it: inline text (at most :data:`INLINE_BYTES`), an
image, and the whole recorded body as a file to download when it is not all shown inline.

The events carry what runner held of each body (``runner.net.bodies.body_record``: ``size``,
``content_type``, ``encoding`` "utf-8" or "base64", ``data``, ``cut``), or None when runner had
none: no body at all, or a server's response that the test never read (it went straight to the
page; a trace still has it).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

__all__ = ["INLINE_BYTES", "body_view"]

#: The most of a body's text shown in the page; the whole recorded body is a download past it.
INLINE_BYTES = 64 * 1024

_IMAGES = {"image/png": "png", "image/jpeg": "jpg", "image/jpg": "jpg", "image/gif": "gif",
           "image/webp": "webp", "image/avif": "avif", "image/bmp": "bmp", "image/x-icon": "ico",
           "image/vnd.microsoft.icon": "ico"}
_JSON = re.compile(r"^(?:application|text)/(?:[\w.+-]+\+)?json\b", re.I)

#: writes ``data`` as a file of the report named with ``suffix``; returns its path in the report
WriteFile = Callable[[bytes, str], str]


def _kind(content_type: str, text: str | None) -> str:
    ctype = content_type.split(";")[0].strip().lower()
    if ctype in _IMAGES:
        return "image"
    if ctype == "image/svg+xml":
        return "svg"
    if text is None:
        return "binary"
    if _JSON.match(ctype) or (not ctype and text.lstrip()[:1] in ("{", "[")):
        return "json"
    return "text"


def body_view(record: Any, *, size: int | None, present: bool, write: WriteFile) -> dict[str, Any]:
    """What the report shows of one body.

    ``record``: the body runner recorded (or None); ``size``: its size as the request row tells
    it; ``present``: whether there was something to have a body (a response that came). Returns
    ``{"state": "none"}`` (no body), ``{"state": "unrecorded", "size": ...}`` or the recorded body:
    ``state`` "recorded", ``size``, ``type`` (content type), ``kind`` (json, text, svg, image,
    binary), ``text`` (at most :data:`INLINE_BYTES` of it), ``shownCut`` (the text is a part),
    ``recordCut`` (runner kept only the start of the body), ``file`` (the whole recorded body,
    when not all of it is inline), ``image`` (the image's file).
    """
    if not isinstance(record, dict) or not isinstance(record.get("data"), str):
        if not present or size == 0:
            return {"state": "none"}
        return {"state": "unrecorded", "size": size}
    data: str = record["data"]
    content_type = str(record.get("content_type") or "")
    total = record.get("size") if isinstance(record.get("size"), int) else size
    view: dict[str, Any] = {"state": "recorded", "size": total, "type": content_type,
                            "recordCut": bool(record.get("cut"))}
    if record.get("encoding") == "base64":
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return {**view, "kind": "text", "text": "(runner could not decode this body's base64)"}
        kind = _kind(content_type, None)
        view["kind"] = kind
        extension = _IMAGES.get(content_type.split(";")[0].strip().lower(), "bin")
        view["file"] = write(raw, extension)
        if kind == "image":
            view["image"] = view["file"]
        return view
    kind = _kind(content_type, data)
    view["kind"] = kind
    encoded = data.encode("utf-8")
    if len(encoded) <= INLINE_BYTES:
        view["text"] = data
        return view
    view["text"] = encoded[:INLINE_BYTES].decode("utf-8", errors="ignore")
    view["shownCut"] = True
    view["file"] = write(encoded, "txt")
    return view
