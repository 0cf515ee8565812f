"""Retrying subjects: what ``runner.get()``, ``runner.contains()`` and ``runner.wrap()`` return.

A :class:`Subject` is a recipe (a list of query steps) rather than a handle: every assertion,
read or action runs the recipe again in the page until it holds, so a test never races the app.
A :class:`Value` does the same for data that is not DOM (``its``, ``invoke``, ``wrap``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from runner import expect as assertions
from runner.commands.context import Attempt, TestContext, retry
from runner.commands.keys import type_sequence, typed_texts
from runner.commands.steps import command
from runner.engine.actionability import why_not_actionable
from runner.errors import CommandError, UsageError
from runner.redaction import REDACTED


class CommandsHost(Protocol):
    """What subjects need of the ``runner`` fixture's object (``api.CommandsHost``), which
    makes them: subjects are below it and do not import it."""

    _ctx: TestContext
    _dom_aliases: dict[str, Any]

    def wrap(self, value: Any) -> Value: ...

    def _element_screenshot(self, subject: Subject, name: str | None) -> Path: ...

__all__ = ["Subject", "Value", "lookup_path"]

_SCROLL = {"top": "start", "center": "center", "bottom": "end", "nearest": "nearest"}


def _snapshot(raw: Mapping[str, Any]) -> assertions.ElementSnapshot:
    return assertions.ElementSnapshot(
        tag=raw["tag"],
        text=raw["text"],
        inner_text=raw["inner_text"],
        html=raw["html"],
        value=raw["value"],
        visible=raw["visible"],
        attrs=dict(raw["attrs"]),
        classes=tuple(raw["classes"]),
        checked=raw["checked"],
        selected=raw["selected"],
        disabled=raw["disabled"],
        focused=raw["focused"],
        css=dict(raw["css"]),
        props=dict(raw["props"]),
        description=raw["description"],
    )


class Subject:
    """A DOM query that re-runs until what is asked of it holds."""

    def __init__(self, commands: CommandsHost, steps: list[dict[str, Any]], label: str,
                 timeout: float | None = None, include_shadow_dom: bool | None = None) -> None:
        self._commands = commands
        self._ctx: TestContext = commands._ctx
        self._steps = steps
        self._label = label
        self._timeout = timeout
        self._shadow = include_shadow_dom

    # -- plumbing ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"<Subject {self._label}>"

    def _derive(self, step: dict[str, Any], label: str) -> Subject:
        return Subject(self._commands, [*self._steps, step], f"{self._label}.{label}",
                       self._timeout, self._shadow)

    def _timeout_ms(self, timeout: float | None = None) -> float:
        if timeout is not None:
            return float(timeout)
        if self._timeout is not None:
            return float(self._timeout)
        return float(self._ctx.config.default_command_timeout)

    def _shadow_on(self) -> bool:
        if self._shadow is not None:
            return self._shadow
        return bool(self._ctx.config.include_shadow_dom)

    def _snap(self, css: Sequence[str] = (), props: Sequence[str] = (),
              limit: int | None = None) -> assertions.DomSubject:
        """The elements as they are now; with ``limit``, only the first ``limit`` are read (and
        all are counted: ``DomSubject.count``)."""
        raw = self._ctx.run(self._ctx.browser.dom({
            "mode": "snapshot", "steps": self._steps, "shadow": self._shadow_on(),
            "css": list(css), "props": list(props), "limit": limit,
        }))
        if limit is None:
            return assertions.DomSubject(self._label, tuple(_snapshot(r) for r in raw))
        return assertions.DomSubject(self._label, tuple(_snapshot(r) for r in raw["elements"]),
                                     total=int(raw["total"]))

    def _existing(self, timeout: float | None = None, what: str = "to exist") -> assertions.DomSubject:
        """Retry until at least one element matches; returns the snapshot."""
        __tracebackhide__ = True

        def attempt() -> Attempt:
            snap = self._snap()
            if snap.elements:
                return Attempt(True, value=snap)
            return Attempt(False, f"expected to find element {self._label}, but never found it")

        return retry(self._ctx, attempt, self._timeout_ms(timeout), f"{self._label} {what}")

    # -- assertions ---------------------------------------------------------------------------
    @command("should")
    def should(self, chainer: str | Callable[..., Any], *args: Any, timeout: float | None = None) -> Subject:
        """Retry until the chai-style assertion holds, e.g. ``should("have.length", 3)``.

        A callable is called with the snapshot (``DomSubject``) and holds when it returns
        without raising ``AssertionError``.
        """
        __tracebackhide__ = True
        if callable(chainer):
            func = chainer

            def attempt_fn() -> Attempt:
                snap = self._snap()
                try:
                    func(snap)
                except AssertionError as err:
                    return Attempt(False, str(err) or "the callback's assertion failed")
                return Attempt(True)

            retry(self._ctx, attempt_fn, self._timeout_ms(timeout), f"{self._label}.should(<callback>)")
            return self
        assertions.validate_chainer(chainer, *args)
        css = assertions.css_properties_needed(chainer, *args)
        props = assertions.props_needed(chainer, *args)
        limit = assertions.LISTED if assertions.counts_only(chainer) else None

        def attempt() -> Attempt:
            snap = self._snap(css, props, limit)
            outcome = assertions.check(snap, chainer, *args)
            return Attempt(outcome.ok, outcome.message)

        shown = ", ".join(repr(a) for a in (chainer, *args))
        retry(self._ctx, attempt, self._timeout_ms(timeout), f"{self._label}.should({shown})")
        self._ctx.add_log("assert", f"{self._label} should {chainer} {' '.join(map(repr, args))}".strip())
        return self

    and_ = should

    # -- traversal ----------------------------------------------------------------------------
    def find(self, selector: str) -> Subject:
        return self._derive({"op": "find", "selector": selector}, f"find({selector!r})")

    def contains(self, text: str | re.Pattern[str], selector: str | None = None, *,
                 match_case: bool = True) -> Subject:
        step = _contains_step(text, selector, match_case)
        return self._derive(step, f"contains({_show(text)})")

    def first(self) -> Subject:
        return self._derive({"op": "first"}, "first()")

    def last(self) -> Subject:
        return self._derive({"op": "last"}, "last()")

    def eq(self, index: int) -> Subject:
        if not isinstance(index, int) or isinstance(index, bool):
            raise UsageError(f"eq() expects an integer index; found {index!r}.")
        return self._derive({"op": "eq", "index": index}, f"eq({index})")

    def filter(self, selector: str) -> Subject:
        return self._derive({"op": "filter", "selector": selector}, f"filter({selector!r})")

    def not_(self, selector: str) -> Subject:
        return self._derive({"op": "not", "selector": selector}, f"not_({selector!r})")

    def parent(self) -> Subject:
        return self._derive({"op": "parent"}, "parent()")

    def children(self, selector: str | None = None) -> Subject:
        return self._derive({"op": "children", "selector": selector}, "children()")

    def closest(self, selector: str) -> Subject:
        return self._derive({"op": "closest", "selector": selector}, f"closest({selector!r})")

    def its(self, path: str) -> Value:
        """A property of the elements: ``length``, or a DOM property of the first element."""
        head, _, rest = str(path).partition(".")

        def getter() -> Any:
            if head == "length":
                value: Any = self._snap(limit=0).count
            else:
                snap = self._existing()
                full = self._snap(props=[head]) if snap.elements else snap
                if not full.elements:
                    raise _Missing(f"{self._label} has no elements")
                value = full.elements[0].props.get(head)
            return lookup_path(value, rest) if rest else value

        return Value(self._commands, getter, f"{self._label}.its({path!r})")

    @command("invoke")
    def invoke(self, method: str, *args: Any, timeout: float | None = None) -> Value:
        """Call a jQuery-like method (``text``, ``val``, ``attr``, ``prop``, ``html``, ``css``)
        or a DOM method of the first element, now, and yield what it returns.

        Like every command it runs when called: it waits (up to the timeout) for the subject
        to exist and fails when it never does. A DOM method (``setAttribute``, ``focus``...) is
        called once, there and then; a jQuery-like read is read again by a ``should()`` on
        its value, until the assertion holds.
        """
        __tracebackhide__ = True
        if not isinstance(method, str) or not method:
            raise UsageError(f"{self._label}.invoke() needs a method name; found {method!r}.")
        label = f"{self._label}.invoke({method!r})"
        read = self._reader(method, args)
        if read is not None:
            self._existing(timeout, f"to invoke {method!r}")
            return Value(self._commands, read, label)
        query = self._query_arg()

        def attempt() -> Attempt:
            try:
                answer = self._ctx.run(self._ctx.browser.call_method(query, method, list(args)))
            except CommandError:
                raise  # the page stopped responding, or broke
            except Exception as err:  # the method threw in the page: said once, not retried
                raise CommandError(f"{label} threw in the page: {str(err).splitlines()[0]}") from err
            if answer.get("gone"):
                return Attempt(False, f"expected to find element {self._label}, but never found it")
            if "missing" in answer:
                raise CommandError(
                    f"{label}: the element has no method {method!r} (it is {answer['missing']}).\n"
                    "Pass the name of a function of the DOM element (setAttribute, focus, ...) or one "
                    "of text, val, attr, prop, html, css."
                )
            return Attempt(True, value=answer.get("value"))

        result = retry(self._ctx, attempt, self._timeout_ms(timeout), f"{label} (to exist)")
        self._ctx.add_log("invoke", label)
        return Value(self._commands, lambda: result, label)

    def _reader(self, method: str, args: tuple[Any, ...]) -> Callable[[], Any] | None:
        """The getter of a jQuery-like read (reads the page again at each call), else None."""
        if method not in ("text", "val", "value", "html", "attr", "prop", "css"):
            return None

        def getter() -> Any:
            snap = self._existing()
            first = snap.elements[0]
            if method == "text":
                return "".join(e.text for e in snap.elements)
            if method in ("val", "value"):
                return first.value
            if method == "html":
                return first.html
            if method == "attr":
                return first.attrs.get(args[0]) if args else dict(first.attrs)
            if method == "prop":
                return self._snap(props=[args[0]]).elements[0].props.get(args[0])
            return self._snap(css=[args[0]]).elements[0].css.get(args[0])

        return getter

    def as_(self, alias: str) -> Subject:
        self._commands._dom_aliases[_alias_name(alias)] = self
        return self

    def then(self, func: Callable[[Subject], Any]) -> Any:
        result = func(self)
        return self if result is None else result

    # -- reads --------------------------------------------------------------------------------
    @command("text")
    def text(self, timeout: float | None = None) -> str:
        """The text of the elements (``textContent`` joined), once they exist."""
        return "".join(e.text for e in self._existing(timeout).elements)

    @command("attr")
    def attr(self, name: str, timeout: float | None = None) -> str | None:
        return self._existing(timeout).elements[0].attrs.get(name)

    def count(self) -> int:
        """How many elements match now (no waiting)."""
        return self._snap(limit=0).count

    @command("value")
    def value(self, timeout: float | None = None) -> str | None:
        return self._existing(timeout).elements[0].value

    def snapshot(self) -> assertions.DomSubject:
        return self._snap()

    # -- actions ------------------------------------------------------------------------------
    def _query_arg(self) -> dict[str, Any]:
        return {"mode": "elements", "steps": self._steps, "shadow": self._shadow_on()}

    def _prepare(self, name: str, *, index: int = 0, force: bool = False,
                 timeout: float | None = None, multiple: bool = False,
                 scroll_behavior: Any = ...) -> list[dict[str, Any]]:
        """Wait until the element(s) can take a user action; returns where to act."""
        __tracebackhide__ = True
        config = self._ctx.config
        behavior = config.scroll_behavior if scroll_behavior is ... else scroll_behavior
        scroll = _SCROLL.get(str(behavior)) if behavior else None
        threshold = config.animation_distance_threshold if config.wait_for_animations and not force else None
        deadline_ms = self._timeout_ms(timeout)
        snap = self._existing(timeout, f"to {name}")
        count = len(snap.elements)
        if count > 1 and not multiple:
            raise CommandError(
                f"{self._label}.{name}() can only be called on a single element, but the subject "
                f"contained {count} elements.\nPass multiple=True to act on each of them, or narrow "
                "the query (first(), eq(n), a more specific selector)."
            )
        spots = []
        for i in range(count if multiple else 1):
            arg = {**self._query_arg(), "mode": "prepare", "index": index + i, "scroll": scroll,
                   "threshold": threshold, "animationTimeout": deadline_ms,
                   "checkCovered": not force}

            def attempt(arg: dict[str, Any] = arg) -> Attempt:
                spot = self._ctx.run(self._ctx.browser.dom(arg))
                if spot.get("ok"):
                    return Attempt(True, value=spot)
                return Attempt(False, why_not_actionable(spot))

            if force:
                spot = self._ctx.run(self._ctx.browser.dom(arg))
                if spot.get("reason") == "gone":
                    raise CommandError(f"{self._label}.{name}(): the element left the page.")
                spots.append(spot)
            else:
                spots.append(retry(self._ctx, attempt, deadline_ms, f"{self._label}.{name}()"))
        return spots

    @command("click")
    def click(self, *, force: bool = False, multiple: bool = False, timeout: float | None = None,
              button: str = "left", click_count: int = 1, modifiers: Sequence[str] = ()) -> Subject:
        """Click the element's centre like a user (after scrolling it into view and waiting
        until it is visible, enabled, not moving and not covered)."""
        __tracebackhide__ = True
        spots = self._prepare("click", force=force, multiple=multiple, timeout=timeout)
        for index, _spot in enumerate(spots):
            self._press(index, button, click_count, list(modifiers), force, timeout)
        self._ctx.add_log("click", self._label)
        return self

    def _press(self, index: int, button: str, count: int, modifiers: list[str], force: bool,
               timeout: float | None) -> None:
        """Click element ``index`` like a user; the engine checks, right as the event is
        dispatched, that it lands on the element (a layout shift in between is retried)."""
        __tracebackhide__ = True
        limit = self._timeout_ms(timeout)
        problem = self._ctx.run(self._ctx.browser.click_element(
            self._query_arg(), index, button=button, click_count=count, modifiers=modifiers,
            force=force, timeout_ms=limit), limit)
        if problem is not None:
            raise CommandError(f"{self._label}: the click did not happen within {int(limit)}ms: {problem}")

    @command("dblclick")
    def dblclick(self, **options: Any) -> Subject:
        return self.click(click_count=2, **options)

    @command("rightclick")
    def rightclick(self, **options: Any) -> Subject:
        return self.click(button="right", **options)

    @command("focus")
    def focus(self) -> Subject:
        self._existing()
        self._ctx.run(self._eval_first("el => el.focus()"))
        return self

    @command("blur")
    def blur(self) -> Subject:
        self._existing()
        self._ctx.run(self._eval_first("el => el.blur()"))
        return self

    def _eval_first(self, script: str, arg: Any = None) -> Coroutine[Any, Any, Any]:
        """Call the JavaScript ``script(element, arg)`` on the first element (run it with ctx.run)."""
        return self._ctx.browser.eval_first(self._query_arg(), script, arg)

    @command("type")
    def type(self, text: str, *, delay: float = 0, force: bool = False,
             parse_special_char_sequences: bool = True, timeout: float | None = None,
             log: bool = True) -> Subject:
        """Type into the element: plain text, plus ``{enter}``, ``{backspace}``, ``{selectall}``,
        ``{esc}``, ``{tab}``, arrows and ``{{}`` for a literal ``{`` (see docs/commands.md).
        ``log=False``: the text is a secret, shown ``[redacted]`` (docs/secrets.md)."""
        __tracebackhide__ = True
        if not isinstance(text, str) or text == "":
            raise UsageError(
                f"{self._label}.type() needs a non-empty string; found {text!r}.\n"
                "To clear a field use .clear()."
            )
        if log is False and self._ctx.redactor is not None:
            # the text as the page gets it is the secret: "pw{enter}" sends "pw"
            self._ctx.redactor.learn(*typed_texts(text, parse_special_char_sequences))
        self._prepare("type", force=force, timeout=timeout)
        focused = self._ctx.run(self._eval_first(
            "el => { const r = el.getRootNode(); return (r.activeElement || document.activeElement) === el; }"))
        if not focused:
            self._press(0, "left", 1, [], force, timeout)
            self._ctx.run(self._eval_first("el => { if (document.activeElement !== el) el.focus(); }"))
        # bounded by the command's timeout, plus the time its keys take to type one by one
        self._ctx.run(type_sequence(self._ctx.browser, text, delay, parse_special_char_sequences),
                      self._timeout_ms(timeout) + len(text) * float(delay))
        self._ctx.add_log("type", f"{self._label} {text!r}" if log is not False else f"{self._label} {REDACTED}")
        return self

    @command("clear")
    def clear(self, *, force: bool = False, timeout: float | None = None) -> Subject:
        return self.type("{selectall}{backspace}", force=force, timeout=timeout)

    @command("check")
    def check(self, *values: str, force: bool = False, timeout: float | None = None) -> Subject:
        return self._set_checked(True, values, force, timeout)

    @command("uncheck")
    def uncheck(self, *values: str, force: bool = False, timeout: float | None = None) -> Subject:
        return self._set_checked(False, values, force, timeout)

    def _set_checked(self, want: bool, values: Sequence[str], force: bool, timeout: float | None) -> Subject:
        __tracebackhide__ = True
        name = "check" if want else "uncheck"
        snap = self._existing(timeout, f"to {name}")
        for i, element in enumerate(snap.elements):
            if element.tag != "input" or element.attrs.get("type") not in ("checkbox", "radio"):
                raise CommandError(
                    f"{self._label}.{name}() can only be called on checkboxes and radios; "
                    f"element {i} is {element.description}."
                )
            if values and element.value not in values:
                continue
            if element.checked == want:
                continue
            one = self._derive({"op": "eq", "index": i}, f"eq({i})")
            one._prepare(name, force=force, timeout=timeout)
            one._press(0, "left", 1, [], force, timeout)
        self._ctx.add_log(name, self._label + (f" {', '.join(map(repr, values))}" if values else ""))
        return self

    @command("select")
    def select(self, *values: str, force: bool = False, timeout: float | None = None) -> Subject:
        """Select options of a ``<select>`` by value or by text."""
        __tracebackhide__ = True
        snap = self._existing(timeout, "to select")
        if snap.elements[0].tag != "select":
            raise CommandError(f"{self._label}.select() can only be called on a <select>; found {snap.elements[0].description}.")
        self._prepare("select", force=force, timeout=timeout)
        try:
            self._ctx.run(self._ctx.browser.select_options(self._query_arg(), list(values)))
        except CommandError:
            raise  # the page stopped responding, or broke
        except Exception as err:  # a missing option: say which ones exist
            raise CommandError(f"{self._label}.select({', '.join(map(repr, values))}) failed: {err}") from err
        self._ctx.add_log("select", f"{self._label} {', '.join(map(repr, values))}")
        return self

    @command("trigger")
    def trigger(self, event: str, **init: Any) -> Subject:
        """Dispatch a DOM event (``mouseover``, ``change``, ...) on the element."""
        __tracebackhide__ = True
        self._prepare("trigger", force=bool(init.pop("force", False)))
        self._ctx.run(self._ctx.browser.dispatch_event(self._query_arg(), event, init or None))
        self._ctx.add_log("trigger", f"{self._label} {event}")
        return self

    @command("scroll_into_view")
    def scroll_into_view(self, *, block: str = "start") -> Subject:
        self._existing()
        self._ctx.run(self._eval_first("(el, b) => el.scrollIntoView({block: b})", block))
        return self

    @command("screenshot")
    def screenshot(self, name: str | None = None) -> Any:
        self._existing()
        return self._commands._element_screenshot(self, name)


class _Missing(Exception):
    """A value path could not be read yet (retried)."""


class Value:
    """A retrying subject over data that is not DOM."""

    _pageless = True  # its commands' trace steps end with a snapshot of the page (steps.py)

    def __init__(self, commands: CommandsHost, getter: Callable[[], Any], label: str,
                 detail: Callable[[Any], str] | None = None) -> None:
        self._commands = commands
        self._ctx: TestContext = commands._ctx
        self._getter = getter
        self._label = label
        self._detail = detail  # what a failing should() adds about the value, e.g. one line per item

    def _explained(self, message: str, value: Any) -> str:
        if self._detail is None:
            return message
        try:
            return f"{message}\n{self._detail(value)}"
        except Exception:  # noqa: BLE001 - a detail must never hide the failure itself
            return message

    def __repr__(self) -> str:
        return f"<Value {self._label}>"

    def _read(self) -> tuple[bool, Any, str]:
        try:
            return True, self._getter(), ""
        except (_Missing, KeyError, IndexError, AttributeError, TypeError) as err:
            return False, None, str(err) or type(err).__name__
        except CommandError as err:
            return False, None, str(err)

    @command("value")
    def value(self) -> Any:
        """The current value, waiting (up to defaultCommandTimeout) until it can be read."""
        __tracebackhide__ = True

        def attempt() -> Attempt:
            ok, value, message = self._read()
            return Attempt(ok, message, value)

        return retry(self._ctx, attempt, float(self._ctx.config.default_command_timeout), self._label)

    @command("should")
    def should(self, chainer: str | Callable[[Any], Any], *args: Any, timeout: float | None = None) -> Value:
        __tracebackhide__ = True
        limit = float(timeout if timeout is not None else self._ctx.config.default_command_timeout)
        if callable(chainer):
            func = chainer

            def attempt_fn() -> Attempt:
                ok, value, message = self._read()
                if not ok:
                    return Attempt(False, message)
                try:
                    func(value)
                except AssertionError as err:
                    return Attempt(False, self._explained(str(err) or "the callback's assertion failed", value))
                return Attempt(True)

            retry(self._ctx, attempt_fn, limit, f"{self._label}.should(<callback>)")
            return self
        assertions.validate_chainer(chainer, *args)

        def attempt() -> Attempt:
            ok, value, message = self._read()
            if not ok and not chainer.endswith("exist"):
                return Attempt(False, message)
            outcome = assertions.check(value, chainer, *args)
            return Attempt(outcome.ok, outcome.message if outcome.ok else self._explained(outcome.message, value))

        shown = ", ".join(repr(a) for a in (chainer, *args))
        retry(self._ctx, attempt, limit, f"{self._label}.should({shown})")
        return self

    and_ = should

    def its(self, path: str) -> Value:
        return Value(self._commands, lambda: lookup_path(self._getter(), str(path)),
                     f"{self._label}.its({path!r})")

    @command("invoke")
    def invoke(self, method: str, *args: Any, **kwargs: Any) -> Value:
        """Call ``method(*args, **kwargs)`` of the value, now (once it can be read, up to
        defaultCommandTimeout), and yield what it returned."""
        __tracebackhide__ = True
        label = f"{self._label}.invoke({method!r})"

        def attempt() -> Attempt:
            ok, target, message = self._read()
            if not ok:
                return Attempt(False, message)
            func = getattr(target, method, None)
            if func is None and isinstance(target, Mapping):
                func = target.get(method)
            if not callable(func):
                raise CommandError(f"{label}: {_short(target)} has no method {method!r}.")
            return Attempt(True, value=func)

        func = retry(self._ctx, attempt, float(self._ctx.config.default_command_timeout), label)
        result = func(*args, **kwargs)  # once: what it raises is the test's error, as in a plain call
        return Value(self._commands, lambda: result, label)

    def then(self, func: Callable[[Any], Any]) -> Any:
        result = func(self.value())
        return self if result is None else self._commands.wrap(result)

    def as_(self, alias: str) -> Value:
        self._commands._dom_aliases[_alias_name(alias)] = self
        return self


def lookup_path(value: Any, path: str) -> Any:
    """Follow a dotted path through dicts, lists and attributes (camelCase or snake_case); a
    zero-argument accessor on the way (e.g. a Subject's text) reads through.

    Raises _Missing (the retry loop tries again) when a part of the path does not exist yet.
    """
    try:
        return assertions.walk_path(value, path, call_accessors=True)
    except assertions.PathMissing as err:
        if err.reason == "index":  # the words of Python's IndexError, as before the walker
            container = err.container
            kind = "string" if isinstance(container, str) else "tuple" if isinstance(container, tuple) else "list"
            raise _Missing(f"{kind} index out of range") from None
        raise _Missing(f"{_short(err.container)} has no property {err.part!r}") from None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


def _show(text: str | re.Pattern[str]) -> str:
    return f"/{text.pattern}/" if isinstance(text, re.Pattern) else repr(text)


def _contains_step(text: Any, selector: str | None, match_case: bool) -> dict[str, Any]:
    step: dict[str, Any] = {"op": "contains", "selector": selector, "matchCase": match_case, "normalize": True}
    if isinstance(text, re.Pattern):
        flags = "i" if text.flags & re.IGNORECASE else ""
        step["regex"] = [text.pattern, flags]
        step["text"] = ""
    elif isinstance(text, (str, int, float)) and not isinstance(text, bool):
        step["text"] = " ".join(str(text).split()) if isinstance(text, str) else str(text)
    else:
        raise UsageError(f"contains() expects a string, number or re.Pattern; found {text!r}.")
    return step


def _alias_name(alias: str) -> str:
    if not isinstance(alias, str) or not alias:
        raise UsageError(f"as_() needs a non-empty string alias; found {alias!r}.")
    if alias.startswith("@"):
        raise UsageError(f"as_({alias!r}): an alias cannot start with '@'. Try renaming it to {alias.lstrip('@')!r}.")
    return alias
