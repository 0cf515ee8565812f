"""Snapshot assertions: ``should("match.screenshot", name, ...)`` and ``should("match.aria_snapshot",
name)`` on a DOM subject or on the page (``runner.page()``, :class:`PageSubject`); docs/snapshots.md.

A screenshot assertion retries until two captures in a row are equal (the picture is steady) and
the steady picture matches its baseline within the thresholds (pixelmatch's per-pixel colour
``threshold``, ``max_diff_pixels``, ``max_diff_pixel_ratio``). An aria snapshot assertion retries
until Playwright's matching of the baseline's template holds. The baselines, their layout and
when they are written are ``artifacts/snapshots.py``'s; each assertion is told as one
``snapshot.compared`` event, a failure's images written under the test's screenshots folder.
"""

from __future__ import annotations

import difflib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.artifacts.image_diff import (
    Comparison,
    allowed_pixels,
    compare_png,
    decode_png,
    diff_png,
)
from runner.artifacts.snapshots import (
    UpdatePolicy,
    baseline_path,
    checked_name,
    failure_paths,
    read_baseline,
    write_baseline,
)
from runner.casing import camel_to_snake
from runner.commands.base import CommandsBase
from runner.commands.context import Attempt, TestContext, retry
from runner.commands.steps import command
from runner.errors import CommandError, UsageError
from runner.events import SnapshotCompared

__all__ = ["SNAPSHOT_CHAINERS", "PageSubject", "match_snapshot"]

SCREENSHOT = "match.screenshot"
ARIA = "match.aria_snapshot"
SNAPSHOT_CHAINERS = (SCREENSHOT, ARIA)
_DEFAULT_THRESHOLD = 0.2  # Playwright's toHaveScreenshot's


@dataclass
class _Shot:
    """What the retries of one screenshot assertion saw: the last capture, the last compared."""

    previous: bytes | None = None
    compared: bytes | None = None
    comparison: Comparison | None = None
    steady: bool = False
    said: str = ""  # the last attempt's words about the difference


@dataclass(frozen=True)
class _Target:
    """What is asserted on: the query of a subject's first element (None: the page), its label."""

    commands: CommandsBase
    query: dict[str, Any] | None
    label: str

    @property
    def ctx(self) -> TestContext:
        return self.commands._ctx

    def what(self, chainer: str, name: str) -> str:
        """The assertion as a message names it: a popup's says its tab (``tab[1].page()...``), as
        retry()'s timeout messages do."""
        tab = self.ctx.page_label
        return f"{tab + '.' if tab else ''}{self.label}.should({chainer!r}, {name!r})"


def match_snapshot(commands: CommandsBase, query: dict[str, Any] | None, label: str, chainer: str,
                   args: tuple[Any, ...], options: dict[str, Any], timeout_ms: float) -> None:
    """Assert ``chainer`` (one of :data:`SNAPSHOT_CHAINERS`) with its name (``args``) and
    ``options`` on ``query``'s first element, or the page. Raises UsageError for a misuse,
    CommandError when it does not hold within ``timeout_ms``."""
    __tracebackhide__ = True
    if len(args) != 1:
        raise UsageError(f"should({chainer!r}, name) takes one argument, the snapshot's name; found {len(args)}.")
    name = checked_name(args[0], chainer)
    target = _Target(commands, query, label)
    if chainer == ARIA:
        _known_options(target, chainer, name, options, set())
        _aria(target, name, timeout_ms)
    else:
        allowed = {"mask", "threshold", "max_diff_pixels", "max_diff_pixel_ratio"}
        if query is None:
            allowed.add("full_page")
        _screenshot(target, name, _screenshot_options(_known_options(target, chainer, name, options, allowed)),
                    timeout_ms)


