"""``runner open``'s memory over many re-runs: the server's RSS stays flat when
``numTestsKeptInMemory`` bounds what it keeps.

Starts the real ``runner open`` on a sample project (two tests: one with a stubbed request and
a body, one failing; every test traced), then re-runs the spec ``--runs`` times over the UI's
WebSocket, as the page does, and reads the server process's resident memory (VmRSS in
/proc/<pid>/status) after each run. Prints the RSS at a few points, the growth from the first
sample taken after warm-up (run 10) to the last, the kept tests and trace files at the end, and
the time a re-run takes. Target (issue 13): flat, i.e. the growth from run 10 to the last run
is small and does not scale with the number of runs (compare the first and second half).

Usage: ``.venv/bin/python bench/open_memory.py [--runs 200] [--keep 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.open_ui import OpenSocket, run_done, write_sample  # noqa: E402
from tests.support.show_trace import start_serving, stop_serving  # noqa: E402


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def rerun(url: str, runs: int, pid: int) -> tuple[list[int], list[float], dict]:
    sock = await OpenSocket.connect(url)
    samples: list[int] = []
    seconds: list[float] = []
    try:
        for _ in range(runs):
            started = time.monotonic()
            await sock.send({"t": "run", "spec": "a_spec.py"})
            await sock.until(run_done, bound=120)
            seconds.append(time.monotonic() - started)
            samples.append(rss_kib(pid))
            sock.seen.clear()
        await sock.close()
        sock = await OpenSocket.connect(url)
        hello = await sock.until(lambda m: m.get("t") == "hello", bound=10)
    finally:
        await sock.close()
    return samples, seconds, hello


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--keep", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = write_sample(Path(tmp), {"watchForFileChanges": False, "numTestsKeptInMemory": args.keep})
        proc, url = start_serving(["open", "--no-open"], project)
        try:
            samples, seconds, hello = asyncio.run(rerun(url, args.runs, proc.pid))
        finally:
            stop_serving(proc)
    warm = min(9, len(samples) - 1)
    half = len(samples) // 2
    print(f"runner open, {args.runs} re-runs of a 2-test spec, numTestsKeptInMemory {args.keep}")
    for n in sorted({1, 10, 50, 100, 150, len(samples)}):
        if n <= len(samples):
            print(f"  after run {n:4d}: server RSS {samples[n - 1] / 1024:7.1f} MiB")
    growth = samples[-1] - samples[warm]
    first_half = samples[half - 1] - samples[warm]
    second_half = samples[-1] - samples[half - 1]
    print(f"  growth run {warm + 1}->{len(samples)}: {growth / 1024:+.1f} MiB "
          f"(first half {first_half / 1024:+.1f} MiB, second half {second_half / 1024:+.1f} MiB)")
    print(f"  kept at the end: {len(hello['state']['tests'])} tests (limit {args.keep})")
    print(f"  a re-run took {statistics.median(seconds):.2f} s (median; child start, browser, 2 tests)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
