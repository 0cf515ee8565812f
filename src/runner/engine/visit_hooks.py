"""A visit's hooks in the page: the new document paused before its first script for ``on_before_load``.

Playwright's init scripts run JavaScript only, so a hook that is Python (or JavaScript that must
run once, for this visit's document alone) needs the document held before its scripts. For one
visit, :class:`BeforeLoadPause` opens a DevTools session of its own on the page, adds a script to
every new document that stops at a ``debugger`` statement in the top frame, and on the first stop
runs the hook, which evaluates in the paused document (:func:`evaluate_source` through
``Debugger.evaluateOnCallFrame``), then lets the page go. The hook is bounded in time; whatever
it does, the script is removed and the page resumed, and any other stop (an app's own
``debugger`` statement, a later document) is resumed at once.

``evaluate_source`` is also how ``on_load`` evaluates, on the loaded page (``Runtime.evaluate``).
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import BrowserContext, CDPSession, Page

from runner.engine.devtools import quietly

__all__ = ["BeforeLoad", "BeforeLoadPause", "PageScriptError", "HookTimeout", "Evaluate", "evaluate_source"]

#: Evaluates JavaScript in the page: ``evaluate(source, args, want_value)`` (see
#: :func:`evaluate_source`); awaited on the engine loop.
Evaluate = Callable[[str, list[Any], bool], Coroutine[Any, Any, Any]]

# A source that starts as a function statement is only an expression in parentheses.
_FUNCTION_START = re.compile(r"^\s*(async\s+)?function\b")

# How much longer than the hook's own bound its task is waited for after the navigation ended.
_SETTLE_GRACE_S = 2.0


class PageScriptError(Exception):
    """JavaScript evaluated in the page threw; ``str()`` is the page's description of the error."""


class HookTimeout(Exception):
    """The hook did not return within its bound (seconds in ``args[0]``)."""


@dataclass
class BeforeLoad:
    """An ``on_before_load`` hook as the engine runs it: ``run(evaluate)`` is awaited once, when
    the visit's document is paused before its first script, for at most ``bound_s`` seconds.

    The engine fills ``ran`` (the document was paused and the hook started) and ``error`` (what
    ``run`` raised, or :class:`HookTimeout`)."""

    run: Callable[[Evaluate], Awaitable[None]]
    bound_s: float
    ran: bool = False
    error: BaseException | None = field(default=None)


async def evaluate_source(send: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]],
                          first: tuple[str, dict[str, Any]], source: str, args: list[Any], *,
                          await_promise: bool, want_value: bool = True) -> Any:
    """Evaluate ``source`` (statements or an expression, the window's names in scope) with the
    protocol call ``first`` (``Runtime.evaluate`` or ``Debugger.evaluateOnCallFrame``, whose
    ``expression`` is set here); when it evaluates to a function, call it with the window and
    ``args`` (JSON values). Returns the result as JSON data (None for ``undefined``, and
    without ``want_value``: a hook's result is nobody's business, and may not be JSON).

    Raises :class:`PageScriptError` with the page's description when the script throws.
    """
    method, params = first
    expression = f"({source}\n)" if _FUNCTION_START.match(source) else source
    reply = await send(method, {**params, "expression": expression, "returnByValue": False,
                                **({"awaitPromise": True} if await_promise else {})})
    _raise_thrown(reply)
    result = reply.get("result") or {}
    if result.get("type") != "function":
        return await _by_value(send, result, await_promise) if want_value else None
    called = await send("Runtime.callFunctionOn", {
        "objectId": result["objectId"], "functionDeclaration": "function (...a) { return this(window, ...a); }",
        "arguments": [{"value": a} for a in args], "returnByValue": want_value,
        **({"awaitPromise": True} if await_promise else {})})
    _raise_thrown(called)
    return (called.get("result") or {}).get("value") if want_value else None


async def _by_value(send: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]], result: dict[str, Any],
                    await_promise: bool) -> Any:
    if "objectId" not in result:
        return result.get("value")
    reply = await send("Runtime.callFunctionOn", {
        "objectId": result["objectId"], "functionDeclaration": "function () { return this; }",
        "returnByValue": True, **({"awaitPromise": True} if await_promise else {})})
    _raise_thrown(reply)
    return (reply.get("result") or {}).get("value")


def _raise_thrown(reply: dict[str, Any]) -> None:
    details = reply.get("exceptionDetails")
    if details is None:
        return
    thrown = details.get("exception") or {}
    text = thrown.get("description") or str(thrown.get("value", "")) or details.get("text") or "an error"
    raise PageScriptError(text.splitlines()[0])