def _known_options(target: _Target, chainer: str, name: str, options: dict[str, Any],
                   allowed: set[str]) -> dict[str, Any]:
    """``options`` in snake_case; one not in ``allowed`` is a UsageError naming the assertion."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        snake = camel_to_snake(key)
        if snake not in allowed:
            what = target.what(chainer, name)
            if snake == "full_page" and chainer == SCREENSHOT:
                raise UsageError(f"{what}: full_page is an option of runner.page(); an element is pictured whole.")
            close = difflib.get_close_matches(snake, sorted(allowed), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise UsageError(f"{what} does not take the option {key!r}.{hint} "
                             f"(it takes {', '.join(sorted(allowed | {'timeout'}))})")
        out[snake] = value
    return out


def _screenshot_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options checked: each a UsageError naming it, what it takes and what it was given."""
    mask = options.get("mask", [])
    if isinstance(mask, str) or not isinstance(mask, (list, tuple)) or not all(
            isinstance(m, str) and m.strip() for m in mask):
        raise UsageError(f"match.screenshot's mask takes a list of CSS selectors; found {mask!r}.")
    threshold = options.get("threshold", _DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise UsageError(f"match.screenshot's threshold takes a number from 0 to 1 (pixelmatch's colour distance); "
                         f"found {threshold!r}.")
    pixels = options.get("max_diff_pixels")
    if pixels is not None and (isinstance(pixels, bool) or not isinstance(pixels, int) or pixels < 0):
        raise UsageError(f"match.screenshot's max_diff_pixels takes a whole number, 0 or more; found {pixels!r}.")
    ratio = options.get("max_diff_pixel_ratio")
    if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio <= 1):
        raise UsageError(f"match.screenshot's max_diff_pixel_ratio takes a number from 0 to 1; found {ratio!r}.")
    full_page = options.get("full_page", False)
    if not isinstance(full_page, bool):
        raise UsageError(f"match.screenshot's full_page takes True or False; found {full_page!r}.")
    return {"mask": list(mask), "threshold": float(threshold), "max_diff_pixels": pixels,
            "max_diff_pixel_ratio": None if ratio is None else float(ratio), "full_page": full_page}


def _baseline(ctx: TestContext, name: str, what: str) -> Path:
    if ctx.spec_file is None:
        raise UsageError("Snapshot assertions keep their baselines beside the spec: this test has no spec file.")
    return baseline_path(ctx.spec_file, name, what=what)


def _policy(ctx: TestContext) -> UpdatePolicy:
    return UpdatePolicy.of(ctx.config.update_snapshots, os.environ)


def _shown(path: Path, ctx: TestContext) -> str:
    try:
        return str(path.relative_to(ctx.project_root))
    except ValueError:
        return str(path)


def _screenshot(target: _Target, name: str, opts: dict[str, Any], timeout_ms: float) -> None:
    __tracebackhide__ = True
    ctx = target.ctx
    path = _baseline(ctx, name, "screenshot")
    policy = _policy(ctx)
    stored = read_baseline(path)
    expected = None
    if stored is not None:
        try:
            expected = decode_png(stored, f"The baseline {_shown(path, ctx)!r}")
        except UsageError:
            if not policy.rewrites_changed:
                raise
    seen = _Shot()
    deadline = time.monotonic() + timeout_ms / 1000
    allowed_text = _allowed_text(opts)

    def attempt() -> Attempt:
        left_ms = max((deadline - time.monotonic()) * 1000, 1000.0)
        answer = ctx.run(ctx.browser.snapshot_png(target.query, masks=opts["mask"], full_page=opts["full_page"],
                                                  timeout_ms=left_ms))
        if "bad_mask" in answer:
            raise UsageError(f"{target.what(SCREENSHOT, name)}: the mask {answer['bad_mask']!r} is "
                             f"not a valid CSS selector: {answer.get('error')}")
        if "png" not in answer:
            seen.previous = None
            return Attempt(False, _no_picture(target, answer))
        shot: bytes = answer["png"]
        steady, seen.previous = shot == seen.previous, shot
        if not steady:
            return Attempt(False, "the picture was still changing (two captures in a row differed)")
        seen.steady = True
        if expected is None or policy.rewrites_all:
            return Attempt(True)
        if shot != seen.compared:  # the same steady picture is not compared twice
            seen.compared = shot
            # a retry needs to know only that too many differ; an update mode counts them all
            stop = None if policy.rewrites_changed else allowed_pixels(
                expected.width * expected.height, opts["max_diff_pixels"], opts["max_diff_pixel_ratio"])
            seen.comparison = compare_png(expected, decode_png(shot, "The capture"), threshold=opts["threshold"],
                                          stop_above=stop)
        comparison = seen.comparison
        assert comparison is not None
        if _within(comparison, opts) or policy.rewrites_changed:
            return Attempt(True)
        seen.said = _differs_text(comparison, _shown(path, ctx), allowed_text)
        return Attempt(False, seen.said)

    what = f"{target.label}.should({SCREENSHOT!r}, {name!r})"
    try:
        retry(ctx, attempt, timeout_ms, what)
    except CommandError as err:
        message = _tell_failed_shot(target, name, path, opts, seen, expected, str(err), allowed_text)
        if message == str(err):
            raise
        raise CommandError(message) from None
    shot = seen.previous
    assert shot is not None
    _settle_shot(target, name, path, opts, policy, stored is None, shot, seen.comparison)


