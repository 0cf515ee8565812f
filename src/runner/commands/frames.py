"""``runner.frame(selector)``: a subject inside an iframe's document, same origin or not.

A :class:`Frame` is a :class:`~runner.commands.subject.Subject` whose recipe begins with frame
steps (``{"op": "frame", "selector": ...}``, one per level), which the engine resolves at every
try (``engine/frames.py``): the iframe element may appear late, its document may still be
loading or may navigate, and each read or action finds them as they are then. Its elements are
the frame document's ``<body>`` (the original's recipe, ``its('0.contentDocument.body')``), so
``should``, ``find``, ``contains``, ``click`` work on it as on any subject; what
starts from the frame's document is its own: ``get`` (a query of the whole document), ``frame``
(an iframe inside this one) and ``its`` (a dotted path read from the frame's ``window``:
``its("document.title")``). A subject derived from it (``find``, ``get``, ...) is a plain
``Subject`` that keeps the frame steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runner.commands.dom_query import checked_selector
from runner.commands.subject import Subject
from runner.commands.values import Value, _Missing
from runner.errors import UsageError

if TYPE_CHECKING:
    from runner.commands.base import CommandsBase

__all__ = ["Frame", "frame_steps"]

# A dotted path read from the frame's window: its value as JSON data (String() of what is not
# JSON), or the part that is missing.
_WINDOW_PATH = """(el, parts) => {
  if (!el) return null;
  let value = el.ownerDocument.defaultView;
  for (let i = 0; i < parts.length; i++) {
    if (value === null || value === undefined || !(parts[i] in Object(value))) return {missing: parts.slice(0, i + 1).join(".")};
    value = value[parts[i]];
  }
  if (value === undefined) return {value: null};
  try { return {value: JSON.parse(JSON.stringify(value))}; } catch (e) { return {value: String(value)}; }
}"""


def frame_steps(selector: Any, where: str) -> list[dict[str, Any]]:
    """The frame step of ``selector`` (``where`` names the call in the error for a bad one)."""
    if not isinstance(selector, str) or not selector.strip():
        raise UsageError(f"{where} needs the CSS selector of an iframe (e.g. '#pay', "
                         f"'iframe[name=checkout]'); found {selector!r}.")
    return [{"op": "frame", "selector": selector}]


class Frame(Subject):
    """The ``<body>`` of an iframe's document, and the queries that start from that document."""

    @classmethod
    def at(cls, commands: CommandsBase, frames: list[dict[str, Any]], label: str,
           timeout: float | None = None, include_shadow_dom: bool | None = None) -> Frame:
        """The frame at the end of ``frames`` (its frame steps, one per level)."""
        return cls(commands, [*frames, {"op": "get", "selector": "body"}], label, timeout, include_shadow_dom)

    @property
    def _frames(self) -> list[dict[str, Any]]:
        """The recipe's frame steps (those before the step to the body)."""
        return [step for step in self._steps if step.get("op") == "frame"]

    def __repr__(self) -> str:
        return f"<Frame {self._label}>"

    def _derive(self, step: dict[str, Any], label: str) -> Any:
        # what is found from the body is an element, not a frame: a plain subject
        return Subject(self._commands, [*self._steps, step], f"{self._label}.{label}",
                       self._timeout, self._shadow)

    def get(self, selector: str, *, timeout: float | None = None,
            include_shadow_dom: bool | None = None) -> Subject:
        """Query the frame's whole document by CSS selector (as ``runner.get`` does the page's,
        jQuery's ``:visible``, ``:first``, ... too)."""
        if isinstance(selector, str) and selector.startswith("@"):
            raise UsageError(f"{self._label}.get({selector!r}): aliases are read with runner.get({selector!r}).")
        checked = checked_selector(self, "get", (selector,), {}, selector, required=True)
        return Subject(self._commands, [*self._frames, {"op": "get", "selector": checked}],
                       f"{self._label}.get({selector!r})", self._timeout if timeout is None else timeout,
                       self._shadow if include_shadow_dom is None else include_shadow_dom)

    def frame(self, selector: str, *, timeout: float | None = None) -> Frame:
        """The iframe ``selector`` inside this frame's document."""
        steps = frame_steps(selector, f"{self._label}.frame()")
        return Frame.at(self._commands, [*self._frames, *steps], f"{self._label}.frame({selector!r})",
                        self._timeout if timeout is None else timeout, self._shadow)

    def its(self, path: str) -> Value:
        """A dotted path read from the frame's ``window``: ``its("document.title")``,
        ``its("location.href")``, ``its("app.state.user")`` (read again until it exists)."""
        parts = [part for part in str(path).split(".") if part]
        if not parts:
            raise UsageError(f"{self._label}.its() needs a dotted path (e.g. 'document.title'); found {path!r}.")
        label = f"{self._label}.its({path!r})"

        def getter() -> Any:
            # a frame not there yet raises FrameUnavailable, a CommandError: Value reads again
            answer = self._ctx.run(self._ctx.browser.eval_first(self._query_arg(), _WINDOW_PATH, parts))
            if answer is None:
                raise _Missing(f"{self._label} has no document (no <body> yet)")
            if "missing" in answer:
                raise _Missing(f"the frame's window has no property {answer['missing']!r}")
            return answer["value"]

        return Value(self._commands, getter, label)
