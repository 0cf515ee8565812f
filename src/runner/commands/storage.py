"""Storage commands: cookies, ``localStorage`` and ``sessionStorage``, and ``session``.

A session caches the cookies and local storage a setup made, and restores them in later tests.

Local and session storage follow the original's commands (``clearLocalStorage``,
``getAllLocalStorage``, ...) in snake_case, with setters and getters for the page's own origin:
``get_local_storage(key=None)``, ``set_local_storage(key, value)``, ``clear_local_storage(key=None)``
and the same for session storage; ``get_all_local_storage()`` and ``clear_all_local_storage()``
reach every origin the browser kept local storage for, ``get_all_session_storage()`` and
``clear_all_session_storage()`` the origins the page shows now (its document and its frames: a
tab's session storage is readable only from a document of its origin).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from runner.commands.base import CommandsBase
from runner.commands.records import Record
from runner.commands.steps import command
from runner.errors import UsageError

__all__ = ["StorageCommands"]

_AREAS = {"local": "localStorage", "session": "sessionStorage"}


class StorageCommands(CommandsBase):
    """Cookies and local and session storage read, set and cleared; sessions of cookies and local
    storage kept across tests."""

    def _cookie_url(self) -> str | None:
        url = self._ctx.browser.page_url
        if url is not None and url.startswith(("http://", "https://")):
            return url
        return self._ctx.base_url

    @command("get_cookies")
    def get_cookies(self, *, domain: str | None = None) -> list[Record]:
        """Cookies of the current page's domain (or ``domain``)."""
        cookies = self._ctx.run(self._ctx.browser.cookies(), self._ctx.config.response_timeout)
        host = domain or urlsplit(self._cookie_url() or "").hostname
        out = []
        for c in cookies:
            cd = c.get("domain", "").lstrip(".")
            if host is None or host == cd or host.endswith("." + cd):
                out.append(_cookie_record(c))
        return out

    @command("get_all_cookies")
    def get_all_cookies(self) -> list[Record]:
        return [_cookie_record(c) for c in self._ctx.run(self._ctx.browser.cookies())]

    @command("get_cookie")
    def get_cookie(self, name: str) -> Record | None:
        for cookie in self.get_cookies():
            if cookie["name"] == name:
                return cookie
        return None

    @command("set_cookie")
    def set_cookie(self, name: str, value: str, *, domain: str | None = None, path: str = "/",
                   secure: bool = False, http_only: bool = False, expiry: float | None = None,
                   same_site: str | None = None) -> Record:
        cookie: dict[str, Any] = {"name": name, "value": value, "path": path, "secure": secure,
                                  "httpOnly": http_only}
        if domain:
            cookie["domain"] = domain
        else:
            url = self._cookie_url()
            if url is None:
                raise UsageError(
                    "runner.set_cookie() needs a domain: the page shows no site yet and no baseUrl is set.\n"
                    "Visit a page first or pass domain=."
                )
            cookie["domain"] = urlsplit(url).hostname
        if expiry is not None:
            cookie["expires"] = expiry
        if same_site is not None:
            canonical = {"lax": "Lax", "strict": "Strict", "none": "None", "no_restriction": "None"}.get(same_site.lower())
            if canonical is None:
                raise UsageError(f"runner.set_cookie(): same_site must be 'lax', 'strict' or 'none'; found {same_site!r}.")
            cookie["sameSite"] = canonical
        self._ctx.run(self._ctx.browser.add_cookies([cookie]))
        found = self.get_cookie(name)
        return found if found is not None else _cookie_record(cookie)

    @command("clear_cookie")
    def clear_cookie(self, name: str) -> None:
        self._ctx.run(self._ctx.browser.clear_cookies(name))

    @command("clear_cookies")
    def clear_cookies(self) -> None:
        self._ctx.run(self._ctx.browser.clear_cookies())

    def _origin_page(self, name: str) -> str:
        """The page's origin; UsageError naming ``name`` when the page shows no site."""
        url = self._ctx.browser.page_url or "about:blank"
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"runner.{name}() needs a page of a site, and the page is {url!r}.\n"
                             "Visit one first (runner.visit), or use on_before_load to set storage before its scripts.")
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"

    def _get_storage(self, kind: str, key: str | None) -> Any:
        name = f"get_{kind}_storage"
        origin = self._origin_page(name)
        items = self._ctx.run(self._ctx.browser.web_storage(_AREAS[kind]))
        self._ctx.add_log(name, f"{len(items)} key(s) of {origin}" if key is None else f"{key!r} of {origin}")
        return dict(items) if key is None else items.get(str(key))

    def _set_storage(self, kind: str, key: str, value: Any) -> None:
        name = f"set_{kind}_storage"
        if not isinstance(key, str) or not key:
            raise UsageError(f"runner.{name}(key, value) needs a key string; found {key!r}.")
        try:
            text = value if isinstance(value, str) else json.dumps(value)
        except (TypeError, ValueError):
            raise UsageError(f"runner.{name}(key, value) stores a string, or JSON data (dict, list, str, int, "
                             f"float, bool, None); found {value!r}.") from None
        origin = self._origin_page(name)
        self._ctx.run(self._ctx.browser.set_web_storage(_AREAS[kind], key, text))
        self._ctx.add_log(name, f"{key!r} = {text!r} on {origin}")

    def _clear_storage(self, kind: str, key: str | re.Pattern[str] | None) -> None:
        name = f"clear_{kind}_storage"
        if key is not None and not isinstance(key, str | re.Pattern):
            raise UsageError(f"runner.{name}(key=None) takes a key string or a compiled re pattern; found {key!r}.")
        origin = self._origin_page(name)
        browser = self._ctx.browser
        keys = None
        if isinstance(key, re.Pattern):
            pattern = key
            keys = [k for k in self._ctx.run(browser.web_storage(_AREAS[kind])) if pattern.search(k)]
        elif key is not None:
            keys = [key]
        self._ctx.run(browser.remove_web_storage(_AREAS[kind], keys))
        if keys is None:
            what = "every key"
        else:
            what = ", ".join(map(repr, keys)) or f"no key matching {key!r}"
        self._ctx.add_log(name, f"{what} of {origin}")

    @command("get_local_storage")
    def get_local_storage(self, key: str | None = None) -> Any:
        """The page origin's local storage as a dict, or the value of ``key`` (None without one)."""
        return self._get_storage("local", key)

    @command("get_session_storage")
    def get_session_storage(self, key: str | None = None) -> Any:
        """The page origin's session storage as a dict, or the value of ``key`` (None without one)."""
        return self._get_storage("session", key)

    @command("set_local_storage")
    def set_local_storage(self, key: str, value: Any) -> None:
        """Store ``value`` (a string; anything else as JSON) under ``key`` for the page's origin."""
        self._set_storage("local", key, value)

    @command("set_session_storage")
    def set_session_storage(self, key: str, value: Any) -> None:
        """Store ``value`` (a string; anything else as JSON) under ``key`` for the page's origin."""
        self._set_storage("session", key, value)

    @command("clear_local_storage")
    def clear_local_storage(self, key: str | re.Pattern[str] | None = None) -> None:
        """Remove ``key`` (or every key a compiled pattern finds) from the page origin's local
        storage; every key without one (the original's ``clearLocalStorage``)."""
        self._clear_storage("local", key)

    @command("clear_session_storage")
    def clear_session_storage(self, key: str | re.Pattern[str] | None = None) -> None:
        """As ``clear_local_storage``, for the page origin's session storage."""
        self._clear_storage("session", key)

    @command("get_all_local_storage")
    def get_all_local_storage(self) -> dict[str, dict[str, str]]:
        """``{origin: {key: value}}`` for every origin that holds local storage."""
        found = self._ctx.run(self._ctx.browser.all_local_storage(), self._ctx.config.page_load_timeout)
        self._ctx.add_log("get_all_local_storage", f"{len(found)} origin(s): {', '.join(sorted(found)) or 'none'}")
        return found

    @command("get_all_session_storage")
    def get_all_session_storage(self) -> dict[str, dict[str, str]]:
        """``{origin: {key: value}}`` for the origins the page shows now (document and frames)."""
        found = self._ctx.run(self._ctx.browser.frames_session_storage())
        self._ctx.add_log("get_all_session_storage", f"{len(found)} origin(s): {', '.join(sorted(found)) or 'none'}")
        return found

    @command("clear_all_local_storage")
    def clear_all_local_storage(self) -> None:
        """Clear the local storage of every origin that holds some."""
        origins = self._ctx.run(self._ctx.browser.clear_all_local_storage(), self._ctx.config.page_load_timeout)
        self._ctx.add_log("clear_all_local_storage", ", ".join(origins) or "no origin held any")

    @command("clear_all_session_storage")
    def clear_all_session_storage(self) -> None:
        """Clear the session storage of the origins the page shows now (document and frames)."""
        origins = self._ctx.run(self._ctx.browser.clear_frames_session_storage())
        self._ctx.add_log("clear_all_session_storage", ", ".join(origins) or "the page shows no site")

    @command("session")
    def session(self, id: Any, setup: Callable[[], Any], validate: Callable[[], Any] | None = None) -> None:
        """Cache and restore cookies and local storage across tests (``experimentalSessionSupport``).

        The first call with ``id`` runs ``setup`` (e.g. a log-in) and remembers the browser's
        cookies and local storage; later calls (in any test of the run) restore them instead.
        ``validate`` runs after a restore; if it raises, the session is built again with
        ``setup``. Session storage is not part of a session. The page is left at ``about:blank``
        either way, so visit a page next.
        """
        __tracebackhide__ = True
        if not self._ctx.config.experimental_session_support:
            raise UsageError(
                "runner.session() needs experimentalSessionSupport: true in runner.json."
            )
        if not callable(setup) or (validate is not None and not callable(validate)):
            raise UsageError(f"runner.session({id!r}, setup, validate=None) needs functions; found {setup!r}, {validate!r}.")
        key = json.dumps(id, sort_keys=True, default=repr)
        browser = self._ctx.browser
        state = self._session_cache.get(key)
        if state is not None:
            self._ctx.run(browser.restore_storage(state), self._ctx.config.page_load_timeout)
            if validate is None:
                self._ctx.add_log("session", f"{id!r} restored")
                return
            try:
                validate()
                self._ctx.add_log("session", f"{id!r} restored and validated")
                return
            except AssertionError:
                self._ctx.add_log("session", f"{id!r} failed validation; building it again")
        self._ctx.run(browser.clear_storage(), self._ctx.config.page_load_timeout)
        setup()
        state = self._ctx.run(browser.capture_storage(), self._ctx.config.page_load_timeout)
        self._session_cache[key] = state
        # As after a restore: only what the session holds survives (not session storage).
        self._ctx.run(browser.restore_storage(state), self._ctx.config.page_load_timeout)
        self._ctx.add_log("session", f"{id!r} created")


def _cookie_record(c: Mapping[str, Any]) -> Record:
    return Record(
        name=c.get("name"), value=c.get("value"), domain=c.get("domain"), path=c.get("path", "/"),
        expiry=c.get("expires") if c.get("expires", -1) != -1 else None,
        http_only=c.get("httpOnly", False), secure=c.get("secure", False),
        same_site=(c.get("sameSite") or "").lower() or None,
    )

