"""What the child of ``runner open`` tells the server of its files (``ui/run_files.py``): every
file of the project it writes, once, on the pipe before the write; the Python files of the project
it runs; nothing outside the project, in ``__pycache__`` or of an installed package. And the
server's record of them (``ui/rerun.py`` ``RunWrites``): a run's write is never a save, a later
change is.

An audit hook cannot be removed, so the child's side runs in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from runner.ui.rerun import RunWrites

CHILD = textwrap.dedent(r'''
    import importlib, json, os, shutil, sys, tempfile
    from pathlib import Path
    from runner.ui.channel import ChannelWriter, parse_line
    from runner.ui.run_files import RunFiles

    project = Path(sys.argv[1])
    (project / "old.txt").write_text("before the hook")
    r, w = os.pipe()
    os.set_blocking(r, False)
    writer = ChannelWriter(w)
    heard = b""
    told_before = {}  # each file written: whether the pipe named it when the write began

    def drain():
        global heard
        try:
            while chunk := os.read(r, 1 << 16):
                heard += chunk
        except BlockingIOError:
            pass

    parent = os.getpid()

    def after(event, args):  # added after RunFiles' hook: called after it, before the write
        if os.getpid() != parent:
            return  # the forked process below: reading the pipe would steal the parent's lines
        if event == "open" and isinstance(args[2], int) and args[2] & (os.O_WRONLY | os.O_RDWR):
            name = os.path.abspath(os.fsdecode(args[0]))
            if name.startswith(str(project)) and "__pycache__" not in name:
                drain()
                told_before[name] = json.dumps(name) in heard.decode()

    with RunFiles(writer, project) as files:
        sys.addaudithook(after)
        (project / "a.txt").write_text("1")
        (project / "a.txt").write_text("2")  # told once
        with open(project / "a.txt", "a") as f:
            f.write("3")
        (project / "a.txt").read_text()
        os.close(os.open(project / "b.bin", os.O_WRONLY | os.O_CREAT))
        os.replace(project / "b.bin", project / "c.bin")
        shutil.copy(project / "a.txt", project / "d.txt")
        os.remove(project / "old.txt")
        os.chdir(project)
        Path("rel.txt").write_text("relative")
        with tempfile.NamedTemporaryFile(dir=sys.argv[2], delete=False) as outside:
            outside.write(b"not the project's")
        forked = os.fork()
        if forked == 0:  # a process the run starts: unheard, and it never waits for the pipe
            (project / "forked.txt").write_text("x")
            os._exit(0 if not files._told & {str(project / "forked.txt")} else 3)
        assert os.waitstatus_to_exitcode(os.waitpid(forked, 0)[1]) == 0
        (project / "__pycache__").mkdir()
        (project / "__pycache__" / "x.pyc").write_bytes(b"")
        (project / "mod_a.py").write_text("A = 1\n")
        site = project / "venv" / "lib" / "site-packages"
        site.mkdir(parents=True)
        (site / "pkg_b.py").write_text("B = 1\n")
        (site / "pkg_data.json").write_text("{}")
        (site / "pkg_data.json").read_text()  # an installed package's data: never told
        sys.path[:0] = [str(project), str(site)]
        importlib.import_module("mod_a")
        importlib.import_module("pkg_b")
    (project / "after.txt").write_text("the hook is quiet")
    writer.close()
    drain()
    messages = [parse_line(line) for line in heard.splitlines()]
    print(json.dumps({"messages": messages, "told_before": told_before}))
''')


def test_the_child_tells_each_write_before_it_and_the_modules_it_runs(tmp_path: Path) -> None:
    project = (tmp_path / "project").resolve()
    project.mkdir()
    (tmp_path / "outside").mkdir()
    done = subprocess.run([sys.executable, "-c", CHILD, str(project), str(tmp_path / "outside")],
                          capture_output=True, text=True, timeout=60)
    assert (project / "forked.txt").is_file()
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    wrote = [p for m in out["messages"] if m["t"] == "wrote" for p in m["paths"]]
    imported = [p for m in out["messages"] if m["t"] == "imported" for p in m["files"]]
    names = [os.path.relpath(p, project) for p in wrote]
    assert names == ["a.txt", "b.bin", "c.bin", "d.txt", "old.txt", "rel.txt", "mod_a.py",
                     "venv/lib/site-packages/pkg_b.py", "venv/lib/site-packages/pkg_data.json"]
    assert [os.path.relpath(p, project) for p in imported] == ["mod_a.py"]
    # the other files read, once each: not Python, not compiled, not an installed package's
    read = [p for m in out["messages"] if m["t"] == "read" for p in m["files"]]
    assert [os.path.relpath(p, project) for p in read] == ["a.txt"]
    # every write of the project's files began once the pipe named it (but after the run's end)
    before = {os.path.relpath(p, project): told for p, told in out["told_before"].items()}
    assert before == {"a.txt": True, "b.bin": True, "d.txt": True, "rel.txt": True, "mod_a.py": True,
                      "venv/lib/site-packages/pkg_b.py": True, "venv/lib/site-packages/pkg_data.json": True,
                      "after.txt": False}


def _stamp_changes(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns
    path.write_text(text)
    while path.stat().st_mtime_ns == before:  # a coarse clock: the same instant is no change
        path.write_text(text)


def test_a_runs_writes_are_its_own_while_it_runs_and_as_it_left_them(tmp_path: Path) -> None:
    writes = RunWrites()
    counter, gone, other = tmp_path / "counter.txt", tmp_path / "gone.txt", tmp_path / "other.py"
    counter.write_text("1")
    other.write_text("x")
    writes.wrote([str(counter), str(gone), 42])  # noise in a message is skipped
    assert writes.by_run(counter) and writes.by_run(gone) and not writes.by_run(other)
    writes.ended()
    # the watcher's late news of the run's last writes: the files are as the run left them
    assert writes.by_run(counter) and writes.by_run(gone)
    _stamp_changes(counter, "a person's edit")
    gone.write_text("a person made it")
    assert not writes.by_run(counter) and not writes.by_run(gone)
    writes.wrote([str(counter)])  # the next run writes it again: its own
    assert writes.by_run(counter)


def test_the_stamps_kept_are_the_last_two_runs_writes(tmp_path: Path) -> None:
    """Every file any run wrote was kept for the server's lifetime."""
    writes = RunWrites()
    files = [tmp_path / f"{n}.txt" for n in range(4)]
    for number, path in enumerate(files):
        path.write_text(str(number))
        writes.wrote([str(path)])
        writes.ended()
    # the last two runs' files are theirs as they left them; older runs' are forgotten
    assert [writes.by_run(p) for p in files] == [False, False, True, True]
    assert len(writes._left) + len(writes._before) == 2