class BeforeLoadPause:
    """One visit's pause: armed before the navigation, settled after it (always)."""

    def __init__(self, session: CDPSession, hook: BeforeLoad, token: str) -> None:
        self._session = session
        self._hook = hook
        self._token = token
        self._script_id: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._frame_id: str | None = None
        self._over = False  # the hook's time is over: its evaluations are refused
        # the visit's outcome is known: its document paused (the hook started), or the top frame
        # navigated within its document (a hash change: no document to pause)
        self._known = asyncio.Event()
        self._top_frame: str | None = None

    @classmethod
    async def arm(cls, context: BrowserContext, page: Page, hook: BeforeLoad) -> BeforeLoadPause:
        """Open a DevTools session on ``page`` and make the next top-level document stop before
        its first script. Raises Playwright's ``Error`` when the page is gone."""
        session = await context.new_cdp_session(page)
        pause = cls(session, hook, "__runner_before_load_" + secrets.token_hex(6))
        session.on("Debugger.paused", pause._on_paused)
        session.on("Page.navigatedWithinDocument", pause._on_same_document)
        await session.send("Page.enable")
        tree = await session.send("Page.getFrameTree")
        pause._top_frame = tree["frameTree"]["frame"]["id"]
        await session.send("Debugger.enable")
        added = await session.send("Page.addScriptToEvaluateOnNewDocument", {
            "source": f"(function {pause._token}() {{ if (window === window.top) debugger; }})();"})
        pause._script_id = added["identifier"]
        return pause

    def _on_paused(self, params: dict[str, Any]) -> None:
        frames = params.get("callFrames") or []
        ours = bool(frames) and frames[0].get("functionName") == self._token
        if ours and self._task is None and not self._over:
            self._frame_id = frames[0]["callFrameId"]
            self._task = asyncio.ensure_future(self._run())
            self._known.set()
        else:  # an app's own `debugger`, or a later document: not this hook's business
            asyncio.ensure_future(quietly(self._session.send("Debugger.resume")))

    def _on_same_document(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self._top_frame:
            self._known.set()

    async def _run(self) -> None:
        self._hook.ran = True
        try:
            await asyncio.wait_for(self._hook.run(self._evaluate), self._hook.bound_s)
        except TimeoutError:
            self._hook.error = HookTimeout(self._hook.bound_s)
        except Exception as err:  # noqa: BLE001 - the user's hook: told by the command
            self._hook.error = err
        finally:
            self._over = True
            await self._forget_script()
            await _bounded(self._session.send("Debugger.resume"))

    async def _evaluate(self, source: str, args: list[Any], want_value: bool = True) -> Any:
        if self._over or self._frame_id is None:
            raise PageScriptError("the hook's time is over: the page was let go")

        async def send(method: str, params: dict[str, Any]) -> dict[str, Any]:
            reply: dict[str, Any] = await self._session.send(method, params)
            return reply

        # The protocol's own timeout ends a script that loops for ever (resuming would not).
        first = {"callFrameId": self._frame_id, "timeout": int(self._hook.bound_s * 1000)}
        return await evaluate_source(send, ("Debugger.evaluateOnCallFrame", first),
                                     source, args, await_promise=False, want_value=want_value)

    async def _forget_script(self) -> None:
        script, self._script_id = self._script_id, None
        if script is not None:
            await _bounded(self._session.send("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script}))

    async def settle(self, *, at_commit: bool = False) -> None:
        """After the navigation: wait for a running hook (bounded), make sure the page is not
        left paused, and close the session. After a navigation that ended at its commit
        (``at_commit``: ``wait_until="commit"``) its document has not reached the pause yet: it
        is waited for (within the hook's bound), or a hash change seen."""
        if at_commit:
            try:
                await asyncio.wait_for(self._known.wait(), self._hook.bound_s)
            except TimeoutError:
                pass  # no document paused (a download): the hook did not run, and the visit says so
        task = self._task
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), self._hook.bound_s + _SETTLE_GRACE_S)
            except TimeoutError:
                self._hook.error = self._hook.error or HookTimeout(self._hook.bound_s)
        self._over = True
        await self._forget_script()
        # Disabling resumes a page still paused. A page stuck in a script answers nothing: the
        # navigation timed out already, and the next reset replaces the page.
        await _bounded(self._session.send("Debugger.disable"))
        await _bounded(self._session.detach())


async def _bounded(call: Any) -> None:
    try:
        await asyncio.wait_for(quietly(call), _SETTLE_GRACE_S)
    except TimeoutError:
        pass
