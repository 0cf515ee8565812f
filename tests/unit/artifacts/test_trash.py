"""trashAssetsBeforeRuns: which folders are refused, and the freedesktop trash it writes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from runner.artifacts.trash import TrashPlan, home_trash, plan_trash, trash_assets
from runner.config import load_config
from runner.errors import ConfigError


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "proj"
    for sub in ("runner/integration", "runner/fixtures", "runner/support", "runner/plugins",
                "public"):
        (root / sub).mkdir(parents=True)
    (root / "runner/integration/a_spec.py").write_text("def test_a(): pass\n")
    (root / "runner/fixtures/user.json").write_text("{}")
    (root / "runner/support/index.py").write_text("")
    (root / "runner/plugins/index.py").write_text("")
    return root


def config_for(root: Path, **values: Any) -> Any:
    (root / "runner.json").write_text(json.dumps(values))
    return load_config(root, environ={})


def tree(root: Path) -> dict[str, str]:
    """Every path below ``root`` (links not followed) with its kind and content."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                found[str(path)] = "link:" + os.readlink(path)
            elif path.is_dir():
                found[str(path)] = "dir"
            else:
                found[str(path)] = "file:" + path.read_text(errors="replace")
    return found


HOSTILE = [
    ("project root", "videosFolder", "."),
    ("dot slash", "screenshotsFolder", "./"),
    ("parent of the root", "videosFolder", ".."),
    ("file system root", "screenshotsFolder", "/"),
    ("home folder", "downloadsFolder", "<home>"),
    ("parent of home", "downloadsFolder", "<home>/.."),
    ("integration folder", "videosFolder", "runner/integration"),
    ("inside the integration folder", "screenshotsFolder", "runner/integration/shots"),
    ("parent of fixtures", "downloadsFolder", "runner"),
    ("inside fixtures", "videosFolder", "runner/fixtures/videos"),
    ("fixtures folder", "videosFolder", "runner/fixtures"),
    ("support file's folder", "screenshotsFolder", "runner/support"),
    ("plugins file's folder", "videosFolder", "runner/plugins"),
    ("folder holding runner.json, via a link", "videosFolder", "<alias>"),
    ("served folder", "screenshotsFolder", "public"),
    ("inside the served folder", "screenshotsFolder", "public/api"),
    ("parent of the served folder", "videosFolder", "public/.."),
]


