"""Browser discovery (with fake executables) and the engine loop's bridge."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
import time

import pytest

from runner.engine import discovery
from runner.engine.loop import EngineBlocked, EngineLoop, EngineTimeout
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
    monkeypatch.setattr(discovery, "_SHELL_PATHS", ())
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


def test_a_headless_run_prefers_the_headless_shell_and_a_headed_one_never_takes_it(empty_system):
    chromium = _fake(empty_system / "bin" / "chromium")
    assert discovery.find_browser().path == str(chromium)
    cached_shell = _fake(empty_system / "pw" / "chromium_headless_shell-1200" / "chrome-linux" / "headless_shell")
    assert discovery.find_browser().path == str(cached_shell)
    system_shell = _fake(empty_system / "bin" / "chromium-headless-shell")
    assert discovery.find_browser() == discovery.BrowserSpec("chromium", str(system_shell))
    assert discovery.find_browser("chromium").path == str(system_shell)
    assert discovery.find_browser(headless=False).path == str(chromium)
    assert discovery.find_browser("chromium", headless=False).path == str(chromium)
    assert discovery.find_browser(str(chromium)).path == str(chromium)  # a path is used as given
    with pytest.raises(BrowserNotFoundError, match="headless shell, which has none"):
        discovery.find_browser(str(system_shell), headless=False)


def test_a_headed_run_does_not_settle_for_a_lone_headless_shell(empty_system):
    _fake(empty_system / "pw" / "chromium_headless_shell-1200" / "chrome-linux" / "headless_shell")
    with pytest.raises(BrowserNotFoundError, match="apt-get install chromium"):
        discovery.find_browser(headless=False)


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


def test_engine_loop_says_what_blocks_it():
    loop = EngineLoop()
    try:
        async def blocks_the_loop():
            time.sleep(1.5)  # not awaited: nothing else runs on the loop meanwhile

        async def quick():
            return 1

        blocked = loop.submit(blocks_the_loop())
        started = time.monotonic()
        with pytest.raises(EngineBlocked) as caught:
            loop.run(quick(), 10, stall=0.3)
        assert time.monotonic() - started < 1.2  # it did not wait for the 10 s bound
        assert caught.value.blocker.startswith("blocks_the_loop (test_discovery_and_loop.py:")
        assert loop.blocker(0.05) is not None
        with pytest.raises(EngineBlocked):  # known blocked: the next call does not wait again
            loop.run(quick(), 10, stall=5)
        blocked.result(5)
        assert loop.blocker() is None and loop.run(quick(), 2, stall=0.3) == 1
    finally:
        loop.close()


def test_engine_loop_tells_its_bound_from_the_calls_own_timeout():
    loop = EngineLoop()
    try:
        async def own_timeout():
            await asyncio.wait_for(asyncio.sleep(5), 0.01)

        with pytest.raises(TimeoutError) as caught:
            loop.run(own_timeout(), 5)
        assert not isinstance(caught.value, EngineTimeout)
        with pytest.raises(EngineTimeout):
            loop.run(asyncio.sleep(5), 0.05)
    finally:
        loop.close()
