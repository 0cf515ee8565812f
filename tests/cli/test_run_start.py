"""``runner run`` launches its browser while the rest of runner loads (run/browser_host.py
``launch_early``): what the plugins file changes still reaches the browser, and a run that stops
before its tests says what it said before, and nothing more."""

from __future__ import annotations

import json

from tests.cli.conftest import base_project, run_runner
from tests.support.servers import serving


def _events(root, kind):
    lines = (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e["kind"] == kind]


def test_the_plugins_files_launch_options_reach_the_browser(project):
    # runner.json's user agent and web security are the early launch's; the plugins file changes
    # both, so the browser launched ahead is closed and another launched with the new ones.
    with serving() as server:
        server.page("/app", "<html><body><p id='ua'></p><script>"
                            "document.getElementById('ua').textContent = navigator.userAgent;</script></body></html>")
        root = project({
            "runner.json": json.dumps({"baseUrl": server.url, "userAgent": "from-runner-json/1.0"}),
            "runner/plugins/index.py": """
                def setup(on, config):
                    return {"userAgent": "from-the-plugins-file/2.0", "chromeWebSecurity": False}
            """,
            "runner/integration/a_spec.py": f"""
                def test_user_agent(runner):
                    runner.visit("/app")
                    runner.get("#ua").should("have.text", "from-the-plugins-file/2.0")

                def test_web_security_off(runner):
                    runner.visit("/app")
                    text = runner._ctx.run(runner._ctx.browser.page.evaluate(
                        "() => fetch('http://localhost:{server.port}/status/200').then(r => r.text())"))
                    assert text == "status 200"
            """,
        })
        result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    started = _events(root, "browser.started")
    assert [e["launch"] for e in started] == [1], started  # the discarded launch is not a launch of the run


def test_the_browser_launched_ahead_serves_the_first_test(project):
    # a plugins file that changes nothing the browser is launched with: the early browser is used
    root = project(base_project({
        "runner/plugins/index.py": "def setup(on, config):\n    return {'defaultCommandTimeout': 3000}\n",
        "runner/integration/a_spec.py": """
            def test_a(runner):
                runner.visit("/")
                runner.get("h1").should("have.text", "Hi")
        """,
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 0, result.text
    assert [e["launch"] for e in _events(root, "browser.started")] == [1]
    run = _events(root, "run.started")[0]
    assert run["browser_version"], run  # known before the tests, as before


def test_a_run_that_stops_before_its_tests_says_only_why(project):
    # the browser launched ahead is closed quietly: the one message, no asyncio noise
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"}))
    result = run_runner("run", "--spec", "runner/integration/nothing_spec.py", cwd=root)
    assert result.code == 1
    assert result.err.startswith("runner: no spec files were found"), result.err
    assert "Traceback" not in result.err and "Task" not in result.err and "Future" not in result.err, result.err


def test_a_failing_plugins_file_after_the_early_launch_says_only_why(project):
    root = project(base_project({
        "runner/plugins/index.py": "def setup(on, config):\n    raise ValueError('bad plugins file')\n",
        "runner/integration/a_spec.py": "def test_a(runner):\n    pass\n",
    }))
    result = run_runner("run", cwd=root)
    assert result.code == 1
    assert "bad plugins file" in result.err, result.err
    assert "Task was destroyed" not in result.err and "never retrieved" not in result.err, result.err


def test_no_browser_is_still_told_where_the_run_checks_for_one(project):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    pass\n"}))
    result = run_runner("run", "--browser", str(root / "no-such-browser"), cwd=root)
    assert result.code == 1
    assert "no-such-browser" in result.err, result.err
    assert not (root / "runner" / "results" / "events.jsonl").exists()  # refused before the run began


def test_node_keeps_the_drivers_compiled_code_in_runners_cache_folder(project, tmp_path):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    runner.visit('/')\n"}))
    cache = tmp_path / "cache-home"
    result = run_runner("run", cwd=root, env={"XDG_CACHE_HOME": str(cache)})
    assert result.code == 0, result.text
    folder = cache / "runner" / "node-compile-cache"
    assert any(p.is_file() for p in folder.rglob("*")), "node wrote no compile cache"


def test_a_node_compile_cache_of_the_users_own_is_kept(project, tmp_path):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    runner.visit('/')\n"}))
    own, cache = tmp_path / "own-cache", tmp_path / "cache-home"
    result = run_runner("run", cwd=root, env={"XDG_CACHE_HOME": str(cache), "NODE_COMPILE_CACHE": str(own)})
    assert result.code == 0, result.text
    assert any(p.is_file() for p in own.rglob("*"))
    assert not (cache / "runner" / "node-compile-cache").exists()


def test_a_cache_folder_that_cannot_be_written_costs_nothing_but_the_cache(project, tmp_path):
    root = project(base_project({"runner/integration/a_spec.py": "def test_a(runner):\n    runner.visit('/')\n"}))
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    result = run_runner("run", cwd=root, env={"XDG_CACHE_HOME": str(blocked)})
    assert result.code == 0, result.text
    assert "compile" not in result.text.lower(), result.text
