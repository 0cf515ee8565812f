"""``runner open``'s edit-run loop: from a save to the first command, and what a re-run costs.

Starts the real ``runner open --no-open --port 0`` on a copy of the examples project
(``examples/todo``) twice, side by side: as it runs by default (a spare child prepared ahead) and
with ``--no-spare`` (each run a new process from scratch, the old cold path). On each server the
spec is run once with ▶ (so that a save re-runs it), then saved ``--saves`` times (its same
content written again: the watcher sees a save and re-runs the spec), the two servers in turn.
Before each save the bench waits ``--think`` seconds after the last run ended, as a person reads
the result. For each save it takes, as the page hears them over the WebSocket:

- save to first command: from the write to the first ``command.started`` (target: median < 1 s);
- of which save to run start: from the write to the run the page is told started (the watcher's
  part: its debounce; the rest is the child's);
- re-run overhead: from the write to the run's end minus the durations of its tests
  (``test.ended``'s ``duration_ms``) (target: <= 0.5 s).

Usage: ``.venv/bin/python bench/open_loop.py [--saves 10] [--spec todos_spec.py] [--think 3]
[--modes spare,cold]``
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.open_ui import OpenSocket, run_done  # noqa: E402
from tests.support.show_trace import start_serving, stop_serving  # noqa: E402

_MODES = {"spare": [], "cold": ["--no-spare"]}


class Loop:
    """One ``runner open`` on its own copy of the project, and its page's socket."""

    def __init__(self, mode: str, project: Path, spec: str) -> None:
        self.mode = mode
        self.project = project
        self.spec = spec
        self.spec_path = project / "runner" / "integration" / spec
        self.content = self.spec_path.read_bytes()
        self.proc, self.url = start_serving(["open", "--no-open", "--port", "0", *_MODES[mode]], project)
        self.sock: OpenSocket | None = None
        self.asked: list[float] = []
        self.first: list[float] = []
        self.overhead: list[float] = []

    async def _page(self) -> OpenSocket:
        """A page connected anew (one left unread while the other server runs would be dropped)."""
        if self.sock is not None:
            await self.sock.close()
        self.sock = await OpenSocket.connect(self.url)
        await self.sock.until(lambda m: m.get("t") == "hello", bound=30)
        self.sock.seen.clear()
        return self.sock

    async def connect(self) -> None:
        sock = await self._page()
        await sock.send({"t": "run", "spec": self.spec})  # the last target a save re-runs
        await sock.until(lambda m: m.get("t") == "run" and m["run"].get("state") == "running", bound=30)
        await sock.until(run_done, bound=120)

    async def save(self) -> None:
        sock = await self._page()
        saved = time.monotonic()
        self.spec_path.write_bytes(self.content)
        await sock.until(lambda m: m.get("t") == "run" and m["run"].get("state") == "running", bound=60)
        asked = time.monotonic() - saved
        await sock.until(lambda m: m.get("t") == "event" and m["event"].get("kind") == "command.started", bound=60)
        first = time.monotonic() - saved
        await sock.until(lambda m: run_done(m) and m["run"].get("number", 0) > 1, bound=120)
        wall = time.monotonic() - saved
        tests = sum(float(e.get("duration_ms") or 0) for e in sock.events("test.ended")) / 1000
        if sock.events("test.ended") and not any(m.get("t") == "run" and m["run"].get("state") == "stopped"
                                                  for m in sock.seen):
            self.asked.append(asked)
            self.first.append(first)
            self.overhead.append(wall - tests)

    async def close(self) -> str:
        if self.sock is not None:
            await self.sock.close()
        return stop_serving(self.proc)


def _line(name: str, values: list[float], target: str) -> str:
    if not values:
        return f"  {name:<28} no run measured"
    return (f"  {name:<28} median {statistics.median(values):6.2f} s   max {max(values):6.2f} s   "
            f"({len(values)} saves; target {target})")


async def _bench(args: argparse.Namespace, tmp: Path) -> list[Loop]:
    loops = []
    for mode in args.modes.split(","):
        project = tmp / mode
        shutil.copytree(ROOT / "examples" / "todo", project)
        loops.append(Loop(mode, project, args.spec))
    try:
        for loop in loops:
            await loop.connect()
        for _ in range(args.saves):
            for loop in loops:  # interleaved: both see the same load
                await asyncio.sleep(args.think)
                await loop.save()
    finally:
        for loop in loops:
            err = await loop.close()
            if "Traceback" in err:
                print(f"{loop.mode}: {err}", file=sys.stderr)
    return loops


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--spec", default="todos_spec.py")
    parser.add_argument("--think", type=float, default=3.0, help="seconds between a run's end and the next save")
    parser.add_argument("--modes", default="spare,cold", help="spare (the default), cold (--no-spare), or both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        loops = asyncio.run(_bench(args, Path(tmp)))
    print(f"runner open, {args.saves} saves of examples/todo's {args.spec}, {args.think:g} s between a run's end "
          "and the next save")
    for loop in loops:
        print(f"{loop.mode}{' (runner open --no-spare)' if loop.mode == 'cold' else ' (runner open)'}:")
        print(_line("save to first command", loop.first, "< 1 s"))
        print(_line("  of which save to run start", loop.asked, "none: the watcher's debounce"))
        print(_line("re-run overhead", loop.overhead, "<= 0.5 s"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
