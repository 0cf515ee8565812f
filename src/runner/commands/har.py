"""``runner.record_har`` and ``runner.replay_har``: a test's traffic to a HAR file, and a HAR
file back as routes, which can record what it lacks (see docs/har.md).

Paths are read from and written to ``fixturesFolder`` when relative (a recording is a fixture
of later runs). What is written is written at ``stop()`` or when the test ends, whatever its
outcome (an end check of a passing test, so a failure to write fails it; else a closer, whose
failure is a warning): the entries pass the ``redact`` hook, then the run's own redaction, and
the file is replaced whole under a lock (``net/har_write.py``). ``record_har`` only replaces a
file runner recorded; ``replay_har(update=...)`` adds to any HAR and never drops an entry it
did not record again.
"""

from __future__ import annotations

import copy
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.errors import CommandError, InterceptError, UsageError
from runner.events import LogLine
from runner.redaction import REDACTED

if TYPE_CHECKING:
    from runner.commands.context import TestContext
    from runner.net.har import HarMatching
    from runner.redaction import Redactor

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


def _names(value: Any, option: str, example: str, command: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value):
        return list(value)
    raise UsageError(f"{command}: `{option}` is a list of names, e.g. {example}; found {value!r}.")


def _hook(value: Any, command: str) -> Callable[[dict[str, Any]], Any] | None:
    if value is None or callable(value):
        return value
    raise UsageError(f"{command}: `redact` is a function that takes a HAR entry (a dict) and returns it "
                     f"changed, or None to leave it out; found {value!r}.")


def _redactor(ctx: TestContext) -> Redactor:
    from runner.redaction import Redactor

    return ctx.redactor if ctx.redactor is not None else Redactor()  # the secret headers at least


def _hook_name(hook: Callable[..., Any]) -> str:
    return str(getattr(hook, "__qualname__", None) or repr(hook))


def _finish_entries(ctx: TestContext, entries: list[dict[str, Any]], hook: Callable[..., Any] | None,
                   command: str) -> list[dict[str, Any]]:
    """The entries as written: each passed to ``hook`` (a copy; what it returns, None leaving
    the entry out), then the run's redaction. Raises CommandError naming the hook and the
    request when the hook raises or returns something that is not an entry (nothing is
    written then)."""
    from runner.net.har_write import redact_entry

    redactor = _redactor(ctx)
    out = []
    for entry in entries:
        if hook is not None:
            request = entry.get("request", {})
            shown = redactor.text(f"{request.get('method')} {request.get('url')}")
            try:
                changed = hook(copy.deepcopy(entry))
            except Exception as err:  # noqa: BLE001 - the user's hook: its error is told, naming it
                raise CommandError(f"{command}: the redact hook {_hook_name(hook)} raised "
                                   f"{type(err).__name__}: {redactor.text(str(err))} on the entry of {shown}. "
                                   "Nothing was written: the file is as it was.") from err
            if changed is None:
                continue
            if not isinstance(changed, dict) or not isinstance(changed.get("request"), dict) \
                    or not isinstance(changed.get("response"), dict):
                raise CommandError(f"{command}: the redact hook {_hook_name(hook)} returned "
                                   f"{redactor.text(repr(changed))[:200]} for the entry of {shown}; expected the "
                                   "entry (a dict with request and response) or None. Nothing was written: the "
                                   "file is as it was.")
            entry = changed
        out.append(redact_entry(entry, redactor))
    return out


def _told(ctx: TestContext, name: str, message: str) -> None:
    """A line of the command log written outside a command (a ``with`` block's end, the test's
    end), told as a log event too: the report and ``runner open`` draw the log from the events."""
    ctx.add_log(name, message)
    ctx.tell(LogLine(nodeid=ctx.nodeid, message=ctx.log[-1].line, attempt=ctx.attempt))


class _AtTestEnd(ABC):
    """Work done once: when asked, else when the test ends: as an end check of a passing test
    (its error fails the test, its log line is the test's), else as a closer (a warning)."""

    #: who writes the file, as a refusal of a second writer names it
    writer = ""

    def __init__(self, ctx: TestContext, file: Path) -> None:
        self._ctx = ctx
        self._file = file
        self._done = False
        ctx.end_checks.append(self._end_check)
        ctx.closers.append(self._at_test_end)

    @abstractmethod
    def _write(self) -> None:
        """Write the file; raise CommandError when it cannot be."""

    def _once(self) -> None:
        if not self._done:
            self._done = True
            self._write()

    def _end_check(self) -> BaseException | None:
        try:
            self._once()
        except CommandError as err:
            # raised at the test's end, not at a line of the test: runner's frames would be all
            # its traceback shows, so it goes without them, as the message says it all
            return err.with_traceback(None)
        return None

    def _at_test_end(self) -> str | None:
        try:
            self._once()
        except CommandError as err:
            return str(err)
        return None


