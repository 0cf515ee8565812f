"""match.screenshot and match.aria_snapshot through real `runner run` processes on a tmp project:
baselines written on the first run (and the test failing), real pixel differences on the next,
masks, thresholds, max_diff_pixels, a size change, an animating element waited out, aria
templates, and the update modes (missing, changed, all; CI=true; under --workers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project

pytestmark = pytest.mark.slow

STYLE = """
<style>
body { margin: 0; font: 16px sans-serif; }
.box { width: 120px; height: 60px; margin: 4px; background: #3366cc; color: white; position: relative; }
#spin { animation: spin 1s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
</style>
"""

# The page of the first run; the second run's differs where the tests say. #ticking changes its
# colour every frame for 800 ms after the load, then settles on the same colour both times.
PAGE = """
<div id="masked" class="box"><span id="clock">{clock}</span></div>
<div id="tint" class="box" style="background: {tint}"></div>
<div id="dot" class="box">{dot}</div>
<div id="wrap" style="width: 140px"><div id="resized" class="box" style="width: {width}px"></div></div>
<div id="ticking" class="box"></div>
<div id="spin" class="box"></div>
<ul id="menu"><li><a href="/a">Home</a></li><li><a href="/b">{about}</a></li></ul>
<script>
  const el = document.getElementById("ticking");
  const start = performance.now();
  function frame(now) {{
    if (now - start < 800) {{
      el.style.background = `rgb(${{Math.floor(now) % 256}}, 0, 0)`;
      requestAnimationFrame(frame);
    }} else {{
      el.style.background = "#228833";
    }}
  }}
  requestAnimationFrame(frame);
</script>
"""
FIRST = {"clock": "12:00", "tint": "#3366cc", "dot": "", "width": 120, "about": "About"}
SECOND = {"clock": "12:01", "tint": "#3366ce",
          "dot": '<i style="position:absolute;left:10px;top:10px;width:3px;height:3px;background:#000"></i>',
          "width": 130, "about": "Contact"}

SPEC = """
def test_masked(runner):
    runner.visit("/")
    runner.get("#masked").should("match.screenshot", "masked", mask=["#clock"])

def test_unmasked(runner):
    runner.visit("/")
    runner.get("#masked").should("match.screenshot", "unmasked")

def test_tint(runner):
    runner.visit("/")
    runner.get("#tint").should("match.screenshot", "tint")

def test_tint_strict(runner):
    runner.visit("/")
    runner.get("#tint").should("match.screenshot", "tint-strict", threshold=0)

def test_dot_tolerated(runner):
    runner.visit("/")
    runner.get("#dot").should("match.screenshot", "dot-tolerated", max_diff_pixels=20)

def test_dot_ratio(runner):
    runner.visit("/")
    runner.get("#dot").should("match.screenshot", "dot-ratio", max_diff_pixel_ratio=0.01)

def test_dot_strict(runner):
    runner.visit("/")
    runner.get("#dot").should("match.screenshot", "dot-strict", max_diff_pixels=5)

def test_resized(runner):
    runner.visit("/")
    runner.get("#resized").should("match.screenshot", "resized")

def test_ticking(runner):
    runner.visit("/")
    runner.get("#ticking").should("match.screenshot", "ticking")

def test_spinning(runner):
    runner.visit("/")
    runner.get("#spin").should("match.screenshot", "spin")

def test_page(runner):
    runner.visit("/")
    runner.page().should("match.screenshot", "page", mask=["#masked", "#tint", "#dot", "#wrap", "#menu"],
                         full_page=True)

def test_menu(runner):
    runner.visit("/")
    runner.get("#menu").should("match.aria_snapshot", "menu")

def test_menu_template(runner):
    runner.visit("/")
    runner.get("#menu").should("match.aria_snapshot", "menu-template")

def test_bad_name(runner):
    runner.visit("/")
    runner.get("#tint").should("match.screenshot", "a/b")

def test_absent(runner):
    runner.visit("/")
    runner.get("#nowhere").should("match.screenshot", "nowhere", timeout=300)
"""
TEMPLATE = "- list:\n  - listitem:\n    - link /Ho.e/\n"
SNAPS = "runner/integration/__snapshots__/visual_spec"


def _events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "runner/results/events.jsonl").read_text().splitlines()]


def _compared(root: Path) -> dict[str, dict]:
    """The snapshot.compared event of each test (by its function's name)."""
    return {e["nodeid"].rsplit("::", 1)[1]: e for e in _events(root) if e["kind"] == "snapshot.compared"}


def _outcomes(root: Path) -> dict[str, str]:
    return {e["nodeid"].rsplit("::", 1)[1]: e["state"] for e in _events(root) if e["kind"] == "test.ended"}


def _page(values: dict) -> str:
    return STYLE + PAGE.format(**values)


def test_baselines_are_written_then_compared_then_updated(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({
        "runner/integration/visual_spec.py": SPEC,
        f"{SNAPS}/menu-template.aria.yml": TEMPLATE,
    }, {"defaultCommandTimeout": 2500, "video": False, "trashAssetsBeforeRuns": False}, page=_page(FIRST)))
    snaps = root / SNAPS

    # first run: every missing baseline is written and its test fails saying so
    first = run_runner("run", cwd=root, env={"CI": ""})
    assert first.code == 14, first.text  # 12 baselines written, the bad name, the absent; the template matched
    outcomes = _outcomes(root)
    assert outcomes.pop("test_menu_template") == "passed"
    assert set(outcomes.values()) == {"failed"}
    assert "the baseline runner/integration/__snapshots__/visual_spec/tint-chromium-linux.png did not exist; " \
           "it was written now" in first.out
    assert "a snapshot name is a file name, without path separators" in first.out
    assert "get('#nowhere').should('match.screenshot', 'nowhere'): expected to find element get('#nowhere'), " \
           "but never found it" in first.out
    assert "Traceback" not in first.text
    written = sorted(p.name for p in snaps.iterdir())
    assert written == sorted(["masked-chromium-linux.png", "unmasked-chromium-linux.png", "tint-chromium-linux.png",
                              "tint-strict-chromium-linux.png", "dot-tolerated-chromium-linux.png",
                              "dot-ratio-chromium-linux.png", "dot-strict-chromium-linux.png",
                              "resized-chromium-linux.png", "ticking-chromium-linux.png", "spin-chromium-linux.png",
                              "page-chromium-linux.png", "menu.aria.yml", "menu-template.aria.yml"])
    assert (snaps / "menu-template.aria.yml").read_text() == TEMPLATE  # the user's file untouched
    assert 'link "About"' in (snaps / "menu.aria.yml").read_text()
    compared = _compared(root)
    assert compared["test_tint"]["outcome"] == "written" and compared["test_tint"]["passed"] is False
    from PIL import Image

    with Image.open(snaps / "ticking-chromium-linux.png") as ticking:  # the settled picture, not a frame
        assert ticking.convert("RGB").getpixel((60, 30)) == (0x22, 0x88, 0x33)
    with Image.open(snaps / "resized-chromium-linux.png") as resized:  # CSS pixels, whatever the screen
        assert resized.size == (120, 60)

    # second run on a changed page
    write_project(root, {"site/index.html": _page(SECOND)})
    before = {p.name: p.read_bytes() for p in snaps.iterdir()}
    second = run_runner("run", cwd=root, env={"CI": ""})
    outcomes = _outcomes(root)
    passed = {"test_masked", "test_tint", "test_dot_tolerated", "test_dot_ratio", "test_ticking", "test_spinning",
              "test_page", "test_menu_template"}
    assert {name for name, state in outcomes.items() if state == "passed"} == passed, second.text
    assert second.code == 7, second.text
    assert {p.name: p.read_bytes() for p in snaps.iterdir()} == before  # no mode: nothing rewritten
    compared = _compared(root)
    strict = compared["test_dot_strict"]
    assert (strict["outcome"], strict["diff_pixels"], strict["max_diff_pixels"]) == ("differs", 9, 5)
    assert "9 pixels (0.12%) differ from the baseline runner/integration/__snapshots__/visual_spec/" \
           "dot-strict-chromium-linux.png (allowed: max_diff_pixels=5, threshold=0.2)" in second.out
    assert compared["test_tint_strict"]["diff_pixels"] == 120 * 60  # every pixel, by a hair
    assert compared["test_tint"]["outcome"] == "matched"
    assert "the picture is 130x60 pixels, the baseline runner/integration/__snapshots__/visual_spec/" \
           "resized-chromium-linux.png is 120x60: the sizes differ" in second.out
    assert compared["test_unmasked"]["diff_pixels"] > 0
    for name in ("test_dot_strict", "test_unmasked", "test_tint_strict"):
        event = compared[name]
        for kind in ("expected", "actual", "diff"):
            path = Path(event[kind])
            assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (name, kind)
            assert path.is_relative_to(root / "runner/screenshots"), path  # never beside the baseline
    diff = compared["test_menu"]["diff_text"].splitlines()
    assert diff[:2] == [f"--- {SNAPS}/menu.aria.yml", "+++ actual"], diff
    assert [line.strip() for line in diff if line[:1] in "-+" and "link" in line] == [
        '-    - link "About":', '+    - link "Contact":'], diff
    assert '+    - link "Contact":' in second.out  # the diff in the failure's message

    # --update-snapshots (changed): those that differ are rewritten, the others left as they are
    changed = run_runner("run", "--update-snapshots", "--", "-k", "not bad_name and not absent", cwd=root,
                         env={"CI": ""})
    assert changed.code == 0, changed.text
    compared = _compared(root)
    rewritten = {name for name, e in compared.items() if e["outcome"] == "updated"}
    assert rewritten == {"test_unmasked", "test_tint_strict", "test_dot_strict", "test_resized", "test_menu"}
    after = {p.name: p.read_bytes() for p in snaps.iterdir()}
    assert after["tint-chromium-linux.png"] == before["tint-chromium-linux.png"]
    assert after["menu-template.aria.yml"] == TEMPLATE.encode()
    assert after["resized-chromium-linux.png"] != before["resized-chromium-linux.png"]
    assert 'link "Contact"' in (snaps / "menu.aria.yml").read_text()
    # the run says what it wrote, though every test passed
    told = next(line for line in changed.err.splitlines() if line.startswith("runner: snapshots: "))
    assert told.startswith("runner: snapshots: 5 baselines rewritten: "), told
    assert f"{SNAPS}/menu.aria.yml" in told and "tint-chromium-linux.png" not in told, told

    # --update-snapshots all: every one compared is written again (the template becomes the tree)
    every = run_runner("run", "--update-snapshots", "all", "--", "-k", "menu", cwd=root, env={"CI": ""})
    assert every.code == 0, every.text
    assert {e["outcome"] for e in _compared(root).values()} == {"updated"}
    assert 'link "Home"' in (snaps / "menu-template.aria.yml").read_text()


ONE_SPEC = """
def test_box(runner):
    runner.visit("/")
    runner.get("#box").should("match.screenshot", "box")
"""
BOX = "<div id='box' style='width:50px;height:20px;background:{}'></div>"


def test_ci_workers_and_the_missing_mode(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({
        "runner/integration/a_spec.py": ONE_SPEC,
        "runner/integration/b_spec.py": ONE_SPEC,
    }, {"defaultCommandTimeout": 2000, "video": False, "trashAssetsBeforeRuns": False}, page=BOX.format("#c33")))
    baselines = [root / f"runner/integration/__snapshots__/{s}_spec/box-chromium-linux.png" for s in "ab"]

    # under CI a missing baseline is not written: the test fails saying how to create it
    ci = run_runner("run", cwd=root, env={"CI": "true"})
    assert ci.code == 2, ci.text
    assert "does not exist; CI is set, so it was not written: run the test with --update-snapshots missing" in ci.out
    assert not (root / "runner/integration/__snapshots__").exists()
    compared = list(_compared(root).values())
    assert {e["outcome"] for e in compared} == {"missing"}
    assert all(Path(e["actual"]).is_file() for e in compared)  # the picture it took, to look at

    # --update-snapshots missing in worker processes: each worker writes its spec's baseline
    workers = run_runner("run", "--workers", "2", "--update-snapshots", "missing", cwd=root, env={"CI": "true"},
                         timeout=240)
    assert workers.code == 0, workers.text
    assert all(path.is_file() for path in baselines)
    assert {e["outcome"] for e in _compared(root).values()} == {"written"}
    # told by the controlling process, from both workers' events
    assert "runner: snapshots: 2 new baselines written: runner/integration/__snapshots__/" in workers.err, workers.err
    assert "runner: snapshots:" not in ci.err  # nothing was written under CI

    # missing writes only missing ones: a baseline that differs fails and stays as it was
    write_project(root, {"site/index.html": BOX.format("#33c")})
    kept = baselines[0].read_bytes()
    missing = run_runner("run", "--update-snapshots=missing", "--spec", "runner/integration/a_spec.py", cwd=root,
                         env={"CI": ""})
    assert missing.code == 1, missing.text
    assert "1000 pixels (100.00%) differ" in missing.out
    assert baselines[0].read_bytes() == kept


RESTLESS_SPEC = """
def test_restless(runner):
    runner.visit("/restless.html")
    runner.get("#clock").should("match.screenshot", "clock")
"""
RESTLESS_PAGE = """<div id="clock" style="width:80px;height:30px"></div>
<script>
  (function frame(now) {
    document.getElementById("clock").style.background = `rgb(${Math.floor(now) % 256}, 0, 0)`;
    requestAnimationFrame(frame);
  })(0);
</script>"""

SECRET_SPEC = """
def test_login(runner):
    runner.visit("/login.html")
    runner.get("#pw").type("hunter2-xyz", log=False)
    runner.get("form").should("match.aria_snapshot", "login")
"""

TAB_SPEC = """
def test_tab(runner):
    runner.visit("/")
    with runner.popup() as tab:
        runner.get("#open").click()
    tab.value.page().should("match.screenshot", "tab")
    tab.value.get("#tab").should("match.aria_snapshot", "tab")
"""


def test_a_tabs_snapshots_are_the_tabs(tmp_path: Path) -> None:
    root = write_project(tmp_path, base_project({
        "runner/integration/tab_spec.py": TAB_SPEC,
        "site/tab.html": "<body style='margin:0;background:#228833'><p id='tab'>in the tab</p></body>",
        "runner/integration/restless_spec.py": RESTLESS_SPEC,
        "runner/integration/secret_spec.py": SECRET_SPEC,
        "site/login.html": "<form><label>Password <input id='pw' type='password'></label></form>",
        "site/restless.html": RESTLESS_PAGE,
    }, {"video": False, "defaultCommandTimeout": 1500}, page="<body style='background:#cc3333'><a id='open' href='/tab.html' target='_blank'>open</a></body>"))
    result = run_runner("run", "--update-snapshots=missing", "--spec", "runner/integration/tab_spec.py", cwd=root,
                        env={"CI": ""})
    assert result.code == 0, result.text
    snaps = root / "runner/integration/__snapshots__/tab_spec"
    from PIL import Image

    with Image.open(snaps / "tab-chromium-linux.png") as shot:  # the tab's page, not the first page
        assert shot.convert("RGB").getpixel((5, 300)) == (0x22, 0x88, 0x33)
    assert (snaps / "tab.aria.yml").read_text() == "- paragraph: in the tab\n"

    # a template Playwright cannot read fails at once, naming the file and the place
    (snaps / "tab.aria.yml").write_text("- paragraph: [\n  - : :\n")
    broken = run_runner("run", cwd=root, env={"CI": ""})
    assert broken.code == 3, broken.text
    assert "the aria snapshot runner/integration/__snapshots__/tab_spec/tab.aria.yml is not a template " \
           "Playwright can read: " in broken.out and "at line 2, column 3" in broken.out
    tab_failure = next(e for e in _events(root) if e["kind"] == "attempt.ended" and e["nodeid"].endswith("test_tab"))
    assert tab_failure["message"].startswith("UsageError: tab[1].get('#tab').should('match.aria_snapshot', 'tab'): the aria "
                                             "snapshot"), tab_failure["message"]  # at once, not after the timeout

    # a picture that never settles fails saying so, and no baseline is written from it
    assert "get('#clock').should('match.screenshot', 'clock'): the picture was still changing " \
           "(two captures in a row differed)" in broken.out
    assert not (root / "runner/integration/__snapshots__/restless_spec").exists()
    restless = [e for e in _events(root) if e["kind"] == "snapshot.compared" and e["name"] == "clock"]
    assert [e["outcome"] for e in restless] == ["unsteady"]

    # a secret typed into the page is never written into a baseline
    assert "the accessibility tree holds a secret (typed with log=False, or a runner.env.json / RUNNER_* value), " \
           "so it is not written to runner/integration/__snapshots__/secret_spec/login.aria.yml" in broken.out
    assert not (root / "runner/integration/__snapshots__/secret_spec").exists()
    assert "hunter2-xyz" not in broken.out
    assert "hunter2-xyz" not in (root / "runner/results/events.jsonl").read_text()
