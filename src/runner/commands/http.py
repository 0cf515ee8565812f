"""``runner.request()``: HTTP from the test itself, through Playwright's API request context.

It shares the browser context's cookies (as the original does) but never passes the page's
routes, so ``runner.intercept()`` does not see it.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from runner.bodies import decode_body
from runner.commands.context import TestContext
from runner.commands.records import Record
from runner.errors import CommandError, UsageError

__all__ = ["perform_request"]


def _auth_header(auth: Any) -> str:
    if isinstance(auth, dict):
        if "bearer" in auth:
            return f"Bearer {auth['bearer']}"
        user = auth.get("username", auth.get("user"))
        password = auth.get("password", auth.get("pass", ""))
        if user is not None:
            token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            return f"Basic {token}"
    raise UsageError(
        f"runner.request(): auth must be {{'username': ..., 'password': ...}} or {{'bearer': token}}; found {auth!r}."
    )


def perform_request(ctx: TestContext, opts: dict[str, Any]) -> Record:
    """Send the request described by ``opts`` (snake_case options) and return its record."""
    __tracebackhide__ = True
    method = str(opts.get("method", "GET")).upper()
    url = ctx.resolve_url(opts["url"])
    headers = {str(k): str(v) for k, v in (opts.get("headers") or {}).items()}
    if "auth" in opts:
        headers["Authorization"] = _auth_header(opts["auth"])
    timeout = float(opts.get("timeout", ctx.config.response_timeout))
    follow = bool(opts.get("follow_redirect", True))
    body = opts.get("body")
    kwargs: dict[str, Any] = {"method": method, "headers": headers, "timeout": timeout,
                              "max_redirects": 20 if follow else 0, "fail_on_status_code": False}
    if opts.get("qs"):
        kwargs["params"] = {str(k): v for k, v in opts["qs"].items()}
    if opts.get("form"):
        if not isinstance(body, dict):
            raise UsageError(f"runner.request(form=True) needs a dict body; found {body!r}.")
        kwargs["form"] = {str(k): str(v) for k, v in body.items()}
    elif body is not None:
        if isinstance(body, (bytes, str)):
            kwargs["data"] = body
        else:
            kwargs["data"] = json.dumps(body)
            if not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"

    async def send() -> tuple[Any, bytes, float]:
        context = ctx.browser.context
        assert context is not None
        started = time.perf_counter()
        response = await context.request.fetch(url, **kwargs)
        data = await response.body()
        return response, data, (time.perf_counter() - started) * 1000

    try:
        response, data, duration = ctx.run(send(), timeout)
    except CommandError:
        raise
    except Exception as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        if "Timeout" in first or isinstance(err, TimeoutError):
            raise CommandError(
                f"runner.request() timed out waiting {int(timeout)}ms for a response from {method} {url} "
                "(responseTimeout).\nPass timeout= to wait longer."
            ) from err
        raise CommandError(
            f"runner.request() failed: {method} {url} got no response: {first}\n"
            "Is the server running, and is the URL right?"
        ) from err
    response_headers = dict(response.headers)
    record = Record(
        status=response.status, status_code=response.status, status_text=response.status_text,
        headers=response_headers, body=decode_body(data, response_headers.get("content-type"))[0],
        duration=round(duration, 1), url=response.url, method=method,
        redirected_to=response_headers.get("location") if 300 <= response.status < 400 else None,
        is_ok_status_code=200 <= response.status < 400,
    )
    if opts.get("fail_on_status_code", True) and response.status >= 400:
        shown = data[:500].decode("utf-8", "replace")
        raise CommandError(
            f"runner.request() failed on:\n\n  {method} {url}\n\n"
            f"The response was: {response.status} {response.status_text}\n{shown}\n\n"
            "This counts as a failure because the status code was not 2xx or 3xx.\n"
            "Pass fail_on_status_code=False if this status is expected."
        )
    return record
