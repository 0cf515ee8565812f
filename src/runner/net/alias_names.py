"""Which records an alias names, and how an alias is written.

An alias names the requests of the routes given it with ``.as_()``, those a handler gave it with
``req.alias = ...`` and, for a WebSocket route, its messages. ``runner.wait`` and ``runner.get``
write it ``@name``, with a suffix: ``.request``, ``.response`` (wait), ``.all``, ``.N`` (get).
The state here is guarded by the registry's lock, as the waits of ``aliases.py`` that read it.
"""

from __future__ import annotations

from runner.errors import UsageError

from ._util import show
from .interception import Interception, RequestSnapshot
from .registry import Registry
from .websockets import WsRoutes

__all__ = ["AliasNames"]


class AliasNames:
    """The aliases of one page's routes and requests (cleared with the registry)."""

    def __init__(self, registry: Registry, ws: WsRoutes | None = None) -> None:
        self._registry = registry
        self._ws = ws
        self._dynamic: list[tuple[str, Interception, str]] = []  # alias, request, the route that named it

    def add(self, alias: str, ic: Interception, route_id: str, request: RequestSnapshot) -> None:
        """Record that the handler of route ``route_id`` gave ``ic`` the alias ``alias``
        (``req.alias = ...``); ``request`` is its request as the handler left it, under that
        alias. Wakes the waits."""
        with self._registry.cond:
            self._dynamic.append((alias, ic, route_id))
            ic.dynamic_aliases.append(alias)
            ic.request = request
            self._registry.cond.notify_all()

    def clear(self) -> None:
        """Forget the aliases handlers gave (the caller holds the registry's lock)."""
        self._dynamic = []

    def known(self) -> list[str]:
        """Every alias given so far: the routes' first, then the handlers', then the WebSockets'."""
        names: list[str] = []
        for route in self._registry.routes:
            if route.alias and route.alias not in names:
                names.append(route.alias)
        for name, _ic, _route in self._dynamic:
            if name not in names:
                names.append(name)
        for name in self._ws.aliases() if self._ws is not None else []:
            if name not in names:
                names.append(name)
        return names

    def is_ws(self, alias: str) -> bool:
        """Whether ``alias`` names a WebSocket route (its records are messages)."""
        return self._ws is not None and alias in self._ws.aliases()

    def candidates(self, alias: str) -> list[Interception]:
        """The interceptions ``alias`` names (its routes' and ``req.alias``'s), in the order the
        requests arrived, whichever route recorded them."""
        return [ic for ic, _key in self.records(alias)]

    def records(self, alias: str) -> list[tuple[Interception, tuple[str, str]]]:
        """:meth:`candidates` with the key of the record each one is: (route id, request id).
        A request appears once even when several routes with this alias reached it."""
        out: list[tuple[Interception, tuple[str, str]]] = []
        seen: set[str] = set()
        for name, ic, route_id in self._dynamic:
            if name == alias and ic.id not in seen:
                seen.add(ic.id)
                out.append((ic, (route_id, ic.id)))
        for route in self._registry.routes:
            if route.alias == alias:
                for ic in route.interceptions:
                    if ic.id not in seen:
                        seen.add(ic.id)
                        out.append((ic, (route.id, ic.id)))
        out.sort(key=lambda pair: pair[0].arrival)
        return out

    def error(self, cmd: str, name: str) -> UsageError:
        """The error of ``cmd`` given the unknown alias ``name``, listing the known ones."""
        known = self.known()
        if known:
            listed = f"Available aliases are: `{', '.join(known)}`."
        else:
            listed = "You have not aliased anything yet."
        return UsageError(f"`{cmd}` could not find a registered alias for: `@{name}`.\n{listed}")

    def split(self, name: str, known: list[str]) -> tuple[str, str | None]:
        """``name`` (without its ``@``) as (alias, suffix): ``"a.request"`` is ``("a", "request")``
        unless ``a.request`` is itself a ``known`` alias."""
        if "." not in name or name in known:
            return name, None
        head, _, last = name.rpartition(".")
        if last in ("request", "response", "all") or last.isdigit():
            return head, last
        return name, None

    def parse_wait_target(self, target: str) -> tuple[str, str | None]:
        """A target of ``runner.wait`` as (alias, suffix). Raises UsageError for one that is
        not an alias, a ``get``-only suffix, or an unknown alias (while no handler could still
        give it)."""
        known = self.known()
        if not target.startswith("@"):
            if target in known or self.split(target, known)[0] in known:
                raise UsageError(
                    f"Invalid alias: `{target}`.\nYou forgot the `@`. It should be written as: `@{target}`."
                )
            raise UsageError(
                "`runner.wait()` only accepts a number, an alias of a route, or a list of aliases of "
                f"routes. You passed: {show(target)}. Aliases are written with a leading `@`."
            )
        alias, spec = self.split(target[1:], known)
        if spec == "all" or (spec is not None and spec.isdigit()):
            raise UsageError(
                f"`runner.wait()` does not support waiting on `@{alias}.{spec}`: the `.all` and index "
                f"suffixes are for `runner.get()`. Use `runner.get('@{alias}.{spec}')` to read what was "
                f"recorded, or `runner.wait('@{alias}')` to wait for the next request."
            )
        if not alias:
            raise UsageError(f"`runner.wait()` was given an empty alias: {show(target)}.")
        if alias not in known and not any(r.handler is not None for r in self._registry.routes):
            raise self.error("runner.wait()", alias)
        return alias, spec
