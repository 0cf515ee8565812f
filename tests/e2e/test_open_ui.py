"""``runner open`` driven by runner itself: the real command serves a sample project, runner's
own browser opens its UI, runs a spec and reads the command log, the Routes panel, the requests
and the live view; a broken spec and a failing test show their errors."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.open_ui import write_sample
from tests.support.show_trace import start_serving, stop_serving

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

RUN_DONE_MS = 60000  # a child starts Python, pytest and a browser: bounded, generously


TRAVEL_SPEC = """
def test_save(runner):
    runner.visit("/")
    runner.get("#name").type("Ada")
    runner.get("[data-cy=save]").click()
    runner.get("#h").should("have.text", "saved Ada")
"""


CUSTOM_SUPPORT = """
from runner import add_command


@add_command
def save_as(runner, name):
    runner.get("#name").type(name)
    runner.get("[data-cy=save]").click()
"""

CUSTOM_SPEC = """
def test_custom(runner):
    runner.visit("/")
    runner.save_as("Ada")
    runner.get("#h").should("have.text", "saved Ada")
"""


TABS_SPEC = """
def test_tabs(runner):
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("a").click()
    runner.log("<b>opened</b>")
"""


ASSERT_SPEC = """
def test_totals(runner):
    runner.visit("/")
    totals = [1, 2, 3]
    assert totals == [1, 2, 4]
