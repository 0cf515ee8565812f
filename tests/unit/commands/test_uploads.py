"""select_file's files: where a path is looked for, and the original's file objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.commands.uploads import drop_arg, file_payloads
from runner.errors import CommandError, UsageError

CMD = "get('#f').select_file()"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    (fixtures / "a.txt").write_text("from fixtures")
    (tmp_path / "a.txt").write_text("from the root")
    (tmp_path / "b.json").write_text("{}")
    return fixtures, tmp_path


def test_a_relative_path_is_read_from_the_fixtures_first_then_the_root(project):
    fixtures, root = project
    [a, b] = file_payloads(["a.txt", Path("b.json")], fixtures, root, CMD)
    assert (a["name"], a["buffer"], a["mimeType"]) == ("a.txt", b"from fixtures", "text/plain")
    assert (b["name"], b["buffer"], b["mimeType"]) == ("b.json", b"{}", "application/json")
    [only] = file_payloads("a.txt", None, root, CMD)  # fixturesFolder: false
    assert only["buffer"] == b"from the root"


def test_file_objects_in_either_casing(project):
    fixtures, root = project
    [raw, named, data] = file_payloads([
        {"contents": b"\x00\x01", "fileName": "x.bin", "lastModified": 5},
        {"contents": "a.txt", "file_name": "renamed.md", "mime_type": "text/x-custom"},
        {"contents": [1, 2], "fileName": "list.json"},
    ], fixtures, root, CMD)
    assert raw == {"name": "x.bin", "buffer": b"\x00\x01", "mimeType": "application/octet-stream", "lastModified": 5}
    assert (named["name"], named["buffer"], named["mimeType"]) == ("renamed.md", b"from fixtures", "text/x-custom")
    assert (data["buffer"], data["mimeType"]) == (b"[1, 2]", "application/json")
    assert drop_arg([raw])[0]["base64"] == "AAE="


def test_a_missing_file_says_where_it_looked(project):
    fixtures, root = project
    with pytest.raises(CommandError) as caught:
        file_payloads("nope.png", fixtures, root, CMD)
    assert str(caught.value).splitlines()[:2] == [
        f"{CMD} failed because the file does not exist: 'nope.png'.",
        f"Looked for: {fixtures / 'nope.png'} and {root / 'nope.png'}",
    ]


@pytest.mark.parametrize(("files", "says"), [
    ([], "at least one file"),
    (42, "takes a path, a dict"),
    ({"fileName": "x"}, "without 'contents'"),
    ({"contents": b"", "fileName": "x", "size": 3}, "found the keys"),
])
def test_misuse(project, files, says):
    with pytest.raises(UsageError, match=says):
        file_payloads(files, *project, CMD)


def test_bare_bytes_are_a_file_without_a_name(project):
    # as the original makes of a bare Buffer: new File([contents], "")
    (payload,) = file_payloads(b"raw", *project, CMD)
    assert (payload["name"], payload["buffer"]) == ("", b"raw")
