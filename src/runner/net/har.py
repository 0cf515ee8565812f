"""HAR files: reading the entries to replay, how a request is compared with them
(:class:`HarMatching`: ignored query parameters and JSON keys, the run's secrets hidden on both
sides), choosing one for a request. Writing is ``net/har_write.py``'s.

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
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import CommandError
from runner.redaction import REDACTED, Redactor

__all__ = ["HarEntry", "HarIndex", "HarMatching", "load_har", "read_document", "entries_of", "parse_entry",
           "har_document", "written_by_runner", "CREATOR"]

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
            if lower in _WIRE_HEADERS or lower.startswith(":") or value == REDACTED:
                continue  # a hidden value (a recorded cookie) is not sent as if it were one
            joiner = "\n" if lower == "set-cookie" else ", "
            headers[lower] = f"{headers[lower]}{joiner}{value}" if lower in headers else value
        return {"statusCode": self.status, "headers": headers, "body": self.body}


class HarMatching:
    """How a request is compared with an entry: its URL without the ``ignore_query`` parameters
    and its JSON body without the ``ignore_json_keys`` keys (at any depth), both after the run's
    ``redactor`` hid its secrets (a recording holds ``[redacted]`` where the request holds the
    secret, so both sides are compared hidden)."""

    def __init__(self, ignore_query: Iterable[str] = (), ignore_json_keys: Iterable[str] = (),
                 redactor: Redactor | None = None) -> None:
        self.ignore_query = frozenset(ignore_query)
        self.ignore_json_keys = frozenset(ignore_json_keys)
        self.redactor = redactor if redactor is not None else Redactor()

    def url(self, url: str) -> str:
        """The URL as compared: secrets hidden, the ignored query parameters left out."""
        hidden = self.redactor.text(url)
        base, mark, query = hidden.partition("?")
        if not mark or not self.ignore_query:
            return hidden
        kept = [part for part in query.split("&") if part and _param_name(part) not in self.ignore_query]
        return f"{base}?{'&'.join(kept)}" if kept else base

    def url_pattern(self, url: str) -> re.Pattern[str]:
        """The regex a route takes the requests of ``url`` with: the URL itself, a hidden secret
        any text (so the route's handler compares the URL hidden: see ``commands/har.py``), the
        ignored parameters anywhere in the query with any value, or absent."""
        base, mark, query = self.redactor.text(url).partition("?")
        if not self.ignore_query:
            return re.compile("^" + _hidden_re(base) + (r"\?" + _hidden_re(query) if mark else "") + "$")
        ignored = "(?:" + "|".join(re.escape(n) for n in sorted(self.ignore_query)) + ")(?:=[^&]*)?"
        kept = [_hidden_re(p) for p in query.split("&") if p and _param_name(p) not in self.ignore_query]
        if kept:
            tail = rf"\?(?:{ignored}&)*" + f"(?:&{ignored})*&".join(kept) + f"(?:&{ignored})*"
        else:
            tail = rf"(?:\?{ignored}(?:&{ignored})*)?"
        return re.compile("^" + _hidden_re(base) + tail + "$")

    def body(self, body: Any) -> str | None:
        """The body as compared (``body``: bytes, text, or JSON as a handler's ``req.body``
        holds it): None when empty, else its text with the secrets hidden, as canonical JSON
        without the ignored keys when it is JSON."""
        if _empty(body):
            return None
        if isinstance(body, (bytes, bytearray)):
            text = bytes(body).decode("utf-8", "replace")
        elif isinstance(body, str):
            text = body
        else:
            text = json.dumps(body, ensure_ascii=False)
        text = self.redactor.body({"encoding": "utf-8", "data": text})["data"]
        parsed = _json_or(text)
        if isinstance(parsed, str) and parsed is text:
            return text
        return json.dumps(_without_keys(parsed, self.ignore_json_keys), sort_keys=True, ensure_ascii=False)


def _param_name(part: str) -> str:
    return part.partition("=")[0]


def _hidden_re(text: str) -> str:
    """``text`` as a regex, each ``[redacted]`` in it standing for the secret it hides."""
    return ".+?".join(re.escape(piece) for piece in text.split(REDACTED))


def _without_keys(value: Any, keys: frozenset[str]) -> Any:
    if not keys:
        return value
    if isinstance(value, dict):
        return {k: _without_keys(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without_keys(v, keys) for v in value]
    return value


@dataclass
class HarIndex:
    """Entries by method and URL (as ``matching`` compares them). A request gets the entries with
    its body (any body when none of them has it); the same request again gets the next of them,
    the last one repeating."""

    matching: HarMatching = field(default_factory=HarMatching)
    groups: dict[tuple[str, str], list[HarEntry]] = field(default_factory=dict)
    _bodies: dict[int, str | None] = field(default_factory=dict)  # id(entry): its body as compared
    _served: dict[tuple[str, str, str | None], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)  # handlers run in many threads

    @classmethod
    def of(cls, entries: list[HarEntry], matching: HarMatching | None = None) -> HarIndex:
        index = cls(matching if matching is not None else HarMatching())
        for entry in entries:
            index.groups.setdefault((entry.method, index.matching.url(entry.url)), []).append(entry)
            index._bodies[id(entry)] = index.matching.body(entry.request_body)
        return index

    def _candidates(self, method: str, url: str, body: Any) -> tuple[tuple[str, str, str | None], list[HarEntry]]:
        key = (method.upper(), self.matching.url(url))
        compared = self.matching.body(body)
        group = self.groups.get(key, [])
        same = [e for e in group if self._same(e, body, compared)]
        if not same and compared is None:
            same = group  # a request without a body takes any entry of its URL
        return (*key, compared), same

    def _same(self, entry: HarEntry, body: Any, compared: str | None) -> bool:
        recorded = self._bodies[id(entry)]
        if compared is None or recorded is None:
            return compared is None and recorded is None
        if isinstance(body, (bytes, bytearray)) and bytes(body) == entry.request_body:
            return True  # the same bytes, even when they are not text
        return recorded == compared

    def knows(self, method: str, url: str, body: Any) -> bool:
        """Whether a request has an entry (it would be answered from the file)."""
        return bool(self._candidates(method, url, body)[1])

    def pick(self, method: str, url: str, body: Any) -> HarEntry | None:
        """The entry for a request (``body``: as a handler's ``req.body`` holds it: bytes, text,
        or parsed JSON, compared with the recorded body as such), or None."""
        key, same = self._candidates(method, url, body)
        if not same:
            return None
        with self._lock:
            served = self._served.get(key, 0)
            self._served[key] = served + 1
        return same[min(served, len(same) - 1)]


def _empty(body: Any) -> bool:
    return body is None or body == "" or body == b""


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


def read_document(path: Path) -> dict[str, Any]:
    """The HAR document at ``path`` as it is. Raises CommandError (naming the file) for a file
    that is missing, not JSON or not a HAR."""
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
    return data


def load_har(path: Path) -> list[HarEntry]:
    """The replayable entries of the HAR at ``path``. Raises CommandError (naming the file and
    the entry) for a file that is missing, not JSON, not a HAR, or has a broken entry; entries
    without a response (the request failed: status 0) are left out."""
    return entries_of(read_document(path), path)


def entries_of(document: dict[str, Any], path: Path) -> list[HarEntry]:
    """The replayable entries of a HAR ``document`` read from ``path`` (see :func:`load_har`)."""
    out = []
    for number, raw in enumerate(document["log"]["entries"], 1):
        entry = parse_entry(raw, path, f"entry {number}")
        if entry is not None:
            out.append(entry)
    return out


def parse_entry(raw: Any, path: Path, where: str) -> HarEntry | None:
    """One entry of the HAR at ``path`` (``where``: how an error names it), or None when its
    request got no answer. Raises CommandError for a broken entry."""
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict) or not isinstance(raw.get("response"), dict):
        raise _fail(path, f"{where} has no request or no response object.")
    request, response = raw["request"], raw["response"]
    method, url = request.get("method"), request.get("url")
    if not isinstance(method, str) or not isinstance(url, str) or not url:
        raise _fail(path, f"{where} has no request method or URL.")
    status = response.get("status")
    if not isinstance(status, int) or isinstance(status, bool) or status < 100 or status > 999:
        return None  # the request failed (0) or never got an answer: nothing to replay
    post = request.get("postData")
    request_body: bytes | None = None
    if isinstance(post, dict):
        request_body = _body(post, path.parent, path, f"{where}'s request")
    content = response.get("content") if isinstance(response.get("content"), dict) else {}
    return HarEntry(
        method=method.upper(), url=url, request_body=request_body or None, status=status,
        status_text=str(response.get("statusText") or ""), headers=_headers(response.get("headers")),
        body=_body(content, path.parent, path, f"{where}'s response"),
    )


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
