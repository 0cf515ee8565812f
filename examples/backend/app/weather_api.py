"""The outside service the app calls (a weather API), standing on 127.0.0.1 for the real one.

``python weather_api.py`` serves ``GET /forecast?city=NAME`` on a free port and prints its URL on
the first line of its output.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Forecasts(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != "/forecast":
            self.send_error(404)
            return
        city = parse_qs(parts.query).get("city", ["Lisbon"])[0]
        body = json.dumps({"city": city, "summary": "Sunny", "high": 24}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the test's output is the runner's


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Forecasts)
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever()
