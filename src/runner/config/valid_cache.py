"""The configuration documents the schema found valid, remembered between runs by their digest.

Loading jsonschema (with what it loads: referencing, attrs, rpds) costs every run's start about
60 ms at best on a 2-core machine, more when it is busy, and a project's configuration rarely
changes from one run to the next. So a document the schema
validator found no problem in is remembered by a SHA-256 digest of exactly what was checked: the
document itself (canonical JSON), the schema it was checked against, and jsonschema's installed
files. The same digest later skips the schema check (and the import); anything else, a changed
value, another schema, another jsonschema, is checked for real. Only "no problem" is remembered:
problems are always found and worded anew. The checks of runner's own (limits, paths, globs) run
every time. A document that is not plain JSON (a tuple, a subclass of str, a non-finite number)
is never remembered.

The digests live in one file of runner's cache folder (``user_cache.py``), the newest
:data:`KEPT` of them; a file that cannot be read or written only costs the gain.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from runner.config.schema import _schema, flat_schema
from runner.user_cache import user_cache_folder

__all__ = ["KEPT", "digest", "is_known_valid", "remember_valid"]

#: How many valid documents are remembered (a run checks a few: the file, the merged values...).
KEPT = 256
_FILE_NAME = "valid-configs"


def _plain(value: Any, depth: int = 0) -> bool:
    """Is ``value`` JSON as ``json.loads`` makes it (so that its canonical text is all the schema
    validator sees)?"""
    kind = type(value)
    if kind in (str, int, bool) or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if depth > 64:
        return False
    if kind is list:
        return all(_plain(item, depth + 1) for item in value)
    if kind is dict:
        return all(type(key) is str and _plain(item, depth + 1) for key, item in value.items())
    return False


@cache
def _validator_files() -> str:
    """jsonschema's installed files, as (path, size, modification time) of the ones that decide
    what is valid: another jsonschema gives other digests. Read without importing it."""
    spec = find_spec("jsonschema")
    if spec is None or spec.origin is None:
        return ""
    folder = Path(spec.origin).parent
    parts = []
    for name in ("__init__.py", "validators.py", "_keywords.py", "_types.py", "_format.py"):
        try:
            stat = (folder / name).stat()
        except OSError:
            continue
        parts.append(f"{folder / name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(parts)


@cache
def _schema_text(flat: bool) -> str:
    return json.dumps(flat_schema() if flat else _schema(), sort_keys=True, separators=(",", ":"))


def digest(document: Any, flat: bool) -> str | None:
    """The digest of ``document`` checked against the schema (``flat``: the flat options' schema,
    else the whole file's); None when it is not plain JSON."""
    if not _plain(document):
        return None
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    hashed = hashlib.sha256()
    for part in (_validator_files(), _schema_text(flat), text):
        hashed.update(part.encode("utf-8", "surrogatepass"))
        hashed.update(b"\0")
    return hashed.hexdigest()


def _file() -> Path | None:
    folder = user_cache_folder()
    return folder / _FILE_NAME if folder is not None else None


def _read(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return []


def is_known_valid(key: str) -> bool:
    """Was the document of digest ``key`` found valid by an earlier check?"""
    path = _file()
    return path is not None and key in _read(path)


def remember_valid(key: str) -> None:
    """Remember that the document of digest ``key`` was found valid (the newest :data:`KEPT`)."""
    path = _file()
    if path is None:
        return
    kept = [k for k in _read(path) if k != key][-(KEPT - 1):] + [key]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{_FILE_NAME}-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write("\n".join(kept) + "\n")
            os.replace(temporary, path)  # whole or not at all: a run reading it meanwhile sees one or the other
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
