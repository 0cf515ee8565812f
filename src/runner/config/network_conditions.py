"""Network conditions: the presets and the one reading of ``runner.network_conditions(...)`` and of
the ``networkConditions`` option (a preset name, or ``offline``/``latency``/``download``/``upload``).

The presets are Chrome DevTools' "Slow 3G" and "Fast 3G" (its throttling menu): throughputs in
kilobits per second, latency in milliseconds added to each request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runner.errors import UsageError

__all__ = ["NetworkConditions", "PRESETS", "read_conditions", "KEYS"]


@dataclass(frozen=True)
class NetworkConditions:
    """What the page's network is made to be: ``download``/``upload`` in kilobits per second
    (None: not limited), ``latency`` in milliseconds, ``offline``; ``name``: the preset it came
    from, if any."""

    offline: bool = False
    latency: float = 0.0
    download: float | None = None
    upload: float | None = None
    name: str | None = None

    def describe(self) -> str:
        """``slow-3g: latency 2000ms, download 400 kbps, upload 400 kbps`` (what the log shows)."""
        parts = ["offline"] if self.offline else []
        if self.latency:
            parts.append(f"latency {self.latency:g}ms")
        if self.download is not None:
            parts.append(f"download {self.download:g} kbps")
        if self.upload is not None:
            parts.append(f"upload {self.upload:g} kbps")
        said = ", ".join(parts) or "no limits"
        return f"{self.name}: {said}" if self.name and self.name != "offline" else said

    @property
    def limited(self) -> bool:
        """Whether anything is emulated at all."""
        return self.offline or bool(self.latency) or self.download is not None or self.upload is not None


#: Chrome DevTools' presets: Slow 3G is 400 kbit/s both ways and 2000 ms of latency; Fast 3G is
#: 1440 kbit/s down, 675 kbit/s up and 562.5 ms ("offline" is ``offline=True``).
PRESETS: dict[str, NetworkConditions] = {
    "slow-3g": NetworkConditions(latency=2000, download=400, upload=400, name="slow-3g"),
    "fast-3g": NetworkConditions(latency=562.5, download=1440, upload=675, name="fast-3g"),
    "offline": NetworkConditions(offline=True, name="offline"),
}

#: The keys of the object form (and the command's keywords).
KEYS = ("offline", "latency", "download", "upload")


def read_conditions(value: Any, what: str, **overrides: Any) -> NetworkConditions | None:
    """``value`` (a preset name, a mapping of :data:`KEYS`, or None: nothing emulated) with the
    keywords ``overrides`` on top, as :class:`NetworkConditions`; None when nothing is limited.

    Raises ``UsageError`` naming ``what``: an unknown preset (the known ones listed), an unknown
    key, a value of the wrong type, a negative number (or a throughput of 0, which would never
    deliver a byte)."""
    base = NetworkConditions()
    if isinstance(value, str):
        if value not in PRESETS:
            known = ", ".join(repr(name) for name in PRESETS)
            raise UsageError(f"{what}: {value!r} is not a preset of network conditions; the presets are {known}.")
        base = PRESETS[value]
    elif isinstance(value, Mapping):
        overrides = {**dict(value), **overrides}
    elif value is not None:
        raise UsageError(f"{what} takes a preset name ({', '.join(map(repr, PRESETS))}) or the keywords "
                         f"{', '.join(KEYS)}; found {value!r}.")
    fields: dict[str, Any] = {
        "offline": base.offline, "latency": base.latency, "download": base.download, "upload": base.upload,
    }
    for key, given in overrides.items():
        if key not in KEYS:
            raise UsageError(f"{what} does not take {key!r}; it takes {', '.join(KEYS)}.")
        fields[key] = _checked(key, given, what)
    changed = bool(overrides) and any(fields[k] != getattr(base, k) for k in KEYS)
    read = NetworkConditions(**fields, name=None if changed else base.name)
    return read if read.limited else None


def _checked(key: str, given: Any, what: str) -> Any:
    if key == "offline":
        if not isinstance(given, bool):
            raise UsageError(f"{what}: offline must be True or False; found {given!r}.")
        return given
    if given is None and key != "latency":
        return None
    unit = "milliseconds" if key == "latency" else "kilobits per second"
    if isinstance(given, bool) or not isinstance(given, (int, float)) or not math.isfinite(given):
        raise UsageError(f"{what}: {key} must be a number of {unit}; found {given!r}.")
    if key == "latency" and given < 0:
        raise UsageError(f"{what}: latency must be 0 or more milliseconds; found {given!r}.")
    if key != "latency" and given <= 0:
        raise UsageError(f"{what}: {key} must be more than 0 {unit} (leave it out for no limit); found {given!r}.")
    return float(given)
