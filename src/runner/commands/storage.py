"""Storage commands: cookies and ``session``.

A session caches the cookies and local storage a setup made, and restores them in later tests.

Commands on the page's local and session storage belong here too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from runner.commands.base import CommandsBase
from runner.commands.records import Record
from runner.commands.steps import command
from runner.errors import UsageError

__all__ = ["StorageCommands"]


class StorageCommands(CommandsBase):
    """Cookies read, set and cleared; sessions of cookies and local storage kept across tests."""

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

