"""Each command a test calls is told on the run's bus: ``command.started``, then
``command.ended`` with its duration and whether it passed.

``@command("click")`` wraps a method of the ``runner`` fixture or of a subject. A command called
by another command (``dblclick`` calling ``click``, ``clear`` calling ``type``) is part of the
outer one and is not told again. The event names the user's file and line: the innermost frame
that is not runner's own.

When the test attempt is traced (the ``trace`` option), each command is also a step of the trace
(a group in the trace viewer's action list, holding the browser calls the command made), named
as the command log names it (``get('#b').click()``, ``get('h1') should have.text 'Hi'``,
``wait @x``) and located at the user's line. ``intercept`` makes no browser call worth holding
and its alias comes after it (``.as_("x")``), so its step (``intercept GET /api/x (stubbed) as
x``) is told when the next command starts or the test ends. A command that failed closes its
step with its error (the trace viewer marks the step failed and lists the error in its Errors
tab). A command that makes no browser call (``wait``, ``intercept``, ``fixture``, ...: the
:data:`PAGELESS` ones) closes its step with a DOM snapshot of the page as it is then, so that the
viewer's "after" of the step is the page when the command ended (without one, it shows the page
of the last browser call before it). Tracing never fails a command: the steps are sent to the
engine without waiting for an answer, but for that snapshot (waited for within
:data:`SNAPSHOT_WAIT_S`, so that the next command's browser calls do not land in the step).
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from runner.artifacts.traces import FailureStep, StepError
from runner.errors import RunnerError
from runner.events import CommandEnded, CommandStarted
from runner.redaction import REDACTED
from runner.usercode.tracebacks import error_line, is_runner, message_line

__all__ = ["command", "run_parent", "show_args", "step_name", "flush_step", "step_error", "failure_step", "tell_failure",
           "PAGELESS"]

F = TypeVar("F", bound=Callable[..., Any])

#: The longest an argument list is shown; the rest is cut with "…".
MAX_SHOWN = 200

#: The commands of the ``runner`` fixture that make no browser call of the page: their trace
#: step ends with a DOM snapshot of the page (time travel's "after" is the page when they ended).
#: A subject whose class says ``_pageless`` (``Value``: data, not DOM) has its commands' do too.
PAGELESS = frozenset({
    "wait", "intercept", "intercept_ws", "requests", "assert_no_request", "record_har", "replay_har",
    "request", "fixture", "exec", "task", "get_cookies", "get_all_cookies", "get_cookie", "set_cookie",
    "clear_cookie", "clear_cookies", "url", "title",
})

#: How long a command waits for its step's closing snapshot, and a retry for the snapshot it ends
#: on (commands/context.py) (seconds; the snapshot itself is bounded at 1 s, a page busy in
#: JavaScript gives none).
SNAPSHOT_WAIT_S = 3.0


def show_args(args: tuple[Any, ...], kwargs: dict[str, Any], redactor: Any = None) -> str:
    """``'/users', timeout=100``: a call's arguments as the command log shows them. With the
    run's ``redactor`` its secrets are hidden before anything is cut short: a secret cut in two
    is no longer found whole by the redaction of the line it goes into, and its first part would
    show."""
    parts = [_short(a, redactor) for a in args] + [f"{k}={_short(v, redactor, k)}" for k, v in kwargs.items()]
    text = ", ".join(parts)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def _short(value: Any, redactor: Any = None, key: str = "") -> str:
    """``value`` as shown in a line (cut at 80 characters), the run's secrets in it hidden first
    when given the ``redactor`` (``key``: the name it was given, e.g. ``headers``)."""
    if callable(value) and hasattr(value, "__name__"):
        return f"<function {value.__name__}>"
    if redactor is not None:
        value = _hidden_in(redactor, value, key)
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a user's object may have a broken __repr__
        text = f"<{type(value).__name__}>"
    if redactor is not None:
        text = redactor.text(text)  # a secret an object's own repr spells out
    return text if len(text) <= 80 else text[:79] + "…"


class _Hidden:
    """An argument of a command called with ``log=False``, as the log and the trace show it."""

    def __repr__(self) -> str:
        return REDACTED


def _shown(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments as told: the run's secrets in them hidden (a stub's ``headers``, a
    ``body``'s secret keys, secret values), and every one of a command called with ``log=False``
    (``type(password, log=False)``), whose text is learned as a secret of the run."""
    redactor = ctx.redactor  # None: the context hides nothing
    if kwargs.get("log") is False:
        if redactor is not None:
            redactor.learn(*[a for a in args if isinstance(a, str)])
        args = tuple(_Hidden() for _ in args)
    if redactor is None:
        return args, kwargs
    return (tuple(_hidden_in(redactor, a, "") for a in args),
            {k: _hidden_in(redactor, v, k) for k, v in kwargs.items()})


