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


def test_a_test_the_run_stopped_before_keeps_its_strip_and_its_flaky_mark(runner, tmp_path) -> None:
    specs = {
        "runner/integration/a_spec.py": "def test_broken():\n    assert False, 'always'\n",
        "runner/integration/b_spec.py": SPECS["runner/integration/flip_spec.py"].replace(
            f'"{HOSTILE}"', '"case"'),
    }
    root = write_project(tmp_path, base_project(specs, {"video": False, "trashAssetsBeforeRuns": False}))
    for code in (2, 1):  # flip: failed, passed (broken fails in each)
        result = run_runner("run", "-r", "dot", cwd=root)
        assert result.code == code, result.text
    stopped = run_runner("run", "-r", "dot", "--max-failures", "1", cwd=root)
    assert stopped.code == 1 and "2 not run" in stopped.out, stopped.text
    with serve_folder(root / "runner/report") as url:
        runner.visit(url + "/index.html")
        flip = runner.contains("#list .row", "test_flip")
        flip.should("have.class", "s-not_run")
        flip.find(".hist i").should("have.length", 3)
        rows = runner.evaluate(
            "() => Array.from(document.querySelectorAll('#list .row')).map(r => "
            "[r.querySelector('.title').textContent, Array.from(r.querySelectorAll('.hist i')).map(i => i.className), "
            "(r.querySelector('.tag.across') || {}).title || null, (r.querySelector('.hist') || {}).title || ''])")
    by_title = {title: (marks, across, label) for title, marks, across, label in rows}
    assert by_title["test_flip[case]"] == (["h-failed", "h-passed", "h-none"], "1 of 2 runs failed (the last 3 runs)",
                                           "the last 3 runs, oldest first: failed, passed, not run")
    assert by_title["test_broken"][0] == ["h-failed", "h-failed", "h-failed"] and by_title["test_broken"][1] is None
