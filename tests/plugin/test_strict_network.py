"""strictNetwork: a test whose page made a request no route matched fails, listing each."""

from __future__ import annotations

import textwrap

import pytest

pytestmark = [pytest.mark.e2e]

APP = """<html><head><link rel="stylesheet" href="/style.css"></head><body><img src="/pic.png">
<h1>Hi</h1><script>
fetch('/api/users');
fetch('/api/untracked', {method: 'POST'}).then(() => document.body.dataset.done = '1');
</script></body></html>"""

SPEC = textwrap.dedent("""
    import pytest

    def visit_and_settle(runner):
        runner.intercept("/api/users", {"body": []}).as_("users")
        runner.visit("/app.html")
        runner.wait("@users")
        runner.get("body").should("have.attr", "data-done", "1")

    @pytest.mark.runner(strict_network=True)
    def test_strict_fails(runner):
        visit_and_settle(runner)

    @pytest.mark.runner(strictNetwork={"allow": ["/api/untracked"]})
    def test_an_allowed_glob_passes(runner):
        visit_and_settle(runner)

    @pytest.mark.runner(strict_network={"allowTypes": []})
    def test_no_type_allowed_checks_the_assets_too(runner):
        visit_and_settle(runner)

    def test_not_strict_passes(runner):
        visit_and_settle(runner)

    @pytest.mark.runner(strict_network=True)
    def test_every_request_routed_passes(runner):
        runner.intercept("POST", "/api/untracked", {"statusCode": 204})
        visit_and_settle(runner)
""")


def test_strict_network_fails_a_test_with_unmatched_requests(project):
    pytester = project({"a_spec.py": SPEC})
    (pytester.path / "site" / "app.html").write_text(APP)
    (pytester.path / "site" / "style.css").write_text("h1 { color: red }")
    result = pytester.runpytest_subprocess("runner/integration/a_spec.py", "-p", "no:cacheprovider", timeout=180)
    result.assert_outcomes(passed=3, failed=2)
    assert "pytest_runtest_call" not in result.stdout.str()  # runner's frames are hidden
    result.stdout.fnmatch_lines([  # the stubbed /api/users and the allowed assets are not listed
        "*strictNetwork: the page made 1 request that no route matched:",
        "*  POST http://127.0.0.1:*/api/untracked (fetch)",
        "*Stub or spy on each with runner.intercept() before the page makes it*",
    ])
    result.stdout.fnmatch_lines([
        "*strictNetwork: the page made 4 requests that no route matched:*",
        "*GET http://127.0.0.1:*/app.html (document)*",
        "*GET http://127.0.0.1:*/style.css (stylesheet)*",
        "*GET http://127.0.0.1:*/pic.png (image)*",
        "*POST http://127.0.0.1:*/api/untracked (fetch)*",
        "*Stub or spy on each with runner.intercept() before the page makes it*",
    ])
