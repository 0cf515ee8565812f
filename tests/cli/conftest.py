"""CLI tests run the real ``runner`` command in a subprocess on projects made in temp folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

RUNNER = str(Path(sys.executable).with_name("runner"))
PAGE = "<html><head><title>T</title></head><body><h1>Hi</h1><p id='p'>para</p></body></html>"


def base_project(extra: dict[str, str] | None = None, config: dict | None = None, *,
                 page: str = PAGE) -> dict[str, str]:
    """The files of a small project: runner.json (serving ``site/``, plus ``config``), its page,
    and ``extra``."""
    files = {
        "runner.json": json.dumps({"fileServerFolder": "site", **(config or {})}),
        "site/index.html": page,
    }
    files.update(extra or {})
    return files


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


def run_runner(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
    full_env = {k: v for k, v in os.environ.items() if not k.upper().startswith("RUNNER_")}
    full_env.update({"NO_COLOR": "1", **(env or {})})
    done = subprocess.run([RUNNER, *args], cwd=cwd, env=full_env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    return Result(done.returncode, done.stdout, done.stderr)


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path):
    def make(files: dict[str, str]) -> Path:
        return write_project(tmp_path, files)

    return make