"""


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_sample(tmp_path_factory.mktemp("open-sample"), {"watchForFileChanges": False})
    (root / "runner" / "integration" / "travel_spec.py").write_text(TRAVEL_SPEC, encoding="utf-8")
    (root / "runner" / "integration" / "assert_spec.py").write_text(ASSERT_SPEC, encoding="utf-8")
    (root / "runner" / "integration" / "custom_spec.py").write_text(CUSTOM_SPEC, encoding="utf-8")
    (root / "runner" / "integration" / "tabs_spec.py").write_text(TABS_SPEC, encoding="utf-8")
    (root / "site" / "tabs.html").write_text("<a href='/receipt.html' target='_blank'>receipt</a>", encoding="utf-8")
    (root / "site" / "receipt.html").write_text("<title>Receipt</title><h1>Receipt</h1>", encoding="utf-8")
    (root / "runner" / "support").mkdir()
    (root / "runner" / "support" / "index.py").write_text(CUSTOM_SUPPORT, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def open_url(sample: Path) -> Iterator[str]:
    proc, url = start_serving(["open", "--no-open"], sample)
    try:
        yield url
    finally:
        err = stop_serving(proc)
        assert proc.returncode == 0 and "Traceback" not in err, err


def run_spec_and_wait(runner, url: str, spec: str = "a_spec.py") -> None:
    runner.visit(url)
    runner.get("#connection").should("have.attr", "data-state", "open")
    runner.get(f".spec[data-spec='{spec}'] .run-spec").click()
    runner.get("#run-state").should("have.attr", "data-state", "running")
    runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)


def test_a_spec_runs_and_its_command_log_routes_and_requests_show(runner, open_url: str) -> None:
    run_spec_and_wait(runner, open_url)
    # the run's end in words, not the child's exit status ("done: a_spec.py (exit 1)")
    runner.get("#run-state").should("have.text", "done: a_spec.py · 1 passed, 1 failed")
    runner.get(".spec[data-spec='a_spec.py'] .test-row").should("have.length", 2)
    runner.get(".test-row .dot.passed").should("have.length", 1)
    runner.get(".test-row .dot.failed").should("have.length", 1)
    runner.contains(".test-tab", "test_click").click()
    commands = "#commands .command"
    runner.get(commands).should("have.length", 5)
    runner.get(commands).eq(0).should("contain", "intercept").and_("contain", "a_spec.py:2")
    runner.get(commands).eq(2).should("contain", "click").and_("have.attr", "data-state", "passed")
    # the stubbed request is in the command log too, between the commands
    runner.get("#commands .request-line").should("have.length", 1).and_("contain", "/api/x").and_(
        "contain", "@x").and_("contain", "stubbed")
    runner.get("[data-tab=routes]").click()
    row = "#routes tbody tr"
    runner.get(row).should("have.length", 1)
    runner.get(row).should("contain", "GET").and_("contain", "/api/x").and_("contain", "yes")
    runner.get(f"{row} td").eq(3).should("have.text", "x")
    runner.get(f"{row} td.count").should("have.text", "1")
    runner.get("[data-tab=requests]").click()
    runner.get("#requests .request").should("have.length", 1).and_("have.attr", "data-stubbed", "yes")
    runner.get("#requests .request .fill.stubbed").should("have.text", "○")
    runner.get("#requests .request").click()
    # the app's body is shown as text: the markup in it never becomes the UI's
    runner.get("#request-detail pre.response-body").should("contain", "<script>window.pwned = 1</script>")
    runner.get("#request-detail script").should("not.exist")
    runner.get("#request-detail b").should("not.exist")
    runner.get("script").should("have.length", 2)  # the UI's own two


def test_the_live_view_shows_the_app_and_a_failure_its_error(runner, open_url: str) -> None:
    run_spec_and_wait(runner, open_url)
    runner.get("#screen").should("have.attr", "src")
    assert (runner.get("#screen").attr("src") or "").startswith("data:image/jpeg;base64,/9j/")  # a JPEG
    runner.contains(".test-tab", "test_fails").click()
    runner.get("#commands .command.failed").should("have.length", 1).and_("contain", "#missing")
    runner.get("#commands .test-error").should("contain", "never found it")
    # as the report shows it: the code frame with the failing line marked, and the error lines
    runner.get("#commands .test-error pre.error .line.hl").should("contain", 'runner.get("#missing", timeout=200)')
    runner.get("#commands .test-error pre.error .line.err").should("contain", "never found it")


def test_the_live_view_keeps_the_last_frame_after_the_run_and_a_reload_never_a_broken_image(
        runner, tmp_path: Path) -> None:
    """Before any run the pane says in words that no picture is there yet; after a run it keeps
    the last frame, and a page loaded after the run (the stream over) is given that frame."""
    proc, url = start_serving(["open", "--no-open"], write_sample(tmp_path, {"watchForFileChanges": False}))
    try:
        runner.visit(url)
        runner.get("#connection").should("have.attr", "data-state", "open")
        runner.get("#screen-none").should("be.visible").and_("contain", "No picture of the app yet")
        runner.get("#screen").should("not.be.visible")  # no empty <img> drawn as a broken image
        run_spec_and_wait(runner, url)
        _shows_a_picture(runner)  # the page that saw the run
        runner.reload()  # the stream is over: the page loaded anew is given the last frame
        runner.get("#connection").should("have.attr", "data-state", "open")
        _shows_a_picture(runner)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


def _shows_a_picture(runner) -> None:
    runner.get("#screen").should("be.visible").and_("have.attr", "src")
    assert (runner.get("#screen").attr("src") or "").startswith("data:image/jpeg;base64,/9j/")
    runner.get("#screen").its("naturalWidth").should("be.gt", 0)  # a decoded picture
    runner.get("#screen-none").should("not.be.visible")


def test_a_plain_assert_fails_the_last_line_and_shows_pytests_explanation(runner, open_url: str) -> None:
    """Every line read green and the failure was one line: now the assert is the last line, red,
    with the diff, and the error shows its code frame as the report does."""
    run_spec_and_wait(runner, open_url, "assert_spec.py")
    runner.get("#run-state").should("have.text", "done: assert_spec.py · 1 failed")
    commands = "#commands .command"
    runner.get(commands).should("have.length", 2)
    runner.get(commands).first().should("have.attr", "data-state", "passed").and_("contain", "visit")
    runner.get(commands).last().should("have.attr", "data-state", "failed").and_("contain", "assert").and_(
        "contain", "totals == [1, 2, 4]").and_("contain", "assert_spec.py:5")
    runner.get(f"{commands} .cmd-error").should("contain", "AssertionError: assert [1, 2, 3] == [1, 2, 4]").and_(
        "contain", "At index 2 diff: 3 != 4")
    runner.get("#commands .test-error .message").should("contain", "assert [1, 2, 3] == [1, 2, 4]")
    runner.get("#commands .test-error pre.error .line.hl").should("contain", "assert totals == [1, 2, 4]")
    runner.get("#commands .test-error pre.error .line.err").should("have.length.greaterThan", 1).and_(
        "contain", "At index 2 diff: 3 != 4")


def test_a_finished_command_opens_the_trace_at_its_step_before_and_after(runner, open_url: str) -> None:
    run_spec_and_wait(runner, open_url, "travel_spec.py")
    runner.contains(".test-tab", "test_save").click()
    runner.get("#commands .command").should("have.length", 4)
    runner.get("#commands .command").eq(2).click()  # #3: the click on save
    runner.get("#viewer").should("be.visible")
    runner.get("#screen").should("not.be.visible")  # the trace takes the app's place
    runner.get("#view-title").should("contain", "#3").and_("contain", "click")
    status = "#travel-status"
    runner.get(status).should("have.text", "get('[data-cy=save]').click() · After", timeout=20000)
    runner.get("#show-before").click()
    runner.get(status).should("have.text", "get('[data-cy=save]').click() · Before")
    runner.get("#commands .command").eq(1).click()  # #2: the typing, same trace
    runner.get(status).should("have.text", "get('#name').type('Ada') · After")
    runner.get("#back-live").click()
    runner.get("#viewer").should("not.be.visible")
    runner.get("#screen").should("be.visible")


def test_a_custom_commands_commands_are_under_it_and_travel_to_its_step(runner, open_url: str) -> None:
    run_spec_and_wait(runner, open_url, "custom_spec.py")
    runner.contains(".test-tab", "test_custom").click()
    names = "#commands .command .cmd-name"
    runner.get(names).should("have.length", 5)
    runner.get(names).eq(1).should("have.text", "save_as")
    runner.get(names).eq(2).should("have.text", "\u21b3 get('#name').type")
    runner.get(names).eq(3).should("have.text", "\u21b3 get('[data-cy=save]').click")
    runner.get("#commands .command").eq(4).click()  # #5, the third step of the trace's list
    status = "#travel-status"
    runner.get(status).should("have.text", "get('#h') should have.text 'saved Ada' · After", timeout=20000)
    runner.get("#commands .command").eq(3).click()  # #4, inside save_as: shown at save_as's step
    runner.get(status).should("have.text", "save_as('Ada') · After")
    runner.get(".notice").should("contain", "a command of a custom command")


def test_a_popups_line_tells_its_tab_and_url_and_a_logs_line_where_it_logged(runner, open_url: str) -> None:
    run_spec_and_wait(runner, open_url, "tabs_spec.py")
    runner.get("#commands .command").should("have.length", 3)  # visit, click, popup
    runner.get("#commands .command").eq(2).should("contain", "popup").and_(
        "contain", "\u2192 tab[1] http://127.0.0.1:").and_("contain", "/receipt.html")
    runner.get("#commands .log").should("contain", "log <b>opened</b>").and_("contain", "opened</b> tabs_spec.py:6")
    runner.get("#commands .log b").should("not.exist")  # the message is text, never the UI's markup


def test_a_broken_spec_shows_its_error_in_the_ui(runner, open_url: str, sample: Path) -> None:
    broken = sample / "runner" / "integration" / "broken_spec.py"
    broken.write_text("def test_x(runner):\n    runner.visit('/'\n", encoding="utf-8")
    try:
        runner.visit(open_url)
        runner.get("#connection").should("have.attr", "data-state", "open")
        runner.get(".spec[data-spec='broken_spec.py'] .run-spec").click()
        # this run's end, in words (data-state "done" alone was the module's earlier run's, at once)
        runner.get("#run-state").should("have.text", "done: broken_spec.py · 1 spec could not be loaded",
                                        timeout=RUN_DONE_MS)
        runner.get(".spec[data-spec='broken_spec.py'] .dot").should("have.class", "failed")
        runner.get(".spec[data-spec='broken_spec.py'] .spec-error").should("contain", "SyntaxError")
    finally:
        broken.unlink()


def test_saving_a_spec_runs_it_again(runner, tmp_path: Path) -> None:
    project = write_sample(tmp_path)  # watchForFileChanges: true (the default)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        run_spec_and_wait(runner, url)
        runner.get("#run-state").should("contain", "a_spec.py")
        runner.get(".spec[data-spec='a_spec.py'] .test-row").should("have.length", 2)
        spec = project / "runner" / "integration" / "a_spec.py"
        spec.write_text(spec.read_text(encoding="utf-8") + "\n\ndef test_added(runner):\n    runner.visit('/')\n",
                        encoding="utf-8")
        runner.get(".notice").should("contain", "changed: runner/integration/a_spec.py", timeout=RUN_DONE_MS)
        runner.get(".spec[data-spec='a_spec.py'] .test-row").should("have.length", 3, timeout=RUN_DONE_MS)
        runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)
        runner.get(".test-row[data-nodeid$='test_added'] .dot").should("have.class", "passed")
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


DIED_SPEC = """
import os


