"""Two PNGs compared with pixelmatch (per-pixel colour threshold, anti-aliasing told apart): the
pixels that differ, whether that is within what an assertion allows, and the diff image.

pixelmatch is pure Python and walks every pixel it is given, so only the box around the pixels
that differ at all (Pillow's difference, in C) is handed to it, with a margin wide enough for
its anti-aliasing check (it looks two pixels around a pixel): the count is the same as for the
whole picture, and a small change on a large page stays quick.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageChops, UnidentifiedImageError
from pixelmatch.contrib.PIL import pixelmatch

from runner.errors import UsageError

__all__ = ["Comparison", "compare_png", "diff_png", "allowed_pixels", "decode_png"]

# pixelmatch's anti-aliasing test reads the neighbours of a pixel's neighbours
_MARGIN = 3


@dataclass(frozen=True)
class Comparison:
    """What differs between the expected and the actual picture (``size_differs``: nothing else
    was compared)."""

    expected_size: tuple[int, int]
    actual_size: tuple[int, int]
    diff_pixels: int = 0

    @property
    def size_differs(self) -> bool:
        return self.expected_size != self.actual_size

    @property
    def total(self) -> int:
        return self.expected_size[0] * self.expected_size[1]

    @property
    def ratio(self) -> float:
        return self.diff_pixels / self.total if self.total else 0.0


def decode_png(data: bytes, what: str) -> Image.Image:
    """``data`` as an RGBA image; a UsageError naming ``what`` (the file) when it is no image."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.convert("RGBA")
    except (UnidentifiedImageError, OSError, ValueError) as err:
        raise UsageError(f"{what} is not a PNG image runner can read ({err}); replace it, or write it again "
                         "with --update-snapshots changed.") from None


def compare_png(expected: Image.Image, actual: Image.Image, *, threshold: float) -> Comparison:
    """The pixels of ``actual`` that differ from ``expected`` by more than ``threshold`` (0 to 1,
    pixelmatch's YIQ colour distance), anti-aliased pixels not counted."""
    if expected.size != actual.size:
        return Comparison(expected.size, actual.size)
    box = ImageChops.difference(expected, actual).getbbox(alpha_only=False)
    if box is None:
        return Comparison(expected.size, actual.size, 0)
    width, height = expected.size
    left, top, right, bottom = box
    box = (max(left - _MARGIN, 0), max(top - _MARGIN, 0), min(right + _MARGIN, width), min(bottom + _MARGIN, height))
    count = pixelmatch(expected.crop(box), actual.crop(box), threshold=threshold)
    return Comparison(expected.size, actual.size, count)


def allowed_pixels(total: int, max_diff_pixels: int | None, max_diff_pixel_ratio: float | None) -> float:
    """How many pixels may differ: none unless told; the smaller of the two when both are given
    (as Playwright's ``toHaveScreenshot`` counts)."""
    limits = [float(max_diff_pixels)] if max_diff_pixels is not None else []
    if max_diff_pixel_ratio is not None:
        limits.append(max_diff_pixel_ratio * total)
    return min(limits) if limits else 0.0


def diff_png(expected: Image.Image, actual: Image.Image, *, threshold: float) -> bytes:
    """The diff picture (pixelmatch's: the expected faded, differing pixels red, anti-aliased
    ones yellow) as PNG bytes; pictures of two sizes give the actual one over the expected."""
    if expected.size != actual.size:
        width, height = max(expected.width, actual.width), max(expected.height, actual.height)
        out = Image.new("RGBA", (width, height), (255, 255, 255, 255))
        out.paste(expected, (0, 0))
        out.paste(Image.blend(actual, Image.new("RGBA", actual.size, (255, 0, 0, 255)), 0.5), (0, 0))
    else:
        out = Image.new("RGBA", expected.size)
        pixelmatch(expected, actual, output=out, threshold=threshold)
    buffer = io.BytesIO()
    out.save(buffer, format="PNG")
    return buffer.getvalue()
