"""runner.usercode.tracebacks.first_line: an exception as the one line a message shows."""

from __future__ import annotations

from runner.usercode.tracebacks import first_line


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


def test_the_first_non_blank_line_else_the_type() -> None:
    assert first_line(ValueError("\n  bad value  \nmore")) == "bad value"
    assert first_line(TimeoutError()) == "TimeoutError"
    assert first_line(_Unprintable()) == "<its message could not be read>"
