"""config/valid_cache.py: a document the schema found valid is not checked again, and nothing
else is ever taken for valid (a changed value, another schema, a document that is not plain JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runner.config import valid_cache
from runner.config.validate import problems_of


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "runner" / "valid-configs"


def test_a_valid_document_is_remembered_and_an_invalid_one_is_not(cache_home: Path) -> None:
    assert problems_of({"viewportWidth": 800}, flat=True) == []
    assert problems_of({"viewportWidth": "wide"}, flat=True) != []
    assert cache_home.read_text().split() == [valid_cache.digest({"viewportWidth": 800}, True)]


def test_a_remembered_document_still_has_its_own_checks(cache_home: Path) -> None:
    # the schema's verdict is remembered, not runner's own checks (here: a name past NAME_MAX)
    doc = {"screenshotsFolder": "a" * 300}
    first = problems_of(doc, flat=True)
    assert "NAME_MAX" in first[0].text
    assert cache_home.read_text().split() == [valid_cache.digest(doc, True)]  # the schema found it valid
    assert problems_of(doc, flat=True) == first


@pytest.mark.parametrize(("one", "other"), [
    ({"viewportWidth": 800}, {"viewportWidth": 801}),
    ({"viewportWidth": 800}, {"viewportWidth": 800.0}),
    ({"video": True}, {"video": 1}),
    ({"env": {"a": [1, 2]}}, {"env": {"a": [2, 1]}}),
    ({"baseUrl": "http://a"}, {"baseUrl": "http://b"}),
])
def test_another_document_is_another_digest(one: dict, other: dict) -> None:
    assert valid_cache.digest(one, True) != valid_cache.digest(other, True)
    assert valid_cache.digest(one, True) != valid_cache.digest(one, False)  # another schema


@pytest.mark.parametrize("value", [(1, 2), float("nan"), float("inf"), type("S", (str,), {})("x"), {1: "a"},
                                   Path("/x"), b"bytes"])
def test_a_document_that_is_not_plain_json_is_never_remembered(value: object) -> None:
    assert valid_cache.digest({"env": {"a": value}}, True) is None


def test_a_tuple_is_checked_for_real_even_after_its_list_was_valid(cache_home: Path) -> None:
    assert problems_of({"blockHosts": ["a.test"]}, flat=True) == []
    assert problems_of({"blockHosts": ("a.test",)}, flat=True) != []  # the schema wants an array


def test_the_newest_are_kept(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(valid_cache, "KEPT", 3)
    for width in range(300, 306):
        assert problems_of({"viewportWidth": width}, flat=True) == []
    kept = cache_home.read_text().split()
    assert kept == [valid_cache.digest({"viewportWidth": w}, True) for w in (303, 304, 305)]


def test_a_cache_that_cannot_be_written_or_read_costs_only_the_gain(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert problems_of({"viewportWidth": 800}, flat=True) == []
    assert problems_of({"viewportWidth": "wide"}, flat=True) != []


def test_garbage_in_the_cache_file_is_no_verdict(cache_home: Path) -> None:
    cache_home.parent.mkdir(parents=True)
    cache_home.write_bytes(b"\xff\xfe not ascii")
    assert problems_of({"viewportWidth": "wide"}, flat=True) != []
    assert problems_of({"viewportWidth": 800}, flat=True) == []


def test_a_run_whose_configuration_did_not_change_loads_no_jsonschema(tmp_path: Path) -> None:
    (tmp_path / "runner.json").write_text(json.dumps({"viewportWidth": 800, "video": False}))
    script = ("import sys\nfrom runner.config import load_config\n"
              f"load_config({str(tmp_path)!r})\nprint('jsonschema' in sys.modules)\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
            for _ in range(2)]
    assert [r.stdout.strip() for r in runs] == ["True", "False"], [r.stderr for r in runs]
    (tmp_path / "runner.json").write_text(json.dumps({"viewportWidth": 801, "video": False}))  # an edit
    edited = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert edited.stdout.strip() == "True", edited.stderr
