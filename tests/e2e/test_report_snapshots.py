"""The HTML report's snapshot comparisons in a real Chromium: a failed match.screenshot's expected,
actual and diff side by side with a slider over them, a failed aria snapshot's unified diff,
names that stay text."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from PIL import Image
from tests.support.report_events import T0, XSS_TITLE
from tests.support.static_files import serve_folder

from runner.artifacts.image_diff import diff_png
from runner.events import (
    AttemptEnded,
    Event,
    RunEnded,
    RunStarted,
    SnapshotCompared,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
)
from runner.reporters.html import HtmlReport

pytestmark = pytest.mark.e2e

NODEID = "specs/card_spec.py::test_card"
ARIA_DIFF = ('--- specs/__snapshots__/card_spec/menu.aria.yml\n+++ actual\n@@ -1,3 +1,3 @@\n - list:\n'
             '   - listitem:\n-    - link "About"\n+    - link "Contact"')


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _run(folder: Path) -> list[Event]:
    folder.mkdir(parents=True, exist_ok=True)
    expected = Image.new("RGBA", (40, 20), (51, 102, 204, 255))
    actual = expected.copy()
    actual.paste((204, 51, 51, 255), (20, 0, 40, 20))
    paths = {kind: folder / f"card-{kind}.png" for kind in ("expected", "actual", "diff")}
    paths["expected"].write_bytes(_png(expected))
    paths["actual"].write_bytes(_png(actual))
    paths["diff"].write_bytes(diff_png(expected, actual, threshold=0.2)[0])
    spec = "card_spec.py"
    return [
        RunStarted(at=T0, run_id="r", runner_version="9.9.9", browser="chromium", specs=[spec], project_root="/p"),
        SpecStarted(at=T0 + 0.1, spec=spec, absolute="/p/specs/card_spec.py"),
        TestStarted(at=T0 + 0.2, spec=spec, nodeid=NODEID, title=["card"]),
        SnapshotCompared(at=T0 + 0.3, nodeid=NODEID, what="aria", name="menu", outcome="matched", passed=True,
                         baseline="/p/specs/__snapshots__/card_spec/menu.aria.yml", message="matches"),
        SnapshotCompared(at=T0 + 0.5, nodeid=NODEID, what="screenshot", name=XSS_TITLE, outcome="differs",
                         passed=False, baseline="/p/specs/__snapshots__/card_spec/card-chromium-linux.png",
                         message="400 pixels (50.00%) differ from the baseline", diff_pixels=400, diff_ratio=0.5,
                         threshold=0.2, expected=str(paths["expected"]), actual=str(paths["actual"]),
                         diff=str(paths["diff"])),
        SnapshotCompared(at=T0 + 0.6, nodeid=NODEID, what="aria", name="menu-2", outcome="differs", passed=False,
                         baseline="/p/specs/__snapshots__/card_spec/menu-2.aria.yml",
                         message="the accessibility tree does not match", diff_text=ARIA_DIFF),
        AttemptEnded(at=T0 + 1.0, spec=spec, nodeid=NODEID, attempt=1, state="failed", duration_ms=800,
                     error="E   CommandError: differs", error_type="CommandError", message="CommandError: differs"),
        TestEnded(at=T0 + 1.1, spec=spec, nodeid=NODEID, title=["card"], state="failed", duration_ms=800,
                  attempts=1),
        SpecEnded(at=T0 + 1.2, spec=spec, duration_ms=1100),
        RunEnded(at=T0 + 1.3, duration_ms=1300, tests=1, passed=0, failed=1, pending=0, skipped=0),
    ]


@pytest.fixture(scope="module")
def report_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("snapshot-report")
    report = HtmlReport(base / "report")
    for event in _run(base / "artifacts"):
        report(event)
    with serve_folder(report.finish()) as url:
        yield url + "/index.html#test=" + quote(NODEID, safe="")


def test_a_failed_screenshot_shows_expected_actual_and_diff_with_a_slider(runner, report_url: str) -> None:
    runner.visit(report_url)
    runner.get(".snapshot").should("have.length", 3)
    runner.get(".snapshot.ok").should("contain", "menu").and_("contain", "aria snapshot · matched")
    bad = runner.get(".snapshot.bad").first()
    bad.should("contain", "screenshot · differs").and_("contain", "400 pixels (50.00%) differ")
    bad.find(".snapshot-head b").should("have.text", XSS_TITLE)  # the name is text, never markup
    for kind in ("expected", "actual", "diff"):
        bad.find(f".snap-{kind} img").should("have.prop", "naturalWidth", 40)
        bad.find(f".snap-{kind} figcaption").should("have.text", kind)
    bad.find(".comparer .stack > img").should("have.prop", "naturalWidth", 40)
    bad.find(".comparer .over img").should("have.prop", "naturalWidth", 40)
    bad.find(".comparer .over").should("have.attr", "style", "width: 50%;")
    bad.find(".comparer .over img").should("have.attr", "style", "opacity: 1;")
    runner.evaluate("""() => {
        const slider = document.querySelector('.comparer .slider');
        slider.value = 20;
        slider.dispatchEvent(new Event('input'));
    }""")
    bad.find(".comparer .over").should("have.attr", "style", "width: 20%;")
    # the onion skin: the whole actual picture, faded in (the buttons are clicked by their event:
    # scrolled to the pane's top, they sit under its sticky close bar)
    bad.find(".comparer .mode-onion").trigger("click", force=True)
    bad.find(".comparer .over").should("have.attr", "style", "width: 100%;")
    bad.find(".comparer .over img").should("have.attr", "style", "opacity: 0.2;")
    bad.find(".comparer .hint").should("contain", "Onion skin")
    bad.find(".comparer .mode-slider").trigger("click", force=True)
    bad.find(".comparer .over").should("have.attr", "style", "width: 20%;")
    assert runner.evaluate("window.__pwned") is None
    runner.get("html").should("not.have.attr", "data-pwned")


def test_a_failed_aria_snapshot_shows_its_unified_diff(runner, report_url: str) -> None:
    runner.visit(report_url)
    aria = runner.get(".snapshot.bad").eq(1)
    aria.should("contain", "aria snapshot · differs").and_("contain", "menu-2.aria.yml")
    aria.find("pre.unified .del").should("have.text", '-    - link "About"\n')
    aria.find("pre.unified .add").should("have.text", '+    - link "Contact"\n')