def test_before(runner):
    runner.visit("/")


def test_dies(runner):
    runner.visit("/")
    os._exit(0)


def test_after(runner):
    runner.visit("/")
"""


def test_a_test_that_ends_its_process_fails_and_the_run_never_reads_green(runner, tmp_path: Path) -> None:
    """The child ended with status 0 mid-run: the status bar said "1 passed" and the test that
    ended it ran for ever; now it fails by the death, as `runner run` tells it."""
    project = write_sample(tmp_path, {"watchForFileChanges": False}, spec=DIED_SPEC)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        run_spec_and_wait(runner, url)
        runner.get("#run-state").should("have.text", "done: a_spec.py · the process running the tests died: "
                                                     "1 passed, 1 failed")
        runner.get(".test-row[data-nodeid$='test_before'] .dot").should("have.class", "passed")
        runner.get(".test-row[data-nodeid$='test_dies'] .dot").should("have.class", "failed")
        runner.contains(".test-tab", "test_dies").click()
        runner.get("#commands .test-error").should("contain", "TestProcessDied").and_(
            "contain", "it exited with status 0")
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


THREAD_SPEC = """
import threading
import time


def test_leaves_a_thread(runner):
    runner.visit("/")
    threading.Thread(target=time.sleep, args=(3600,)).start()
