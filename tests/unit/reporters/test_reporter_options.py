"""Building a reporter: reporterOptions checked before the run, custom reporters found and named."""

from __future__ import annotations

import pytest

from runner.errors import ConfigError
from runner.reporters import make_reporter


def test_an_option_the_reporter_does_not_read_is_a_warning_with_a_suggestion(tmp_path, capsys):
    reporter = make_reporter("junit", {"mochaFil": "out.xml", "toConsole": True}, tmp_path)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("runner: warning: reporterOptions.mochaFil is not an option of the junit reporter "
                      "and is ignored. Did you mean 'mochaFile'? It reads mochaFile, testsuitesTitle.")
    assert err[1].startswith("runner: warning: reporterOptions.toConsole is not an option")
    assert reporter.options["mochaFil"] == "out.xml"  # still handed over, the run goes on


def test_a_reporter_without_options_says_so(tmp_path, capsys):
    make_reporter("dot", {"output": "x"}, tmp_path)
    assert "It reads no options." in capsys.readouterr().err


@pytest.mark.parametrize(("name", "options", "fragment"), [
    ("junit", {"mochaFile": 5}, "reporterOptions.mochaFile of the junit reporter (the output file; "
                                "[hash] in it gives one file per spec) must be a file path (a string); found 5."),
    ("junit", {"mochaFile": " "}, "must be a file path (a string); found ' '"),
    ("junit", {"testsuitesTitle": ["a"]}, "testsuitesTitle of the junit reporter (the name of the root "
                                          "<testsuites>) must be a string; found ['a']"),
    ("json", {"output": 7}, "reporterOptions.output of the json reporter"),
    ("spec", {"routes": "yes"}, "reporterOptions.routes of the spec reporter (print the route table of "
                                "passing tests too) must be true or false; found 'yes'"),
])
def test_a_value_of_the_wrong_type_stops_the_run(tmp_path, name, options, fragment):
    with pytest.raises(ConfigError) as caught:
        make_reporter(name, options, tmp_path)
    assert fragment in str(caught.value)


def test_null_means_the_default(tmp_path, capsys):
    make_reporter("junit", {"mochaFile": None, "testsuitesTitle": None}, tmp_path)
    assert capsys.readouterr().err == ""


def test_an_output_path_that_is_a_folder_or_under_a_file_is_refused(tmp_path):
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("mine")
    with pytest.raises(ConfigError) as caught:
        make_reporter("junit", {"mochaFile": "adir"}, tmp_path)
    assert "reporterOptions.mochaFile of the junit reporter is 'adir'" in str(caught.value)
    assert "it is a folder" in str(caught.value) and "such as 'adir/junit.xml'" in str(caught.value)
    with pytest.raises(ConfigError, match="such as 'adir/report.json'"):
        make_reporter("json", {"output": "adir"}, tmp_path)
    with pytest.raises(ConfigError) as caught:
        make_reporter("json", {"output": "afile/x.json"}, tmp_path)
    assert f"{str(tmp_path / 'afile')!r} is a file, not a folder" in str(caught.value)
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        make_reporter("junit", {"mochaFile": "afile/junit-[hash].xml"}, tmp_path)
    assert (tmp_path / "afile").read_text() == "mine"
    # a folder that does not exist yet is fine: it is made when the report is written
    make_reporter("junit", {"mochaFile": "results/deep/junit-[hash].xml"}, tmp_path)


def test_custom_reporter_options_are_not_checked(tmp_path, capsys):
    (tmp_path / "mine.py").write_text("from runner.reporters import Reporter\n")
    reporter = make_reporter("mine.py", {"anything": [1]}, tmp_path)
    assert reporter.options["anything"] == [1] and capsys.readouterr().err == ""
    assert reporter.runner_name == "mine.py"


def test_a_module_of_the_project_is_a_reporter(tmp_path):
    (tmp_path / "reporting").mkdir()
    (tmp_path / "reporting" / "__init__.py").write_text("")
    (tmp_path / "reporting" / "loud.py").write_text(
        "from runner.reporters import Reporter\nclass Loud(Reporter):\n    pass\n")
    reporter = make_reporter("reporting.loud:Loud", {}, tmp_path)
    assert type(reporter).__name__ == "Loud"
    import sys
    assert str(tmp_path) not in sys.path  # only while importing


