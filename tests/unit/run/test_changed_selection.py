"""--only-changed's selection in real git repositories made in temp folders: which specs the
changes select and the line that says why; git's failures as one message (no browser)."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from runner.config import load_config
from runner.run.changed import ChangedError, select_changed
from runner.run.specs import select_specs

PROJECT = {
    "runner.json": '{"video": false}\n',
    "runner/support/index.py": "",
    "runner/support/login.py": "def sign_in(): ...\n",
    "runner/integration/cart_spec.py": "from helpers.cart import total\n\ndef test_cart():\n    assert total()\n",
    "runner/integration/login_spec.py": "from support.login import sign_in\n\ndef test_login():\n    sign_in()\n",
    "runner/integration/plain_spec.py": "def test_plain():\n    pass\n",
    "runner/integration/users_spec.py": "def test_users(runner):\n    runner.fixture('users')\n",
    "runner/integration/admin/conftest.py": "",
    "runner/integration/admin/panel_spec.py": "def test_panel():\n    pass\n",
    "runner/fixtures/users.json": "[]\n",
    "runner/fixtures/other.json": "{}\n",
    "helpers/__init__.py": "",
    "helpers/cart.py": "from helpers.prices import price\n\ndef total():\n    return price()\n",
    "helpers/prices.py": "def price():\n    return 1\n",
    "README.md": "a project\n",
}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root,
                          capture_output=True, text=True, check=True, timeout=30)
    return done.stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _write(tmp_path, PROJECT)
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "the project")
    return tmp_path


def _select(root: Path, ref: str = "HEAD", spec: str | None = None) -> tuple[list[str], str]:
    config = load_config(root)
    specs, _ = select_specs(config, spec, root)
    chosen = select_changed(config, specs, ref)
    folder = root / "runner/integration"
    return [s.relative_to(folder).as_posix() for s in chosen.specs], chosen.notice()


def test_nothing_changed_selects_nothing(repo: Path) -> None:
    _write(repo, {"runner/results/events.jsonl": "{}\n", "runner/results/events.2026-01-01T00-00-00.jsonl": "",
                  "runner/screenshots/a_spec.py/shot.png": "", "runner/report/index.html": ""})  # runner's own
    assert _select(repo) == ([], "runner: only changed since HEAD: nothing changed, no spec to run.")
    _write(repo, {"README.md": "edited\n", "site/page.html": "<p>the app</p>"})
    specs, notice = _select(repo)
    assert specs == [] and "no spec changed, nor a module, conftest or fixture one uses (2 files changed)" in notice


def test_a_changed_spec_a_module_it_imports_and_an_untracked_spec(repo: Path) -> None:
    _write(repo, {"helpers/prices.py": "def price():\n    return 2\n",  # imported through helpers/cart.py
                  "runner/integration/plain_spec.py": "def test_plain():\n    assert 1\n",
                  "runner/integration/new_spec.py": "def test_new():\n    pass\n"})
    specs, notice = _select(repo)
    assert specs == ["cart_spec.py", "new_spec.py", "plain_spec.py"]
    assert notice == "runner: only changed since HEAD: 3 of 6 specs (2 changed, 1 imports helpers/prices.py)"


def test_staged_and_committed_changes_since_a_ref(repo: Path) -> None:
    _write(repo, {"runner/support/login.py": "def sign_in():\n    return 1\n"})
    _git(repo, "add", "runner/support/login.py")  # staged, not committed
    assert _select(repo)[0] == ["login_spec.py"]
    _git(repo, "commit", "-q", "-m", "login")
    assert _select(repo)[0] == []  # nothing uncommitted any more
    _git(repo, "switch", "-q", "-c", "feature")
    _write(repo, {"runner/integration/plain_spec.py": "def test_plain():\n    assert 2\n"})
    specs, notice = _select(repo, "main~1")  # the commit since main~1, and the uncommitted change
    assert specs == ["login_spec.py", "plain_spec.py"], notice
    assert notice.startswith("runner: only changed since main~1: 2 of 5 specs")


def test_a_conftest_selects_the_specs_of_its_folder(repo: Path) -> None:
    _write(repo, {"runner/integration/admin/conftest.py": "import helpers\n"})
    specs, notice = _select(repo)
    assert specs == ["admin/panel_spec.py"]
    assert "1 uses runner/integration/admin/conftest.py" in notice


@pytest.mark.parametrize("changed", ["runner/support/index.py", "runner/plugins/index.py"])
def test_the_support_and_plugins_files_apply_to_every_spec(repo: Path, changed: str) -> None:
    _write(repo, {changed: "x = 1\n"})
    specs, notice = _select(repo)
    assert len(specs) == 5 and f"5 of 5 specs (5 use {changed})" in notice


def test_a_changed_configuration_file_selects_every_spec(repo: Path) -> None:
    _write(repo, {"runner.json": '{"video": false, "viewportWidth": 800}\n'})
    specs, notice = _select(repo, spec="**/cart_spec.py,**/plain_spec.py")  # --spec narrows first
    assert specs == ["cart_spec.py", "plain_spec.py"]
    assert notice == "runner: only changed since HEAD: all 2 specs, as runner.json changed (it applies to every spec)"


def test_a_fixture_selects_the_specs_that_name_it_or_read_fixtures_by_computed_names(repo: Path) -> None:
    _write(repo, {"runner/fixtures/users.json": "[1]\n"})
    assert _select(repo) == (["users_spec.py"], "runner: only changed since HEAD: 1 of 5 specs "
                                                "(1 reads the fixture runner/fixtures/users.json)")
    _git(repo, "commit", "-qam", "users")
    _write(repo, {"runner/integration/plain_spec.py": "def test_plain(runner):\n    runner.fixture(NAME)\n"})
    _git(repo, "commit", "-qam", "plain reads a fixture by a computed name")
    _write(repo, {"runner/fixtures/other.json": "{\"a\": 1}\n"})  # named by no spec
    specs, notice = _select(repo)
    assert specs == ["plain_spec.py"]
    assert "1 reads fixtures by computed names, and runner/fixtures/other.json changed" in notice


def test_a_module_that_cannot_be_parsed_counts_as_changed(repo: Path) -> None:
    _write(repo, {"helpers/prices.py": "def price(:\n"})
    _git(repo, "commit", "-qam", "broken")
    _write(repo, {"README.md": "edited\n"})
    specs, notice = _select(repo)
    assert specs == ["cart_spec.py"]
    assert "1 depends on helpers/prices.py, which cannot be parsed (a syntax error at line 1)" in notice


def test_a_deleted_module_selects_its_importers(repo: Path) -> None:
    (repo / "helpers/prices.py").unlink()
    assert _select(repo) == (["cart_spec.py"], "runner: only changed since HEAD: 1 of 5 specs "
                                               "(1 imports helpers/prices.py)")


def test_what_git_cannot_tell_is_one_message(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(ChangedError, match="git knows no commit, branch or tag named 'nope'"):
        _select(repo, "nope")
    with pytest.raises(ChangedError, match="found a name that starts with '-'"):
        _select(repo, "--output=/tmp/x")
    with pytest.raises(ChangedError, match="found an empty name"):
        _select(repo, " ")
    bare = tmp_path_factory.mktemp("not-a-repo")
    _write(bare, PROJECT)
    with pytest.raises(ChangedError, match="is not in a git repository"):
        _select(bare)
    _git(bare, "init", "-q")
    with pytest.raises(ChangedError, match="has no commit yet"):
        _select(bare)


def test_no_git_on_path_is_one_message(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "nowhere"))
    with pytest.raises(ChangedError, match="git was not found on PATH"):
        _select(repo)


def test_modules_of_src_and_of_pytests_pythonpath_are_followed(repo: Path) -> None:
    _write(repo, {"pytest.ini": "[pytest]\npythonpath = lib\n",
                  "src/shop/__init__.py": "", "src/shop/pages.py": "",
                  "lib/tools.py": "",
                  "runner/integration/plain_spec.py": "import shop.pages\nimport tools\n\ndef test_plain():\n    pass\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "src and lib")
    _write(repo, {"src/shop/pages.py": "X = 1\n"})
    assert _select(repo) == (["plain_spec.py"], "runner: only changed since HEAD: 1 of 5 specs "
                                                "(1 imports src/shop/pages.py)")
    _git(repo, "commit", "-qam", "pages")
    _write(repo, {"lib/tools.py": "Y = 1\n"})
    assert _select(repo)[0] == ["plain_spec.py"]
    _write(repo, {"pytest.ini": "[pytest]\npythonpath = lib other\n"})  # the pytest configuration: every spec
    assert "all 5 specs, as pytest.ini changed" in _select(repo)[1]


def test_a_project_in_a_folder_of_the_repository_counts_only_its_own_changes(tmp_path: Path) -> None:
    _write(tmp_path / "app", PROJECT)
    _write(tmp_path, {"other/plain_spec.py": "", "other/helpers/cart.py": ""})
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "two projects")
    _write(tmp_path, {"other/plain_spec.py": "x = 1\n", "other/helpers/cart.py": "x = 1\n", "other/new.py": ""})
    assert _select(tmp_path / "app")[0] == []
    _write(tmp_path, {"app/helpers/cart.py": "from helpers.prices import price\n\ndef total():\n    return 2\n"})
    assert _select(tmp_path / "app") == (["cart_spec.py"], "runner: only changed since HEAD: 1 of 5 specs "
                                                           "(1 imports helpers/cart.py)")


def test_a_git_that_does_not_answer_is_given_up_on(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from runner.run.changed import git

    slow = repo / "slow-bin"
    slow.mkdir()
    (slow / "git").write_text(f"#!/bin/sh\nexec {shutil.which('sleep')} 30\n")  # a git that hangs
    (slow / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(slow))
    monkeypatch.setattr(git, "GIT_TIMEOUT", 0.5)
    with pytest.raises(ChangedError, match=r"`git rev-parse --show-toplevel` did not answer within 0.5s"):
        _select(repo)


def test_a_file_of_the_site_selects_the_specs_that_name_it(repo: Path) -> None:
    _write(repo, {"runner.json": '{"video": false, "fileServerFolder": "site"}\n',
                  "site/checkout.html": "<p>pay</p>", "site/js/counter.js": "", "site/about.html": "",
                  "runner/integration/pay_spec.py": "def test_pay(runner):\n    runner.visit('/checkout.html')\n",
                  "runner/integration/count_spec.py": "def test_count(runner):\n"
                                                      "    runner.mount('<div></div>', modules=['js/counter.js'])\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the site")
    _write(repo, {"site/checkout.html": "<p>pay now</p>", "site/js/counter.js": "export {}", "site/about.html": "!"})
    specs, notice = _select(repo)
    assert specs == ["count_spec.py", "pay_spec.py"]
    assert notice == ("runner: only changed since HEAD: 2 of 7 specs (1 names site/checkout.html, "
                      "1 names site/js/counter.js)")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the repository to another user needs root")
def test_a_repository_of_another_user_is_named_with_the_fix(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)  # no safe.directory of this machine's
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, 65534, 65534)  # nobody: git refuses it (safe.directory)
    with pytest.raises(ChangedError, match="belongs to another user") as refused:
        _select(repo)
    assert f"git config --global --add safe.directory {repo.resolve()}`" in str(refused.value)


def test_a_shallow_clone_is_named_as_the_likely_cause(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    _write(repo, {"README.md": "second\n"})
    _git(repo, "commit", "-qam", "second")
    clone = tmp_path_factory.mktemp("shallow") / "clone"
    _git(repo, "clone", "-q", "--depth", "1", repo.resolve().as_uri(), str(clone))
    with pytest.raises(ChangedError, match=r"named 'HEAD~1' in this repository\. The clone is shallow"):
        _select(clone, "HEAD~1")
    assert _select(clone)[0] == []  # HEAD itself is there


def test_the_selection_described_for_the_events(repo: Path) -> None:
    """run.started's only_changed: the line without its prefix, each spec (relative to the spec
    folder, in a subfolder too) and why; a run-wide change says so for each."""
    _write(repo, {"runner/integration/admin/conftest.py": "import helpers\n"})
    config = load_config(repo)
    specs, _ = select_specs(config, None, repo)
    described = select_changed(config, specs, "HEAD").described(repo / "runner/integration")
    assert described == {"ref": "HEAD", "total": 5, "changed": 1, "everything": None,
                         "notice": "only changed since HEAD: 1 of 5 specs (1 uses runner/integration/admin/conftest.py)",
                         "specs": [{"spec": "admin/panel_spec.py", "why": "uses runner/integration/admin/conftest.py"}]}
    _write(repo, {"runner.json": '{"video": false, "viewportWidth": 800}\n'})
    config = load_config(repo)
    described = select_changed(config, specs, "main").described(repo / "runner/integration")
    assert described["everything"] == "runner.json" and len(described["specs"]) == 5
    assert {s["why"] for s in described["specs"]} == {"runner.json changed (it applies to every spec)"}
