"""What a headless run leaves behind: failure screenshots, videos, trash, JUnit and JSON files."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner
from tests.support.video import probe

PAGE = "<html><body><h1>Hi</h1><button id='b' onclick=\"this.textContent='ok'\">go</button></body></html>"
SPECS = {
    "runner/integration/pass_spec.py": """
        def test_passes(runner):
            runner.visit("/")
            runner.get("#b").click().should("have.text", "ok")
    """,
    "runner/integration/fail_spec.py": """
        def test_fails(runner):
            runner.visit("/")
            runner.get("h1").should("have.text", "Bye", timeout=300)
    """,
}


@pytest.mark.slow
def test_failed_run_leaves_screenshot_video_junit_and_json(project):
    root = project({
        "runner.json": json.dumps({
            "fileServerFolder": "site", "reporter": "junit",
            "reporterOptions": {"mochaFile": "results/junit-[hash].xml", "testsuitesTitle": "e2e"},
            "videoUploadOnPasses": False,
        }),
        "site/index.html": PAGE,
        "runner/screenshots/old/leftover.png": "old run",
        "runner/videos/old.mp4": "old run",
        **SPECS,
    })
    notes = root / "runner" / "integration" / "notes.md"
    notes.write_text("mine, never trashed")
    (root / "xdg").mkdir()  # a data home: the freedesktop trash is used
    result = run_runner("run", cwd=root, env={"XDG_DATA_HOME": str(root / "xdg")})
    assert result.code == 1, result.text

    # trash: last run's artifacts moved out, the user's own files untouched
    assert not (root / "runner/screenshots/old/leftover.png").exists()
    assert not (root / "runner/videos/old.mp4").exists()
    assert notes.read_text() == "mine, never trashed"
    assert list((root / "xdg" / "Trash" / "files").iterdir())

    shot = root / "runner/screenshots/fail_spec.py/test_fails (failed).png"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"

    video = root / "runner/videos/fail_spec.py.mp4"
    codec, seconds = probe(video)
    assert codec == "h264" and seconds > 0.2
    assert not (root / "runner/videos/pass_spec.py.mp4").exists()  # videoUploadOnPasses: false

    files = sorted((root / "results").glob("junit-*.xml"))
    assert len(files) == 2
    suites = [ET.parse(f).getroot() for f in files]
    assert all(s.tag == "testsuites" and s.get("name") == "e2e" for s in suites)
    failing = next(s for s in suites if s.get("failures") == "1")
    case = failing.find("testsuite/testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "CommandError"
    assert failure.get("message", "").startswith("CommandError: Timed out retrying after")
    assert "have.text" in failure.get("message", "") and "def test_fails" in (failure.text or "")
    props = {p.get("name"): p.get("value") for p in failing.iter("property")}
    assert props["screenshot"].endswith("test_fails (failed).png")
    assert props["video"].endswith("fail_spec.py.mp4")
    text = ET.tostring(failing, encoding="unicode")
    assert "[[ATTACHMENT|" in text and "test_fails (failed).png]]" in text


def test_json_reporter_writes_the_whole_run(project):
    root = project(base_project({
        **SPECS,
        "runner/integration/fail_spec.py": """
            def test_fails(runner):
                runner.intercept("/").as_("page")
                runner.visit("/")
                runner.screenshot("before")
                runner.get("h1").should("have.text", "Bye", timeout=300)
        """,
    }, {"video": False, "reporter": "json", "reporterOptions": {"output": "out/report.json"}}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    report = json.loads((root / "out" / "report.json").read_text())
    assert report["totalTests"] == 2 and report["totalFailed"] == 1 and report["totalPassed"] == 1
    failing = next(s for s in report["specs"] if s["relative"] == "fail_spec.py")
    test = failing["tests"][0]
    attempt = test["attempts"][0]
    assert "Bye" in attempt["error"] and "def test_fails" in attempt["error"]
    assert attempt["error_type"] == "CommandError"
    assert attempt["message"].startswith("CommandError: Timed out retrying after")
    assert test["message"] == attempt["message"]
    # the command log ends on the command that failed
    assert test["log"][-1].startswith("failed: get('h1').should('have.text', 'Bye') (after "), test["log"]
    # the test's own screenshot, then the one taken at the failure; the spec lists them all
    assert [Path(p).name for p in attempt["screenshots"]] == ["before.png", "test_fails (failed).png"]
    assert failing["screenshots"] == attempt["screenshots"]
    assert all(Path(p).is_file() for p in failing["screenshots"])
    # the routes and requests of the test, with the keys docs/reporters.md lists
    [route] = test["routes"]
    assert set(route) == {"id", "method", "matcher", "stubbed", "handler", "alias", "matches", "times",
                          "middleware", "log", "server"}
    assert route["alias"] == "page" and route["matches"] == 1 and route["server"] is False
    [request] = test["requests"]
    assert set(request) == {"id", "browser_request_id", "method", "url", "route_ids", "aliases", "stubbed",
                            "state", "status", "error", "duration_ms", "resource_type", "request_headers",
                            "response_headers", "request_body_size", "response_body_size", "timings", "log",
                            "open", "late", "server"}
    assert request["aliases"] == ["page"] and request["status"] == 200 and request["server"] is False
    assert report["config"]["fileServerFolder"] == "site"


def test_every_screenshot_of_a_run_has_a_file_of_its_own(project):
    root = project(base_project({
        "runner/integration/shots_spec.py": """
            import pytest

            @pytest.mark.parametrize("v", ["a/b", "a:b"])  # both ids become test_p[a_b]
            def test_p(runner, v):
                runner.visit("/")
                runner.screenshot("same")
                assert False, v

            @pytest.fixture
            def five_headings(runner):
                runner.visit("/")
                runner.get("h1", timeout=200).should("have.length", 5)

            def test_setup_fails(five_headings):
                pass

            @pytest.fixture
            def shot_after(runner):
                yield
                runner.screenshot("after")

            def test_teardown_shot(shot_after):
                pass

            @pytest.fixture
            def breaks_when_done(runner):
                runner.visit("/")
                yield
                raise RuntimeError("teardown boom")

            def test_teardown_fails(breaks_when_done):
                pass
        """,
    }, {"video": False, "reporter": "json", "reporterOptions": {"output": "report.json"}}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 4, result.text
    report = json.loads((root / "report.json").read_text())
    shots = {t["title"][-1]: [Path(p).name for p in t["screenshots"]] for t in report["specs"][0]["tests"]}
    assert shots == {
        "test_p[a/b]": ["same.png", "test_p[a_b] (failed).png"],
        "test_p[a:b]": ["same (2).png", "test_p[a_b] (failed) (2).png"],
        "test_setup_fails": ["test_setup_fails (failed).png"],  # a fixture failed: a screenshot too
        "test_teardown_shot": ["after.png"],  # taken while the test was torn down
        "test_teardown_fails": ["test_teardown_fails (failed).png"],
    }
    folder = root / "runner/screenshots/shots_spec.py"
    assert sorted(p.name for p in folder.iterdir()) == sorted(sum(shots.values(), []))


@pytest.mark.parametrize("folder", [".", "runner/integration", "..", "runner"])
def test_trash_refuses_hostile_folders(project, folder):
    root = project(base_project(SPECS, {"screenshotsFolder": folder}, page=PAGE))
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    result = run_runner("run", cwd=root)
    assert result.code == 1
    assert "screenshotsFolder" in result.err and "Traceback" not in result.text
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


@pytest.mark.slow
def test_a_video_that_cannot_be_written_is_reported_and_the_run_goes_on(project):
    root = project(base_project({
        "runner/integration/pass_spec.py": SPECS["runner/integration/pass_spec.py"],
        "runner/videos/pass_spec.py.mp4/mine.txt": "a folder where the video would go",
    }, {"trashAssetsBeforeRuns": False}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "warning: the video of pass_spec.py was lost: ffmpeg failed" in result.err, result.text
    assert "Traceback" not in result.text
    assert "video:" not in result.out  # the summary lists no video that is not there
    assert (root / "runner/videos/pass_spec.py.mp4/mine.txt").read_text() == (
        "a folder where the video would go"
    )


@pytest.mark.slow
def test_after_spec_sees_a_finished_video(project):
    root = project(base_project({
        **SPECS,
        "runner/plugins/index.py": """
            import json, pathlib

            def setup(on, config):
                def after_spec(spec, results):
                    video = pathlib.Path(results["video"])
                    # copy it now, as an upload would: the copy must be a whole mp4
                    copy = pathlib.Path(__file__).parents[2] / "copies" / video.name
                    copy.parent.mkdir(exist_ok=True)
                    copy.write_bytes(video.read_bytes())
                    copy.with_suffix(".ms").write_text(str(results["duration"]))
                on("after:spec", after_spec)
        """,
    }, {}, page=PAGE))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text  # fail_spec fails
    for name in ("pass_spec.py.mp4", "fail_spec.py.mp4"):
        codec, seconds = probe(root / "copies" / name)  # a truncated mp4 does not probe
        assert codec == "h264" and seconds > 0, name
    # pass_spec runs second (fail_spec's time includes launching the browser): its video is as
    # long as the spec ran, give or take a frame and the page's reset before recording starts
    seconds = probe(root / "copies" / "pass_spec.py.mp4")[1]
    spec_seconds = int((root / "copies" / "pass_spec.py.ms").read_text()) / 1000
    assert abs(seconds - spec_seconds) <= 0.15 + 0.2 * spec_seconds, (seconds, spec_seconds)


PROBE_PAGE = """<html><body><h1>app</h1><script>
const paths = %s;
Promise.all(paths.map(p => fetch(p).then(r => r.status, () => 0)))
  .then(s => { document.body.dataset.statuses = s.join(","); });
