"""HAR files written: a recording's entries with the run's secrets hidden, merged into the file
(``replay_har(update=...)``) and written whole, one writer at a time.

Pure: no browser. ``commands/har.py`` calls it at the end of a recording or of a test; reading
and matching are ``net/har.py``'s.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runner.errors import CommandError
from runner.file_locks import LockBusy, waiting_lock
from runner.net.har import HarEntry, HarIndex, HarMatching, entries_of, parse_entry
from runner.redaction import REDACTED, Redactor

__all__ = ["UPDATE_MODES", "redact_entry", "locked", "write_document", "merge_entries"]

#: The values ``replay_har(update=...)`` takes (None: the file is only read).
UPDATE_MODES = ("missing", "all")

_LOCK_WAIT_S = 30.0  # another writer holds the lock for one read and one write of the file


def redact_entry(entry: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """``entry`` (a HAR entry, changed in place and returned) with the run's secrets hidden: the
    values of the secret headers and of every cookie, the secret query parameters and body
    keys, and the secret values wherever they are in a URL, a header or a body."""
    for side in ("request", "response"):
        message = entry.get(side)
        if not isinstance(message, dict):
            continue
        headers = message.get("headers")
        if isinstance(headers, list):
            message["headers"] = [_header(h, redactor) for h in headers]
        cookies = message.get("cookies")
        if isinstance(cookies, list):
            message["cookies"] = [{**c, "value": REDACTED} if isinstance(c, dict) else c for c in cookies]
        for key in ("url", "redirectURL"):
            if isinstance(message.get(key), str):
                message[key] = redactor.text(message[key])
        query = message.get("queryString")
        if isinstance(query, list):
            message["queryString"] = [_param(p, redactor.query_params, redactor) for p in query]
        for key in ("postData", "content"):
            if isinstance(message.get(key), dict):
                message[key] = _content(message[key], redactor)
    return entry


def _header(header: Any, redactor: Redactor) -> Any:
    if not isinstance(header, dict) or not isinstance(header.get("value"), str):
        return header
    secret = str(header.get("name", "")).lower() in redactor.headers
    return {**header, "value": REDACTED if secret else redactor.text(header["value"])}


def _param(param: Any, secret_names: frozenset[str], redactor: Redactor) -> Any:
    if not isinstance(param, dict) or not isinstance(param.get("value"), str):
        return param
    secret = str(param.get("name", "")).lower() in secret_names
    return {**param, "value": REDACTED if secret else redactor.text(param["value"])}


def _content(content: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    out = dict(content)
    if isinstance(content.get("text"), str):
        encoding = "base64" if content.get("encoding") == "base64" else "utf-8"
        out["text"] = redactor.body({"encoding": encoding, "data": content["text"]})["data"]
    params = content.get("params")
    if isinstance(params, list):  # a form body given as its fields
        out["params"] = [_param(p, redactor.body_keys | redactor.query_params, redactor) for p in params]
    return out


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the write lock of the HAR at ``path`` (another runner process waits up to
    ``_LOCK_WAIT_S`` for it; then CommandError). The lock is a file in runner's private folder
    of the temp folder, not beside the HAR (the fixtures folder is the user's)."""
    try:
        with waiting_lock(path, "har", _LOCK_WAIT_S):
            yield
    except LockBusy as busy:
        raise CommandError(f"{busy}; it was not written.") from None


def write_document(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` whole or not at all (a temporary file beside it, renamed
    over it). Raises OSError when it cannot be written; the old file is then as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1, ensure_ascii=False)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def merge_entries(document: dict[str, Any], path: Path, recorded: list[dict[str, Any]], mode: str,
                  matching: HarMatching) -> list[dict[str, Any]]:
    """Merge ``recorded`` (HAR entries of the test) into ``document`` (the file at ``path`` as
    read now, changed in place); return the entries it gained. ``missing``: the recorded
    requests the file has no entry for (as a replay matches them) are added. ``all``: every
    recorded request is added, and the file's entries for the same requests (method, URL and
    body as a replay compares them) are dropped; the others stay. Only what the server answered
    is added (``_answeredBy``: not a route's answer, not a request that got none). Raises CommandError for a broken entry of the file."""
    entries: list[Any] = document["log"]["entries"]
    from_server = [raw for raw in recorded if raw.get("_answeredBy") == "server"]  # not a route's answer
    answered = [(raw, parsed) for raw, parsed in ((raw, parse_entry(raw, path, "a recorded entry"))
                                                  for raw in from_server) if parsed is not None]
    if mode == "missing":
        index = HarIndex.of(entries_of(document, path), matching)
        added = [raw for raw, parsed in answered if not _known(index, parsed)]
    else:
        index = HarIndex.of([parsed for _raw, parsed in answered], matching)
        kept = []
        for number, raw in enumerate(entries, 1):
            old = parse_entry(raw, path, f"entry {number}")
            if old is None or not _known(index, old):
                kept.append(raw)
        entries[:] = kept
        added = [raw for raw, _parsed in answered]
    entries.extend(added)
    return added


def _known(index: HarIndex, entry: HarEntry) -> bool:
    return index.knows(entry.method, entry.url, entry.request_body)
