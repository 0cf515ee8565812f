"""Cost of ``runner open``'s write hook (``ui/run_files.py``) on a test that writes many files.

The child of ``runner open`` tells the server every file of the project it is about to write,
and waits until that line is on the channel's pipe (so the watcher never takes the run's own
write for a person's save). This prints, side by side in one run (interleaved rounds, medians),
the same workloads in a fresh process with the hook on and with no hook, a ``ChannelWriter`` on a
pipe drained by a thread as the server drains it:

  first writes   N distinct files written once each (each one told: a round trip to the pipe)
  rewrites       one counter file rewritten N times (told once, then a set lookup)
  reads          N files opened for reading (not told: the hook's cost on every other event)
  first writes, frames flowing
                 as first writes, with 200 KB screencast frames filling the pipe meanwhile

and, in one process, the hook's own time per call (no file touched): a repeated write, a read,
an event it does not look at. Files are in /dev/shm when there is one (the disk's noise is not
the hook's).

Target: a test pays at most a few microseconds a write it repeats, and tens for a file it
writes for the first time (a run writes few distinct files).

Usage: ``.venv/bin/python bench/open_write_hook.py [--files 1000] [--rounds 7]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WORKLOAD = r'''
import json, os, sys, tempfile, threading, time
from pathlib import Path
from runner.ui.channel import ChannelWriter
from runner.ui.run_files import RunFiles

project, n, hooked = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "on"
read_fd, write_fd = os.pipe()
threading.Thread(target=lambda: [None for _ in iter(lambda: os.read(read_fd, 65536), b"")], daemon=True).start()
writer = ChannelWriter(write_fd)
if hooked:
    RunFiles(writer, project).__enter__()
out = {}
folder = project / "data"
folder.mkdir(exist_ok=True)
t = time.perf_counter()
for i in range(n):
    (folder / f"f{i}.txt").write_text("x")
out["first writes"] = (time.perf_counter() - t) / n
counter = project / "counter.txt"
t = time.perf_counter()
for i in range(n):
    counter.write_text(str(i))
out["rewrites"] = (time.perf_counter() - t) / n
t = time.perf_counter()
for i in range(n):
    (folder / f"f{i}.txt").read_text()
out["reads"] = (time.perf_counter() - t) / n
# the page's screencast flowing meanwhile (a 200 KB frame as fast as the pipe takes it)
flowing = threading.Event()
def frames():
    while not flowing.is_set():
        writer.frame({"data": "x" * 200_000, "width": 1, "height": 1})
        time.sleep(0.001)
threading.Thread(target=frames, daemon=True).start()
t = time.perf_counter()
for i in range(n):
    (folder / f"g{i}.txt").write_text("x")
out["first writes, frames flowing"] = (time.perf_counter() - t) / n
flowing.set()
if hooked:
    files = RunFiles(writer, project)
    files._on = True
    files._wrote(counter)
    for name, event, args in (("hook: repeated write", "open", (str(counter), "w", os.O_WRONLY | os.O_CREAT)),
                              ("hook: read", "open", (str(counter), "r", 0)),
                              ("hook: other event", "sys._getframe", (None,))):
        t = time.perf_counter()
        for _ in range(n * 20):
            files._hook(event, args)
        out[name] = (time.perf_counter() - t) / (n * 20)
writer.close()
print(json.dumps(out))
'''


def _measure(n: int, hooked: bool) -> dict[str, float]:
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="hook-bench-", dir=shm) as tmp:
        done = subprocess.run([sys.executable, "-c", WORKLOAD, tmp, str(n), "on" if hooked else "off"],
                              capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    samples: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for _ in range(args.rounds):
        for hooked in (False, True):
            samples[hooked].append(_measure(args.files, hooked))
    print(f"{args.files} files, {args.rounds} interleaved rounds, medians (one process per sample)")
    print(f"{'workload':<30}{'no hook':>12}{'hook':>12}{'extra':>12}{'ratio':>8}")
    for name in ("first writes", "rewrites", "reads", "first writes, frames flowing"):
        off = statistics.median(s[name] for s in samples[False])
        on = statistics.median(s[name] for s in samples[True])
        print(f"{name:<30}{off * 1e6:>10.1f}us{on * 1e6:>10.1f}us{(on - off) * 1e6:>10.1f}us{on / off:>7.2f}x")
    for name in ("hook: repeated write", "hook: read", "hook: other event"):
        print(f"{name:<30}{statistics.median(s[name] for s in samples[True]) * 1e9:>8.0f}ns a call")


if __name__ == "__main__":
    main()
