"""The example's app: a Flask page that shows what an outside weather API says.

The page is rendered on the server, which calls ``$WEATHER_API/forecast`` with Python's own HTTP
client (urllib): the browser never sees that call, so only ``runner.intercept_backend`` can stub
it. ``python app.py`` serves on a free port of 127.0.0.1 and prints its URL on the first line.
"""

import json
import os
import urllib.request
from html import escape

from flask import Flask
from werkzeug.serving import make_server

app = Flask(__name__)


@app.get("/")
def forecast_page() -> str:
    url = os.environ["WEATHER_API"] + "/forecast?city=Lisbon"
    # the API's key, as a real app sends it (runner's records show it as [redacted])
    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + os.environ.get("WEATHER_KEY", "demo-key")})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            forecast = json.load(response)
    except Exception as err:  # the page tells the visitor the service failed
        return f"<html><body><h1>Weather</h1><p id='error'>The weather service failed: {escape(str(err))}</p></body></html>"
    return (
        "<html><body><h1>Weather</h1>"
        f"<p id='city'>{escape(str(forecast['city']))}</p>"
        f"<p id='summary'>{escape(str(forecast['summary']))}</p>"
        f"<p id='high'>{escape(str(forecast['high']))}</p>"
        "</body></html>"
    )


@app.get("/favicon.ico")
def favicon() -> tuple[str, int]:
    return "", 204


if __name__ == "__main__":
    server = make_server("127.0.0.1", 0, app, threaded=True)
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever()
