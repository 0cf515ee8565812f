"""`--update-snapshots [all|changed|missing]` on `runner run` and `runner open`: parsed with its
bare default, carried as the last configuration layer, and handed to pytest-xdist workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.cli import _COMMANDS
from runner.cli.parser import build_parser, with_snapshot_mode
from runner.cli.run import _worker_args


def _parse(*argv: str):
    return build_parser([module.add_parser for module in _COMMANDS.values()]).parse_args(list(argv))


@pytest.mark.parametrize(("argv", "mode"), [
    (["run"], None),
    (["run", "--update-snapshots"], "changed"),
    (["run", "--update-snapshots", "all"], "all"),
    (["run", "--update-snapshots=missing", "--spec", "a_spec.py"], "missing"),
    (["run", "--update-snapshots", "--", "-k", "card"], "changed"),
    (["open", "--update-snapshots", "missing"], "missing"),
])
def test_the_flag_and_its_bare_default(argv: list[str], mode: str | None) -> None:
    assert _parse(*argv).update_snapshots == mode


def test_a_mode_it_does_not_know_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parse("run", "--update-snapshots", "sometimes")
    assert "invalid choice: 'sometimes' (choose from 'all', 'changed', 'missing')" in capsys.readouterr().err


def test_it_is_the_last_layer_and_reaches_the_workers() -> None:
    assert with_snapshot_mode(["updateSnapshots=none"], "all") == ["updateSnapshots=none", {"updateSnapshots": "all"}]
    assert with_snapshot_mode(["a=1"], None) == ["a=1"]
    args = _parse("run", "--config", "video=false", "--update-snapshots")
    out = _worker_args(args, Path("/p"))
    assert out[out.index("--runner-config", out.index("--runner-config") + 1) + 1] == '{"updateSnapshots": "changed"}'