</script></body></html>"""


@pytest.mark.slow
def test_the_file_server_never_gives_the_page_what_runner_wrote(project):
    """The file server serves the project root by default: the page could read the events file
    (being written), the last report's data, screenshots, traces and the junit file of the run."""
    secret_spec = """
        def test_leaves_artifacts(runner):
            runner.visit("/")
            runner.screenshot("here")
            assert False, "fails to keep its trace"
        """
    probed = ["/runner/results/events.jsonl", "/runner/results/junit.xml", "/runner/report/index.html",
              "/runner/report/data/index.js", "/runner/screenshots/first_spec.py/here.png", "/runner/report/",
              "/runner/traces/first_spec.py/test_leaves_artifacts.zip", "/app.txt"]
    root = project({
        "runner.json": json.dumps({"trashAssetsBeforeRuns": False, "video": False, "reporter": "junit"}),
        "index.html": "<h1>first</h1>",
        "probe.html": PROBE_PAGE % json.dumps(probed),
        "app.txt": "the app's own file",
        "runner/integration/first_spec.py": secret_spec,
        "runner/integration/probe_spec.py": f"""
            def test_probe(runner):
                runner.visit("/probe.html")
                runner.get("body").should("have.attr", "data-statuses", {",".join(["404"] * 7 + ["200"])!r})
            """,
    })
    first = run_runner("run", "--spec", "runner/integration/first_spec.py", cwd=root)
    assert first.code == 1, first.text
    for path in probed[:-1]:
        written = root / path.lstrip("/")
        assert written.exists(), path  # each artifact is there to be refused
    probe = run_runner("run", "--spec", "runner/integration/probe_spec.py", cwd=root)
    assert probe.code == 0, probe.text
