"""The HTML report's history strip and its "flaky across runs" mark, from real `runner run`s of a
project whose test fails every other run, opened in the real Chromium with runner itself."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.cli.conftest import base_project, run_runner, write_project
from tests.support.static_files import serve_folder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HOSTILE = "<img src=x onerror=window.pwned=1>"
SPECS = {
    "runner/integration/flip_spec.py": f"""
        from pathlib import Path

        import pytest

        COUNTER = Path(__file__).resolve().parents[2] / "flip.txt"


        def test_steady():
            pass


        @pytest.mark.parametrize("name", ["{HOSTILE}"], ids=["{HOSTILE}"])
        def test_flip(name):
            n = int(COUNTER.read_text()) if COUNTER.exists() else 0
            COUNTER.write_text(str(n + 1))
            assert n % 2 == 1, "flip fails on odd runs"
        """,
}


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = write_project(tmp_path_factory.mktemp("history-report"),
                         base_project(SPECS, {"video": False, "trashAssetsBeforeRuns": False}))
    for code in (1, 0, 1):  # flip: failed, passed, failed
        result = run_runner("run", "-r", "dot", cwd=root)
        assert result.code == code, result.text
    with serve_folder(root / "runner/report") as url:
        yield url + "/index.html"


def test_each_row_shows_its_last_runs_and_the_flaky_one_is_marked(runner, report_url: str) -> None:
    runner.visit(report_url)
    flip = runner.contains("#list .row", "test_flip")
    flip.find(".hist i").should("have.length", 3)
    classes = runner.evaluate(
        "() => Array.from(document.querySelectorAll('#list .row')).map(r => "
        "[r.querySelector('.title').textContent, Array.from(r.querySelectorAll('.hist i')).map(i => i.className), "
        "!!r.querySelector('.tag.across'), (r.querySelector('.hist') || {}).title || ''])")
    rows = {title: (marks, across, label) for title, marks, across, label in classes}
    flip_title = f"test_flip[{HOSTILE}]"
    assert rows[flip_title][0] == ["h-failed", "h-passed", "h-failed"]
    assert rows[flip_title][1] is True
    assert rows[flip_title][2] == "the last 3 runs, oldest first: failed, passed, failed"
    assert rows["test_steady"][0] == ["h-passed", "h-passed", "h-passed"] and rows["test_steady"][1] is False
    runner.get("#list .row .tag.across").should("have.length", 1) \
        .and_("have.attr", "title", "2 of 3 runs failed (the last 3 runs)")
    # the hostile test id is text, never HTML
    runner.get("#list img").should("have.length", 0)
    assert runner.evaluate("window.pwned === undefined") is True
