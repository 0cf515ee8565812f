"""The example's servers, started once for the specs: the outside weather API, then the app with
runner's proxy in its environment (``Runner.backend_environment()``), so that
``runner.intercept_backend`` sees the calls the app makes to the API."""

import os
import selectors
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner import Runner

APP = Path(__file__).resolve().parents[2] / "app"


def start(script: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """Start ``script`` and return it with the URL it prints first (waited for 30 s at most)."""
    process = subprocess.Popen([sys.executable, str(APP / script)], env=env, stdout=subprocess.PIPE,
                               text=True, start_new_session=True)
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=30)
    url = process.stdout.readline().strip() if ready else ""
    if not url.startswith("http://"):
        stop(process)
        raise RuntimeError(f"{script} did not start (exit status {process.poll()})")
    return process, url


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@pytest.fixture(scope="session")
def weather_app() -> Iterator[str]:
    """The app's URL; the app calls the weather API through runner's proxy."""
    api, api_url = start("weather_api.py", dict(os.environ))
    env = {**os.environ, **Runner.backend_environment(), "WEATHER_API": api_url}
    app, app_url = start("app.py", env)
    try:
        yield app_url
    finally:
        stop(app)
        stop(api)
