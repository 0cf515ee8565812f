"""engine/frames.py's pure parts: a query's frame steps taken off, the frame named; and the
commands' retry loop trying again while a frame is unavailable."""

from __future__ import annotations

from typing import Any

import pytest

from runner.commands.context import Attempt, retry
from runner.engine.frames import FrameUnavailable, frame_label, split_frames
from runner.errors import CommandError


def test_leading_frame_steps_are_the_path_and_the_rest_goes_to_dom_js():
    query = {"mode": "snapshot", "shadow": False, "steps": [
        {"op": "frame", "selector": "#outer"}, {"op": "frame", "selector": "#inner"},
        {"op": "get", "selector": "button"}, {"op": "first"}]}
    path, rest = split_frames(query)
    assert path == ["#outer", "#inner"]
    assert rest == {"mode": "snapshot", "shadow": False,
                    "steps": [{"op": "get", "selector": "button"}, {"op": "first"}]}
    assert len(query["steps"]) == 4  # the caller's query is left as it was


def test_a_query_without_frame_steps_is_handed_back_as_it_is():
    query = {"steps": [{"op": "get", "selector": "h1"}]}
    path, rest = split_frames(query)
    assert path == [] and rest is query


def test_the_frame_is_named_as_the_test_wrote_it():
    assert frame_label(["#outer", "#inner"]) == "frame('#outer').frame('#inner')"
    assert frame_label(["#outer", "#inner"], 1) == "frame('#outer')"


class _Context:
    """What retry() reads of a test's context."""

    command_timeout: Any = None
    one_attempt = False
    page_label = None
    traced = False
    quiet_reads = False
    quietly_read = False

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []

    def checkpoint(self) -> None:
        pass

    def add_log(self, name: str, message: str) -> None:
        self.log.append((name, message))


def test_retry_tries_again_while_the_frame_is_unavailable():
    answers = iter([FrameUnavailable("frame('#pay'): no iframe matched '#pay'."), Attempt(True, value=42)])

    def attempt() -> Attempt:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert retry(_Context(), attempt, 2000, "frame('#pay').get('input')") == 42


def test_retry_ends_with_the_frames_word_at_the_timeout():
    def attempt() -> Attempt:
        raise FrameUnavailable("frame('#pay'): no iframe matched '#pay'.")

    with pytest.raises(CommandError) as caught:
        retry(_Context(), attempt, 50, "frame('#pay').get('input') to exist")
    assert str(caught.value).endswith(": frame('#pay').get('input') to exist: frame('#pay'): no iframe matched '#pay'.")
