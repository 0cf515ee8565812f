"""``runner run`` on small projects in temp folders: selection, reporting, exit codes, plugins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner, write_project
from tests.support.servers import serving


def test_run_reports_each_spec_and_exits_with_the_failure_count(project):
    root = project(base_project({
        "runner/integration/good_spec.py": """
            def test_heading(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Hi")

            def test_paragraph(runner):
                runner.visit("/")
                runner.get("#p").should("contain", "para")
        """,
        "runner/integration/bad_spec.py": """
            import pytest

            def test_wrong_text(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Bye", timeout=200)

            def test_fails_too(runner):
                assert 1 == 2

            @pytest.mark.skip(reason="later")
            def test_pending(runner):
                pass
        """,
        "runner/integration/notes.txt": "not a spec",
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 2, result.text
    out = result.out
    assert "(Run Starting)" in out and "(Run Finished)" in out
    assert "Running:  bad_spec.py" in out and "Running:  good_spec.py" in out
    assert "✓ test_heading" in out
    assert "1) test_wrong_text" in out
    assert "expected" in out and "Bye" in out and "Hi" in out
    assert "notes.txt matches testFiles but is not a Python file" in result.err
    summary = out[out.index("(Run Finished)"):]
    assert "1 of 2 failed (50%)" in summary
    bad_row = next(line for line in summary.splitlines() if "bad_spec.py" in line)
    assert bad_row.split()[2:6] == ["3", "-", "2", "1"]
    # the failing test's traceback points into the user's spec, not runner's code
    assert "bad_spec.py" in out[out.index("1) test_wrong_text"):]
    assert "src/runner/" not in out


def test_a_flaky_test_is_told_with_the_attempts_its_retries_allowed(project, tmp_path):
    """retries=2 is three attempts: a test that passed on its second was "attempt 2 of 2"."""
    counter = tmp_path / "count.txt"
    root = project(base_project({"runner/integration/flaky_spec.py": f"""
        import pytest
        from pathlib import Path

        COUNTER = Path({str(counter)!r})

        @pytest.mark.runner(retries=2)
        def test_passes_on_second_attempt(runner):
            n = int(COUNTER.read_text()) if COUNTER.exists() else 0
            COUNTER.write_text(str(n + 1))
            assert n >= 1

        def test_plain(runner):
            pass
        """}, {"video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "passed on attempt 2 of 3, flaky" in result.out
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    ended = {e["title"][-1]: e for e in events if e["kind"] == "test.ended"}
    assert (ended["test_passes_on_second_attempt"]["attempts"],
            ended["test_passes_on_second_attempt"]["attempts_allowed"]) == (2, 3)
    assert ended["test_plain"]["attempts_allowed"] == 1
    # no flag was given: nothing came from the command line ("Run details" said two options did)
    started = next(e for e in events if e["kind"] == "run.started")
    assert "cli" not in started["sources"].values(), started["sources"]
    assert started["sources"]["watchForFileChanges"] == started["sources"]["numTestsKeptInMemory"] == "mode"


def test_spec_option_narrows_and_missing_specs_fail_clearly(project):
    root = project(base_project({
        "runner/integration/a_spec.py": "def test_a(runner):\n    pass\n",
        "runner/integration/sub/b_spec.py": "def test_b(runner):\n    pass\n",
        "runner/integration/c_spec.py": "def test_c(runner):\n    pass\n",
    }))
    result = run_runner("run", "--spec", "**/b_spec.py", cwd=root)
    assert result.code == 0, result.text
    assert "sub/b_spec.py" in result.out and "a_spec.py" not in result.out
    # repeated flags add up (the last one used to win alone), as the comma-separated form does
    both = run_runner("run", "--spec", "**/a_spec.py", "-s", "**/b_spec.py", "-r", "dot", cwd=root)
    assert both.code == 0, both.text
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    ran = [e["title"][-1] for e in events if e["kind"] == "test.ended"]
    assert sorted(ran) == ["test_a", "test_b"], both.text
    none = run_runner("run", "--spec", "nothing*.py", cwd=root)
    assert none.code == 1 and "no spec files were found" in none.err


def test_test_files_and_ignore_test_files_select_specs(project):
    root = project(base_project({
        "runner/integration/one_spec.py": "def test_one(runner):\n    pass\n",
        "runner/integration/two_spec.py": "def test_two(runner):\n    pass\n",
        "runner/integration/helpers.py": "VALUE = 1\n",
    }, {"testFiles": "*_spec.py", "ignoreTestFiles": "two*"}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "one_spec.py" in result.out and "two_spec.py" not in result.out and "helpers" not in result.out


def test_retries_report_flaky_tests_and_every_attempt(project, tmp_path):
    counter = tmp_path / "count.txt"
    root = project(base_project({
        "runner/integration/flaky_spec.py": f"""
            import pytest
            from pathlib import Path

            COUNTER = Path({str(counter)!r})

            @pytest.mark.runner(retries=2)
            def test_passes_on_third_attempt(runner):
                n = int(COUNTER.read_text()) if COUNTER.exists() else 0
                COUNTER.write_text(str(n + 1))
                assert n >= 2, f"attempt {{n + 1}} fails"

            @pytest.mark.runner(retries=1)
            def test_always_fails(runner):
                runner.screenshot("mine")
                assert False, "nope"

            @pytest.fixture
            def database():
                raise RuntimeError("db down")

            def test_needs_a_database(runner, database):
                pass
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 2, result.text
    assert "passed on attempt 3 of 3, flaky" in result.out
    lines = result.out.splitlines()
    flaky_at = next(i for i, line in enumerate(lines) if "passed on attempt 3 of 3, flaky" in line)
    # the failed attempts' screenshots of a test that passed in the end are listed under it
    assert [Path(line.split("screenshot: ")[1]).name for line in lines[flaky_at + 1:flaky_at + 3]] == [
        "test_passes_on_third_attempt (failed).png", "test_passes_on_third_attempt (failed) (attempt 2).png"]
    # each attempt's error in one line, then the last one's whole report
    at = lines.index("     attempt 1: AssertionError: nope")
    assert lines[at + 1] == "     attempt 2: AssertionError: nope"
    assert "def test_always_fails(runner):" in "\n".join(lines[at + 2:at + 12])
    # each attempt's own screenshot and failure screenshot, in files of their own
    shots = [line for line in lines if line.startswith("     screenshot: ")]  # not the command log
    assert [Path(s).name for s in shots if "always" in s or "mine" in s] == [
        "mine.png", "test_always_fails (failed).png",
        "mine (attempt 2).png", "test_always_fails (failed) (attempt 2).png"]
    assert all(Path(s.split("screenshot: ", 1)[1]).is_file() for s in shots)
    assert "     (in setup) RuntimeError: db down" in lines
    assert counter.read_text() == "3"


def test_plugins_file_tasks_events_and_config(project, tmp_path):
    events = tmp_path / "events.log"
    root = project(base_project({
        "runner/plugins/index.py": f"""
            from pathlib import Path
            LOG = Path({str(events)!r})

            def note(text):
                with LOG.open("a") as f:
                    f.write(text + "\\n")

            def setup(on, config):
                note("projectRoot " + config["projectRoot"])
                note("configFile " + Path(config["configFile"]).name)
                on("task", {{"double": lambda n: n * 2, "hello": lambda: "hi",
                             "nap": lambda: __import__("time").sleep(1)}})
                on("before:run", lambda details: note("before:run " + str(len(details["specs"]))))
                on("before:spec", lambda spec: note("before:spec " + spec["relative"]))
                on("after:spec", lambda spec, results: note(f"after:spec {{spec['relative']}} {{results['passes']}}"))
                on("after:run", lambda results: note(f"after:run {{results['totalPassed']}}"))
                return {{"defaultCommandTimeout": 1234}}
        """,
        "runner/support/index.py": """
            import pytest

            @pytest.fixture
            def greeting():
                return "from support"
        """,
        "runner/integration/a_spec.py": """
            import pytest
            from runner import TaskError

            def test_task_and_config(runner, greeting):
                with pytest.raises(TaskError) as caught:
                    runner.task("nap", timeout=100)
                assert "after waiting 100ms (its timeout= argument)" in str(caught.value)
                assert runner.task("double", 21) == 42
                assert runner.task("hello") == "hi"
                assert runner.config("defaultCommandTimeout") == 1234
                assert greeting == "from support"
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert events.read_text().splitlines() == [
        f"projectRoot {root}", "configFile runner.json", "before:run 1", "before:spec a_spec.py", "after:spec a_spec.py 1", "after:run 1",
    ]


def test_plugins_file_returning_invalid_config_stops_the_run(project):
    root = project(base_project({
        "runner/plugins/index.py": "def setup(on, config):\n    return {'viewportWidth': 'huge'}\n",
        "runner/integration/a_spec.py": "def test_a(runner):\n    pass\n",
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1
    assert "viewportWidth" in result.err and "plugins file" in result.err
    assert "Traceback" not in result.text


def test_plugins_file_whose_setup_raises_shows_its_own_lines_not_runners(project):
    root = project(base_project({
        "runner/plugins/index.py": """
            import json

            def read_settings(config):
                return json.loads(config["env"].get("settings", "{"))

            def setup(on, config):
                read_settings(config)
        """,
        "runner/integration/a_spec.py": "def test_a(runner):\n    pass\n",
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    plugins = root / "runner" / "plugins" / "index.py"
    lines = result.err.splitlines()
    assert lines[0] == f"runner: The plugins file {plugins} raised JSONDecodeError in setup():", result.err
    assert lines[1:3] == [f'  File "{plugins}", line 7, in setup', "    read_settings(config)"]
    assert lines[3:5] == [f'  File "{plugins}", line 4, in read_settings',
                          '    return json.loads(config["env"].get("settings", "{"))']
    assert sum('json/__init__.py", line' in line for line in lines) == 1  # the call into it, not its inside
    assert lines[-1].startswith("json.decoder.JSONDecodeError: Expecting property name")
    assert "runner/usercode/plugins_file.py" not in result.err and "decoder.py" not in result.err
    assert result.out == ""


@pytest.mark.parametrize(("where", "code"), [("import", "0"), ("setup", "3")])
def test_plugins_file_that_calls_sys_exit_stops_the_run_with_a_message(project, where: str, code: str):
    """sys.exit(0) while the plugins file loaded ended runner with status 0 and not a word."""
    body = (f"import sys\nsys.exit({code})\n\ndef setup(on, config):\n    pass\n" if where == "import"
            else f"import sys\n\ndef setup(on, config):\n    sys.exit({code})\n")
    root = project(base_project({"runner/plugins/index.py": body,
                                 "runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"}))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    plugins = root / "runner" / "plugins" / "index.py"
    said = {"import": f"runner: {plugins} called sys.exit(0) while it was loaded:",
            "setup": f"runner: The plugins file {plugins} called sys.exit(3) in setup():"}[where]
    assert result.err.startswith(said + "\n"), result.err
    assert f"line {2 if where == 'import' else 4}" in result.err
    assert "Code that runs in runner's process must not end it" in result.err
    assert "runner/usercode/plugins_file.py" not in result.err and "importlib" not in result.err
    assert result.out == ""


def test_plugins_file_cannot_move_the_project(project):
    root = project(base_project({
        "runner/plugins/index.py": "def setup(on, config):\n    return {**config, 'projectRoot': '/'}\n",
        "runner/integration/a_spec.py": "def test_a(runner):\n    pass\n",
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "returned projectRoot='/'" in result.err and "cannot be changed" in result.err
    assert str(root) in result.err and "Traceback" not in result.text


def test_missing_configured_support_file_stops_the_run(project):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"},
                                {"supportFile": "runner/support/nope.py"}))
    result = run_runner("run", cwd=root)
    assert result.code == 1 and "supportFile" in result.err and "nope.py" in result.err


def test_a_spec_that_does_not_load_counts_as_a_failure(project):
    root = project(base_project({
        "runner/integration/broken_spec.py": "def test_x(runner)\n    pass\n",
        "runner/integration/ok_spec.py": "def test_ok(runner):\n    pass\n",
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    lines = result.out.splitlines()
    at = lines.index("  The spec broken_spec.py could not be loaded:")
    assert lines[at + 1] == "    SyntaxError: expected ':' (broken_spec.py, line 1)"
    assert "_pytest" not in result.out  # pytest's import machinery is left out
    assert "✓ test_ok" in result.out


def test_no_browser_is_one_clear_message(project):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"}))
    result = run_runner("run", "--browser", "/nonexistent/chrome", cwd=root)
    assert result.code == 1
    assert "/nonexistent/chrome" in result.err and "Traceback" not in result.text


def test_browser_discovery_message_lists_the_install_commands(monkeypatch, tmp_path):
    from runner.engine import discovery
    from runner.errors import BrowserNotFoundError

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    monkeypatch.delenv("RUNNER_BROWSER", raising=False)
    monkeypatch.setattr(discovery, "_CHROMIUM_PATHS", ())
    monkeypatch.setattr(discovery, "_CHROME_PATHS", ())
    monkeypatch.setattr(discovery, "_SHELL_PATHS", ())
    with pytest.raises(BrowserNotFoundError) as caught:
        discovery.find_browser()
    assert "apt-get install chromium" in str(caught.value)
    assert "playwright install chromium" in str(caught.value)


@pytest.mark.slow
def test_base_url_that_does_not_answer_stops_the_run(project):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"},
                                {"baseUrl": f"http://127.0.0.1:{port}"}))
    result = run_runner("run", cwd=root)
    assert result.code == 1
    assert "could not verify that the server at baseUrl answers" in result.err


def test_base_url_user_agent_block_hosts_and_web_security(project):
    with serving() as server:
        server.page("/app", "<html><body><p id='ua'></p><script>"
                            "document.getElementById('ua').textContent = navigator.userAgent;</script></body></html>")
        root = project({
            "runner.json": json.dumps({"baseUrl": server.url, "userAgent": "runner-test-agent/1.0",
                                       "blockHosts": ["*.blocked.test", "127.0.0.2"],
                                       "chromeWebSecurity": False}),
            "runner/integration/a_spec.py": f"""
                def test_user_agent(runner):
                    runner.visit("/app")
                    runner.get("#ua").should("have.text", "runner-test-agent/1.0")

                def test_blocked_hosts_get_503(runner):
                    runner.visit("/app")
                    status = runner._ctx.run(runner._ctx.browser.page.evaluate(
                        "() => fetch('http://127.0.0.2:9/x').then(r => r.status, e => 'error')"))
                    assert status == 503

                def test_web_security_off_allows_cross_origin_reads(runner):
                    runner.visit("/app")
                    text = runner._ctx.run(runner._ctx.browser.page.evaluate(
                        "() => fetch('http://localhost:{server.port}/status/200').then(r => r.text())"))
                    assert text == "status 200"
            """,
        })
        result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


def test_browser_crash_fails_that_test_and_the_next_gets_a_fresh_browser(project):
    root = project(base_project({
        "runner/integration/a_spec.py": """
            def test_crashes(runner):
                runner.visit("/")
                try:
                    runner._ctx.run(runner._ctx.browser.page.goto("chrome://crash"), 5000)
                except Exception:
                    pass
                runner.get("h1").should("exist")

            def test_after_crash(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Hi")
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "crashed" in result.out
    assert "✓ test_after_crash" in result.out


def test_pytest_itself_runs_a_spec_with_the_plugin(project):
    import subprocess
    import sys

    root = project(base_project({
        "runner/integration/a_spec.py": """
            def test_heading(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Hi")
        """,
    }))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "runner/integration/a_spec.py"], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_example_project_runs_green():
    root = Path(__file__).resolve().parents[2] / "examples" / "todo"
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert "All specs passed!" in result.out


def test_failing_test_shows_its_routes_and_requests(project):
    root = project(base_project({
        "runner/integration/net_spec.py": """
            def test_route_table_on_failure(runner):
                runner.intercept("GET", "/api/*", {"body": {"ok": True}}).as_("api")
                runner.visit("/")
                runner.get("#missing").should("exist", timeout=100)
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "Routes (1)" in result.out and "/api/*" in result.out and "api" in result.out


def test_invalid_runner_mark_fails_that_test_with_the_property_named(project):
    root = project(base_project({
        "runner/integration/mark_spec.py": """
            import pytest

            @pytest.mark.runner(viewportWidht=300)
            def test_bad_mark(runner):
                pass

            def test_fine(runner):
                pass
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1, result.text
    assert "viewportWidht" in result.out and "viewportWidth" in result.out
    assert "✓ test_fine" in result.out


def test_a_bad_runner_mark_says_its_problem_first_and_shows_the_users_line_not_runners(project):
    root = project(base_project({
        "runner/integration/mark_spec.py": """
            import pytest

            @pytest.mark.runner(defaultComandTimeout=500)
            def test_typo(runner):
                pass

            @pytest.mark.runner(retries="twice")
            def test_bad_value(runner):
                pass

            @pytest.mark.runner(retries=1)
            @pytest.mark.runner(3)
            def test_positional(runner):
                pass


            @pytest.mark.runner(viewportWidht=300)
            class TestSuite:
                def test_in_suite(self, runner):
                    pass
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 4, result.text  # the four tests failed
    out = result.out
    typo = out[out.index("1) test_typo\n", out.index("failing")):]
    lines = [line.strip() for line in typo.splitlines()]
    # the message is the first line after the title; no runner source, no fixture docstring
    assert lines[1].startswith("(in setup) Failed: The configuration set by the runner mark on "
                               "runner/integration/mark_spec.py::test_typo is invalid"), typo
    assert "Did you mean `defaultCommandTimeout`?" in lines[2], typo  # the message once: not again below
    assert "runner/integration/mark_spec.py:3: @pytest.mark.runner(defaultComandTimeout=500)" in typo
    for runner_text in ("def runner(", "The command namespace of one test", "config_for_item",
                        "site-packages", "/src/runner/", "During handling"):
        assert runner_text not in out, runner_text
    assert "runner/integration/mark_spec.py:7: @pytest.mark.runner(retries=\"twice\")" in out
    assert "was given 3; expected keyword arguments" in out
    assert "runner/integration/mark_spec.py:12: @pytest.mark.runner(3)" in out
    assert "runner/integration/mark_spec.py:17: @pytest.mark.runner(viewportWidht=300)" in out
    assert "Did you mean `viewportWidth`?" in out


def test_a_stub_that_reads_as_a_mistaken_static_response_is_warned_of_once_a_run(project):
    spec = """
        import json

        def _stub_and_fetch(runner):
            runner.intercept("/api/fail", {"status": 500})
            runner.visit("/")
            return runner._ctx.run(runner._ctx.browser.page.evaluate(
                "fetch('/api/fail').then(async r => [r.status, await r.text()])"))

        def test_first(runner):
            status, text = _stub_and_fetch(runner)
            assert (status, json.loads(text)) == (200, {"status": 500})

        def test_second(runner):
            assert _stub_and_fetch(runner)[0] == 200
    """
    root = project(base_project({"runner/integration/stub_spec.py": spec}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    told = [line for line in result.err.splitlines() if line.startswith("runner: warning: runner.intercept()")]
    assert told == ['runner: warning: runner.intercept() sends {"status": 500} as the JSON body of a 200 response: '
                    "a dict with no StaticResponse key is the body. Did you mean `statusCode` for `status`? As a "
                    'StaticResponse: {"statusCode": 500}. To send this dict as the body and not be told again, '
                    'write {"body": {"status": 500}}.'], result.text


def test_run_mode_turns_watching_off(project):
    root = project(base_project({
        "runner/integration/a_spec.py": """
            from runner import Runner

            def test_run_mode(runner):
                assert Runner.config("watchForFileChanges") is False
                assert Runner.config("numTestsKeptInMemory") == 0
        """,
    }, {"video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


def test_a_runner_error_shows_the_users_frames_not_runners(project):
    root = project(base_project({
        "runner/integration/a_spec.py": """
            def load(runner):
                return runner.fixture("missing.json")

            def test_fixture(runner):
                load(runner)

            def test_request(runner):
                runner.request("http://127.0.0.1:1/x")

            def test_callback(runner):
                runner.visit("/")
                runner.get("h1").then(lambda el: 1 / 0)

            def test_library_in_callback(runner):
                import json
                runner.visit("/")
                runner.get("h1").then(lambda el: json.loads("{not json"))

            class Unprintable(Exception):
                def __str__(self):
                    raise RuntimeError("no str")

            def test_unprintable(runner):
                raise Unprintable()
        """,
    }, {"video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 5, result.text  # an error whose str() raises is one failure, not a crash
    assert "Unprintable: <its message could not be read>" in result.out, result.out
    assert "INTERNALERROR" not in result.text
    assert "/runner/commands/" not in result.out and "site-packages" not in result.out, result.out
    # a runner error whose cause is Playwright's: the message says it, the chain is left out
    request = result.out[result.out.index("2) test_request\n"):result.out.index("3) test_callback\n")]
    assert "got no response" in request and "ECONNREFUSED" in request
    assert "The above exception was the direct cause" not in request
    # the user's callback raised: its frames, not runner's in between
    callback = result.out[result.out.index("3) test_callback\n"):result.out.index("4) test_library_in_callback\n")]
    assert "ZeroDivisionError: division by zero" in callback and "lambda el: 1 / 0" in callback
    failure = result.out[result.out.index("1) test_fixture\n"):result.out.index("2) test_request\n")]
    assert "CommandError: runner.fixture('missing.json') failed: no fixture file was found." in failure
    assert ">       load(runner)" in failure and '>       return runner.fixture("missing.json")' in failure
    assert "a_spec.py:2: CommandError" in failure, failure
    assert "fixtures.py" not in failure and "def resolve_fixture" not in failure


def test_a_spec_cut_short_by_x_is_reported_before_the_empty_specs_after_it(project):
    root = project(base_project({
        "runner/integration/a_spec.py": """
            def test_fails(runner):
                assert False, "first"

            def test_never_runs(runner):
                pass
        """,
        "runner/integration/b_empty_spec.py": "HELPER = 1\n",
    }, {"video": False}))
    result = run_runner("run", "--", "-x", cwd=root)
    assert result.code == 1, result.text
    lines = result.out.splitlines()
    running = [line.split()[1] for line in lines if line.startswith("  Running:")]
    assert running == ["a_spec.py", "b_empty_spec.py"]
    # a_spec ended before b_empty_spec began: its failure is told under it
    assert lines.index("  1) test_fails") < lines.index("  Running:  b_empty_spec.py".ljust(80) + "(2 of 2)")
    assert "AssertionError: first" in result.out


def test_conftest_files_above_the_project_are_not_loaded(tmp_path):
    (tmp_path / "conftest.py").write_text("raise RuntimeError('a conftest.py above the project')\n")
    root = write_project(tmp_path / "project", base_project(
        {"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"}, {"video": False}))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text


def test_a_run_leaves_no_temporary_files_behind(project):
    import tempfile

    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"},
                                {"video": False}))
    scratch = Path(tempfile.gettempdir())
    before = {p.name for p in scratch.iterdir() if p.name.startswith("runner-")}
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    after = {p.name for p in scratch.iterdir() if p.name.startswith("runner-")}
    assert after - before == set()
