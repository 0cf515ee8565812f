"""What the ``webServer`` option means: the app's own servers runner starts, as typed entries.

``webServer`` is one entry or an array of them (Playwright Test's option of that name is the
model). The schema checks each entry's shape (runner.schema.json); :func:`web_server_problems`
says what a schema cannot: an entry waits for ``url`` or for ``port``, exactly one of them.
:func:`web_servers` turns a checked value into :class:`WebServerSpec` entries, with ``cwd``
resolved against the project root; :mod:`runner.run.web_server` starts and stops them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.config.paths import resolve_path

__all__ = ["DEFAULT_TIMEOUT_MS", "WebServerSpec", "web_server_problems", "web_servers"]

#: How long a started server has to answer, by default (Playwright Test's default too).
DEFAULT_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class WebServerSpec:
    """One ``webServer`` entry, ready to start: where it is in the option (``index``, for
    messages), what runs, what is waited for (``url`` or ``port``) and for how long."""

    index: int | None  # None when webServer is one object, not an array
    command: str
    cwd: Path
    url: str | None = None
    port: int | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    reuse_existing: bool = False
    env: Mapping[str, str] = field(default_factory=dict)
    stdout: str | None = None  # "pipe", "ignore", or None: kept, shown on failure
    stderr: str | None = None

    @property
    def name(self) -> str:
        """``webServer`` or ``webServer[1]``: the entry as runner.json spells its place."""
        return "webServer" if self.index is None else f"webServer[{self.index}]"

    @property
    def target(self) -> str:
        """What runner waits for, in words: the URL, or ``port 3000 (127.0.0.1)``."""
        return self.url if self.url is not None else f"port {self.port} (127.0.0.1)"


def _entries(value: Any) -> list[tuple[int | None, Any]]:
    if isinstance(value, list):
        return list(enumerate(value))
    return [] if value is None else [(None, value)]


def web_server_problems(value: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Entries that wait for neither or both of ``url`` and ``port`` (an entry of another shape is
    the schema's problem): each as its path in the option and the reason."""
    out: list[tuple[tuple[str | int, ...], str]] = []
    for index, entry in _entries(value):
        if not isinstance(entry, dict):
            continue
        parts: tuple[str | int, ...] = ("webServer",) if index is None else ("webServer", index)
        has = [key for key in ("url", "port") if key in entry]
        if not has:
            out.append((parts, "it needs `url` or `port`: what runner waits for before the tests start"))
        elif len(has) == 2:
            out.append((parts, "it has both `url` and `port`: give one of them (`url` to wait for an HTTP "
                               "answer, `port` for a TCP connection)"))
    return out


def web_servers(value: Any, project_root: Path) -> list[WebServerSpec]:
    """The entries of a validated ``webServer`` value (none for null), in order."""
    specs = []
    for index, entry in _entries(value):
        specs.append(WebServerSpec(
            index=index,
            command=entry["command"],
            cwd=resolve_path(project_root, entry["cwd"]) if "cwd" in entry else project_root,
            url=entry.get("url"),
            port=entry.get("port"),
            timeout_ms=int(entry.get("timeout", DEFAULT_TIMEOUT_MS)),
            reuse_existing=bool(entry.get("reuseExistingServer", False)),
            env=dict(entry.get("env") or {}),
            stdout=entry.get("stdout"),
            stderr=entry.get("stderr"),
        ))
    return specs