def _hidden_in(redactor: Any, value: Any, key: str) -> Any:
    """``value`` with the run's secrets hidden; the very same object when it holds none."""
    if isinstance(value, _Hidden) or callable(value):
        return value
    try:
        hidden = redactor.value(value, key)
        return value if hidden == value else hidden
    except Exception:  # noqa: BLE001 - a user's object that cannot be compared or walked
        return value


def _caller() -> tuple[str | None, int | None]:
    """The user's file and line that called the command (the innermost non-runner frame)."""
    frame = sys._getframe(2)
    while frame is not None and is_runner(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None, None
    return frame.f_code.co_filename, frame.f_lineno


def step_name(name: str, label: str | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The trace step of a command, named as the command log names it: ``get('#b').click()``,
    ``visit('/page')``, ``get('h1') should have.text 'Hi'``, ``wait @x``, ``wait 500ms``."""
    if name == "should" and args:
        chainer, rest = args[0], args[1:]
        if callable(chainer):
            return f"{label or 'wrap'} should <callback>"
        return " ".join([f"{label or 'wrap'} should {chainer}", *map(_short, rest)]).strip()
    if name == "wait" and args and not kwargs:
        target = args[0]
        if isinstance(target, (int, float)) and not isinstance(target, bool):
            return f"wait {target:g}ms"
        if isinstance(target, str):
            return f"wait {target}"
        if isinstance(target, (list, tuple)) and all(isinstance(t, str) for t in target):
            return f"wait {', '.join(target)}"
    call = f"{name}({show_args(args, kwargs)})"
    return f"{label}.{call}" if label else call


def _send_step(ctx: Any, name: str, file: str | None, line: int | None, *, closed: bool = False,
               error: StepError | None = None, snapshot: bool = False) -> None:
    """Open the trace step ``name`` (and close it at once with ``closed``), without waiting; the
    run's secrets in it are hidden."""
    try:
        if ctx.redactor is not None:
            name = ctx.redactor.text(name)
        ctx.loop.submit(ctx.browser.trace_step(name, file, line))
    except Exception:  # noqa: BLE001 - tracing never fails a command
        return
    if closed:
        _end_step(ctx, error=error, snapshot=snapshot)


def _end_step(ctx: Any, *, error: StepError | None = None, snapshot: bool = False) -> None:
    """Close the open step (failed with ``error``; after a snapshot of the page, waited for)."""
    try:
        if snapshot and not ctx.loop.in_loop_thread:  # (a command called on the loop cannot wait)
            ctx.loop.run(ctx.browser.trace_step_end(error, snapshot=True), SNAPSHOT_WAIT_S)
        else:
            ctx.loop.submit(ctx.browser.trace_step_end(error))
    except Exception:  # noqa: BLE001 - tracing never fails a command
        pass


#: A command the run's stop cut short (Ctrl-C, a signal, runner open's Stop): what stopped the run
#: is the test's error, told once; a bare "KeyboardInterrupt" here read as the command's own fault.
INTERRUPTED_LINE = "Interrupted: the run was stopped while this command ran"


def command_error_line(err: BaseException) -> str:
    """A failed command's error in one line (``"CommandError: Timed out ..."``)."""
    if isinstance(err, KeyboardInterrupt) and not str(err):
        return INTERRUPTED_LINE
    return error_line(type(err).__name__, err)


def step_error(err: BaseException, file: str | None, line: int | None) -> StepError:
    """The error ``err`` of a command called at ``file``:``line``, as its trace step carries it."""
    try:
        message = str(err)
    except Exception:  # noqa: BLE001 - a user's exception may have a broken __str__
        message = message_line(err)
    name = type(err).__name__
    where = f'  File "{file}", line {line}\n' if file else ""
    return StepError(name=name, message=message or name, stack=f"{where}{name}: {message_line(err) or name}")


def failure_step(err: BaseException, file: str | None, line: int | None) -> FailureStep:
    """A test's failure ``err`` (raised at the spec's ``file``:``line``) as the last step of its
    trace: named by its error line."""
    name = error_line(type(err).__name__, err)
    return FailureStep(name=name if len(name) <= MAX_SHOWN else name[: MAX_SHOWN - 1] + "…", file=file, line=line,
                       error=step_error(err, file, line))


def flush_step(ctx: Any) -> None:
    """Tell the step a command left for later (``intercept``, named once its alias is known)."""
    pending, ctx.pending_step = ctx.pending_step, None
    if pending is None or not ctx.traced:
        return
    describe, file, line = pending
    try:
        name = describe()
    except Exception:  # noqa: BLE001 - a step that cannot be named is left out
        return
    _send_step(ctx, name, file, line, closed=True, snapshot=True)  # steps told later are intercepts'


def command(name: str, *, step_after: Callable[[Any, Any], Callable[[], str]] | None = None) -> Callable[[F], F]:
    """Tell the calls of the decorated method as the command ``name`` (the object it is a method
    of has ``_ctx``, the test's context, and may have ``_label``, the subject it acts on).

    ``step_after(obj, result)``: the command's trace step is told after it passed, named by the
    function it returns, called when the next command starts or the test ends.
    """

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            ctx = self._ctx
            if ctx.publish is None or ctx.command_depth:
                return method(self, *args, **kwargs)
            ctx.command_depth += 1
            ctx.commands_told += 1
            label = own_label = getattr(self, "_label", None)
            if ctx.page_label is not None:  # a popup's command: told as the tab's
                label = f"{ctx.page_label}.{label}" if label else ctx.page_label
            ctx.command = f"runner.{label}.{name}()" if label else f"runner.{name}()"
            number = ctx.commands_told
            file, line = _caller()
            shown, shown_kwargs = _shown(ctx, args, kwargs)
            logged = len(ctx.log)
            ctx.publish(CommandStarted(nodeid=ctx.nodeid, id=number, name=name, args=show_args(shown, shown_kwargs),
                                       subject=label, file=file, line=line,
                                       attempt=ctx.attempt, parent=ctx.command_parent))
            traced = ctx.traced
            if traced:
                flush_step(ctx)
                if step_after is None:
                    _send_step(ctx, step_name(name, label, shown, shown_kwargs), file, line)
            started = time.perf_counter()
            state, error = "passed", None
            failure: StepError | None = None
            result: Any = None
            try:
                result = method(self, *args, **kwargs)
                return result
            except BaseException as err:
                state, error = "failed", command_error_line(err)
                ctx.command_error = err
                if isinstance(err, Exception) and not any(_failed(e.name) for e in ctx.log[logged:]):
                    ctx.add_log("failed", _failed_line(error, err))  # a failure at once ends the log too
                if traced:
                    failure = step_error(err, file, line)
                raise
            finally:
                ctx.command_depth -= 1
                if not any(_own(e.name) for e in ctx.log[logged:]):
                    # the log names every command the events tell, where it began
                    ctx.add_log(*_own_line(name, own_label, shown, shown_kwargs), at=logged)
                if traced and step_after is None:
                    pageless = (own_label is None and name in PAGELESS) or getattr(self, "_pageless", False)
                    _end_step(ctx, error=failure, snapshot=pageless)
                elif traced and step_after is not None:
                    _tell_later(ctx, step_after, self, result, failure, (name, label, shown, shown_kwargs), file, line)
                found, ctx.command_result = ctx.command_result, None
                ctx.publish(CommandEnded(nodeid=ctx.nodeid, id=number, name=name, state=state,
                                         duration_ms=round((time.perf_counter() - started) * 1000, 3),
                                         error=error, attempt=ctx.attempt, result=found))

        return run  # type: ignore[return-value]

    return decorate


#: Lines of the log told while a command runs that are not its own line: a command with none of
#: its own gets one named after it (``set_cookie: 'a', 'b'``), so that the log and the events
#: (the HTML report's rows) name the same commands.
_NOT_OWN = frozenset({"failed", "request", "warning"})


def _own(name: str) -> bool:
    """Whether the log line ``name`` (``click``, a popup's ``tab[1] click``) is a command's own."""
    return name.rsplit(" ", 1)[-1] not in _NOT_OWN


def _failed(name: str) -> bool:
    """Whether the log line ``name`` is a failure (``failed``, a popup's ``tab[1] failed``)."""
    return name.rsplit(" ", 1)[-1] == "failed"


def _own_line(name: str, label: str | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, str]:
    """The log line of a command that wrote none itself: ``set_cookie: 'a', 'b'``, ``first:
    get('li')``; a should's as a passing one writes it (``assert: get('h1') should have.text
    'Hi'``), also when it failed or took a callback."""
    if name == "should" and args:
        chainer, rest = args[0], args[1:]
        shown = "<callback>" if callable(chainer) else " ".join([str(chainer), *map(repr, rest)])
        return "assert", f"{label or 'wrap'} should {shown}"
    return name, " ".join(filter(None, [label, show_args(args, kwargs)]))


def _failed_line(error: str, err: BaseException) -> str:
    """The log line of a command that failed at once: its error's first line, and the next one
    when the first announces it (``runner.visit() failed trying to load: http://...``)."""
    if not error.endswith(":"):
        return error
    rest = [line.strip() for line in str(err).splitlines()[1:] if line.strip()]
    return f"{error} {rest[0]}" if rest else error


def _tell_later(ctx: Any, step_after: Callable[[Any, Any], Callable[[], str]], obj: Any, result: Any,
                failure: StepError | None, call: tuple[str, str | None, tuple[Any, ...], dict[str, Any]],
                file: str | None, line: int | None) -> None:
    """A ``step_after`` command ended: keep its step for later, or (it failed) tell it now."""
    if failure is None:
        try:
            ctx.pending_step = (step_after(obj, result), file, line)
            return
        except Exception:  # noqa: BLE001 - told as a plain call below
            pass
    _send_step(ctx, step_name(*call), file, line, closed=True, error=failure, snapshot=True)


def tell_failure(ctx: Any, error: BaseException, explanation: str, where: tuple[str, int, str] | None) -> bool:
    """Tell a test's failure that no command raised (a plain ``assert``, the user's own code) as
    the last line of its command log: ``assert total == 42`` failed with pytest's explanation
    (the diff), at the user's ``where`` (file, line, the statement). A command's own failure is
    already its line (False: nothing told). Its trace step, when traced, is opened and closed at
    once, failed with the error (so the trace's end adds no second step for it), after a
    snapshot of the page at the moment of the failure."""
    if ctx.publish is None or error is ctx.command_error:
        return False
    file, line, statement = where if where is not None else (None, None, "")
    # a runner error no command raised (a HAR written at the test's end, a handler's error) is
    # not an assertion of the test's, whatever its class derives from
    name = "assert" if isinstance(error, AssertionError) and not isinstance(error, RunnerError) else "error"
    args = statement.removeprefix("assert ").strip() if name == "assert" else statement.strip()
    args = args if len(args) <= MAX_SHOWN else args[: MAX_SHOWN - 1] + "…"
    ctx.commands_told += 1
    number = ctx.commands_told
    ctx.publish(CommandStarted(nodeid=ctx.nodeid, id=number, name=name, args=args, file=file, line=line,
                               attempt=ctx.attempt))
    if ctx.traced:
        flush_step(ctx)
        _send_step(ctx, f"{name} {args}".strip(), file, line, closed=True,
                   error=step_error(error, file, line), snapshot=True)
    ctx.publish(CommandEnded(nodeid=ctx.nodeid, id=number, name=name, state="failed", duration_ms=0.0,
                             error=explanation, attempt=ctx.attempt))
    ctx.add_log(name, explanation.splitlines()[0] if explanation.strip() else name)
    return True


def run_parent(ctx: Any, name: str, call: Callable[[], Any], args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
    """Run ``call`` (a custom command) told as the command ``name`` called with ``args`` and
    ``kwargs``; unlike ``@command``'s, the commands it calls are told too, each with this one as
    its ``parent`` (and, traced, their steps inside its step). Called by a command, it is part of
    that one, as its commands are."""
    __tracebackhide__ = True
    if ctx.publish is None or ctx.command_depth:
        return call()
    ctx.commands_told += 1
    number, parent = ctx.commands_told, ctx.command_parent
    file, line = _caller()
    shown, shown_kwargs = _shown(ctx, args, kwargs)
    told = show_args(shown, shown_kwargs)
    tab = ctx.page_label  # a popup's runner: told as the tab's, as its built-in commands are
    ctx.publish(CommandStarted(nodeid=ctx.nodeid, id=number, name=name, args=told, subject=tab,
                               file=file, line=line, attempt=ctx.attempt, parent=parent))
    ctx.add_log(name, told)  # (the commands it calls add their lines after it)
    if ctx.traced:
        flush_step(ctx)
        _send_step(ctx, step_name(name, tab, shown, shown_kwargs), file, line)
    started = time.perf_counter()
    state, error = "passed", None
    failure: StepError | None = None
    ctx.command_parent = number
    try:
        return call()
    except BaseException as err:
        state, error = "failed", command_error_line(err)
        if ctx.traced:
            failure = step_error(err, file, line)
        raise
    finally:
        ctx.command_parent = parent
        if ctx.traced:
            flush_step(ctx)  # an intercept of its own is told inside its step
            _end_step(ctx, error=failure)
        ctx.publish(CommandEnded(nodeid=ctx.nodeid, id=number, name=name, state=state,
                                 duration_ms=round((time.perf_counter() - started) * 1000, 3),
                                 error=error, attempt=ctx.attempt))
