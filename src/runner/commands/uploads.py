"""``select_file``'s files: paths, bytes and the original's file objects made one list of payloads.

A file is a path (``str`` or ``Path``: relative ones are looked up in ``fixturesFolder`` first,
then in the project root, as the original does), or a dict like the original's file object:
``contents`` (bytes; a path; or any other JSON value, sent as its JSON text), ``fileName`` (or
``file_name``), ``mimeType`` (``mime_type``) and ``lastModified`` (``last_modified``, ms since the
epoch). Bare bytes are a file without a name (``""``), as in the original. :data:`DROP_SCRIPT` is the drop
of these files on an element, as a user dragging them from the desktop.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from pathlib import Path
from typing import Any

from runner.casing import camel_to_snake
from runner.errors import CommandError, UsageError

__all__ = ["file_payloads", "drop_arg", "DROP_SCRIPT"]

_KEYS = {"contents", "file_name", "mime_type", "last_modified"}

# el: the drop target; files: [{name, mimeType, lastModified, base64}]. dragenter, dragover and
# drop carry one DataTransfer holding the files; a file input dropped on also takes them.
DROP_SCRIPT = """(el, files) => {
  const dt = new DataTransfer();
  for (const f of files) {
    const raw = atob(f.base64), bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    const init = {type: f.mimeType};
    if (f.lastModified !== null) init.lastModified = f.lastModified;
    dt.items.add(new File([bytes], f.name, init));
  }
  const r = el.getBoundingClientRect();
  const at = {clientX: r.x + r.width / 2, clientY: r.y + r.height / 2};
  for (const type of ["dragenter", "dragover", "drop"]) {
    el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, composed: true, dataTransfer: dt, ...at}));
  }
  if (el.tagName === "INPUT" && el.type === "file") {
    el.files = dt.files;
    el.dispatchEvent(new Event("input", {bubbles: true, composed: true}));
    el.dispatchEvent(new Event("change", {bubbles: true}));
  }
}"""


def file_payloads(files: Any, fixtures: Path | None, root: Path, command: str) -> list[dict[str, Any]]:
    """Each file as ``{name, mimeType, lastModified, buffer}``; raises ``UsageError`` for what is
    not a file and ``CommandError`` for a path that names no file (saying where it looked), each
    message starting with ``command`` (``get('#f').select_file()``)."""
    items = list(files) if isinstance(files, (list, tuple)) else [files]
    if not items:
        raise UsageError(f"{command} needs at least one file; found an empty list.")
    return [_payload(item, fixtures, root, command) for item in items]


def _payload(item: Any, fixtures: Path | None, root: Path, command: str) -> dict[str, Any]:
    if isinstance(item, (str, Path)):
        return _from_path(item, fixtures, root, None, command)
    if isinstance(item, (bytes, bytearray)):
        item = {"contents": item}  # a file without a name, as the original makes of a bare Buffer
    if not isinstance(item, dict):
        raise UsageError(
            f"{command} takes a path, a dict with contents and fileName, or a list of them; found {item!r}."
        )
    given = {camel_to_snake(str(k)): v for k, v in item.items()}
    unknown = sorted(set(given) - _KEYS)
    if unknown or "contents" not in given:
        raise UsageError(
            f"{command} takes a file as {{'contents', 'fileName', 'mimeType', 'lastModified'}}; "
            f"found the keys {sorted(item)!r}" + ("." if "contents" in given else ", without 'contents'.")
        )
    contents, name = given["contents"], given.get("file_name")
    if isinstance(contents, (str, Path)):
        payload = _from_path(contents, fixtures, root, name, command)
    else:
        data = bytes(contents) if isinstance(contents, (bytes, bytearray)) else _json_bytes(contents, command)
        payload = {"name": "" if name is None else str(name), "buffer": data, "lastModified": None}
    if given.get("mime_type") is not None:
        payload["mimeType"] = str(given["mime_type"])
    else:
        payload["mimeType"] = mimetypes.guess_type(payload["name"])[0] or "application/octet-stream"
    if given.get("last_modified") is not None:
        payload["lastModified"] = given["last_modified"]
    return payload


def _json_bytes(contents: Any, command: str) -> bytes:
    """``contents`` as its JSON text; ``UsageError`` for what is not JSON data."""
    try:
        return json.dumps(contents).encode()
    except (TypeError, ValueError):
        raise UsageError(f"{command} takes contents as bytes, a path, or JSON data (dict, list, str, int, "
                         f"float, bool, None); found {contents!r}.") from None


def _from_path(path: str | Path, fixtures: Path | None, root: Path, name: Any, command: str) -> dict[str, Any]:
    """The file at ``path``: absolute, else in ``fixtures`` (when set), else in ``root``."""
    given = Path(path)
    places = [given] if given.is_absolute() else [p / given for p in (fixtures, root) if p is not None]
    for place in places:
        if place.is_file():
            return {"name": place.name if name is None else str(name), "buffer": place.read_bytes(),
                    "mimeType": mimetypes.guess_type(place.name)[0] or "application/octet-stream",
                    "lastModified": int(place.stat().st_mtime * 1000)}
    raise CommandError(
        f"{command} failed because the file does not exist: {str(path)!r}.\n"
        f"Looked for: {' and '.join(str(p.resolve()) for p in places)}\n"
        "A relative path is read from fixturesFolder first, then from the project root."
    )


def drop_arg(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The payloads as :data:`DROP_SCRIPT` takes them (bytes as base64 text)."""
    return [{"name": p["name"], "mimeType": p["mimeType"], "lastModified": p["lastModified"],
             "base64": base64.b64encode(p["buffer"]).decode("ascii")} for p in payloads]
