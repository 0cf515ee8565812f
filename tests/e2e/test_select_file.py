"""select_file: files given to a file input (Playwright's set_input_files) or dropped on an element;
the page reads them back (names, sizes, types, contents through FileReader)."""

from __future__ import annotations

import pytest

from runner import CommandError, UsageError

SITE_NOTE = "plain text fixture\n"


def _files(runner, count: int) -> list[str]:
    runner.get("#files li").should("have.length", count)
    return [li.text for li in runner.get("#files li").snapshot().elements]


def test_a_fixture_path_is_selected_and_read_by_the_page(runner):
    runner.visit("/pointer.html")
    runner.get("#single").select_file("note.txt")  # in fixturesFolder
    [line] = _files(runner, 1)
    where, name, size, kind, _modified, content = line.split(":", 5)
    assert (where, name, size, kind, content) == ("single", "note.txt", str(len(SITE_NOTE)), "text/plain", SITE_NOTE)
    assert [e.message for e in runner._ctx.log if e.name == "select_file"] == ["get('#single') 'note.txt'"]


def test_a_path_not_in_the_fixtures_is_read_from_the_project_root(runner, tmp_path):
    runner.visit("/pointer.html")
    runner.get("#single").select_file("runner.json")  # the project root's
    [line] = _files(runner, 1)
    assert line.startswith("single:runner.json:") and '"fileServerFolder": "pages"' in line
    absolute = tmp_path / "abs.csv"
    absolute.write_text("a,b\n")
    runner.get("#single").select_file(absolute)
    assert _files(runner, 2)[1].startswith("single:abs.csv:4:text/csv:")


def test_bytes_in_a_file_object_and_several_files_for_a_multiple_input(runner):
    runner.visit("/pointer.html")
    runner.get("#many").select_file([
        {"contents": b"hello", "fileName": "a.txt", "mimeType": "text/x-mine", "lastModified": 1_000_000},
        {"contents": {"k": 1}, "file_name": "data.json"},
        "note.txt",
    ])
    lines = _files(runner, 3)
    assert any(line.startswith("many:a.txt:5:text/x-mine:") and line.endswith(":hello") for line in lines)
    assert any(line.startswith("many:data.json:8:application/json:") and line.endswith('{"k": 1}') for line in lines)
    assert any(line.startswith("many:note.txt:") for line in lines)


def test_bare_bytes_are_files_without_a_name(runner):
    runner.visit("/pointer.html")
    runner.get("#many").select_file([b"abc", b"de"])
    lines = _files(runner, 2)
    assert any(line.startswith("many::3:application/octet-stream:") and line.endswith(":abc") for line in lines), lines
    assert any(line.startswith("many::2:") and line.endswith(":de") for line in lines), lines


def test_a_label_of_a_file_input_takes_the_files(runner):
    runner.visit("/pointer.html")
    runner.get("#single-label").select_file({"contents": b"x", "fileName": "x.bin"})
    assert _files(runner, 1)[0].startswith("single:x.bin:1:application/octet-stream:")


def test_drag_drop_on_any_element(runner):
    runner.visit("/pointer.html")
    runner.get("#zone").select_file(["note.txt", {"contents": b"12345", "fileName": "five.txt", "lastModified": 1000}],
                                    action="drag-drop")
    runner.get("#drops").should("have.text", "dragenter,dragover,drop")
    lines = _files(runner, 2)
    assert f"zone:note.txt:{len(SITE_NOTE)}:text/plain" in "\n".join(lines)
    assert "zone:five.txt:5:text/plain:1000:12345" in lines
    assert [e.message for e in runner._ctx.log if e.name == "select_file"] == [
        "get('#zone') 'note.txt', 'five.txt' (drag-drop)"]


def test_drag_drop_on_a_file_input_also_selects(runner):
    runner.visit("/pointer.html")
    runner.get("#single").select_file("note.txt", action="drag-drop")
    assert _files(runner, 1)[0].startswith("single:note.txt:")


def test_select_on_what_is_not_a_file_input(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#plain").select_file("note.txt")
    assert str(caught.value).startswith(
        "get('#plain').select_file() can only be called on an <input type=\"file\"> or a <label> of one; "
        "found <input#plain>.")
    assert "action='drag-drop'" in str(caught.value)


def test_a_missing_file_names_where_it_was_looked_for(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#single").select_file("nope.txt")
    message = str(caught.value)
    assert message.startswith("get('#single').select_file() failed because the file does not exist: 'nope.txt'.")
    fixtures = runner._ctx.config.path("fixturesFolder")
    assert str((fixtures / "nope.txt").resolve()) in message
    assert str((runner._ctx.project_root / "nope.txt").resolve()) in message


def test_several_files_for_a_single_input(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError, match=r"several files \(2 here\) to an input with the multiple attribute"):
        runner.get("#single").select_file(["note.txt", "data.json"])
    with pytest.raises(CommandError) as caught:  # through its label: the input is the one named
        runner.get("#single-label").select_file(["note.txt", "data.json"])
    assert str(caught.value).endswith("the multiple attribute; its input <input#single> has none.")
    runner.get("#files li").should("have.length", 0)


def test_a_hidden_file_input_needs_force(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError) as caught:  # the timeout says how to reach it
        runner.get("#secret").select_file("note.txt", timeout=300)
    assert str(caught.value).endswith(
        "<input#secret> is not visible (it or an ancestor is hidden, or it has no size): file inputs are often "
        "hidden behind a styled label; pass force=True, or select_file on the label"
    )
    runner.get("#secret").select_file("note.txt", force=True)
    assert _files(runner, 1)[0].startswith("secret:note.txt:")


def test_misuse(runner):
    runner.visit("/pointer.html")
    with pytest.raises(CommandError, match=r"select_file\(\) can only be called on a single element.*2 elements"
                                           r"\.\nNarrow the query"):
        runner.get("input[type=file]:not(#secret)").select_file("note.txt")
    with pytest.raises(UsageError, match="action must be 'select' or 'drag-drop'"):
        runner.get("#single").select_file("note.txt", action="drop")
    with pytest.raises(UsageError, match="without 'contents'"):
        runner.get("#single").select_file({"fileName": "x"})


def test_contents_that_are_not_json_data_are_refused_in_one_message(runner):
    runner.visit("/pointer.html")
    with pytest.raises(UsageError) as caught:
        runner.get("#single").select_file({"contents": {1, 2}, "fileName": "n.json"})
    assert str(caught.value) == (
        "get('#single').select_file() takes contents as bytes, a path, or JSON data (dict, list, str, int, "
        "float, bool, None); found {1, 2}."
    )
