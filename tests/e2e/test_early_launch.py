"""The browser ``runner run`` launches ahead (run/browser_host.py ``launch_early``): taken over by
the run's host when its launch options are the same, closed otherwise, never left running."""

from __future__ import annotations

from pathlib import Path

from runner.config import load_config
from runner.engine.driver import start_driver_early
from runner.engine.loop import EngineLoop
from runner.events import Event
from runner.run.browser_host import BrowserHost, drop_early_launch, launch_early


def _host(loop: EngineLoop, root: Path, **values: object) -> BrowserHost:
    config = load_config(root, config_file=False, cli_config=[values] if values else None)
    told: list[Event] = []
    return BrowserHost(config=lambda: config, browser_choice=None, headed=False, endpoint=None, loop=loop,
                       routing=lambda: None, publish=told.append, on_abandon=lambda why: None)  # type: ignore[arg-type,return-value]


def test_the_host_takes_over_the_browser_launched_with_its_options(tmp_path: Path) -> None:
    loop = EngineLoop()
    try:
        start_driver_early(loop)
        launch_early(loop, load_config(tmp_path, config_file=False), browser_choice=None, headed=False,
                     endpoint=None)
        early = loop.early_launch[0]
        host = _host(loop, tmp_path)
        browser = host.browser()
        assert browser is early and browser.alive
        assert loop.early_launch is None
        host.close_browser()
    finally:
        loop.close()


def test_other_options_close_the_early_browser_and_launch_another(tmp_path: Path) -> None:
    loop = EngineLoop()
    try:
        launch_early(loop, load_config(tmp_path, config_file=False), browser_choice=None, headed=False,
                     endpoint=None)
        early = loop.early_launch[0]
        host = _host(loop, tmp_path, userAgent="another/1.0")  # as a plugins file may change it
        browser = host.browser()
        assert browser is not early and browser.options.user_agent == "another/1.0"
        assert early.browser is None and not early.alive  # closed, not left running
        host.close_browser()
    finally:
        loop.close()


def test_a_browser_launched_ahead_and_never_taken_is_closed(tmp_path: Path) -> None:
    loop = EngineLoop()
    try:
        launch_early(loop, load_config(tmp_path, config_file=False), browser_choice=None, headed=False,
                     endpoint=None)
        early = loop.early_launch[0]
        drop_early_launch(loop)
        assert loop.early_launch is None
        assert early.browser is None and not early.alive
    finally:
        loop.close()


def test_no_browser_to_launch_launches_nothing_and_tells_nothing(tmp_path: Path) -> None:
    loop = EngineLoop()
    try:
        launch_early(loop, load_config(tmp_path, config_file=False), browser_choice=str(tmp_path / "none"),
                     headed=False, endpoint=None)
        assert loop.early_launch is None
    finally:
        loop.close()