def _one_writer(ctx: TestContext, target: Path, command: str) -> None:
    """Refuse a second writer of ``target`` in the test: each would replace what the other wrote."""
    for check in ctx.end_checks:
        writer = getattr(check, "__self__", None)
        if isinstance(writer, _AtTestEnd) and not writer._done and writer._file == target:
            raise UsageError(f"{command}: this test writes {target} already ({writer.writer}); two writers "
                             "of one file would each replace what the other wrote. Stop that recording "
                             "first (a record_har's stop() or with block), or write to another path.")


class HarRecording(_AtTestEnd):
    """A recording in progress (``runner.record_har``): ``stop()`` writes the file and returns its
    path; as a context manager it stops at the end of the ``with`` block. A recording not
    stopped is written when the test ends."""

    writer = "runner.record_har, until it stops"

    def __init__(self, ctx: TestContext, path: Path, recorder: Any, version: str,
                 hook: Callable[..., Any] | None) -> None:
        super().__init__(ctx, path)
        self.path = path
        self._recorder = recorder
        self._version = version
        self._hook = hook
        self.entries = 0

    def stop(self) -> Path:
        """Stop recording and write the HAR (once); returns its path. Raises CommandError when it
        cannot be written (or the redact hook fails)."""
        __tracebackhide__ = True
        self._once()
        return self.path

    def _write(self) -> None:
        from runner.net.har import har_document
        from runner.net.har_write import locked, write_document

        command = f"runner.record_har({str(self.path)!r})"
        entries = _finish_entries(self._ctx, self._ctx.run(self._recorder.stop(), 15000), self._hook, command)
        self.entries = len(entries)
        try:
            with locked(self.path):
                write_document(self.path, har_document(entries, self._version))
        except OSError as err:
            raise CommandError(f"{command} could not write the file: {err.strerror or err}.") from err
        _told(self._ctx, "record_har", f"{_count(self.entries, 'request', 'requests')} to {self.path}")

    def __enter__(self) -> HarRecording:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<HarRecording {self.path}{' written' if self._done else ''}>"


def start_recording(ctx: TestContext, path: Any, url: Any, content: str, version: str,
                    redact: Any = None) -> HarRecording:
    command = f"runner.record_har({path!r})"
    if content not in _CONTENT:
        raise UsageError(f"{command}: `content` is 'embed' (the bodies in the HAR) or 'omit'; found {content!r}.")
    keep = url_filter(url, command)
    hook = _hook(redact, command)
    target = har_path(ctx, path, command)
    _one_writer(ctx, target, command)
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
    return HarRecording(ctx, target, recorder, version, hook)


class HarUpdate(_AtTestEnd):
    """``replay_har(update=...)``: the test's requests are recorded while the file is replayed;
    when the test ends, what the file lacks (``missing``) or everything (``all``) is merged into
    it (``net/har_write.merge_entries``)."""

    def __init__(self, ctx: TestContext, path: Path, recorder: Any, mode: str, matching: HarMatching,
                 hook: Callable[..., Any] | None, version: str) -> None:
        super().__init__(ctx, path)
        self.writer = f"runner.replay_har(update={mode!r}), when the test ends"
        self._path = path
        self._recorder = recorder
        self._mode = mode
        self._matching = matching
        self._hook = hook
        self._version = version

    def _write(self) -> None:
        from runner.net.har import har_document, read_document
        from runner.net.har_write import locked, merge_entries, write_document

        command = f"runner.replay_har({str(self._path)!r}, update={self._mode!r})"
        recorded = self._ctx.run(self._recorder.stop(), 15000)
        try:
            with locked(self._path):
                # read again under the lock: another worker may have added to it since
                try:
                    document = (read_document(self._path) if self._path.exists()
                                else har_document([], self._version))
                except CommandError as err:
                    raise CommandError(f"{err} Read again when the test ended, to add what the server "
                                       "answered: nothing was added, the file is as it was.") from None
                added = merge_entries(document, self._path, recorded, self._mode, self._matching)
                written = _finish_entries(self._ctx, added, self._hook, command)
                if written:
                    document["log"]["entries"][len(document["log"]["entries"]) - len(added):] = written
                    write_document(self._path, document)
        except OSError as err:
            raise CommandError(f"{command} could not write the file: {err.strerror or err}.") from err
        what = "recorded again" if self._mode == "all" else "added"
        _told(self._ctx, "replay_har", f"{_count(len(written), 'entry', 'entries')} {what} to {self._path.name}"
                          if written else f"nothing {what} to {self._path.name}")


