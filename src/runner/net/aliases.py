"""``runner.wait("@alias")``, ``runner.get("@alias")`` and ``runner.assert_no_request("@alias")``.

They run on the test thread. The state kept here (which records each alias's waits took, and
how many times each alias was waited on) is guarded by the registry's lock and cleared with it;
``wait`` sleeps on the registry's condition, which every change of an interception notifies.
Which records an alias names is :class:`~runner.net.alias_names.AliasNames`'s job.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from runner.errors import CommandError, UsageError

from ._util import ordinal, show
from .alias_names import AliasNames
from .interception import Interception, describe_interceptions
from .registry import Registry
from .websockets import WsMessage, WsRoutes

__all__ = ["Aliases"]


class Aliases:
    """The test thread's reads of the records by alias (``wait``, ``get``, ``assert_none``)."""

    def __init__(self, registry: Registry, config: Callable[[str], Any], ws: WsRoutes | None = None) -> None:
        self._registry = registry
        self._config = config
        self._ws = ws
        self._ws_taken: dict[str, set[int]] = {}  # the messages (by order) each WebSocket alias's waits took
        self.names = AliasNames(registry, ws)
        self._ordinals: dict[str, int] = {}
        # What the waits consumed, by record: one record per route a request reached (the
        # original's model, behaviour.md 1d.3). A request two aliased routes matched is two
        # records, yielded once to each alias; a dynamic alias names the record of the route
        # whose handler set it, so it shares that record with the route's own `.as_()` alias.
        self._requests_taken: set[tuple[str, str]] = set()
        self._responses_taken: set[tuple[str, str]] = set()

    def clear(self) -> None:
        with self._registry.lock:
            self.names.clear()
            self._ordinals = {}
            self._requests_taken = set()
            self._responses_taken = set()
            self._ws_taken = {}

    def wait(self, aliases: str | list[str], *, timeout: float | None = None,
             request_timeout: float | None = None, response_timeout: float | None = None,
             count: int | None = None, **options: Any) -> Any:
        """See :meth:`runner.net.Interceptor.wait`. Raises UsageError for misuse and
        CommandError on timeout."""
        __tracebackhide__ = True
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
            raise UsageError(
                f"runner.wait(): `count` is how many requests to wait for, a whole number >= 1; "
                f"found {show(count)}."
            )
        for key, value in options.items():  # the camelCase spellings of the original's options
            if key == "requestTimeout" and request_timeout is None:
                request_timeout = value
            elif key == "responseTimeout" and response_timeout is None:
                response_timeout = value
            elif key not in ("requestTimeout", "responseTimeout", "log"):
                raise UsageError(
                    f"runner.wait() got an unknown option {key!r}. Options: timeout, request_timeout, "
                    "response_timeout (requestTimeout, responseTimeout), count."
                )
        single = isinstance(aliases, str)
        if single:
            targets = [aliases]
        elif isinstance(aliases, (list, tuple)) and aliases and all(isinstance(a, str) for a in aliases):
            targets = list(aliases)
        else:
            raise UsageError(
                "`runner.wait()` only accepts a number, an alias of a route, or a list of aliases of "
                f"routes. You passed: {show(aliases)}"
            )
        with self._registry.lock:
            parsed = [self.names.parse_wait_target(t) for t in targets]  # type: ignore[arg-type]
        req_ms = _pick(request_timeout, timeout, self._config("requestTimeout"))
        resp_ms = _pick(response_timeout, timeout, self._config("responseTimeout"))
        start = time.monotonic()
        deadline = start + req_ms / 1000
        results: list[Any] = []
        for alias, spec in parsed:
            if self.names.is_ws(alias):
                got = self._wait_ws(alias, count or 1, deadline, req_ms)
                results.append(got if count is not None else got[0])
            elif count is None:
                results.append(self._wait_one(alias, spec, deadline, req_ms, resp_ms))
            else:  # one deadline for all the requests of an alias: "3 requests within 5 s"
                batch: list[Interception] = []
                for _ in range(count):
                    batch.append(self._wait_one(alias, spec, deadline, req_ms, resp_ms, batch=(batch, count)))
                results.append(batch)
        return results[0] if single else results

    def _wait_one(self, alias: str, spec: str | None, deadline: float, req_ms: float,
                  resp_ms: float, batch: tuple[list[Interception], int] | None = None) -> Interception:
        __tracebackhide__ = True
        cond = self._registry.cond
        with cond:
            n = self._ordinals.get(alias, 0) + 1
            self._ordinals[alias] = n
            requests_taken, responses_taken = self._requests_taken, self._responses_taken
            found: Interception | None = None
            while spec != "response":  # `@a.response` skips the request step (see the docs)
                found, key = next(((c, k) for c, k in self.names.records(alias) if k not in requests_taken),
                                  (None, None))
                if found is not None and key is not None:
                    requests_taken.add(key)
                    found.request_waited = True
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CommandError(
                        f"runner.wait() timed out waiting {req_ms:g}ms for the {ordinal(n)} request to "
                        f"the route: `{alias}`. {self._what_came(alias, batch)}"
                    )
                cond.wait(remaining)
            if spec == "request":
                assert found is not None
                found.alias = alias
                found.request.alias = alias
                return found
            resp_deadline = time.monotonic() + resp_ms / 1000
            while True:
                target, taking = next(((c, k) for c, k in self.names.records(alias) if k not in responses_taken),
                                      (None, None))
                if target is not None and target.state.done:
                    break
                remaining = resp_deadline - time.monotonic()
                if remaining <= 0:
                    raise CommandError(
                        f"runner.wait() timed out waiting {resp_ms:g}ms for the {ordinal(n)} response "
                        f"to the route: `{alias}`.{self._why_no_response(alias, target, batch)}"
                    )
                cond.wait(remaining)
            assert taking is not None
            requests_taken.add(taking)
            responses_taken.add(taking)
            target.request_waited = True
            target.response_waited = True
            target.alias = alias
            target.request.alias = alias
            return target

    def _wait_ws(self, alias: str, count: int, deadline: float, wait_ms: float) -> list[WsMessage]:
        """The next ``count`` messages (either way) of a WebSocket alias no wait took yet."""
        __tracebackhide__ = True
        assert self._ws is not None
        cond = self._registry.cond
        with cond:
            while True:
                messages = self._ws.messages_of(alias)
                taken = self._ws_taken.setdefault(alias, set())
                # by identity, not by position: a message whose callbacks took longer is recorded
                # after a later one, in its own place
                fresh = [m for m in messages if m.order not in taken]
                if len(fresh) >= count:
                    taken.update(m.order for m in fresh[:count])
                    return fresh[:count]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    got = len(fresh)
                    seen = "\n".join(f"  {m!r}" for m in messages[-10:]) or "  (none)"
                    raise CommandError(
                        f"runner.wait() timed out waiting {wait_ms:g}ms for {_count(count, 'message')} of the "
                        f"WebSocket route `{alias}`: {got} came. Its messages so far ({len(messages)}, "
                        f"{len(taken)} taken by earlier waits):\n{seen}"
                    )
                cond.wait(remaining)

    def _what_came(self, alias: str, batch: tuple[list[Interception], int] | None) -> str:
        """Why a wait for the next request of ``alias`` found none (holding the lock): every
        request it recorded was yielded already, or none came at all."""
        recorded = self.names.candidates(alias)
        if not recorded:
            return "No request ever occurred." + self._batch_note(batch)
        return (f"No further request occurred.{self._batch_note(batch)}\n"
                f"Requests it already yielded ({len(recorded)}):\n{describe_interceptions(recorded)}")

    def _why_no_response(self, alias: str, target: Interception | None,
                         batch: tuple[list[Interception], int] | None) -> str:
        """Why a wait for the next response of ``alias`` timed out (holding the lock)."""
        if target is not None:  # its request came: say where it is
            said = " No response ever occurred." if target.response is None else " Its response did not complete."
            return f"{said} ({target.request.method} {target.request.url} is {target.state.value}.){self._batch_note(batch)}"
        recorded = self.names.candidates(alias)
        if not recorded:
            return " No response ever occurred." + self._batch_note(batch)
        return (f" No further response occurred.{self._batch_note(batch)}\n"
                f"Responses it already yielded ({len(recorded)}):\n{describe_interceptions(recorded)}")

    @staticmethod
    def _batch_note(batch: tuple[list[Interception], int] | None) -> str:
        if batch is None:
            return ""
        got, wanted = batch
        return f"\nrunner.wait(count={wanted}) had {len(got)} of the {wanted}."

    def assert_none(self, aliases: list[str], within_ms: float, label: str) -> None:
        """Fail (CommandError) as soon as one of ``aliases`` has recorded a request, checking
        until ``within_ms`` have passed; requests recorded before the call count."""
        __tracebackhide__ = True
        cond = self._registry.cond
        deadline = time.monotonic() + within_ms / 1000
        with cond:
            known = self.names.known()
            for alias in aliases:
                if alias not in known:
                    raise self.names.error(label, alias)
            while True:
                messages = [m for a in aliases if self._ws is not None and self.names.is_ws(a)
                            for m in self._ws.messages_of(a)]
                if messages:
                    raise CommandError(f"{label} failed: {_count(len(messages), 'WebSocket message')} came:\n"
                                       + "\n".join(f"  {m!r}" for m in messages[:20]))
                seen = sorted({ic.id: ic for a in aliases for ic in self.names.candidates(a)}.values(),
                              key=lambda ic: ic.arrival)
                if seen:
                    names = ", ".join(f"`{a}`" for a in aliases)
                    raise CommandError(
                        f"{label} failed: {_count(len(seen), 'request')} reached {names}"
                        f"{f' (checked for {within_ms:g}ms)' if within_ms else ''}:\n{describe_interceptions(seen)}"
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                cond.wait(remaining)

    def get(self, alias: str) -> Interception | list[Interception] | None:
        """See :meth:`runner.net.Interceptor.get`. Raises UsageError for an unknown alias or
        ``"@a.0"``."""
        __tracebackhide__ = True
        if not isinstance(alias, str) or not alias.startswith("@"):
            raise UsageError(f"`runner.get()` reads an alias written with a leading `@`; found {alias!r}.")
        with self._registry.lock:
            known = self.names.known()
            name = alias[1:]
            base, spec = self.names.split(name, known)
            if spec in ("request", "response"):
                base, spec = name, None
            if spec == "0":
                raise UsageError(
                    "`0` is not a valid alias property. Are you trying to ask for the first response? "
                    f"If so write `@{base}.1`"
                )
            if base not in known:
                raise self.names.error("runner.get()", base)
            candidates: list[Any] = (self._ws.messages_of(base) if self._ws is not None and self.names.is_ws(base)
                                     else self.names.candidates(base))
        if spec is None:
            return candidates[-1] if candidates else None
        if spec == "all":
            return candidates
        index = int(spec)
        return candidates[index - 1] if index <= len(candidates) else None


def _pick(*values: Any) -> float:
    for value in values:
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise UsageError(f"runner.wait() timeouts must be numbers of milliseconds >= 0; found {value!r}.")
            return float(value)
    return 0.0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")

