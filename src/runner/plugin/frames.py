"""Which frames of a failure's traceback the user sees: their own, not runner's internals."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import TracebackType

import pytest
from _pytest._code import Traceback
from _pytest.nodes import Node

from runner.config.paths import shown_path
from runner.errors import RunnerError
from runner.usercode.tracebacks import is_internal, is_library, is_runner

__all__ = ["drop_runner_frames", "mark_line"]


def drop_runner_frames(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Leave runner's own frames out of a failure's traceback, when the failure is not runner's.

    That is a runner error (``CommandError``...: the user's call is the place to show) or an error
    raised in the user's code that runner called back (a ``then`` callback). A runner error's
    cause raised inside runner or a library (Playwright's error behind ``request()``) is left out
    too: its message already says what went wrong. Anything else raised inside runner is a bug
    in runner and keeps every frame.

    Filtering ``excinfo.traceback`` is not enough: pytest cuts the traceback at the test function
    by rebuilding it from that frame's raw traceback object, which brings every later frame back.
    Relinking the raw chain (``tb_next`` is writable) removes them for every reader.
    """
    error = excinfo.value
    chain = _tb_chain(excinfo.tb)
    if not chain:
        return
    # whose code raised: the innermost frame that is not the standard library's or a package's
    raiser = next((t for t in reversed(chain) if not is_library(_file(t))), None)
    runner_error = isinstance(error, RunnerError)
    if not runner_error and (raiser is None or is_runner(_file(raiser))):
        return  # raised in runner (a bug: every frame helps) or only in libraries
    if runner_error and error.__cause__ is not None:
        cause_chain = _tb_chain(error.__cause__.__traceback__)
        if not cause_chain or is_internal(_file(cause_chain[-1])):
            error.__cause__ = None
            error.__suppress_context__ = True
    kept = [t for t in chain if not is_runner(_file(t))]
    if len(kept) == len(chain) or not any(not is_internal(_file(t)) for t in kept) or kept[0] is not chain[0]:
        return  # nothing to drop, or nothing of the user's to show
    for before, after in zip(kept, kept[1:], strict=False):
        before.tb_next = after
    kept[-1].tb_next = None
    excinfo.traceback = Traceback(kept[0])


def _tb_chain(tb: TracebackType | None) -> list[TracebackType]:
    chain = []
    while tb is not None:
        chain.append(tb)
        tb = tb.tb_next
    return chain


def _file(tb: TracebackType) -> str:
    return tb.tb_frame.f_code.co_filename


def mark_line(node: Node, mark: pytest.Mark, root: Path) -> str:
    """``specs/test_a.py:4: @pytest.mark.runner(retries=2)``: where the user wrote ``mark`` on
    ``node`` (a test, a class, a module's ``pytestmark``), its path relative to ``root``: the
    first ``runner(`` line naming each of its arguments, else the first ``runner(`` line, else
    the node's own line (its source cannot be read)."""
    obj = getattr(node, "obj", None)
    path = Path(str(node.path))
    try:
        lines, first = inspect.getsourcelines(obj)  # type: ignore[arg-type]
    except (TypeError, OSError):
        lines, first = [], 0
    first = max(first, 1)  # a module's source starts at 0
    named = [*mark.kwargs, *(repr(a) for a in mark.args if not isinstance(a, dict))]
    candidates = [(offset, text) for offset, text in enumerate(lines) if "runner(" in text and "mark" in text]
    best = next((c for c in candidates if all(n in c[1] for n in named)), candidates[0] if candidates else None)
    if best is not None:
        return f"{shown_path(path, root)}:{first + best[0]}: {best[1].strip()}"
    location = node.reportinfo()[1] if hasattr(node, "reportinfo") else None
    return f"{shown_path(path, root)}:{(location or 0) + 1}"
