"""Reading fixture files: ``runner.fixture(path)`` and the ``fixture`` of a StaticResponse.

``path`` may carry an encoding after a comma (``"logo.png,null"``, ``"notes.txt,latin-1"``). The
default encoding depends on the extension, as in the original: JSON is parsed, images are read as
base64 text, other files as UTF-8 text; the encoding ``null`` (or ``None``) gives raw bytes.
A path without extension is looked up with the usual extensions, in order.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from runner.errors import CommandError, UsageError
from runner.net.bodies import NULL_ENCODINGS, split_spec, text_in_encoding

__all__ = ["resolve_fixture", "read_fixture_bytes", "read_fixture"]

_IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp", ".ico"}
_BINARY_EXTS = {".zip", ".pdf", ".gz", ".woff", ".woff2", ".ttf", ".mp4", ".mp3", ".wav"}
_SEARCH_EXTS = (".json", ".js", ".txt", ".html", ".htm", ".csv", ".png", ".jpg", ".jpeg", ".gif",
                ".tif", ".tiff", ".zip", ".xml", ".svg")


def resolve_fixture(folder: Path | None, path: str) -> Path:
    """Find the fixture file; raises ``CommandError`` naming the folder and what was tried."""
    if folder is None:
        raise CommandError(
            f"runner.fixture({path!r}) failed: fixturesFolder is set to false.\n"
            "Set fixturesFolder in runner.json to the folder that holds your fixtures."
        )
    if not path:
        raise UsageError("runner.fixture() needs a file path (relative to fixturesFolder); found ''.")
    candidate = (folder / path).resolve()
    if candidate.is_file():
        return candidate
    tried = [str(candidate)]
    if not candidate.suffix:
        for ext in _SEARCH_EXTS:
            alt = candidate.with_name(candidate.name + ext)
            if alt.is_file():
                return alt
        tried.append(f"{candidate}{{{','.join(_SEARCH_EXTS)}}}")
    raise CommandError(
        f"runner.fixture({path!r}) failed: no fixture file was found.\n"
        f"Looked for: {' and '.join(tried)}\n"
        f"Fixtures are read from fixturesFolder ({folder})."
    )


def read_fixture_bytes(folder: Path | None, spec: str) -> tuple[bytes, Path]:
    """The raw bytes of the fixture named by ``spec`` (encoding ignored), and its path."""
    path, _encoding, _given = split_spec(spec)
    found = resolve_fixture(folder, path)
    return found.read_bytes(), found


def read_fixture(folder: Path | None, path: str, encoding: Any = ...) -> Any:
    """What ``runner.fixture(path)`` returns: parsed JSON, text, base64 text or bytes."""
    name, spec_encoding, given = split_spec(path)
    if encoding is ...:
        encoding = spec_encoding if given else ...
    elif isinstance(encoding, str) and encoding.lower() in NULL_ENCODINGS:
        encoding = None
    found = resolve_fixture(folder, name)
    raw = found.read_bytes()
    ext = found.suffix.lower()
    if encoding is None:
        return raw
    if encoding is ...:
        if ext == ".json":
            try:
                return json.loads(raw.decode("utf-8")) if raw.strip() else None
            except (ValueError, UnicodeDecodeError) as err:
                raise CommandError(
                    f"runner.fixture({path!r}) failed: {found} is not valid JSON: {err}.\n"
                    "Fix the file, or read it as text with runner.fixture(path, encoding='utf-8')."
                ) from err
        if ext in _IMAGE_EXTS or ext in _BINARY_EXTS:
            return base64.b64encode(raw).decode("ascii")
        encoding = "utf-8"
    try:
        return text_in_encoding(raw, encoding)
    except LookupError as err:
        raise UsageError(
            f"runner.fixture({path!r}) was given the encoding {encoding!r}, which Python does not know.\n"
            "Expected a codec name such as 'utf-8', 'latin-1', 'base64', or None for bytes."
        ) from err
    except UnicodeDecodeError as err:
        raise CommandError(
            f"runner.fixture({path!r}) failed: {found} is not valid {encoding}: {err}.\n"
            "Pass encoding=None to read bytes."
        ) from err
