"""Screenshot paths: safe names, attempts, and one file per shot in a run."""

from __future__ import annotations

from pathlib import Path

from runner.artifacts.screenshots import MAX_NAME, claim_screenshot_path, safe_file_name

FOLDER = Path("/shots/a_spec.py")


def test_names_that_become_the_same_file_get_numbers():
    taken: set[Path] = set()
    first = claim_screenshot_path(FOLDER, "test_p[a/b]", tail=" (failed)", taken=taken)
    second = claim_screenshot_path(FOLDER, "test_p[a:b]", tail=" (failed)", taken=taken)
    third = claim_screenshot_path(FOLDER, "test_p[a|b]", tail=" (failed)", taken=taken)
    assert [first.name, second.name, third.name] == [
        "test_p[a_b] (failed).png", "test_p[a_b] (failed) (2).png", "test_p[a_b] (failed) (3).png"]
    assert taken == {first, second, third}


def test_a_retried_attempt_says_so_before_any_number():
    taken: set[Path] = set()
    assert claim_screenshot_path(FOLDER, "mine", taken=taken).name == "mine.png"
    assert claim_screenshot_path(FOLDER, "mine", taken=taken, attempt=2).name == "mine (attempt 2).png"
    assert claim_screenshot_path(FOLDER, "mine", taken=taken, attempt=2).name == "mine (attempt 2) (2).png"


def test_a_long_name_is_cut_before_its_ending():
    taken: set[Path] = set()
    long = "x" * 300
    first = claim_screenshot_path(FOLDER, long, tail=" (failed)", taken=taken, attempt=3)
    second = claim_screenshot_path(FOLDER, long + "y", tail=" (failed)", taken=taken, attempt=3)
    assert len(first.stem) == MAX_NAME and first.stem.endswith("x (failed) (attempt 3)")
    assert second.stem.endswith(" (failed) (attempt 3) (2)") and len(second.stem) == MAX_NAME


def test_slashes_make_folders_only_when_asked():
    taken: set[Path] = set()
    assert claim_screenshot_path(FOLDER, "login/../form:1", taken=taken, subfolders=True) == (
        FOLDER / "login" / "form_1.png")
    assert claim_screenshot_path(FOLDER, "/", taken=taken, subfolders=True) == FOLDER / "_.png"
    assert claim_screenshot_path(FOLDER, "a/b", taken=taken).name == "a_b.png"


def test_safe_file_name():
    assert safe_file_name('a<b>c:"d"\x01') == "a_b_c__d__"
    assert safe_file_name("") == "_" and len(safe_file_name("z" * 500)) == MAX_NAME


def test_names_are_cut_in_bytes_not_characters():
    taken: set[Path] = set()
    path = claim_screenshot_path(FOLDER, "é" * 300, tail=" (failed)", taken=taken)
    assert len(path.stem.encode("utf-8")) <= MAX_NAME and path.stem.endswith("é (failed)")
    assert len(safe_file_name("界" * 100).encode("utf-8")) <= MAX_NAME  # never half a character