def _no_picture(target: _Target, answer: dict[str, Any]) -> str:
    if answer.get("missing"):
        return f"expected to find element {target.label}, but never found it"
    if answer.get("hidden"):
        return (f"expected element {target.label} to be visible to picture it, but it is not "
                "(display: none, visibility: hidden, or no size)")
    return f"the picture could not be taken: {answer.get('error')}"


def _within(comparison: Comparison, opts: dict[str, Any]) -> bool:
    if comparison.size_differs:
        return False
    return comparison.diff_pixels <= allowed_pixels(comparison.total, opts["max_diff_pixels"],
                                                    opts["max_diff_pixel_ratio"])


def _allowed_text(opts: dict[str, Any]) -> str:
    limits = []
    if opts["max_diff_pixels"] is not None:
        limits.append(f"max_diff_pixels={opts['max_diff_pixels']}")
    if opts["max_diff_pixel_ratio"] is not None:
        limits.append(f"max_diff_pixel_ratio={opts['max_diff_pixel_ratio']:g}")
    return f"{', '.join(limits) or 'no pixel may differ'}, threshold={opts['threshold']:g}"


def _differs_text(comparison: Comparison, baseline: str, allowed: str) -> str:
    if comparison.size_differs:
        ew, eh = comparison.expected_size
        aw, ah = comparison.actual_size
        return f"the picture is {aw}x{ah} pixels, the baseline {baseline} is {ew}x{eh}: the sizes differ"
    if comparison.at_least:
        return (f"more than {comparison.diff_pixels - 1} pixels differ from the baseline {baseline} "
                f"(allowed: {allowed})")
    return (f"{comparison.diff_pixels} pixels ({comparison.ratio:.2%}) differ from the baseline {baseline} "
            f"(allowed: {allowed})")


def _settle_shot(target: _Target, name: str, path: Path, opts: dict[str, Any], policy: UpdatePolicy,
                 missing: bool, shot: bytes, comparison: Comparison | None) -> None:
    """The steady picture matched, or its baseline is ``missing``, or an update mode rewrites it
    (one that differs, or every one; a baseline that could not be read is one that differs)."""
    __tracebackhide__ = True
    ctx = target.ctx
    shown = _shown(path, ctx)
    event = {"what": "screenshot", "name": name, "baseline": str(path), "threshold": opts["threshold"],
             "max_diff_pixels": opts["max_diff_pixels"], "max_diff_pixel_ratio": opts["max_diff_pixel_ratio"]}
    if comparison is not None:
        event.update(diff_pixels=comparison.diff_pixels, diff_ratio=comparison.ratio)
    if missing:
        _missing(target, name, path, policy, shot, event)
        return
    if policy.rewrites_all or comparison is None or not _within(comparison, opts):
        write_baseline(path, shot)
        _tell(ctx, event, "updated", True, f"{shown} written (updateSnapshots: {policy.mode})")
        ctx.add_log("assert", f"{target.label} should {SCREENSHOT} {name!r}: baseline {shown} updated")
        return
    _tell(ctx, event, "matched", True, f"matches {shown}")
    ctx.add_log("assert", f"{target.label} should {SCREENSHOT} {name!r}: matches {shown}")


