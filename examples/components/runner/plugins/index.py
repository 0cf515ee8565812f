"""Starts the front end's dev server for component tests: a stand-in for Vite or esbuild (here
Python's own HTTP server, serving app/ with the CORS header that module scripts need).

While it runs, runner.mount's relative URLs (stylesheets, scripts, modules, and the page's own
relative requests) go to it, as the original's component pages are served by the dev server."""

import functools
import http.server
import threading
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"


class Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, *args):
        pass


def start_dev_server(options):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(APP)))
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def close():
        server.shutdown()
        server.server_close()

    return {"url": f"http://127.0.0.1:{server.server_address[1]}", "close": close}


def setup(on, config):
    on("dev-server:start", start_dev_server)
