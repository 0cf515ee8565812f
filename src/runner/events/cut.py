"""Caps on the text a test puts into the run's record: its failure's report and one line, its log.

A failing test's report holds whatever its assertion message or exception held (a page's HTML,
a response body, 20 MB of it): written as it is, that text went into the events file, the JSON
report and the HTML report, each time it was repeated. The events keep at most these many
characters of each; a text that was longer is cut in the middle (its start is the code frame,
its end the error and the line it points at) and says there how much was left out and why.
"""

from __future__ import annotations

__all__ = ["ERROR_TEXT_LIMIT", "LINE_LIMIT", "LOG_LIMIT", "cut_text", "cut_line"]

#: A failure's whole report (pytest's traceback, the assertion's explanation): characters.
ERROR_TEXT_LIMIT = 64 * 1024
#: The one line of a failure (the reporters' headline): characters.
LINE_LIMIT = 4 * 1024
#: One ``runner.log()`` message: characters.
LOG_LIMIT = 64 * 1024


def cut_text(text: str, limit: int, what: str) -> str:
    """``text`` when it has at most ``limit`` characters; else its first three quarters and its
    last quarter of ``limit``, joined by a line saying how many characters of ``what`` were cut."""
    if len(text) <= limit:
        return text
    head, tail = limit * 3 // 4, limit // 4
    cut = len(text) - head - tail
    note = (f"\n[... runner cut {cut:,} characters of {what} here: it keeps {limit:,} of "
            f"{len(text):,}, the start and the end ...]\n")
    return text[:head] + note + text[len(text) - tail:]


def cut_line(text: str, limit: int = LINE_LIMIT) -> str:
    """One line kept to its first ``limit`` characters, saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} [... {len(text) - limit:,} more characters cut by runner]"
