"""``runner run --workers N|auto``: the specs spread over worker processes, each with its browser.

The engine is pytest-xdist: ``-n N --dist loadfile`` makes a spec the unit of distribution (its
tests run together in one worker, in order), so its video, ``before:spec``/``after:spec`` and
fixtures behave as in one process. The specs are handed to pytest longest first (by the
durations file, else by test count, see :mod:`runner.run.shard_plan`), and xdist gives out whole specs in
that order, so the long ones do not end up last on one worker.

``auto`` picks what the machine can carry: one worker for every two cores (as Playwright Test's
default), no more than the memory available allows at about 600 MiB a worker (Python,
Playwright's driver, Chromium and its renderer), at least 1 and at most 16. A worker is not one
core: while its test process waits, the browser's own processes work, and a serial run of short
tests keeps about 1.4 cores busy (``bench/parallel.py`` prints it), so a worker a core would only
make them queue for the CPU.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from runner.errors import UsageError
from runner.run.shard_plan import plan_shards, spec_key

__all__ = ["CORES_PER_WORKER", "WORKER_MEMORY_MIB", "auto_workers", "longest_first", "parse_workers", "xdist_args"]

WORKER_MEMORY_MIB = 600
CORES_PER_WORKER = 2
_MAX_AUTO = 16


def parse_workers(text: str, *, where: str = "--workers") -> int:
    """``"4"`` or ``"auto"`` as a number of workers; raises :class:`UsageError` saying what is
    expected (``where`` names the option: ``--workers`` or ``RUNNER_WORKERS``)."""
    value = (text or "").strip().lower()
    if value == "auto":
        return auto_workers()
    if not re.fullmatch(r"\d+", value):
        raise UsageError(f"{where} {text!r}: expected a number of worker processes (1 or more) or auto.")
    count = int(value)
    if count < 1:
        raise UsageError(f"{where} {text!r}: expected at least 1 worker (1 runs the specs in this process).")
    return count


def auto_workers() -> int:
    """What ``auto`` means on this machine (see the module)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    available = _available_mib()
    by_memory = available // WORKER_MEMORY_MIB if available is not None else cores
    return max(1, min(cores // CORES_PER_WORKER, by_memory, _MAX_AUTO))


def _available_mib() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)
    except (ValueError, OSError, AttributeError):
        return None


def longest_first(specs: list[Path], root: Path, durations: dict[str, float] | None) -> list[Path]:
    """``specs`` ordered by weight, heaviest first (ties: the run's order)."""
    plan = plan_shards(specs, root, 1, durations)
    order = {key: index for index, key in enumerate(plan.shards[0])}  # one shard: packed heaviest first
    keyed = [(order.get(spec_key(spec, root), len(order)), position, spec) for position, spec in enumerate(specs)]
    return [spec for _, _, spec in sorted(keyed)]


def xdist_args(workers: int) -> list[str]:
    """pytest's arguments for ``workers`` worker processes (none for 1)."""
    if workers <= 1:
        return []
    try:
        import xdist  # noqa: F401
    except ImportError as err:  # pragma: no cover - a dependency of runner
        raise UsageError("--workers needs pytest-xdist, which runner depends on: reinstall runner "
                         "(pip install runner) to get it.") from err
    return ["-n", str(workers), "--dist", "loadfile"]
