"""A kept Playwright trace with the run's secrets hidden, and (``redact.traceBodies: false``)
without the request and response bodies of its network log.

Playwright writes the trace itself: its actions carry their parameters (the text typed, the URL
visited), its DOM snapshots the values of inputs, its network log every header, cookie and URL.
Once the file is written, :func:`scrub_trace` rewrites the JSON lines of its action and network
logs with the same rules as the run's events (secret values and query parameters hidden; the
values of secret headers, of every cookie, and of query, form and body entries named by the
``redact`` option), and the secret values in its copies of the test's source files. The bodies are the trace's ``resources/`` files, kept as Playwright saved
them unless ``drop_bodies``: then every resource the network log names as a body is left out
(time travel then shows pages without their stylesheets and images).
"""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from pathlib import Path
from typing import Any

from runner.redaction.rules import REDACTED, Redactor

__all__ = ["scrub_trace"]

# the entries of a trace that are JSON lines: actions and snapshots, the network log
_JSON_LINES = (".trace", ".network")


def scrub_trace(path: Path, redactor: Redactor, *, drop_bodies: bool = False) -> None:
    """Rewrite the trace ``path`` (a zip) in place with its secrets hidden. Raises ``OSError``
    or ``zipfile.BadZipFile`` when it cannot be read or written (the file is then unchanged)."""
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]
    dropped: set[str] = set()
    if drop_bodies:
        for info, data in entries:
            if info.filename.endswith(".network"):
                dropped |= _body_files(data)
    temporary = path.with_name(f".{path.name}.scrub")
    try:
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as out:
            for info, data in entries:
                if info.filename in dropped:
                    continue
                if info.filename.endswith(_JSON_LINES):
                    data = _scrub_lines(data, redactor, drop_bodies)
                elif info.filename.startswith("src/"):  # the copies of the sources the steps point at
                    data = redactor.text(data.decode("utf-8", errors="replace")).encode("utf-8")
                out.writestr(info.filename, data)
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def _body_files(data: bytes) -> set[str]:
    """The ``resources/...`` files the network log names as request or response bodies."""
    names: set[str] = set()
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        snapshot = entry.get("snapshot") if isinstance(entry, dict) else None
        if not isinstance(snapshot, dict):
            continue
        for part, body in (("request", "postData"), ("response", "content")):
            holder = (snapshot.get(part) or {}).get(body)
            if isinstance(holder, dict):
                for key in ("_file", "_sha1"):
                    if isinstance(holder.get(key), str):
                        names.add(holder[key] if key == "_file" else f"resources/{holder[key]}")
    return names


def _scrub_lines(data: bytes, redactor: Redactor, drop_bodies: bool) -> bytes:
    lines = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            lines.append(redactor.text(line))  # not JSON (cut short?): searched as text
            continue
        lines.append(json.dumps(_scrub(entry, redactor, drop_bodies), ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")


def _scrub(value: Any, redactor: Redactor, drop_bodies: bool, key: str = "") -> Any:
    if isinstance(value, str):
        return redactor.text(value)
    if isinstance(value, list):
        if key == "cookies":  # the network log's parsed Cookie / Set-Cookie headers
            return [{**c, "value": REDACTED} if isinstance(c, dict) and "value" in c
                    else _scrub(c, redactor, drop_bodies) for c in value]
        return [_scrub(item, redactor, drop_bodies, key) for item in value]
    if isinstance(value, dict):
        name = value.get("name")
        secret = isinstance(name, str) and "value" in value and (
            name.lower() in redactor.headers or name.lower() in redactor.query_params
            or name.lower() in redactor.body_keys)
        out: dict[str, Any] = {}
        for k, v in value.items():
            if secret and k == "value":
                out[k] = REDACTED
            elif drop_bodies and k in ("postData", "content") and isinstance(v, dict):
                out[k] = {ck: cv for ck, cv in v.items() if ck not in ("_file", "_sha1", "text", "params")}
            else:
                out[k] = _scrub(v, redactor, drop_bodies, str(k))
        return out
    return value
