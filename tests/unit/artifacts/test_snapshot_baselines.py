"""Snapshot baselines without a browser: the layout, the names refused, the update modes as a
table, writes that never tear or clobber, and pixelmatch's count on the box that differs."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from PIL import Image
from pixelmatch.contrib.PIL import pixelmatch

from runner.artifacts.image_diff import allowed_pixels, compare_png, decode_png, diff_png
from runner.artifacts.snapshots import (
    UpdatePolicy,
    baseline_path,
    checked_name,
    failure_paths,
    write_baseline,
)
from runner.errors import UsageError


def test_baselines_sit_beside_the_spec_per_browser_and_platform() -> None:
    spec = Path("/p/runner/integration/shop/cart_spec.py")
    assert baseline_path(spec, "card", what="screenshot", platform="linux") == Path(
        "/p/runner/integration/shop/__snapshots__/cart_spec/card-chromium-linux.png")
    assert baseline_path(spec, "card", what="aria") == Path("/p/runner/integration/shop/__snapshots__/cart_spec/card.aria.yml")


@pytest.mark.parametrize("name", ["", "  ", "a/b", "a\\b", "..", ".", "tab\there", None, 3])
def test_a_name_that_is_no_file_name_is_refused(name: object) -> None:
    with pytest.raises(UsageError, match="match.screenshot"):
        checked_name(name, "match.screenshot")


def test_a_plain_name_is_kept() -> None:
    assert checked_name("card hover (dark)", "match.screenshot") == "card hover (dark)"


@pytest.mark.parametrize(("mode", "ci", "writes_missing", "missing_passes", "changed", "every"), [
    (None, False, True, False, False, False),
    (None, True, False, False, False, False),
    ("none", False, False, False, False, False),
    ("missing", True, True, True, False, False),
    ("changed", False, True, True, True, False),
    ("all", True, True, True, True, True),
])
def test_the_update_modes(mode: str | None, ci: bool, writes_missing: bool, missing_passes: bool, changed: bool,
                          every: bool) -> None:
    policy = UpdatePolicy(mode, ci)
    assert (policy.writes_missing, policy.missing_passes, policy.rewrites_changed, policy.rewrites_all) == (
        writes_missing, missing_passes, changed, every)


@pytest.mark.parametrize(("value", "ci"), [("true", True), ("1", True), ("yes", True), ("", False), ("0", False),
                                           ("false", False), ("False", False)])
def test_ci_is_set_unless_empty_or_false(value: str, ci: bool) -> None:
    assert UpdatePolicy.of(None, {"CI": value}).ci is ci
    assert UpdatePolicy.of(None, {}).ci is False


def test_a_missing_write_never_replaces_a_baseline_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "__snapshots__" / "s" / "card-chromium-linux.png"
    assert write_baseline(path, b"first", replace=False) is True
    assert write_baseline(path, b"second", replace=False) is False
    assert path.read_bytes() == b"first"
    assert write_baseline(path, b"third") is True
    assert path.read_bytes() == b"third"
    assert sorted(p.name for p in path.parent.iterdir()) == ["card-chromium-linux.png"]


def test_writers_at_once_leave_one_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "b.png"
    payloads = [bytes([n]) * 200_000 for n in range(8)]
    threads = [threading.Thread(target=write_baseline, args=(path, data)) for data in payloads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert path.read_bytes() in payloads
    assert [p.name for p in tmp_path.iterdir()] == ["b.png"]


def test_an_unwritable_folder_is_told(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="cannot be written"):
        write_baseline(tmp_path / "file" / "b.png", b"x")


def test_failure_images_get_paths_of_their_own(tmp_path: Path) -> None:
    taken: set[Path] = set()
    first = failure_paths(tmp_path, "card", attempt=1, taken=taken)
    again = failure_paths(tmp_path, "card", attempt=2, taken=taken)
    assert first["diff"].name == "card-diff.png" and again["diff"].name == "card-diff (attempt 2).png"


def _image(size: tuple[int, int], colour: tuple[int, int, int]) -> Image.Image:
    return Image.new("RGBA", size, (*colour, 255))


def test_only_the_pixels_past_the_threshold_count_and_the_box_gives_the_whole_pictures_count() -> None:
    expected = _image((300, 200), (51, 102, 204))
    actual = expected.copy()
    actual.paste((0, 0, 0, 255), (100, 50, 103, 53))  # a 3x3 dot: 9 pixels
    actual.paste((51, 102, 206, 255), (0, 150, 300, 200))  # a shade no one sees
    assert compare_png(expected, actual, threshold=0.2).diff_pixels == 9
    assert compare_png(expected, actual, threshold=0.2).diff_pixels == pixelmatch(expected, actual, threshold=0.2)
    assert compare_png(expected, actual, threshold=0.0).diff_pixels == 9 + 300 * 50
    assert compare_png(expected, expected.copy(), threshold=0.0).diff_pixels == 0


def test_a_size_change_compares_nothing_else() -> None:
    comparison = compare_png(_image((10, 10), (0, 0, 0)), _image((12, 10), (0, 0, 0)), threshold=0.2)
    assert comparison.size_differs and (comparison.expected_size, comparison.actual_size) == ((10, 10), (12, 10))


def test_the_smaller_allowance_holds() -> None:
    assert allowed_pixels(1000, None, None) == 0
    assert allowed_pixels(1000, 20, None) == 20
    assert allowed_pixels(1000, None, 0.01) == 10
    assert allowed_pixels(1000, 20, 0.01) == 10


def test_a_diff_image_is_a_png_of_the_pictures_size() -> None:
    expected, actual = _image((20, 10), (0, 0, 255)), _image((20, 10), (255, 0, 0))
    picture, whole = diff_png(expected, actual, threshold=0.2)
    assert whole.diff_pixels == 200
    with Image.open(io.BytesIO(picture)) as diff:
        assert diff.size == (20, 10) and diff.convert("RGB").getpixel((5, 5)) == (255, 0, 0)


def test_the_tiles_count_what_pixelmatch_counts_on_the_whole_picture_and_draw_what_it_draws() -> None:
    # differences across tile borders (the tiles are 128 pixels): a dot, an edge drawn two ways
    # (anti-aliasing, not counted), a band of another colour
    expected = _image((400, 300), (255, 255, 255))
    expected.paste((0, 0, 0, 255), (0, 0, 130, 300))
    actual = expected.copy()
    actual.paste((128, 128, 128, 255), (130, 0, 131, 300))
    actual.paste((0, 0, 0, 255), (126, 126, 131, 131))
    actual.paste((30, 160, 60, 255), (250, 120, 400, 140))
    whole_output = Image.new("RGBA", expected.size)
    whole = pixelmatch(expected, actual, output=whole_output, threshold=0.2)
    assert compare_png(expected, actual, threshold=0.2).diff_pixels == whole == 150 * 20 + 25 - 20
    picture, comparison = diff_png(expected, actual, threshold=0.2)
    assert comparison.diff_pixels == whole and not comparison.at_least
    with Image.open(io.BytesIO(picture)) as drawn:
        red = {xy for xy in ((x, y) for x in range(400) for y in range(300))
               if drawn.convert("RGBA").getpixel(xy) == (255, 0, 0, 255)}
    assert red == {(x, y) for x in range(400) for y in range(300) if whole_output.getpixel((x, y)) == (255, 0, 0, 255)}


def test_counting_stops_past_what_is_allowed() -> None:
    expected, actual = _image((600, 600), (0, 0, 255)), _image((600, 600), (255, 0, 0))
    comparison = compare_png(expected, actual, threshold=0.2, stop_above=10)
    assert comparison.at_least and 10 < comparison.diff_pixels <= 128 * 128


def test_a_torn_baseline_is_told_not_raised_raw() -> None:
    with pytest.raises(UsageError, match="is not a PNG image runner can read"):
        decode_png(b"\x89PNG\r\n\x1a\n torn", "The baseline 'b.png'")


def test_anti_aliased_pixels_are_not_counted() -> None:
    # a sharp black/white edge, then the same edge drawn with a grey column, as a font or a
    # border smoothed differently: pixelmatch tells those pixels apart and does not count them
    expected = _image((20, 20), (255, 255, 255))
    expected.paste((0, 0, 0, 255), (0, 0, 10, 20))
    actual = expected.copy()
    actual.paste((128, 128, 128, 255), (10, 0, 11, 20))
    assert compare_png(expected, actual, threshold=0.2).diff_pixels == 0
    assert pixelmatch(expected, actual, threshold=0.2, includeAA=True) == 20  # they do differ
