"""``runner run --shard i/n``: a static share of the specs, balanced by recorded durations.

Specs are the unit (a spec's tests, video and ``before:spec``/``after:spec`` stay together). The
weight of a spec is its duration in the durations file (``runner/durations.json`` unless
``--durations`` names another; written by ``runner run --record-durations`` or
``runner durations --from EVENTS``). A spec the file does not know is estimated from its test
count at the recorded average time per test; without any durations, every spec weighs its test
count. Specs are packed longest first, each onto the lightest shard so far (ties: the lower
shard; specs of equal weight: by path), so every spec lands in exactly one shard and the same
inputs always give the same shards.

Test counts are read from the spec's source, without importing it (collection would import
every spec in every shard): functions named ``test…`` at module level and in ``Test…``
classes, times the length of each ``parametrize`` list written as a literal.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import RunnerError

__all__ = [
    "DEFAULT_DURATIONS", "Shard", "ShardError", "ShardPlan", "count_tests", "durations_from_events",
    "pack", "parse_shard", "plan_shards", "read_durations", "record_durations", "spec_key", "write_durations",
]

DEFAULT_DURATIONS = "runner/durations.json"
_VERSION = 1
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
_SHAPE = '{"version": 1, "specs": {"<spec path from the project root>": <milliseconds>, ...}}'


class ShardError(RunnerError):
    """A ``--shard`` value, a durations file or a merge input that cannot be used."""


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (from 1) of ``total``."""

    index: int
    total: int

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def parse_shard(text: str) -> Shard:
    """``"2/4"`` as a :class:`Shard`; raises :class:`ShardError` saying what is expected."""
    found = _SHARD.fullmatch(text or "")
    if found is None:
        raise ShardError(f"--shard {text!r}: expected i/n, this machine's share i of n shards (e.g. 1/4).")
    index, total = int(found.group(1)), int(found.group(2))
    if total < 1:
        raise ShardError(f"--shard {text!r}: the number of shards must be at least 1, found {total}.")
    if not 1 <= index <= total:
        raise ShardError(f"--shard {text!r}: the shard must be from 1 to {total}, found {index}.")
    return Shard(index, total)


# -- durations ------------------------------------------------------------------------------------
def read_durations(path: Path) -> dict[str, float]:
    """The durations file at ``path`` ({spec: ms}); raises :class:`ShardError` naming the file
    and what is wrong when it is not one (a missing file is the caller's business)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ShardError(f"the durations file {str(path)!r} cannot be read: {err.strerror or err}.") from err
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ShardError(f"the durations file {str(path)!r} is not JSON ({err}). Expected {_SHAPE}; "
                         "write it again with `runner run --record-durations`.") from err
    specs = data.get("specs") if isinstance(data, dict) else None
    if not isinstance(specs, dict) or data.get("version") != _VERSION:
        found = f"version {data.get('version')!r}" if isinstance(data, dict) and "specs" in data else \
            f"a JSON {type(data).__name__}" if not isinstance(data, dict) else f"the keys {sorted(data)}"
        raise ShardError(f"the durations file {str(path)!r} is not a durations file: expected {_SHAPE}, found {found}.")
    out: dict[str, float] = {}
    for spec, ms in specs.items():
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not math.isfinite(ms) or ms < 0:
            raise ShardError(f"the durations file {str(path)!r}: the duration of {spec!r} must be a number of "
                             f"milliseconds >= 0, found {json.dumps(ms)}.")
        out[str(spec)] = float(ms)
    return out


def write_durations(path: Path, specs: Mapping[str, float]) -> None:
    """Write the durations file (sorted, one spec a line: it is meant to be committed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"version": _VERSION, "specs": {k: round(v) for k, v in sorted(specs.items())}}, indent=1)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text + "\n", encoding="utf-8")
    os.replace(partial, path)


def durations_from_events(events: Iterable[Any]) -> dict[str, float]:
    """Each spec's duration from a run's events (``spec.ended``), keyed by its path from the
    project root of the run (``run.started``); a spec that ran twice keeps its last time."""
    root: Path | None = None
    absolute: dict[str, str] = {}
    out: dict[str, float] = {}
    for event in events:
        kind = getattr(event, "kind", "")
        if kind == "run.started":
            root = Path(event.project_root) if event.project_root else None
        elif kind == "spec.started":
            absolute[event.spec] = event.absolute
        elif kind == "spec.ended" and not event.empty:
            out[_key(absolute.get(event.spec), event.spec, root)] = float(event.duration_ms)
    return out