"""


def test_a_thread_a_test_left_running_does_not_keep_the_run_alive(runner, tmp_path: Path) -> None:
    """The child waited for the test's non-daemon thread: the run read "running" for an hour."""
    project = write_sample(tmp_path, {"watchForFileChanges": False}, spec=THREAD_SPEC)
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        run_spec_and_wait(runner, url)
        runner.get("#run-state").should("have.text", "done: a_spec.py · 1 passed")
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err


STUDIO_PAGE = """<html><head><title>studio</title></head><body style="margin:0">
<input id="name" name="name" style="position:fixed;left:0;top:0;width:100%;height:50%;font-size:40px">
<button data-cy="save" style="position:fixed;left:0;top:50%;width:100%;height:50%"
 onclick="document.title = 'saved ' + document.getElementById('name').value">save</button></body></html>"""

STUDIO_SPEC = '''def test_studio(runner):
    runner.visit("/studio.html")
'''


def _click_screen_at(runner, fraction_y: float) -> None:
    """A click on the UI's picture of the app, at the middle of its width and ``fraction_y`` of
    its height (the page's CSS pixels are the UI's to work out, as for a person's click)."""
    rect = runner.get("#screen").invoke("getBoundingClientRect").value()
    runner.get("#screen").trigger("click", clientX=rect["left"] + rect["width"] / 2,
                                  clientY=rect["top"] + rect["height"] * fraction_y)


