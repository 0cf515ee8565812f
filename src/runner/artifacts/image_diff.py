"""Two PNGs compared with pixelmatch (per-pixel colour threshold, anti-aliasing told apart): the
pixels that differ, whether that is within what an assertion allows, and the diff image.

pixelmatch is pure Python and walks every pixel it is given (about 10 s for a 1280x720 picture on
one core), so it is given only what differs: the picture is cut in tiles, a tile with no pixel
that differs at all (Pillow's difference, in C) is skipped, and each other tile goes to pixelmatch
with a margin wide enough for its anti-aliasing check (it looks two pixels around a pixel), its
own pixels counted from pixelmatch's output. The count is the whole picture's; a small change on a
large page stays quick, and a retry that only needs to know that too many pixels differ stops
counting there (:attr:`Comparison.at_least`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageChops, UnidentifiedImageError
from pixelmatch.contrib.PIL import pixelmatch

from runner.errors import UsageError

__all__ = ["DIFF_BUDGET", "Comparison", "compare_png", "diff_png", "allowed_pixels", "decode_png"]

# pixelmatch's anti-aliasing test reads the neighbours of a pixel's neighbours
_MARGIN = 3
_TILE = 128
_RED = (255, 0, 0, 255)  # pixelmatch's colour of a pixel that differs in its output
#: The most pixels a failure's whole count and diff image hand to pixelmatch (about 25 s): past
#: it, the count is "more than" and the rest of the diff image is left faded.
DIFF_BUDGET = 2_000_000


@dataclass(frozen=True)
class Comparison:
    """What differs between the expected and the actual picture (``size_differs``: nothing else
    was compared; ``at_least``: counting stopped once past what was allowed)."""

    expected_size: tuple[int, int]
    actual_size: tuple[int, int]
    diff_pixels: int = 0
    at_least: bool = False

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


def compare_png(expected: Image.Image, actual: Image.Image, *, threshold: float,
                stop_above: float | None = None, output: Image.Image | None = None,
                budget: int | None = None) -> Comparison:
    """The pixels of ``actual`` that differ from ``expected`` by more than ``threshold`` (0 to 1,
    pixelmatch's YIQ colour distance), anti-aliased pixels not counted; counting stops once past
    ``stop_above``, or once tiles of ``budget`` pixels were handed to pixelmatch. ``output``, a
    picture of the same size, gets the differing tiles' diff."""
    if expected.size != actual.size:
        return Comparison(expected.size, actual.size)
    differences = ImageChops.difference(expected, actual)
    box = differences.getbbox(alpha_only=False)
    count = 0
    if box is None:
        return Comparison(expected.size, actual.size, 0)
    left, top, right, bottom = box
    spent = 0
    for y in range(top, bottom, _TILE):
        for x in range(left, right, _TILE):
            core = (x, y, min(x + _TILE, right), min(y + _TILE, bottom))
            if differences.crop(core).getbbox(alpha_only=False) is None:
                continue
            count += _tile(expected, actual, core, threshold, output)
            spent += (core[2] - core[0]) * (core[3] - core[1])
            if (stop_above is not None and count > stop_above) or (budget is not None and spent >= budget):
                return Comparison(expected.size, actual.size, count, at_least=True)
    return Comparison(expected.size, actual.size, count)


def _tile(expected: Image.Image, actual: Image.Image, core: tuple[int, int, int, int], threshold: float,
          output: Image.Image | None) -> int:
    """The pixels of ``core`` that differ, pixelmatch given the tile and a margin around it."""
    width, height = expected.size
    outer = (max(core[0] - _MARGIN, 0), max(core[1] - _MARGIN, 0),
             min(core[2] + _MARGIN, width), min(core[3] + _MARGIN, height))
    drawn = Image.new("RGBA", (outer[2] - outer[0], outer[3] - outer[1]))
    pixelmatch(expected.crop(outer), actual.crop(outer), output=drawn, threshold=threshold, diff_color=_RED[:3])
    inside = drawn.crop((core[0] - outer[0], core[1] - outer[1], core[2] - outer[0], core[3] - outer[1]))
    if output is not None:
        output.paste(inside, core[:2])
    colours = inside.getcolors(maxcolors=inside.width * inside.height) or []
    return sum(n for n, colour in colours if colour == _RED)


def allowed_pixels(total: int, max_diff_pixels: int | None, max_diff_pixel_ratio: float | None) -> float:
    """How many pixels may differ: none unless told; the smaller of the two when both are given
    (as Playwright's ``toHaveScreenshot`` counts)."""
    limits = [float(max_diff_pixels)] if max_diff_pixels is not None else []
    if max_diff_pixel_ratio is not None:
        limits.append(max_diff_pixel_ratio * total)
    return min(limits) if limits else 0.0


def diff_png(expected: Image.Image, actual: Image.Image, *, threshold: float) -> tuple[bytes, Comparison]:
    """The diff picture (pixelmatch's: the expected faded, differing pixels red, anti-aliased ones
    yellow) as PNG bytes, and the whole count (up to :data:`DIFF_BUDGET` pixels handed to
    pixelmatch); pictures of two sizes give the actual one, tinted, over the expected."""
    if expected.size != actual.size:
        width, height = max(expected.width, actual.width), max(expected.height, actual.height)
        out = Image.new("RGBA", (width, height), (255, 255, 255, 255))
        out.paste(expected, (0, 0))
        out.paste(Image.blend(actual, Image.new("RGBA", actual.size, (255, 0, 0, 255)), 0.5), (0, 0))
        comparison = Comparison(expected.size, actual.size)
    else:
        out = Image.new("RGBA", expected.size)
        pixelmatch(expected, expected, output=out)  # two equal pictures: the faded background, in C
        comparison = compare_png(expected, actual, threshold=threshold, output=out, budget=DIFF_BUDGET)
    buffer = io.BytesIO()
    out.save(buffer, format="PNG")
    return buffer.getvalue(), comparison
