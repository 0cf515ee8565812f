"""Whose code a traceback frame is, and errors told in a few lines.

A failure is shown with the user's frames: runner's own code, the standard library and installed
packages are "internal" (``is_internal``), runner's alone ``is_runner``. ``code_tail`` is the end
of a traceback that raised in user code loaded by runner (plugins file), ``user_frames`` only the
user's frames of it (custom reporter), ``user_code_tail`` those frames and the error as Python
prints it (the plugins file's setup, listeners and tasks), and ``error_line`` an exception in one line that never
raises itself.
"""

from __future__ import annotations

import os
import re
import sysconfig
import traceback
from pathlib import Path

__all__ = ["RUNNER_PACKAGE", "code_tail", "error_line", "first_line", "is_internal", "is_library", "is_runner",
           "message_line", "split_error_line", "user_code_tail", "user_frames"]

#: The folder of the ``runner`` package, with a trailing separator (``runner_x/`` is not in it).
RUNNER_PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep  # this file is in runner/usercode/
_LIBRARIES = tuple(sorted({str(Path(p)) + os.sep for p in (
    sysconfig.get_path("stdlib"), sysconfig.get_path("purelib"), sysconfig.get_path("platlib")) if p}))
_ERROR_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<text>.*))?$")


def is_runner(filename: str) -> bool:
    """Whether a frame's file is runner's own code."""
    return filename.startswith(RUNNER_PACKAGE)


def is_library(filename: str) -> bool:
    """Whether a frame's file is the standard library's (frozen modules included: importlib's
    ``<frozen importlib._bootstrap>``) or an installed package's."""
    return filename.startswith(_LIBRARIES) or filename.startswith("<frozen ")


def is_internal(filename: str) -> bool:
    """Whether a frame's file is runner's, the standard library's or an installed package's."""
    return is_runner(filename) or is_library(filename)


def message_line(error: object) -> str:
    """The first non-blank line of ``str(error)`` ("" for none).

    A message whose ``str()`` raises is told as such (this runs inside pytest's hooks, where an
    exception would stop the whole run).
    """
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - a user's exception may have a broken __str__
        text = "<its message could not be read>"
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def first_line(error: BaseException) -> str:
    """The first line of an exception's message, or its type's name when it has none."""
    return message_line(error) or type(error).__name__


def error_line(type_name: str, error: object) -> str:
    """``"CommandError: Timed out ..."``: the type and the first line of the message."""
    first = message_line(error)
    return f"{type_name}: {first}" if first else type_name


def split_error_line(line: str) -> tuple[str | None, str]:
    """``"pkg.ValueError: bad"`` -> ``("ValueError", "bad")``; a line that does not start with an
    exception name -> ``(None, line)``."""
    match = _ERROR_LINE.match(line.strip())
    if match is None or " " in match.group("type"):
        return None, line.strip()
    return match.group("type").rsplit(".", 1)[-1], (match.group("text") or "").strip()


def code_tail(err: BaseException, *, frames: int = 4) -> str:
    """The end of ``err``'s traceback as Python prints it: the last ``frames`` lines of it (frames
    and the error line)."""
    return "".join(traceback.format_exception(err)[-frames:]).rstrip()


def user_frames(err: BaseException, *, frames: int = 4) -> str:
    """The last ``frames`` frames of ``err``'s traceback that are the user's code (not runner's,
    the standard library's or a package's), as Python prints them."""
    kept = [f for f in traceback.extract_tb(err.__traceback__) if not is_internal(f.filename)]
    return "".join(traceback.format_list(kept[-frames:])).rstrip()


def user_code_tail(err: BaseException, *, frames: int = 4) -> str:
    """The last ``frames`` frames of ``err``'s traceback that are not runner's, then the error as
    Python prints it (a SyntaxError with its file, line and caret).

    Of the standard library's or a package's frames, only the one the user's last frame called
    is kept (``json/__init__.py, in loads``): runner's own frames, which only show how runner
    called the user's function, and importlib's, never are.
    """
    stack = traceback.extract_tb(err.__traceback__)
    users = [i for i, f in enumerate(stack) if not is_internal(f.filename)]
    kept = [stack[i] for i in users]
    if users and users[-1] + 1 < len(stack) and is_library(stack[users[-1] + 1].filename):
        kept.append(stack[users[-1] + 1])
    shown = "".join(traceback.format_list(kept[-frames:]))
    return (shown + "".join(traceback.format_exception_only(type(err), err))).rstrip()
