"""Commands outside the page: config, env, log, fixture, exec, task.

The test's configuration and log, fixture files, shell commands and the plugins file's tasks.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from typing import Any

from runner.commands.base import CommandsBase
from runner.commands.dom_query import DomQuery
from runner.commands.fixtures import read_fixture
from runner.commands.records import Record
from runner.commands.shell import run_shell
from runner.commands.steps import _caller as caller_line  # the user's file:line, as a command's
from runner.commands.steps import command
from runner.commands.values import Value
from runner.errors import CommandError, UsageError
from runner.events import LogLine
from runner.events.cut import LOG_LIMIT, cut_text

__all__ = ["SystemCommands"]


class SystemCommands(CommandsBase):
    """The test's configuration and log, and what it runs or reads outside the browser."""

    def config(self, name: str | None = None) -> Any:
        """The current test's configuration value (or the whole configuration as a dict)."""
        if name is None:
            return self._ctx.config.as_dict()
        return self._ctx.config[name]

    def env(self, name: str | None = None) -> Any:
        """A value of ``env`` (None when unset), or the whole ``env`` dict."""
        env = self._ctx.config.env
        if name is None:
            return dict(env)
        return env.get(name)

    def log(self, message: Any) -> None:
        """Add a line to the command log (shown with a failing test's error).

        A subject is shown by what it holds now, read once without waiting: a value's
        (``wrap``, ``its``, ``invoke``, ``window()``) as ``label: value``, a DOM subject's as
        its elements (``get('h1'): <h1#title> 'Store'``).
        """
        text = cut_text(_loggable(message), LOG_LIMIT, "the runner.log() message")  # kept in every report: capped
        self._ctx.add_log("log", text)
        file, line = caller_line()  # the report's row shows where, as a command's does
        self._ctx.tell(LogLine(nodeid=self._ctx.nodeid, message=text, attempt=self._ctx.attempt,
                               file=file, line=line))

    @command("fixture")
    def fixture(self, path: str, encoding: Any = ...) -> Any:
        """Read a file of ``fixturesFolder``: JSON parsed, images as base64, text as str;
        ``encoding=None`` (or ``"path,null"``) gives bytes."""
        return read_fixture(self._ctx.config.path("fixturesFolder"), path, encoding)

    @command("exec")
    def exec(self, command: str, *, timeout: float | None = None, fail_on_non_zero_exit: bool = True,
             env: Mapping[str, str] | None = None) -> Record:
        """Run a shell command in the project folder; returns ``code``, ``stdout``, ``stderr``.

        Fails on a non-zero exit unless ``fail_on_non_zero_exit=False``, and after
        ``execTimeout`` (or ``timeout``) ms.
        """
        __tracebackhide__ = True
        if not isinstance(command, str) or not command.strip():
            raise UsageError(f"runner.exec() needs a command string; found {command!r}.")
        limit = float(timeout if timeout is not None else self._ctx.config.exec_timeout)
        full_env = {**os.environ, **{k: str(v) for k, v in (env or {}).items()}}
        try:
            done = run_shell(command, cwd=self._ctx.project_root, env=full_env, timeout=limit / 1000)
        except subprocess.TimeoutExpired as err:
            raise CommandError(
                f"runner.exec({command!r}) timed out after {int(limit)}ms "
                f"({'its timeout= argument' if timeout is not None else 'execTimeout'}); the command "
                "and every process it started were killed.\n"
                f"Make the command finish sooner or pass {'a larger ' if timeout is not None else ''}timeout=."
            ) from err
        result = Record(code=done.code, stdout=done.stdout.decode("utf-8", "replace").rstrip("\n"),
                        stderr=done.stderr.decode("utf-8", "replace").rstrip("\n"))
        if fail_on_non_zero_exit and done.code != 0:
            raise CommandError(
                f"runner.exec({command!r}) failed: the command exited with code {done.code}.\n"
                f"stdout: {result.stdout[-2000:] or '(empty)'}\nstderr: {result.stderr[-2000:] or '(empty)'}\n"
                "Pass fail_on_non_zero_exit=False to read the result instead."
            )
        self._ctx.add_log("exec", f"{command} -> {done.code}")
        return result

    @command("task")
    def task(self, name: str, arg: Any = None, *, timeout: float | None = None) -> Any:
        """Run a task registered by the plugins file with ``on("task", {...})``."""
        __tracebackhide__ = True
        if self._events is None:
            from runner.usercode.plugins_file import PluginEvents

            self._events = PluginEvents()
        limit = float(timeout if timeout is not None else self._ctx.config.task_timeout)
        return self._events.run_task(name, arg, limit,
                                     bound_by="its timeout= argument" if timeout is not None else "taskTimeout")



def _loggable(message: Any) -> str:
    """What ``runner.log(message)`` shows: a subject by what it holds now, anything else as str."""
    if isinstance(message, Value):
        try:
            ok, value, why = message._read()
        except Exception as err:  # noqa: BLE001 - a log line never fails the test
            ok, value, why = False, None, str(err)
        return f"{message._label}: {value!r}" if ok else f"{message._label}: (not readable now: {why})"
    if isinstance(message, DomQuery):
        try:
            snap = message._snap(limit=5)  # the count, and names (a huge page is not laid out)
            if snap.count == 1:
                snap = message._snap()  # one element: its text too
        except Exception as err:  # noqa: BLE001 - a log line never fails the test
            return f"{message._label}: (not readable now: {err})"
        if not snap.count:
            return f"{message._label}: no element matches"
        if snap.count == 1:
            text = snap.elements[0].text.strip()
            shown = repr(text if len(text) <= 60 else text[:59] + "…")
            return f"{message._label}: {snap.elements[0].description} {shown}"
        listed = ", ".join(e.description for e in snap.elements)
        more = f", ... {snap.count - len(snap.elements)} more" if snap.count > len(snap.elements) else ""
        return f"{message._label}: {snap.count} elements [ {listed}{more} ]"
    return str(message)
