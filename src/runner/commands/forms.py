"""A subject's form input: type, clear, check, uncheck, select, select_file.

They build on the pointer actions (``actions.py``); ``select_file``'s files are read by
``uploads.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from runner.commands.actions import Actions
from runner.commands.keys import type_sequence, typed_texts
from runner.commands.steps import command
from runner.commands.uploads import DROP_SCRIPT, drop_arg, file_payloads
from runner.errors import CommandError, UsageError
from runner.redaction import REDACTED

__all__ = ["FormInput"]

# What select_file's "select" needs to know of its element: a file input, or a label of one.
_FILE_INPUT = ("el => { const t = el.tagName === 'LABEL' && el.control ? el.control : el;"
               " return {file: t.tagName === 'INPUT' && t.type === 'file', multiple: !!t.multiple,"
               " control: t === el ? null : '<input' + (t.id ? '#' + t.id : '') + '>'}; }")


class FormInput(Actions):
    """What a user types, ticks and picks in the subject's form controls."""

    @command("type")
    def type(self, text: str, *, delay: float = 0, force: bool = False,
             parse_special_char_sequences: bool = True, timeout: float | None = None,
             log: bool = True) -> Self:
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
    def clear(self, *, force: bool = False, timeout: float | None = None) -> Self:
        return self.type("{selectall}{backspace}", force=force, timeout=timeout)

    @command("check")
    def check(self, *values: str, force: bool = False, timeout: float | None = None) -> Self:
        return self._set_checked(True, values, force, timeout)

    @command("uncheck")
    def uncheck(self, *values: str, force: bool = False, timeout: float | None = None) -> Self:
        return self._set_checked(False, values, force, timeout)

    def _set_checked(self, want: bool, values: Sequence[str], force: bool, timeout: float | None) -> Self:
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
    def select(self, *values: str, force: bool = False, timeout: float | None = None) -> Self:
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

    @command("select_file")
    def select_file(self, files: Any, action: str = "select", *, force: bool = False,
                    timeout: float | None = None) -> Self:
        """Give an ``<input type=file>`` (or a label of one) files, as a user picking them does
        (``action="select"``), or drop them on any element (``action="drag-drop"``: dragenter,
        dragover and drop with a DataTransfer holding them). ``files``: a path, a dict like the
        original's file object (``contents``, ``fileName``, ``mimeType``, ``lastModified``), or
        a list of them (``uploads.py``)."""
        __tracebackhide__ = True
        if action not in ("select", "drag-drop"):
            raise UsageError(f"{self._label}.select_file(): action must be 'select' or 'drag-drop'; found {action!r}.")
        config = self._ctx.config
        payloads = file_payloads(files, config.path("fixturesFolder"), self._ctx.project_root,
                                 f"{self._label}.select_file()")
        snap = self._one_element("select_file", timeout)
        # a hidden file input is the usual way to style one: the timeout says how to reach it
        hint = ("file inputs are often hidden behind a styled label; pass force=True, or select_file on the label"
                if snap.elements[0].tag.lower() == "input" and action == "select" else "")
        self._prepare("select_file", force=force, timeout=timeout, hidden_hint=hint)
        if action == "select":
            kind = self._ctx.run(self._eval_first(_FILE_INPUT))
            if not kind["file"]:
                raise CommandError(
                    f"{self._label}.select_file() can only be called on an <input type=\"file\"> or a <label> "
                    f"of one; found {snap.elements[0].description}.\nPass action='drag-drop' to drop the files on it."
                )
            if len(payloads) > 1 and not kind["multiple"]:
                lacking = snap.elements[0].description  # a label's input is the one that lacks it
                lacking = f"its input {kind['control']}" if kind.get("control") else lacking
                raise CommandError(
                    f"{self._label}.select_file() can only give several files ({len(payloads)} here) to an "
                    f"input with the multiple attribute; {lacking} has none."
                )
            try:
                self._ctx.run(self._ctx.browser.set_input_files(self._query_arg(), payloads))
            except CommandError:
                raise  # the page stopped responding, or broke
            except Exception as err:  # Playwright refused the files
                raise CommandError(f"{self._label}.select_file() failed: {err}") from err
        else:
            self._ctx.run(self._eval_first(DROP_SCRIPT, drop_arg(payloads)))
        names = ", ".join(repr(p["name"]) for p in payloads)
        self._ctx.add_log("select_file", f"{self._label} {names}" + (" (drag-drop)" if action == "drag-drop" else ""))
        return self
