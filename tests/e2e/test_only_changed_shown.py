"""The HTML report's run details of a `runner run --only-changed` (a real run on a git repository,
its report opened in the browser): the selection's line and each spec kept, with why."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import run_runner
from tests.cli.test_only_changed_runs import _change, _repo
from tests.support.static_files import serve_folder


def test_the_run_details_tell_which_specs_ran_and_why(runner, tmp_path: Path) -> None:
    root = _repo(tmp_path)
    _change(root)
    done = run_runner("run", "--only-changed", "--config", "reportFolder=runner/results/report", "-r", "dot", cwd=root)
    assert done.code == 0, done.text
    with serve_folder(root / "runner" / "results" / "report") as url:
        runner.visit(url + "/index.html")
        runner.get("#runDetails summary").click()
        runner.get("#runInfo h3").should("contain", "Only changed since HEAD (--only-changed)")
        runner.get("#runInfo p.only-changed").should(
            "have.text", "only changed since HEAD: 3 of 5 specs (1 changed, 1 imports runner/support/cart.py, "
                         "1 reads the fixture runner/fixtures/users.json)")
        rows = "#runInfo table.only-changed-table tbody tr"
        runner.get(rows).should("have.length", 3)
        runner.get(rows).eq(0).should("contain", "cart_spec.py").and_("contain", "imports runner/support/cart.py")
        runner.get(rows).eq(1).should("contain", "new_spec.py").and_("contain", "changed")
