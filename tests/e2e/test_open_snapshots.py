"""``runner open`` shows a failed snapshot comparison: the real command runs a spec whose baseline
differs, and its UI (in runner's own browser) shows the expected, actual and diff images, served
by the server from the files the test's events named, and an aria snapshot's diff."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import Image
from tests.support.open_ui import write_sample
from tests.support.show_trace import served

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RUN_DONE_MS = 60000  # a child starts Python, pytest and a browser: bounded, generously

SPEC = """
def test_card(runner):
    runner.visit("/card.html")
    runner.get("#card").should("match.screenshot", "card", timeout=500)


def test_menu(runner):
    runner.visit("/card.html")
    runner.get("#menu").should("match.aria_snapshot", "menu", timeout=500)
"""


@pytest.fixture(scope="module")
def open_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = write_sample(tmp_path_factory.mktemp("open-snapshots"), {"watchForFileChanges": False}, spec=SPEC)
    (root / "site" / "card.html").write_text(
        "<body style='margin:0'><div id='card' style='width:50px;height:20px;background:#3366cc'></div>"
        "<ul id='menu'><li>Home</li></ul></body>", encoding="utf-8")
    snaps = root / "runner" / "integration" / "__snapshots__" / "a_spec"
    snaps.mkdir(parents=True)
    Image.new("RGB", (50, 20), (204, 51, 51)).save(snaps / "card-chromium-linux.png")
    (snaps / "menu.aria.yml").write_text("- list:\n  - listitem: About\n", encoding="utf-8")
    with served(["open", "--no-open"], root) as url:
        yield url


def test_a_failed_comparison_shows_its_images_and_diff(runner, open_url: str) -> None:
    runner.visit(open_url)
    runner.get("#connection").should("have.attr", "data-state", "open")
    runner.get(".spec[data-spec='a_spec.py'] .run-spec").click()
    runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)
    runner.contains(".test-tab", "test_card").click()
    failure = runner.get("#commands .snapshot-failure[data-name='card']")
    failure.should("contain", "screenshot, differs").and_("contain", "card-chromium-linux.png")
    for kind in ("expected", "actual", "diff"):
        failure.find(f".snap-{kind} img").should("have.prop", "naturalWidth", 50)
    runner.contains(".test-tab", "test_menu").click()
    aria = runner.get("#commands .snapshot-failure[data-name='menu']")
    aria.should("contain", "aria snapshot, differs")
    aria.find("pre").should("contain", "-  - listitem: About").and_("contain", "+  - listitem: Home")