def _missing(target: _Target, name: str, path: Path, policy: UpdatePolicy, data: bytes,
             event: dict[str, Any], extension: str = ".png") -> None:
    """A baseline that does not exist: written (passing only when a mode asked), or not (CI)."""
    __tracebackhide__ = True
    ctx = target.ctx
    shown = _shown(path, ctx)
    chainer = SCREENSHOT if event["what"] == "screenshot" else ARIA
    what = target.what(chainer, name)
    if policy.writes_missing:
        if not write_baseline(path, data, replace=False):
            message = (f"{what}: the baseline {shown} did not exist when the assertion began and was written "
                       "meanwhile by another test; run the test again to compare with it.")
            _tell(ctx, event, "differs", False, message)
            ctx.add_log("failed", message)
            raise CommandError(message)
        if policy.missing_passes:
            _tell(ctx, event, "written", True, f"{shown} written (updateSnapshots: {policy.mode})")
            ctx.add_log("assert", f"{target.label} should {chainer} {name!r}: baseline {shown} written")
            return
        message = (f"{what}: the baseline {shown} did not exist; it was written now from this run. "
                   "Look at it, and run the test again (it passes when the page matches it).")
        _tell(ctx, event, "written", False, message)
    else:
        message = f"{what}: the baseline {shown} does not exist; {policy.how_to_create()}"
        try:
            paths = failure_paths(_artifact_folder(target), name, attempt=ctx.attempt, taken=ctx.screenshot_paths,
                                  extension=extension)
            paths["actual"].write_bytes(data)
            event = {**event, "actual": str(paths["actual"])}
        except OSError:  # a full disk: the missing baseline is the failure, told without the capture
            pass
        _tell(ctx, event, "missing", False, message)
    ctx.add_log("failed", message)
    raise CommandError(message)


def _tell_failed_shot(target: _Target, name: str, path: Path, opts: dict[str, Any], seen: _Shot,
                      expected: Any, message: str, allowed_text: str) -> str:
    """A screenshot assertion that timed out: its images written under the test's artifacts, the
    pixels that differ counted whole; returns the failure's message with that count."""
    ctx = target.ctx
    event: dict[str, Any] = {"what": "screenshot", "name": name, "baseline": str(path),
                             "threshold": opts["threshold"], "max_diff_pixels": opts["max_diff_pixels"],
                             "max_diff_pixel_ratio": opts["max_diff_pixel_ratio"]}
    if seen.comparison is not None:
        event.update(diff_pixels=seen.comparison.diff_pixels, diff_ratio=seen.comparison.ratio)
    shot = seen.compared or seen.previous
    if shot is not None:
        try:
            paths = failure_paths(_artifact_folder(target), name, attempt=ctx.attempt, taken=ctx.screenshot_paths)
            paths["actual"].write_bytes(shot)
            event["actual"] = str(paths["actual"])
            if expected is not None:
                actual = decode_png(shot, "The capture")
                expected.save(paths["expected"], format="PNG")
                picture, whole = diff_png(expected, actual, threshold=opts["threshold"])
                paths["diff"].write_bytes(picture)
                event.update(expected=str(paths["expected"]), diff=str(paths["diff"]),
                             diff_pixels=whole.diff_pixels, diff_ratio=whole.ratio)
                if seen.said and seen.comparison is not None and seen.comparison.at_least:
                    message = message.replace(seen.said, _differs_text(whole, _shown(path, ctx), allowed_text))
        except OSError as err:  # a full disk: the failure is still the comparison's, told without its images
            message = f"{message}\n(its images could not be written: {err.strerror or err})"
    _tell(ctx, event, "differs" if seen.steady else "unsteady", False, message)
    return message


