"""`runner run --only-changed [REF]` on real git repositories: what really ran (the events file),
with workers and shards; git's failures and an empty selection as one line, never a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project

SPECS = {
    "runner/integration/cart_spec.py": "from support.cart import total\n\ndef test_cart():\n    assert total() == 3\n",
    "runner/integration/users_spec.py": "def test_users(runner):\n    assert runner.fixture('users') == ['ann']\n",
    "runner/integration/page_spec.py": "def test_page(runner):\n    runner.visit('/')\n    runner.get('h1').should('have.text', 'Hi')\n",
    "runner/integration/plain_spec.py": "def test_plain():\n    pass\n",
    "runner/fixtures/users.json": '["ann"]',
    "runner/support/index.py": "",
    "runner/support/cart.py": "def total():\n    return 3\n",
    ".gitignore": "runner/results/\n",
}
CONFIG = {"video": False, "reportFolder": False, "trashAssetsBeforeRuns": False}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root,
                   capture_output=True, check=True, timeout=30)


def _repo(root: Path) -> Path:
    write_project(root, base_project(SPECS, CONFIG))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the project")
    return root


def _ran(events: Path) -> list[str]:
    """The specs whose tests really ended in the run of that events file."""
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    return sorted({e["spec"] for e in lines if e["kind"] == "test.ended"})


def _change(root: Path) -> None:
    """A helper module, a fixture and an untracked spec changed; cart and users read them."""
    (root / "runner/support/cart.py").write_text("def total():\n    return 1 + 2\n")
    (root / "runner/fixtures/users.json").write_text('[ "ann" ]')
    (root / "runner/integration/new_spec.py").write_text("def test_new():\n    pass\n")


@pytest.mark.slow
def test_only_the_changed_specs_run_with_workers_and_shards(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    _change(root)
    both = run_runner("run", "--only-changed", "--workers", "2", "-r", "dot", cwd=root, timeout=240)
    assert both.code == 0, both.text
    assert ("runner: only changed since HEAD: 3 of 5 specs (1 changed, 1 imports runner/support/cart.py, "
            "1 reads the fixture runner/fixtures/users.json)") in both.err, both.text
    assert _ran(root / "runner/results/events.jsonl") == ["cart_spec.py", "new_spec.py", "users_spec.py"]

    shards: list[str] = []
    for shard in ("1/2", "2/2"):
        name = shard.replace("/", "-of-")
        run = run_runner("run", "--only-changed", "HEAD", "--shard", shard, "--config",
                         f"eventsFile=runner/results/{name}.jsonl", "-r", "dot", cwd=root)
        assert run.code == 0 and f"runner: shard {shard}: " in run.err and " of 3 specs" in run.err, run.text
        shards += _ran(root / f"runner/results/{name}.jsonl")
    assert sorted(shards) == ["cart_spec.py", "new_spec.py", "users_spec.py"]  # each once, in one shard

    # committed: nothing uncommitted is left, but they changed since main~1
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "changes")
    (root / "runner/integration/page_spec.py").write_text(SPECS["runner/integration/page_spec.py"] + "# edited\n")
    since = run_runner("run", "--only-changed", "main~1", "--spec", "**/cart_spec.py,**/page_spec.py", "-r", "dot",
                       cwd=root)
    assert since.code == 0, since.text
    assert "runner: only changed since main~1: 2 of 2 specs (1 changed, 1 imports runner/support/cart.py)" in since.err
    assert _ran(root / "runner/results/events.jsonl") == ["cart_spec.py", "page_spec.py"]


@pytest.mark.slow
def test_nothing_changed_runs_nothing_and_keeps_the_last_reports(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    first = run_runner("run", "--spec", "**/plain_spec.py", "-r", "dot", cwd=root)
    assert first.code == 0, first.text
    before = (root / "runner/results/events.jsonl").read_text()
    (root / "README.md").write_text("not a spec, nor anything a spec reads\n")
    nothing = run_runner("run", "--only-changed", "-r", "dot", cwd=root)
    assert nothing.code == 0, nothing.text
    assert nothing.err.strip().splitlines() == [
        "runner: only changed since HEAD: no spec changed, nor a module, conftest or fixture one uses "
        "(1 file changed): nothing to run."]
    assert (root / "runner/results/events.jsonl").read_text() == before
    # a shard of nothing is a shard with no spec: it writes its events, for the merge
    shard = run_runner("run", "--only-changed", "--shard", "2/2", "--config", "eventsFile=runner/results/s2.jsonl",
                       "-r", "dot", cwd=root)
    assert shard.code == 0 and "shard 2/2 has no spec to run" in shard.err, shard.text
    started = json.loads((root / "runner/results/s2.jsonl").read_text().splitlines()[0])
    assert started["specs"] == [] and started["shard"]["index"] == 2
    assert (root / "runner/results/events.jsonl").read_text() == before


@pytest.mark.parametrize(("git", "args", "says"), [
    (False, ["--only-changed"], "--only-changed: the project folder {root!r} is not in a git repository (fatal: not a git repository"),
    (True, ["--only-changed", "release-1"],
     "--only-changed 'release-1': git knows no commit, branch or tag named 'release-1' in this repository."),
    (True, ["--only-changed", "-x"], None),  # argparse: -x is an option, not a ref
])
def test_what_git_cannot_tell_is_one_line(tmp_path: Path, git: bool, args: list[str], says: str | None) -> None:
    root = _repo(tmp_path) if git else write_project(tmp_path, base_project(SPECS, CONFIG))
    result = run_runner("run", *args, cwd=root)
    assert result.code == 1 and "Traceback" not in result.text, result.text
    assert result.out == "" and not (root / "runner/results/events.jsonl").exists()
    if says is not None:
        assert f"runner: {says.format(root=str(root.resolve()))}" in result.err, result.err
        assert len(result.err.strip().splitlines()) == 1, result.err


@pytest.mark.slow
def test_the_selection_is_in_the_events_and_the_reports_run_details(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    _change(root)
    run = run_runner("run", "--only-changed", "--config", "reportFolder=runner/results/report", "-r", "dot", cwd=root)
    assert run.code == 0, run.text
    events = [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]
    (started,) = [e for e in events if e["kind"] == "run.started"]
    notice = ("only changed since HEAD: 3 of 5 specs (1 changed, 1 imports runner/support/cart.py, "
              "1 reads the fixture runner/fixtures/users.json)")
    assert f"runner: {notice}" in run.err, run.text
    selection = started["only_changed"]
    assert selection["ref"] == "HEAD" and selection["notice"] == notice, selection
    assert selection["total"] == 5 and selection["everything"] is None
    assert sorted((s["spec"], s["why"]) for s in selection["specs"]) == [
        ("cart_spec.py", "imports runner/support/cart.py"), ("new_spec.py", "changed"),
        ("users_spec.py", "reads the fixture runner/fixtures/users.json")]
    data = "\n".join(p.read_text() for p in (root / "runner/results/report/data").rglob("*.js"))
    assert '"onlyChanged"' in data and "reads the fixture runner/fixtures/users.json" in data
