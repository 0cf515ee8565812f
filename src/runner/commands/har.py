"""``runner.record_har`` and ``runner.replay_har``: a test's traffic to a HAR file, and a HAR
file back as routes (see docs/interception.md, HAR).

Paths are read from and written to ``fixturesFolder`` when relative (a recording is a fixture
of later runs). A recording is written when it is stopped, or when the test ends whatever its
outcome; it only replaces a file runner recorded itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.errors import CommandError, InterceptError, UsageError

if TYPE_CHECKING:
    from runner.commands.context import TestContext

__all__ = ["HarRecording", "start_recording", "replay_routes"]

_CONTENT = ("embed", "omit")
_NOT_FOUND = ("fallback", "abort")


def har_path(ctx: TestContext, path: Any, command: str) -> Path:
    if not isinstance(path, (str, Path)) or not str(path):
        raise UsageError(f"{command} needs a file path (relative to fixturesFolder); found {path!r}.")
    given = Path(path)
    if given.is_absolute():
        return given
    folder = ctx.config.path("fixturesFolder")
    if folder is None:
        raise CommandError(f"{command}: {str(path)!r} is relative, and fixturesFolder is false. "
                           "Give an absolute path, or set fixturesFolder in runner.json.")
    return Path(folder) / given


def url_filter(url: Any, command: str) -> Callable[[str], bool]:
    """``url``: None (every URL), a glob or a regex, matched as a route's ``url``."""
    if url is None:
        return lambda _url: True
    if not isinstance(url, (str, re.Pattern)):
        raise UsageError(f"{command}: `url` filters the requests by a glob or a regular expression; found {url!r}.")
    from runner.net.matching import CompiledMatcher, MatchView, validate_route_matcher

    matcher = CompiledMatcher(validate_route_matcher({"url": url}))
    return lambda value: matcher.match(MatchView("GET", value, {}, ""))


class HarRecording:
    """A recording in progress (``runner.record_har``): ``stop()`` writes the file and returns its
    path; as a context manager it stops at the end of the ``with`` block. A recording not
    stopped is written when the test ends."""

    def __init__(self, ctx: TestContext, path: Path, recorder: Any, version: str) -> None:
        self._ctx = ctx
        self.path = path
        self._recorder = recorder
        self._version = version
        self.entries = 0
        self._done = False
        ctx.closers.append(self._at_test_end)

    def stop(self) -> Path:
        """Stop recording and write the HAR (once); returns its path. Raises CommandError when it
        cannot be written."""
        __tracebackhide__ = True
        if self._done:
            return self.path
        self._done = True
        from runner.net.har import har_document

        entries = self._ctx.run(self._recorder.stop(), 15000)
        self.entries = len(entries)
        document = har_document(entries, self._version)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(self.path.name + ".partial")
            partial.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
            partial.replace(self.path)  # a crash mid-write leaves the old file whole
        except OSError as err:
            raise CommandError(f"runner.record_har({str(self.path)!r}) could not write the file: "
                               f"{err.strerror or err}.") from err
        self._ctx.add_log("record_har", f"{self.entries} requests to {self.path}")
        return self.path

    def _at_test_end(self) -> str | None:
        if self._done:
            return None
        try:
            self.stop()
        except CommandError as err:
            return str(err)
        return None

    def __enter__(self) -> HarRecording:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<HarRecording {self.path}{' written' if self._done else ''}>"


def start_recording(ctx: TestContext, path: Any, url: Any, content: str, version: str) -> HarRecording:
    command = f"runner.record_har({path!r})"
    if content not in _CONTENT:
        raise UsageError(f"{command}: `content` is 'embed' (the bodies in the HAR) or 'omit'; found {content!r}.")
    keep = url_filter(url, command)
    target = har_path(ctx, path, command)
    from runner.net.har import written_by_runner

    if target.exists() and (not target.is_file() or not written_by_runner(target)):
        raise CommandError(
            f"{command}: {target} exists and was not recorded by runner: it is left alone. "
            "Record to another path, or remove the file yourself."
        )
    recorder = ctx.browser.har_recorder(keep, content)
    if recorder is None:
        raise CommandError(f"{command}: there is no page to record.")
    ctx.run(recorder.start())
    return HarRecording(ctx, target, recorder, version)


def replay_routes(ctx: TestContext, intercept: Callable[..., Any], path: Any, url: Any,
                  not_found: str, alias: str | None) -> list[Any]:
    """Register the routes that replay the HAR at ``path``; return their handles, oldest first."""
    command = f"runner.replay_har({path!r})"
    if not_found not in _NOT_FOUND:
        raise UsageError(f"{command}: `not_found` is 'fallback' (to the server) or 'abort' (fail the request "
                         f"and the test); found {not_found!r}.")
    keep = url_filter(url, command)
    target = har_path(ctx, path, command)
    from runner.net.har import HarIndex, load_har

    entries = [e for e in load_har(target) if keep(e.url)]
    index = HarIndex.of(entries)
    name = target.name
    handles = []
    if not_found == "abort":
        def refuse(req: Any) -> None:
            raise InterceptError(
                f"{command} has no entry for {req.method} {req.url}"
                f"{' with this body' if index.groups.get((req.method.upper(), req.url)) else ''}. "
                "Record it again, or pass not_found='fallback' to send such requests to the server."
            )

        handles.append(intercept({"url": url if url is not None else re.compile(".*")}, refuse))
    for (method, entry_url), group in index.groups.items():
        matcher = {"method": method, "url": re.compile("^" + re.escape(entry_url) + "$")}
        if len(group) == 1 and group[0].request_body is None:
            handle = intercept(matcher, group[0].static_response())  # the static road: fastest
        else:
            handle = intercept(matcher, _picker(index, method, entry_url))
        handles.append(handle)
    for handle in handles:
        if alias:
            handle.as_(alias)
    ctx.add_log("replay_har", f"{len(entries)} entries of {name} as {len(index.groups)} routes")
    return handles


def _picker(index: Any, method: str, url: str) -> Callable[[Any], None]:
    def pick(req: Any) -> None:
        entry = index.pick(method, url, req.body)
        if entry is not None:
            req.reply(entry.static_response())
        # else: no entry for this body; the older routes (abort) or the server take it

    return pick