def replay_routes(ctx: TestContext, intercept: Callable[..., Any], path: Any, url: Any,
                  not_found: str, alias: str | None, *, update: Any = None, ignore_query: Any = None,
                  ignore_json_keys: Any = None, redact: Any = None, version: str = "") -> list[Any]:
    """Register the routes that replay the HAR at ``path``; return their handles, oldest first.
    With ``update``, start recording what goes to the server, merged into the file at the end.
    Raises UsageError for a bad argument and CommandError for a file that cannot be read, before
    anything is registered."""
    command = f"runner.replay_har({path!r})"
    _check_modes(command, not_found, update, redact)
    from runner.net.har import HarIndex, HarMatching, entries_of, read_document

    keep = url_filter(url, command)
    matching = HarMatching(_names(ignore_query, "ignore_query", "['ts', 'nonce']", command),
                           _names(ignore_json_keys, "ignore_json_keys", "['requestId']", command),
                           _redactor(ctx))
    hook = _hook(redact, command)
    target = har_path(ctx, path, command)
    if update is not None:
        _one_writer(ctx, target, command)
    document = read_document(target) if update is None or target.exists() else {"log": {"entries": []}}
    entries = [e for e in entries_of(document, target) if keep(e.url)] if update != "all" else []
    recorder = ctx.browser.har_recorder(keep, "embed") if update is not None else None
    if update is not None and recorder is None:
        raise CommandError(f"{command}: there is no page to record.")
    # with update, the requests sent to the server are the test's too: a spy under the replayed
    # routes (older: a request the file answers never reaches it) names them with the alias
    handles = [intercept({"url": url if url is not None else re.compile(".*")})] if update is not None else []
    handles += _routes(intercept, HarIndex.of(entries, matching), url, not_found, command)
    for handle in handles:
        if alias:
            handle.as_(alias)
    if recorder is not None:
        ctx.run(recorder.start())
        HarUpdate(ctx, target, recorder, update, matching, hook, version)
    groups = len(handles) - (1 if not_found == "abort" or update is not None else 0)
    recording = f"; recording {'every request' if update == 'all' else 'what it lacks'}" if update else ""
    ctx.add_log("replay_har", f"{_count(len(entries), 'entry', 'entries')} of {target.name} as "
                              f"{_count(groups, 'route', 'routes')}{recording}")
    return handles


def _check_modes(command: str, not_found: Any, update: Any, redact: Any) -> None:
    from runner.net.har_write import UPDATE_MODES

    if not_found not in _NOT_FOUND:
        raise UsageError(f"{command}: `not_found` is 'fallback' (to the server) or 'abort' (fail the request "
                         f"and the test); found {not_found!r}.")
    if update is not None and update not in UPDATE_MODES:
        raise UsageError(f"{command}: `update` is 'missing' (record what the file lacks), 'all' (record every "
                         f"request again) or None (only replay); found {update!r}.")
    if update is not None and not_found == "abort":
        raise UsageError(f"{command}: update={update!r} sends what the file lacks to the server to record it; "
                         "not_found='abort' would refuse it. Leave not_found out.")
    if redact is not None and update is None:
        raise UsageError(f"{command}: `redact` is applied to what is recorded; give it with update='missing' "
                         "or 'all' (or to runner.record_har).")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _routes(intercept: Callable[..., Any], index: Any, url: Any, not_found: str, command: str) -> list[Any]:
    handles = []
    if not_found == "abort":
        def refuse(req: Any) -> None:
            known = index.groups.get((req.method.upper(), index.matching.url(req.url)))
            raise InterceptError(
                f"{command} has no entry for {req.method} {req.url}{' with this body' if known else ''}. "
                "Record it again, or pass not_found='fallback' to send such requests to the server."
            )

        handles.append(intercept({"url": url if url is not None else re.compile(".*")}, refuse))
    for (method, _compared), group in index.groups.items():
        matcher = {"method": method, "url": index.matching.url_pattern(group[0].url)}
        # the static road is the fastest, but its pattern takes any text where the URL holds a
        # hidden secret: such an entry is picked by a handler, which compares the URL hidden
        if len(group) == 1 and group[0].request_body is None and REDACTED not in group[0].url:
            handle = intercept(matcher, group[0].static_response())
        else:
            handle = intercept(matcher, _picker(index, method))
        handles.append(handle)
    return handles


def _picker(index: Any, method: str) -> Callable[[Any], None]:
    def pick(req: Any) -> None:
        entry = index.pick(method, req.url, req.body)
        if entry is not None:
            req.reply(entry.static_response())
        # else: no entry for this body; the older routes (abort) or the server take it

    return pick