def test_studio_records_clicks_and_typing_into_the_test_and_runs_it_again(runner, tmp_path: Path) -> None:
    project = write_sample(tmp_path, {"experimentalStudio": True}, spec=STUDIO_SPEC)
    (project / "site" / "studio.html").write_text(STUDIO_PAGE, encoding="utf-8")
    spec = project / "runner" / "integration" / "a_spec.py"
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        run_spec_and_wait(runner, url)
        runner.get(".test-row .studio-test").click()
        runner.get("#studio-state").should("contain", "recording", timeout=RUN_DONE_MS)
        runner.get("#screen").should("have.attr", "src")
        _click_screen_at(runner, 0.25)  # the name field
        runner.get("#studio-actions li").should("have.length", 1).and_("contain", "click #name")
        runner.get("#screen-box").type("Ada")
        _click_screen_at(runner, 0.75)  # save: the field's change is told first
        actions = "#studio-actions li"
        runner.get(actions).should("have.length", 3)
        runner.get(actions).eq(1).should("have.text", 'type #name "Ada"')
        runner.get(actions).eq(2).should("have.text", 'click [data-cy="save"]')
        runner.get("#studio-save").click()
        runner.get("#studio-state").should("contain", "saved")
        runner.get("#run-state").should("have.attr", "data-state", "done", timeout=RUN_DONE_MS)
        runner.get(".test-row .dot").should("have.class", "passed")
        runner.get("#commands .command").should("have.length", 4)  # visit + the three recorded
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert spec.read_text(encoding="utf-8") == (
        'def test_studio(runner):\n'
        '    runner.visit("/studio.html")\n'
        '    # ==== Generated with runner studio ====\n'
        '    runner.get("#name").click()\n'
        '    runner.get("#name").type("Ada")\n'
        '    runner.get("[data-cy=\\"save\\"]").click()\n'
        '    # ==== End runner studio ====\n'
    )


def test_an_empty_folder_is_offered_a_project_that_then_runs(runner, tmp_path: Path) -> None:
    proc, url = start_serving(["open", "--no-open"], tmp_path)
    try:
        runner.visit(url)
        runner.get("#scaffold").should("be.visible")
        runner.get("#scaffold-go").click()
        runner.get(".notice").should("contain", "created runner/integration/example_spec.py")
        runner.get("#scaffold").should("not.be.visible")
        run_spec_and_wait(runner, url, "example_spec.py")
        runner.get(".spec[data-spec='example_spec.py'] .test-row .dot.passed").should("have.length", 3)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert (tmp_path / "runner.json").is_file()


def test_component_mode_lists_and_runs_the_component_specs(runner, tmp_path: Path) -> None:
    project = tmp_path / "components"
    shutil.copytree(Path(__file__).parents[2] / "examples" / "components", project)
    proc, url = start_serving(["open", "--no-open", "--component"], project)
    try:
        runner.visit(url)
        runner.get("#connection").should("have.attr", "data-state", "open")
        runner.get(".spec").should("have.length", 2)  # card and counter; never the e2e home_spec.py
        runner.get(".spec[data-spec='home_spec.py']").should("not.exist")
        run_spec_and_wait(runner, url, "card_spec.py")
        rows = ".spec[data-spec='card_spec.py'] .test-row"
        runner.get(rows).should("have.length", 3)
        # test_the_component_block_applies among them: the component block's viewport is used
        runner.get(f"{rows} .dot.passed").should("have.length", 3)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