def _aria(target: _Target, name: str, timeout_ms: float) -> None:
    __tracebackhide__ = True
    ctx = target.ctx
    path = _baseline(ctx, name, "aria")
    policy = _policy(ctx)
    stored = read_baseline(path)
    try:
        expected = None if stored is None else stored.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"The aria snapshot {_shown(path, ctx)!r} is not UTF-8 text.") from None
    last: dict[str, Any] = {}

    def attempt() -> Attempt:
        answer = ctx.run(ctx.browser.aria_snapshot(target.query, None if policy.rewrites_all else expected,
                                                   timeout_ms=max(timeout_ms, 1000.0)))
        if "actual" not in answer:
            return Attempt(False, f"expected to find element {target.label}, but never found it"
                           if answer.get("missing") else f"the tree could not be read: {answer.get('error')}")
        if not answer["actual"].strip():
            # a hidden subject's tree is empty: written, it would be a baseline Playwright cannot read
            return Attempt(False, f"{target.label} has no accessibility tree to compare (it is hidden, or holds "
                                  "nothing a screen reader reads)")
        if "template_error" in answer and not policy.rewrites_changed:
            raise UsageError(f"{target.what(ARIA, name)}: the aria snapshot {_shown(path, ctx)} is "
                             f"not a template Playwright can read: {answer['template_error']}")
        last.update(answer)
        if expected is None or answer.get("matches") or policy.rewrites_all or policy.rewrites_changed:
            return Attempt(True)
        return Attempt(False, f"the accessibility tree does not match {_shown(path, ctx)}:\n{_aria_diff(expected, answer['actual'], path, ctx)}")

    event: dict[str, Any] = {"what": "aria", "name": name, "baseline": str(path)}
    try:
        retry(ctx, attempt, timeout_ms, f"{target.label}.should({ARIA!r}, {name!r})")
    except CommandError as err:
        diff = _aria_diff(expected or "", last.get("actual", ""), path, ctx)
        _tell(ctx, {**event, "diff_text": diff}, "differs", False, str(err))
        raise
    actual = _yaml_text(last["actual"])
    shown = _shown(path, ctx)
    writes = expected is None or policy.rewrites_all or not last.get("matches")
    if writes and ctx.redactor is not None and ctx.redactor.text(actual) != actual:
        # a textbox's value is in the tree: a secret typed there must not land in a file in clear
        message = (f"{target.what(ARIA, name)}: the accessibility tree holds a secret (typed with "
                   f"log=False, or a runner.env.json / RUNNER_* value), so it is not written to {shown}. Write the "
                   "template yourself, with a regular expression in the secret's place: - textbox \"Password\": /.+/")
        _tell(ctx, event, "missing" if expected is None else "differs", False, message)
        ctx.add_log("failed", message)
        raise CommandError(message)
    if expected is None:
        _missing(target, name, path, policy, actual.encode("utf-8"), event, extension=".aria.yml")
    elif policy.rewrites_all or not last.get("matches"):
        write_baseline(path, actual.encode("utf-8"))
        _tell(ctx, {**event, "diff_text": _aria_diff(expected, actual, path, ctx)}, "updated", True,
              f"{shown} written (updateSnapshots: {policy.mode})")
        ctx.add_log("assert", f"{target.label} should {ARIA} {name!r}: baseline {shown} updated")
    else:
        _tell(ctx, event, "matched", True, f"matches {shown}")
        ctx.add_log("assert", f"{target.label} should {ARIA} {name!r}: matches {shown}")


def _yaml_text(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _aria_diff(expected: str, actual: str, path: Path, ctx: TestContext) -> str:
    lines = difflib.unified_diff(_yaml_text(expected).splitlines(keepends=True),
                                 _yaml_text(actual).splitlines(keepends=True),
                                 fromfile=_shown(path, ctx), tofile="actual")
    return "".join(lines).rstrip("\n")


def _artifact_folder(target: _Target) -> Path:
    commands = target.commands
    ctx = target.ctx
    if commands._screenshot_dir is not None:
        return commands._screenshot_dir()
    return Path(ctx.config.path("screenshotsFolder") or ".")


def _tell(ctx: TestContext, fields: dict[str, Any], outcome: str, passed: bool, message: str) -> None:
    ctx.tell(SnapshotCompared(nodeid=ctx.nodeid, attempt=ctx.attempt, outcome=outcome, passed=passed,
                              message=message, **fields))


class PageSubject:
    """``runner.page()``: the page as a subject of snapshot assertions (``match.screenshot``, with
    ``full_page=True`` for the whole page, and ``match.aria_snapshot`` of its body)."""

    def __init__(self, commands: CommandsBase) -> None:
        self._commands = commands
        self._ctx = commands._ctx
        self._label = "page()"

    def __repr__(self) -> str:
        return "<Subject page()>"

    @command("should")
    def should(self, chainer: str, *args: Any, timeout: float | None = None, **options: Any) -> PageSubject:
        """Retry until the snapshot assertion holds: ``should("match.screenshot", "home")``."""
        __tracebackhide__ = True
        if chainer not in SNAPSHOT_CHAINERS:
            raise UsageError(f"runner.page().should() takes {SCREENSHOT!r} or {ARIA!r}; found {chainer!r}. "
                             "Other assertions go on runner.get(...), runner.window() or runner.document().")
        limit = float(timeout) if timeout is not None else float(self._ctx.config.default_command_timeout)
        match_snapshot(self._commands, None, self._label, chainer, args, options, limit)
        return self

    and_ = should
