"""``runner open``'s HTTP side: who may ask, and the files a page may have.

Every request needs the token printed with the URL (``?token=`` once, then a cookie scoped to this
server) and a ``Host`` of 127.0.0.1 or localhost at this port (a page of another site cannot reach
it through DNS tricks). Files are served from four places only, each by a name it holds: the UI's
own ``static`` folder, the installed Playwright's trace viewer, and the kept traces and snapshot
comparison images (the files a kept test's events named) by an opaque key.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web

from runner.ui.state import UiState

__all__ = ["STATIC", "PageRoutes"]

STATIC = Path(__file__).with_name("static")
_COOKIE = "runner_open_token"
_UI_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
           "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class PageRoutes:
    """The aiohttp app of ``runner open``: the token and ``Host`` guard, the UI's page and files,
    the trace viewer, the kept traces, and ``/ws`` (handed in: the pages' channel)."""

    def __init__(self, *, token: str, port: Callable[[], int], state: UiState, websocket: Handler) -> None:
        self._token = token
        self._port = port  # known once the server listens (port 0 picks one)
        self._state = state  # the kept traces
        self._websocket = websocket

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=4 * 1024 * 1024)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/viewer/{path:.*}", self._viewer)
        app.router.add_get("/traces/{key}/{attempt}.zip", self._trace)
        app.router.add_get("/snapshots/{key}/{number}.png", self._snapshot_image)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        port = self._port()
        host = request.headers.get("Host", "")
        if host not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            return web.Response(status=421, text="runner open answers only on 127.0.0.1.\n")
        given = request.query.get("token")
        cookie = request.cookies.get(_COOKIE, "")
        ok = (given is not None and hmac.compare_digest(given, self._token)) or \
            (bool(cookie) and hmac.compare_digest(cookie, self._token))
        if not ok:
            return web.Response(status=403, text="runner open: this URL needs its token (the URL runner "
                                                 "open printed, with ?token=...).\n")
        response = await handler(request)
        if given is not None:
            response.set_cookie(_COOKIE, self._token, httponly=True, samesite="Strict", path="/")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    async def _index(self, request: web.Request) -> web.StreamResponse:
        if request.query.get("token") is not None:
            # the token leaves the address bar (and the history) at once: the cookie carries it
            moved = web.HTTPFound("/")
            moved.set_cookie(_COOKIE, self._token, httponly=True, samesite="Strict", path="/")
            raise moved
        response = web.FileResponse(STATIC / "index.html")
        response.headers["Content-Security-Policy"] = _UI_CSP
        response.headers["X-Frame-Options"] = "DENY"
        return response

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def _viewer(self, request: web.Request) -> web.StreamResponse:
        from runner.engine.trace_viewer import viewer_folder

        folder = viewer_folder()
        if folder is None:
            raise web.HTTPNotFound(text="the installed Playwright has no trace viewer")
        root = folder.resolve()
        path = (root / request.match_info["path"]).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            raise web.HTTPNotFound()
        response = web.FileResponse(path)
        if path.name.startswith("sw"):
            response.headers["Service-Worker-Allowed"] = "/viewer/"
        return response

    async def _trace(self, request: web.Request) -> web.StreamResponse:
        try:
            attempt = int(request.match_info["attempt"])
        except ValueError:
            raise web.HTTPNotFound() from None
        path = self._state.trace(request.match_info["key"], attempt)
        if path is None:
            raise web.HTTPNotFound(text="this test's trace is no longer kept (numTestsKeptInMemory)")
        return web.FileResponse(path, headers={"Content-Type": "application/zip"})

    async def _snapshot_image(self, request: web.Request) -> web.StreamResponse:
        try:
            number = int(request.match_info["number"])
        except ValueError:
            raise web.HTTPNotFound() from None
        path = self._state.image(request.match_info["key"], number)
        if path is None:
            raise web.HTTPNotFound(text="this image is no longer kept (numTestsKeptInMemory), or is gone")
        return web.FileResponse(path, headers={"Content-Type": "image/png"})
