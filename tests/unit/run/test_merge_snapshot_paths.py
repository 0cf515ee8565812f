"""`runner merge`: a snapshot comparison's images are artifacts like screenshots, made relative to
their shard's project so a report built from the merged file finds them."""

from __future__ import annotations

from runner.events import SnapshotCompared
from runner.run.merge import _relocated


def test_a_comparisons_images_are_made_relative_to_the_shards_project() -> None:
    event = SnapshotCompared(nodeid="a_spec.py::test_card", what="screenshot", name="card",
                             baseline="/ci/shard1/runner/integration/__snapshots__/a_spec/card-chromium-linux.png",
                             outcome="differs", passed=False, expected="/ci/shard1/runner/screenshots/a/card-expected.png",
                             actual="/ci/shard1/runner/screenshots/a/card-actual.png", diff="/elsewhere/card-diff.png")
    moved = _relocated(event, "/ci/shard1")
    assert isinstance(moved, SnapshotCompared)
    assert (moved.expected, moved.actual) == ("runner/screenshots/a/card-expected.png",
                                              "runner/screenshots/a/card-actual.png")
    assert moved.baseline == "runner/integration/__snapshots__/a_spec/card-chromium-linux.png"
    assert moved.diff == "/elsewhere/card-diff.png"  # outside the project: left as it was
