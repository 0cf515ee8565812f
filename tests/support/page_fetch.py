"""The page the interception e2e tests fetch from, and their fetch(): a request the page itself
makes (so routes meet it as they meet the app's), its answer read back."""

from __future__ import annotations

from typing import Any


def fetch(runner: Any, url: str, init: dict[str, Any] | None = None) -> dict[str, Any]:
    """fetch() from the page; returns {status, text, headers} or {error}."""
    return runner._ctx.run(runner._ctx.browser.page.evaluate(
        """async ([url, init]) => {
            try {
                const r = await fetch(url, init || {});
                return {status: r.status, text: await r.text(), headers: Object.fromEntries(r.headers)};
            } catch (e) { return {error: String(e)}; }
        }""", [url, init]))


def open_page(runner: Any, server: Any) -> None:
    """A plain page of the test server, to fetch from."""
    runner.visit(server.page("/app", "<html><body><h1>app</h1></body></html>"))
