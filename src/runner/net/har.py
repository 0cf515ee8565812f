"""HAR files: reading the entries to replay, choosing one for a request, writing a recording.

Pure: no browser. ``runner.replay_har`` turns the entries into routes (one per method and URL,
see ``commands/har.py``'s ``replay_routes``); the browser side of ``runner.record_har`` (``engine/har_recorder.py``)
gives :func:`har_document` its entries in HAR 1.2 form.

Reading accepts HAR 1.2 as browsers and Playwright write it: a body in ``content.text``
(``encoding: "base64"`` for binary) or, from Playwright's ``attach`` mode, in a file named by
``content._file`` beside the HAR.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import CommandError

__all__ = ["HarEntry", "HarIndex", "load_har", "har_document", "written_by_runner", "CREATOR"]

CREATOR = "runner"
# headers that described the body as it crossed the wire: the replayed body is already decoded
_WIRE_HEADERS = frozenset({"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"})


@dataclass
class HarEntry:
    """One recorded exchange, ready to be answered."""

    method: str
    url: str
    request_body: bytes | None
    status: int
    status_text: str
    headers: list[tuple[str, str]]
    body: bytes

    def static_response(self) -> dict[str, Any]:
        """The StaticResponse that replays it (duplicate headers joined as HTTP allows)."""
        headers: dict[str, str] = {}
        for name, value in self.headers:
            lower = name.lower()
            if lower in _WIRE_HEADERS or lower.startswith(":"):
                continue
            joiner = "\n" if lower == "set-cookie" else ", "
            headers[lower] = f"{headers[lower]}{joiner}{value}" if lower in headers else value
        return {"statusCode": self.status, "headers": headers, "body": self.body}


@dataclass
class HarIndex:
    """Entries by method and URL. A request gets the entries with its body (any body when none
    of them has it); the same request again gets the next of them, the last one repeating."""

    groups: dict[tuple[str, str], list[HarEntry]] = field(default_factory=dict)
    _served: dict[tuple[str, str, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # handlers run in many threads

    @classmethod
    def of(cls, entries: list[HarEntry]) -> HarIndex:
        index = cls()
        for entry in entries:
            index.groups.setdefault((entry.method, entry.url), []).append(entry)
        return index

    def pick(self, method: str, url: str, body: Any) -> HarEntry | None:
        """The entry for a request (``body``: as a handler's ``req.body`` holds it: bytes, text,
        or parsed JSON, compared with the recorded body as such), or None."""
        group = self.groups.get((method.upper(), url))
        if not group:
            return None
        same = [e for e in group if _same_body(e.request_body, body)]
        if not same:
            if not _empty(body):  # a request with a body the recording never sent
                return None
            same = group
        key = (method.upper(), url, json.dumps(body, sort_keys=True, default=repr))
        with self._lock:
            served = self._served.get(key, 0)
            self._served[key] = served + 1
        return same[min(served, len(same) - 1)]


def _empty(body: Any) -> bool:
    return body is None or body == "" or body == b""


def _same_body(recorded: bytes | None, body: Any) -> bool:
    if _empty(body) or not recorded:
        return _empty(body) and not recorded
    if isinstance(body, (bytes, bytearray)):
        if bytes(body) == recorded:
            return True
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        if recorded.decode("utf-8", "replace") == body:
            return True
        body = _json_or(body)
        if isinstance(body, str):
            return False
    return _json_or(recorded.decode("utf-8", "replace")) == body  # the same JSON, however spaced


def _json_or(text: str) -> Any:
    """``text`` parsed as JSON, or ``text`` itself when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _fail(path: Path, why: str) -> CommandError:
    return CommandError(f"runner.replay_har({str(path)!r}): {why}")


def _body(content: dict[str, Any], folder: Path, path: Path, where: str) -> bytes:
    if isinstance(content.get("_file"), str):
        attached = folder / content["_file"]
        try:
            return attached.read_bytes()
        except OSError as err:
            raise _fail(path, f"{where} keeps its body in {str(attached)!r}, which cannot be read: "
                              f"{err.strerror or err}.") from err
    text = content.get("text")
    if not isinstance(text, str):
        return b""
    if content.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=False)
        except (binascii.Error, ValueError) as err:
            raise _fail(path, f"{where} has a base64 body that does not decode: {err}.") from err
    return text.encode("utf-8")


def _headers(value: Any) -> list[tuple[str, str]]:
    if not isinstance(value, list):
        return []
    return [(str(h["name"]), str(h["value"])) for h in value
            if isinstance(h, dict) and "name" in h and "value" in h]


def load_har(path: Path) -> list[HarEntry]:
    """The replayable entries of the HAR at ``path``. Raises CommandError (naming the file and
    the entry) for a file that is missing, not JSON, not a HAR, or has a broken entry; entries
    without a response (the request failed: status 0) are left out."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _fail(path, "no such file. Record one with runner.record_har(), or check the path "
                          "(relative paths are read from fixturesFolder).") from None
    except OSError as err:
        raise _fail(path, f"cannot be read: {err.strerror or err}.") from err
    except (UnicodeDecodeError, ValueError) as err:
        raise _fail(path, f"is not JSON: {err}.") from err
    entries = data.get("log", {}).get("entries") if isinstance(data, dict) and isinstance(data.get("log"), dict) else None
    if not isinstance(entries, list):
        raise _fail(path, "is not a HAR file: expected an object with log.entries (a list).")
    out: list[HarEntry] = []
    for number, raw in enumerate(entries, 1):
        where = f"entry {number}"
        if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict) or not isinstance(raw.get("response"), dict):
            raise _fail(path, f"{where} has no request or no response object.")
        request, response = raw["request"], raw["response"]
        method, url = request.get("method"), request.get("url")
        if not isinstance(method, str) or not isinstance(url, str) or not url:
            raise _fail(path, f"{where} has no request method or URL.")
        status = response.get("status")
        if not isinstance(status, int) or isinstance(status, bool) or status < 100 or status > 999:
            continue  # the request failed (0) or never got an answer: nothing to replay
        post = request.get("postData")
        request_body: bytes | None = None
        if isinstance(post, dict):
            request_body = _body(post, path.parent, path, f"{where}'s request")
        content = response.get("content") if isinstance(response.get("content"), dict) else {}
        out.append(HarEntry(
            method=method.upper(), url=url, request_body=request_body or None, status=status,
            status_text=str(response.get("statusText") or ""), headers=_headers(response.get("headers")),
            body=_body(content, path.parent, path, f"{where}'s response"),
        ))
    return out


def har_document(entries: list[dict[str, Any]], version: str) -> dict[str, Any]:
    """A HAR 1.2 document holding ``entries`` (already in HAR form), written by runner."""
    return {"log": {"version": "1.2", "creator": {"name": CREATOR, "version": version},
                    "pages": [], "entries": entries}}


def written_by_runner(path: Path) -> bool:
    """Whether the file at ``path`` is a HAR runner recorded (which a new recording may replace)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    creator = data.get("log", {}).get("creator", {}) if isinstance(data, dict) else {}
    return isinstance(creator, dict) and creator.get("name") == CREATOR
