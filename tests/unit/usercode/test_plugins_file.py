"""Loading the plugins file: setup(on, config), tasks, events and their errors."""

from __future__ import annotations

import pytest

from runner.errors import ConfigError, TaskError, UsageError
from runner.usercode.plugins_file import PluginEvents, load_plugins_file


def write(tmp_path, text):
    path = tmp_path / "index.py"
    path.write_text(text)
    return path


def test_setup_registers_tasks_events_and_returns_changes(tmp_path):
    path = write(tmp_path, (
        "def setup(on, config):\n"
        "    on('task', {'add': lambda a: a['x'] + a['y']})\n"
        "    on('before:spec', lambda spec: None)\n"
        "    return {**config, 'defaultCommandTimeout': 10}\n"))
    events, changes = load_plugins_file(path, {"defaultCommandTimeout": 4000, "env": {}})
    assert changes == {"defaultCommandTimeout": 10}
    assert events.run_task("add", {"x": 1, "y": 2}, 1000) == 3
    assert events.has("before:spec") and not events.has("after:run")


@pytest.mark.parametrize(("text", "fragment"), [
    ("x = 1\n", "defines no setup(on, config)"),
    ("def setup(on, config):\n    return 5\n", "Expected a dict"),
    ("def setup(on, config):\n    raise RuntimeError('boom')\n", "RuntimeError"),
    ("def setup(on, config):\n    on('before:everything', print)\n", "does not emit"),
    ("def setup(on, config):\n    on('task', {'x': 1})\n", "dict of task names to functions"),
    ("raise ImportError('nope')\n", "while it was loaded"),
])
def test_setup_errors_name_the_file(tmp_path, text, fragment):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_plugins_file(path, {})
    assert fragment in str(caught.value) and str(path) in str(caught.value)


def test_task_errors():
    events = PluginEvents()
    events.on("task", {"slow": lambda: __import__("time").sleep(2), "bad": lambda: 1 / 0})
    with pytest.raises(TaskError, match="not registered"):
        events.run_task("nope", None, 1000)
    with pytest.raises(TaskError, match=r"timed out after waiting 50ms \(taskTimeout\)"):
        events.run_task("slow", None, 50)
    with pytest.raises(TaskError, match=r"timed out after waiting 50ms \(its timeout= argument\)"):
        events.run_task("slow", None, 50, bound_by="its timeout= argument")
    with pytest.raises(TaskError, match="ZeroDivisionError"):
        events.run_task("bad", None, 1000)


def test_broken_listener_is_reported_not_fatal(capsys):
    events = PluginEvents()
    seen = []
    events.on("after:spec", lambda spec, results: 1 / 0)
    events.on("after:spec", lambda spec, results: seen.append(spec))
    events.emit("after:spec", {"relative": "a.py"}, {})
    assert seen == [{"relative": "a.py"}]
    assert "ZeroDivisionError" in capsys.readouterr().err
    with pytest.raises(UsageError):
        events.on("after:spec", "not callable")
