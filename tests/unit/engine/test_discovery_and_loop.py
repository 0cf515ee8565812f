"""Browser discovery (with fake executables) and the engine loop's bridge."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
import time

import pytest

from runner.engine import discovery
from runner.engine.loop import EngineLoop
from runner.errors import BrowserNotFoundError


def _fake(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def empty_system(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "pw"))
    monkeypatch.delenv("RUNNER_BROWSER", raising=False)
    monkeypatch.setattr(discovery, "_CHROMIUM_PATHS", ())
    monkeypatch.setattr(discovery, "_CHROME_PATHS", ())
    return tmp_path


def test_system_chromium_is_preferred(empty_system):
    chromium = _fake(empty_system / "bin" / "chromium")
    _fake(empty_system / "bin" / "google-chrome")
    found = discovery.find_browser()
    assert found == discovery.BrowserSpec("chromium", str(chromium))


def test_chrome_then_playwright_cache(empty_system):
    cached = _fake(empty_system / "pw" / "chromium-1100" / "chrome-linux" / "chrome")
    assert discovery.find_browser().path == str(cached)
    chrome = _fake(empty_system / "bin" / "google-chrome")
    assert discovery.find_browser() == discovery.BrowserSpec("chrome", str(chrome))


def test_explicit_choices(empty_system, monkeypatch):
    custom = _fake(empty_system / "opt" / "my-browser")
    assert discovery.find_browser(str(custom)).path == str(custom)
    monkeypatch.setenv("RUNNER_BROWSER", str(custom))
    assert discovery.find_browser().path == str(custom)
    with pytest.raises(BrowserNotFoundError, match="no Chromium was found"):
        discovery.find_browser("chromium")
    with pytest.raises(BrowserNotFoundError, match="Google Chrome"):
        discovery.find_browser("chrome")
    with pytest.raises(BrowserNotFoundError, match="neither 'chromium', 'chrome' nor an executable"):
        discovery.find_browser(str(empty_system / "missing"))


def test_nothing_found_says_what_to_install(empty_system):
    with pytest.raises(BrowserNotFoundError) as caught:
        discovery.find_browser()
    assert "apt-get install chromium" in str(caught.value)


def test_engine_loop_serves_while_the_caller_blocks():
    loop = EngineLoop()
    try:
        async def slow(n):
            await asyncio.sleep(0.2)
            return n

        started = time.monotonic()
        futures = [loop.submit(slow(i)) for i in range(5)]
        assert [f.result(2) for f in futures] == list(range(5))
        assert time.monotonic() - started < 0.6  # concurrent, not 1 s in sequence
        assert loop.run(slow(7), 2) == 7
        with pytest.raises(TimeoutError):
            loop.run(asyncio.sleep(5), 0.05)

        async def boom():
            raise ValueError("x")

        with pytest.raises(ValueError):
            loop.run(boom(), 2)
        assert loop.loop.run_in_executor is not None and threading.active_count() >= 2
    finally:
        loop.close()
    assert not loop._thread.is_alive()


def test_executable_check_ignores_plain_files(tmp_path):
    plain = tmp_path / "chrome"
    plain.write_text("")
    os.chmod(plain, 0o644)
    assert discovery._executable(str(plain)) is None