@pytest.mark.parametrize(("what", "prop", "value"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_folders_are_refused(project: Path, what: str, prop: str, value: str) -> None:
    (project.parent / "alias").symlink_to(project)
    value = value.replace("<home>", str(Path.home())).replace("<alias>", str(project.parent / "alias"))
    extra = {"fileServerFolder": "public"} if "served folder" in what else {}
    config = config_for(project, **{prop: value}, **extra)
    before = tree(project.parent)
    with pytest.raises(ConfigError) as caught:
        plan_trash(config)
    message = str(caught.value)
    assert f"{prop}: " in message and "trashAssetsBeforeRuns" in message
    assert any(p.startswith(f"{prop}: ") for p in caught.value.problems)
    assert tree(project.parent) == before


def test_defaults_are_planned(project: Path) -> None:
    plan = plan_trash(config_for(project))
    assert plan.folders == [
        ("screenshotsFolder", project / "runner/screenshots"),
        ("videosFolder", project / "runner/videos"),
        ("downloadsFolder", project / "runner/downloads"),
        ("tracesFolder", project / "runner/traces"),
    ]


def test_several_problems_are_listed_at_once(project: Path) -> None:
    config = config_for(project, videosFolder=".", screenshotsFolder="runner/integration")
    with pytest.raises(ConfigError) as caught:
        plan_trash(config)
    assert [p.split(":")[0] for p in caught.value.problems] == ["screenshotsFolder", "videosFolder"]


def fill(project: Path) -> None:
    shots = project / "runner/screenshots"
    (shots / "a_spec.py").mkdir(parents=True)
    (shots / "a_spec.py/test one (failed).png").write_bytes(b"png")
    (shots / "100% done #1.png").write_bytes(b"odd name")
    videos = project / "runner/videos"
    videos.mkdir(parents=True)
    (videos / "a_spec.py.mp4").write_bytes(b"mp4")
    outside = project.parent / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (videos / "link").symlink_to(outside)
    (videos / "filelink").symlink_to(outside / "keep.txt")


def test_contents_move_to_the_freedesktop_trash(project: Path) -> None:
    fill(project)
    config = config_for(project)
    before = tree(project.parent)
    moved = trash_assets(plan_trash(config), use_freedesktop=True)

    shots, videos = project / "runner/screenshots", project / "runner/videos"
    assert sorted(moved) == sorted([
        shots / "a_spec.py", shots / "100% done #1.png", videos / "a_spec.py.mp4",
        videos / "link", videos / "filelink",
    ])
    # the folders stay, empty
    assert shots.is_dir() and videos.is_dir() and not os.listdir(shots) and not os.listdir(videos)
    trash = project.parent / "xdg/Trash"
    assert trash == home_trash()
    assert (trash / "files/a_spec.py/test one (failed).png").read_bytes() == b"png"
    assert (trash / "files/link").is_symlink()
    assert os.readlink(trash / "files/link") == str(project.parent / "outside")
    assert (project.parent / "outside/keep.txt").read_text() == "keep"  # not followed
    info = (trash / "info/100% done #1.png.trashinfo").read_text()
    lines = info.splitlines()
    assert lines[0] == "[Trash Info]"
    assert lines[1] == "Path=" + str(shots).replace("%", "%25") + "/100%25%20done%20%231.png"
    assert unquote(lines[1][5:]) == str(shots / "100% done #1.png")
    assert re.fullmatch(r"DeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lines[2])
    assert sorted(os.listdir(trash / "info")) == sorted(
        n + ".trashinfo" for n in os.listdir(trash / "files")
    )
    # nothing else changed: everything before is still there except the moved entries
    after = tree(project.parent)
    for path, kind in before.items():
        if not any(path == str(m) or path.startswith(str(m) + os.sep) for m in moved):
            assert after.get(path) == kind, path


def test_name_collisions_get_numbers(project: Path) -> None:
    videos = project / "runner/videos"
    plan = TrashPlan([("videosFolder", videos)])
    for round_ in range(3):
        videos.mkdir(parents=True, exist_ok=True)
        (videos / "a_spec.py.mp4").write_text(str(round_))
        (videos / "noext").write_text(str(round_))
        trash_assets(plan, use_freedesktop=True)
    files = home_trash() / "files"
    assert (files / "a_spec.py.mp4").read_text() == "0"
    assert (files / "a_spec.2.py.mp4").read_text() == "1"
    assert (files / "a_spec.3.py.mp4").read_text() == "2"
    assert (files / "noext.2").read_text() == "1"
    info = (home_trash() / "info/a_spec.3.py.mp4.trashinfo").read_text()
    assert f"Path={videos}/a_spec.py.mp4" in info


def test_orphan_file_in_trash_is_not_overwritten(project: Path) -> None:
    files = home_trash() / "files"
    files.mkdir(parents=True)
    (files / "x.png").write_text("old")
    shots = project / "runner/screenshots"
    shots.mkdir(parents=True)
    (shots / "x.png").write_text("new")
    trash_assets(TrashPlan([("screenshotsFolder", shots)]), use_freedesktop=True)
    assert (files / "x.png").read_text() == "old"
    assert (files / "x.2.png").read_text() == "new"
    assert not (home_trash() / "info/x.png.trashinfo").exists()


def test_delete_fallback(project: Path) -> None:
    fill(project)
    config = config_for(project)
    moved = trash_assets(plan_trash(config), use_freedesktop=False)
    assert len(moved) == 5
    assert not os.listdir(project / "runner/videos")
    assert (project.parent / "outside/keep.txt").read_text() == "keep"  # link removed, not followed
    assert not home_trash().exists()
    assert (project / "runner/integration/a_spec.py").exists()


def test_missing_folders_are_fine(project: Path) -> None:
    assert trash_assets(plan_trash(config_for(project)), use_freedesktop=True) == []


def test_a_linked_folder_is_emptied_where_it_points(project: Path) -> None:
    real = project.parent / "real-videos"
    real.mkdir()
    (real / "v.mp4").write_text("v")
    (project / "runner/videos").symlink_to(real)
    plan = plan_trash(config_for(project))
    assert ("videosFolder", real) in plan.folders
    assert trash_assets(plan, use_freedesktop=True) == [real / "v.mp4"]
    assert (project / "runner/videos").is_symlink() and real.is_dir()


def test_inside_the_served_folder_names_the_reason(project: Path) -> None:
    (project / "public/api").mkdir()
    (project / "public/api/todos.json").write_text("[]")
    config = config_for(project, fileServerFolder="public", screenshotsFolder="public/api")
    with pytest.raises(ConfigError) as caught:
        plan_trash(config)
    assert caught.value.problems == [
        f"screenshotsFolder: {project / 'public/api'} is inside fileServerFolder ({project / 'public'}), "
        "which the app is served from"
    ]
    assert (project / "public/api/todos.json").read_text() == "[]"


def test_the_served_project_root_still_allows_the_default_folders(project: Path) -> None:
    plan = plan_trash(config_for(project, fileServerFolder="."))
    assert [name for name, _ in plan.folders] == ["screenshotsFolder", "videosFolder", "downloadsFolder",
                                                  "tracesFolder"]


def test_folders_that_cannot_exist_are_nothing_to_trash(project: Path) -> None:
    (project / "afile").write_text("mine")
    plan = TrashPlan([("screenshotsFolder", project / "afile"), ("videosFolder", project / "afile/v"),
                      ("downloadsFolder", project / "afile/v/w")])
    assert trash_assets(plan, use_freedesktop=True) == []
    assert trash_assets(plan, use_freedesktop=False) == []
    assert plan.problems == []
    assert (project / "afile").read_text() == "mine"
