"""A crafted run's events for the HTML report's tests: every kind of test and body the report
shows, and the payloads that must stay text (``<img onerror>`` titles, ``</script>`` bodies).

``crafted_run(folder)`` writes the run's artifacts (a screenshot, a video, a trace) into
``folder`` and returns the events; ``write_events`` writes them as an events file.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

from runner.events import (
    AttemptEnded,
    CommandEnded,
    CommandStarted,
    Event,
    LogLine,
    RequestIntercepted,
    RouteAdded,
    RunEnded,
    RunStarted,
    ScreenshotTaken,
    SpecEnded,
    SpecStarted,
    TestEnded,
    TestStarted,
    VideoWritten,
    dumps_event,
)

T0 = 1_800_000_000.0

#: Payloads that run script if the page ever treats data as HTML. Each sets a mark in the page
#: (a window flag and an attribute on <html>) that the browser tests look for.
XSS_TITLE = "<img src=x onerror=\"window.__pwned=1;document.documentElement.setAttribute('data-pwned','title')\">"
XSS_BODY = ("{\"html\": \"</script><script>window.__pwned=2;document.documentElement.setAttribute("
            "'data-pwned','body')</script><!--\", \"sep\": \"\u2028\u2029\"}")
XSS_HEADER = "<img src=x onerror=\"window.__pwned=3\">"
XSS_URL = "http://127.0.0.1:9/api/<script>window.__pwned=4</script>"

FAILED_ID = "specs/shop_spec.py::test_checkout_shows_the_total"
FAILED_TITLE = ["checkout", "shows the total"]
ERROR = ("runner = <runner for test_checkout_shows_the_total>\n\n"
         "    def test_checkout_shows_the_total(runner):\n"
         "        runner.intercept('GET', '/api/cart', fixture='cart.json').as_('cart')\n"
         "        runner.visit('/checkout')\n"
         ">       runner.get('#total').should('have.text', '$42.00')\n"
         "E       runner.errors.CommandError: Timed out retrying after 4000ms: expected <div#total> "
         "to have text '$42.00', but the text was '$41.00'\n\n"
         "specs/shop_spec.py:7: CommandError")
MESSAGE = ("CommandError: Timed out retrying after 4000ms: expected <div#total> to have text "
           "'$42.00', but the text was '$41.00'")


def png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A real PNG image of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def text_body(text: str, content_type: str, *, cut: bool = False, size: int | None = None) -> dict[str, Any]:
    return {"size": size if size is not None else len(text.encode()), "content_type": content_type,
            "encoding": "utf-8", "data": text, "cut": cut}


def binary_body(data: bytes, content_type: str) -> dict[str, Any]:
    return {"size": len(data), "content_type": content_type, "encoding": "base64",
            "data": base64.b64encode(data).decode(), "cut": False}


def _test(spec: str, nodeid: str, title: list[str], at: float, state: str, *, attempts: list[AttemptEnded],
          inner: list[Event] | None = None, flaky: bool = False) -> list[Event]:
    duration = sum(a.duration_ms for a in attempts)
    return [TestStarted(at=at, spec=spec, nodeid=nodeid, title=title), *(inner or []), *attempts,
            TestEnded(at=at + duration / 1000 + 0.01, spec=spec, nodeid=nodeid, title=title, state=state,
                      duration_ms=duration, attempts=len(attempts), flaky=flaky)]


def _command(nodeid: str, number: int, at: float, name: str, args: str, *, took: float = 20,
             subject: str | None = None, line: int = 5, failed: str | None = None,
             attempt: int = 1) -> list[Event]:
    return [CommandStarted(at=at, nodeid=nodeid, id=number, name=name, args=args, subject=subject,
                           file="/project/specs/shop_spec.py", line=line, attempt=attempt),
            CommandEnded(at=at + took / 1000, nodeid=nodeid, id=number, name=name,
                         state="failed" if failed else "passed", duration_ms=took, error=failed, attempt=attempt)]


def crafted_run(folder: Path, *, trace: bool = True, end: bool = True) -> list[Event]:
    """The events of a run of three specs (and the artifacts they name, written in ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "checkout -- shows the total (failed).png"
    shot.write_bytes(png(4, 3))
    video = folder / "shop_spec.py.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42not really a video")
    trace_zip = folder / "trace.zip"
    trace_zip.write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    spec, other, broken = "shop_spec.py", "odd_spec.py", "broken_spec.py"
    events: list[Event] = [RunStarted(
        at=T0, run_id="run-1", runner_version="9.9.9", browser="chromium (headless) /usr/bin/chromium",
        specs=[spec, other, broken], browser_version="156.0.1",
        config={"baseUrl": "http://127.0.0.1:9", "defaultCommandTimeout": 4000, "env": {"who": XSS_TITLE}},
        sources={"baseUrl": "config", "defaultCommandTimeout": "default", "env": "cli"},
        project_root="/project")]
    events.append(SpecStarted(at=T0 + 0.01, spec=spec, absolute="/project/specs/shop_spec.py"))
    # 1. a test that passes
    passed = "specs/shop_spec.py::test_home_page_loads"
    events += _test(spec, passed, ["home", "page loads"], T0 + 0.02, "passed", attempts=[
        AttemptEnded(at=T0 + 0.3, spec=spec, nodeid=passed, attempt=1, state="passed", duration_ms=250)],
        inner=_command(passed, 1, T0 + 0.06, "visit", "'/'"))
    # 2. the failed test: commands, a route, requests of every body kind, a screenshot, a trace
    start = T0 + 1.0
    inner = [*_command(FAILED_ID, 1, start + 0.01, "intercept", "'GET', '/api/cart'", line=5),
             RouteAdded(at=start + 0.02, nodeid=FAILED_ID, route_id="route-1", method="GET",
                        matcher='{"method": "GET", "url": "/api/cart"}', stubbed=True, handler="static", alias="cart"),
             *_command(FAILED_ID, 2, start + 0.05, "visit", "'/checkout'", took=120, line=6)]
    big = "line of a long text body\n" * 4000  # 100 KB: more than is shown inline
    requests = [
        dict(id="r1", method="GET", url="http://127.0.0.1:9/api/cart", stubbed=True, status=200,
             response_headers={"content-type": "application/json"},
             response_body=text_body('{"items":[{"sku":"A-1","price":41}],"total":41}', "application/json"),
             timings={"queued": 0.4, "handler": 0.0, "upstream": 0.0, "total": 6.0}),
        dict(id="r2", method="GET", url="http://127.0.0.1:9/logo.png", stubbed=False, status=200,
             response_headers={"content-type": "image/png"}, response_body=binary_body(png(3, 3, (20, 90, 200)), "image/png"),
             timings={"queued": 0.2, "handler": 0.0, "upstream": 30.0, "total": 31.0}),
        dict(id="r3", method="GET", url="http://127.0.0.1:9/big.txt", stubbed=False, status=200,
             response_headers={"content-type": "text/plain"}, response_body=text_body(big, "text/plain"),
             timings={"queued": 0.1, "handler": 0.0, "upstream": 50.0, "total": 52.0}),
        dict(id="r4", method="GET", url="http://127.0.0.1:9/unread", stubbed=False, status=200, log=False,
             response_headers={"content-type": "text/html"}, response_body=None, response_body_size=None,
             timings={"queued": 0.1, "handler": 0.0, "upstream": 5.0, "total": 9.0}),
        dict(id="r5", method="POST", url="http://127.0.0.1:9/api/order", stubbed=False, status=500,
             request_headers={"content-type": "application/json"},
             request_body=text_body('{"sku":"A-1","qty":1}', "application/json"), request_body_size=21,
             response_headers={"content-type": "application/json"},
             response_body=text_body('{"error":"out of stock"}', "application/json"),
             timings={"queued": 0.3, "handler": 12.5, "upstream": 40.0, "total": 60.0}),
    ]
    for n, fields in enumerate(requests):
        fields.setdefault("request_headers", {"accept": "*/*"})
        fields.setdefault("request_body_size", 0)
        fields.setdefault("response_body_size", (fields.get("response_body") or {}).get("size"))
        total = fields["timings"]["total"]  # type: ignore[index]
        inner.append(RequestIntercepted(
            at=start + 0.2 + n * 0.1 + total / 1000, nodeid=FAILED_ID, route_ids=["route-1"] if fields["stubbed"] else [],
            aliases=["cart"] if fields["stubbed"] else [], state="Complete", resource_type="fetch", **fields))
    inner += [*_command(FAILED_ID, 3, start + 0.9, "should", "'have.text', '$42.00'", subject="get('#total')",
                        took=4000, line=7, failed=MESSAGE),
              LogLine(at=start + 4.95, nodeid=FAILED_ID, message="the cart was loaded"),
              ScreenshotTaken(at=start + 5.0, nodeid=FAILED_ID, path=str(shot), failure=True)]
    events += _test(spec, FAILED_ID, FAILED_TITLE, start, "failed", inner=inner, attempts=[AttemptEnded(
        at=start + 5.1, spec=spec, nodeid=FAILED_ID, attempt=1, state="failed", duration_ms=5100, error=ERROR,
        error_type="CommandError", message=MESSAGE, screenshots=[str(shot), str(folder / "gone.png")],
        routes=[{"id": "route-1", "method": "GET", "matcher": '{"method": "GET", "url": "/api/cart"}',
                 "stubbed": True, "handler": "static", "alias": "cart", "matches": 1, "times": None,
                 "middleware": False, "log": True}],
        log=["intercept: GET /api/cart", "visit: /checkout"], trace=str(trace_zip) if trace else None)])
    # 3. a flaky test: failed, then passed
    flaky = "specs/shop_spec.py::test_coupon_applies"
    events += _test(spec, flaky, ["checkout", "coupon applies"], T0 + 7.0, "passed", flaky=True, attempts=[
        AttemptEnded(at=T0 + 7.2, spec=spec, nodeid=flaky, attempt=1, state="failed", duration_ms=200,
                     error="E   AssertionError: coupon not applied", error_type="AssertionError",
                     message="AssertionError: coupon not applied"),
        AttemptEnded(at=T0 + 7.5, spec=spec, nodeid=flaky, attempt=2, state="passed", duration_ms=250)])
    skipped = "specs/shop_spec.py::test_refunds"
    events += _test(spec, skipped, ["refunds"], T0 + 8.0, "skipped", attempts=[
        AttemptEnded(at=T0 + 8.0, spec=spec, nodeid=skipped, attempt=1, state="skipped", duration_ms=0,
                     message="Skipped: not built yet")])
    pending = "specs/shop_spec.py::test_gift_cards"
    events += _test(spec, pending, ["gift cards"], T0 + 8.1, "pending", attempts=[
        AttemptEnded(at=T0 + 8.1, spec=spec, nodeid=pending, attempt=1, state="pending", duration_ms=0)])
    events += [SpecEnded(at=T0 + 8.2, spec=spec, duration_ms=8190, video=str(video)),
               VideoWritten(at=T0 + 8.5, spec=spec, video=str(video), started_at=T0 + 0.015)]
    # 4. odd_spec: payloads in a title, a header, a URL and a body; a test told only by its attempt
    events.append(SpecStarted(at=T0 + 9.0, spec=other, absolute="/project/specs/odd_spec.py"))
    xss = "specs/odd_spec.py::test_xss"
    events += _test(other, xss, [XSS_TITLE], T0 + 9.1, "failed", inner=[RequestIntercepted(
        at=T0 + 9.2, nodeid=xss, id="x1", method="POST", url=XSS_URL, route_ids=[], aliases=[], stubbed=True,
        state="Complete", status=200, request_headers={"x-evil": XSS_HEADER},
        response_headers={"content-type": "application/json", XSS_HEADER: "1"},
        request_body=text_body(XSS_BODY, "text/plain"), request_body_size=len(XSS_BODY),
        response_body=text_body(XSS_BODY, "application/json"), response_body_size=len(XSS_BODY),
        timings={"queued": 1, "handler": 0, "upstream": 0, "total": 3})], attempts=[AttemptEnded(
            at=T0 + 9.5, spec=other, nodeid=xss, attempt=1, state="failed", duration_ms=400,
            error=f"E   AssertionError: {XSS_TITLE} </script><script>window.__pwned=5</script>",
            error_type="AssertionError", message=f"AssertionError: {XSS_TITLE}")])
    xdist = "specs/odd_spec.py::test_in_a_worker"
    events += _test(other, xdist, ["in a worker"], T0 + 10.0, "failed", attempts=[AttemptEnded(
        at=T0 + 10.3, spec=other, nodeid=xdist, attempt=1, state="failed", duration_ms=300,
        error="E   AssertionError: worker", error_type="AssertionError", message="AssertionError: worker",
        log=["visit: http://127.0.0.1:9/", "failed: get('#x') (after 300ms)"],
        requests=[{"id": "w1", "method": "GET", "url": "http://127.0.0.1:9/api/worker", "route_ids": [],
                   "aliases": [], "stubbed": False, "state": "Complete", "status": 204, "error": None,
                   "duration_ms": 4.0, "resource_type": "fetch", "request_headers": {}, "response_headers": {},
                   "request_body_size": 0, "response_body_size": 12,
                   "timings": {"queued": 0.1, "handler": 0, "upstream": 3.5, "total": 4.0}}])])
    events.append(SpecEnded(at=T0 + 10.4, spec=other, duration_ms=1400))
    # 5. a spec that could not be loaded
    events += [SpecStarted(at=T0 + 10.5, spec=broken, absolute="/project/specs/broken_spec.py"),
               SpecEnded(at=T0 + 10.6, spec=broken, duration_ms=1, error="  File broken_spec.py, line 3\nSyntaxError",
                         error_type="SyntaxError", error_message="SyntaxError: invalid syntax (broken_spec.py, line 3)")]
    if end:
        events.append(RunEnded(at=T0 + 11.0, duration_ms=11000, tests=7, passed=2, failed=3, pending=1,
                               skipped=1))
    return events


def write_events(path: Path, events: list[Event]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(dumps_event(e) + "\n" for e in events), encoding="utf-8")
    return path


def read_data_file(path: Path, function: str) -> Any:
    """The JSON a data file hands to ``__runnerReport.<function>(...)`` (the test's number first
    for ``test``)."""
    text = path.read_text(encoding="utf-8")
    prefix = f"__runnerReport.{function}("
    assert text.startswith(prefix) and text.endswith(");\n"), text[:80]
    inner = text[len(prefix):-3]
    if function == "test":
        number, _, inner = inner.partition(",")
        return int(number), json.loads(inner)
    return json.loads(inner)