def test_a_missing_class_names_the_file_and_what_was_found(tmp_path):
    (tmp_path / "mine.py").write_text("Other = 3\n")
    with pytest.raises(ConfigError) as caught:
        make_reporter("./mine.py:Other", {}, tmp_path)
    assert f"{tmp_path / 'mine.py'} has no reporter class 'Other' (found 3)" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        make_reporter("./mine.py", {}, tmp_path)
    assert "has no reporter class 'Reporter' (found nothing)" in str(caught.value)


def test_a_reporter_that_raises_when_built_is_a_clear_error(tmp_path):
    (tmp_path / "mine.py").write_text(
        "class Reporter:\n    def __init__(self, options):\n        raise KeyError('file')\n\n"
        "    def on_run_end(self, run):\n        pass\n")
    with pytest.raises(ConfigError) as caught:
        make_reporter("mine.py", {}, tmp_path)
    assert "reporter 'mine.py' raised KeyError when it was created" in str(caught.value)
    assert "mine.py\", line 3" in str(caught.value)


def test_a_custom_reporter_may_declare_its_options(tmp_path, capsys):
    (tmp_path / "mine.py").write_text(
        "from pathlib import Path\nfrom runner.reporters import Reporter as Base\n"
        "class Reporter(Base):\n    OPTIONS = {'file': (Path, 'the summary file'), 'top': (int, 'how many')}\n")
    make_reporter("mine.py", {"file": "out/summary.json", "top": 3}, tmp_path)
    with pytest.raises(ConfigError, match=r"reporterOptions.top of the mine.py reporter \(how many\) must be "
                                          r"a whole number; found True"):
        make_reporter("mine.py", {"top": True}, tmp_path)
    make_reporter("mine.py", {"fil": "x"}, tmp_path)
    assert "Did you mean 'file'?" in capsys.readouterr().err


def test_output_paths_runner_cannot_check_are_clear_errors_too(tmp_path):
    with pytest.raises(ConfigError, match=r"reporterOptions.output of the json reporter is 'x{300}/r.json'.*"
                                          r"File name too long"):
        make_reporter("json", {"output": "x" * 300 + "/r.json"}, tmp_path)
    # an unknown user's home stays as written (a folder named so in the project), like a shell
    reporter = make_reporter("json", {"output": "~nosuchuser/r.json"}, tmp_path)
    assert reporter.options["output"] == "~nosuchuser/r.json"


def test_reporters_write_where_the_check_looked(tmp_path, monkeypatch):
    from runner.reporters.model import RunResult

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    reporter = make_reporter("json", {"output": "~/reports/r.json"}, tmp_path / "project")
    reporter.on_run_start(RunResult(), [])
    reporter.on_run_end(RunResult())
    assert (tmp_path / "home/reports/r.json").is_file()
    assert not (tmp_path / "project").exists()


@pytest.mark.parametrize(("name", "fragment"), [
    (":", "reporter ':' names no module."),
    (":Thing", "reporter ':Thing' names no module."),
    ("./reporting", "is a folder"),
    ("./notes.txt:R", "could not be loaded as a Python file: Python imports only files whose name ends in .py"),
])
def test_reporter_names_that_cannot_work_say_why(tmp_path, name, fragment):
    (tmp_path / "reporting").mkdir()
    (tmp_path / "notes.txt").write_text("not python")
    with pytest.raises(ConfigError) as caught:
        make_reporter(name, {}, tmp_path)
    assert fragment in str(caught.value)
    assert "Traceback" not in str(caught.value) and "importlib" not in str(caught.value)


def test_a_failing_reporter_shows_its_own_lines_only(tmp_path):
    (tmp_path / "boom.py").write_text(
        "class Init:\n    def __init__(self, options):\n        raise KeyError('file')\n\n"
        "    def on_run_end(self, run):\n        pass\n")
    with pytest.raises(ConfigError) as caught:
        make_reporter("./boom.py:Init", {}, tmp_path)
    message = str(caught.value)
    assert 'boom.py", line 3, in __init__' in message and "KeyError: 'file'" in message
    assert "runner/reporters" not in message
    (tmp_path / "bad_import.py").write_text("import json\njson.loads('{')\n")
    with pytest.raises(ConfigError) as caught:
        make_reporter("./bad_import.py", {}, tmp_path)
    assert "JSONDecodeError" in str(caught.value) and "<frozen" not in str(caught.value)
