"""Studio in the child process: after the chosen test passed, its page stays and records.

The test's page (its routes still in place: the fixture's teardown has not run yet) gets the
recorder (``studio_recorder.js``); each action it reports goes to the server as
``{"t": "studio", "action": {...}}``. The server passes a person's clicks and keys on the UI's
picture of the page as ``{"t": "input", ...}`` lines on the control pipe (with ``--headed`` the
person may use the browser's own window too), and ends the recording with ``studio-done`` (or by
closing the pipe, or stopping the child). A test that failed is not recorded on: the server hears
``{"t": "studio", "state": "unavailable", "reason": ...}``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["StudioPlugin"]

_RECORDER = Path(__file__).parents[1] / "ui" / "studio_recorder.js"  # the ui serves it too
_INPUT_WAIT_S = 10.0


class StudioPlugin:
    """Registered with pytest by the child when ``--studio`` names a test."""

    def __init__(self, session: Any, writer: Any, control_fd: int, test: str) -> None:
        self.session = session
        self.writer = writer
        self.control_fd = control_fd
        self.test = test

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        try:
            result = yield
        except BaseException as err:
            if not isinstance(err, (KeyboardInterrupt, pytest.exit.Exception)):
                line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                self.writer.send({"t": "studio", "state": "unavailable",
                                  "reason": f"the test failed ({line}); studio records on a passing test"})
            raise
        if item.nodeid.split("::", 1)[-1] == self.test:
            self._record()
        return result

    def _record(self) -> None:
        session = self.session
        browser = session.host.browser()
        priority = session.config.selector_priority
        options: dict[str, Any] = {"selectorPriority": list(priority)} if priority else {}

        def on_action(text: str) -> None:
            try:
                action = json.loads(text)
            except ValueError:
                return
            self.writer.send({"t": "studio", "action": action})

        script = _RECORDER.read_text(encoding="utf-8")
        session.host.loop.run(browser.start_recorder(script, options, on_action), _INPUT_WAIT_S)
        self.writer.send({"t": "studio", "state": "recording"})
        try:
            for message in _control_lines(self.control_fd):
                if message.get("t") == "studio-done":
                    break
                if message.get("t") == "input":
                    try:
                        session.host.loop.run(browser.dispatch_input(message), _INPUT_WAIT_S)
                    except Exception as err:  # noqa: BLE001 - one lost click is told, not fatal
                        self.writer.send({"t": "studio", "state": "input-error", "reason": str(err)[:300]})
        finally:
            try:
                session.host.loop.run(browser.stop_recorder(), _INPUT_WAIT_S)
                # the actions the recorder reported on stopping reach on_action first
                session.host.loop.run(asyncio.sleep(0.2), _INPUT_WAIT_S)
            except Exception:  # noqa: BLE001 - the page may be gone; recording ends either way
                pass
            self.writer.send({"t": "studio", "state": "done"})


def _control_lines(fd: int) -> Generator[dict[str, Any], None, None]:
    """The server's messages on ``fd``, until it is closed."""
    buffered = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                yield message