def _key(absolute: str | None, relative: str, root: Path | None) -> str:
    if absolute and root is not None:
        try:
            return Path(absolute).relative_to(root).as_posix()
        except ValueError:
            pass
    return relative


def record_durations(path: Path, measured: Mapping[str, float], root: Path) -> dict[str, float]:
    """Update the durations file with ``measured`` (new times win; specs that no longer exist
    are dropped, those that did not run this time are kept). Returns what was written. An
    unreadable older file is replaced (its times are lost, the new ones are not)."""
    try:
        known = read_durations(path) if path.is_file() else {}
    except ShardError:
        known = {}
    merged = {spec: ms for spec, ms in known.items() if (root / spec).is_file()}
    merged.update(measured)
    write_durations(path, merged)
    return merged


# -- test counts ----------------------------------------------------------------------------------
def count_tests(path: Path) -> int:
    """How many tests ``path`` holds, read from its source (see the module); 1 when it cannot
    be parsed (the run will say why; here it only needs a weight)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return 1
    return _count_in(tree.body)


def _count_in(body: list[ast.stmt]) -> int:
    total = 0
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            total += _cases(node.decorator_list)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            total += _count_in(node.body) * _cases(node.decorator_list)
    return total


def _cases(decorators: list[ast.expr]) -> int:
    cases = 1
    for decorator in decorators:
        if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "parametrize" and len(decorator.args) >= 2
                and isinstance(decorator.args[1], (ast.List, ast.Tuple))):
            cases *= max(1, len(decorator.args[1].elts))
    return cases


# -- packing --------------------------------------------------------------------------------------
def pack(weights: Mapping[str, float], total: int) -> list[list[str]]:
    """Longest-processing-time packing of ``weights`` into ``total`` shards (see the module)."""
    loads = [0.0] * total
    shards: list[list[str]] = [[] for _ in range(total)]
    for spec in sorted(weights, key=lambda s: (-weights[s], s)):
        lightest = min(range(total), key=lambda i: (loads[i], i))
        shards[lightest].append(spec)
        loads[lightest] += weights[spec]
    return shards


@dataclass
class ShardPlan:
    """Which specs each shard runs, and on what basis."""

    shards: list[list[str]]  # keys (paths from the project root), per shard
    weights: dict[str, float]
    basis: str  # "recorded durations" or "test counts"
    estimated: list[str] = field(default_factory=list)  # specs the durations file did not know
    stale: list[str] = field(default_factory=list)  # durations file entries for specs that do not exist

    def load(self, index: int) -> float:
        return sum(self.weights[s] for s in self.shards[index - 1])


def plan_shards(specs: list[Path], root: Path, total: int, durations: Mapping[str, float] | None,
                selected: Mapping[str, int] | None = None) -> ShardPlan:
    """Split ``specs`` into ``total`` shards (see the module). ``selected``: how many tests of
    each spec run when not all do (``--last-failed``): a spec then weighs those, and a recorded
    duration its share of them."""
    keys = {spec_key(spec, root): spec for spec in specs}
    counts = {key: count_tests(path) for key, path in keys.items()}
    recorded = {k: v for k, v in (durations or {}).items() if k in keys}
    if selected is not None:
        recorded = {k: v * min(1.0, selected.get(k, counts[k]) / counts[k]) if counts[k] else v
                    for k, v in recorded.items()}
        counts = {k: selected.get(k, c) for k, c in counts.items()}
    stale = sorted(k for k in (durations or {}) if k not in keys and not (root / k).is_file())
    if not recorded:
        weights = {k: float(c) for k, c in counts.items()}
        return ShardPlan(pack(weights, total), weights, "test counts", stale=stale)
    recorded_tests = sum(counts[k] for k in recorded)
    per_test = sum(recorded.values()) / recorded_tests if recorded_tests else \
        sum(recorded.values()) / len(recorded)
    weights = {k: recorded.get(k, counts[k] * per_test) for k in keys}
    estimated = sorted(k for k in keys if k not in recorded)
    return ShardPlan(pack(weights, total), weights, "recorded durations", estimated=estimated, stale=stale)


def spec_key(spec: Path, root: Path) -> str:
    """A spec's name in the durations file and the shards: its path from the project root."""
    try:
        return spec.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return spec.resolve().as_posix()
