"""``runner.request()``: HTTP from the test itself, through the browser context (``fetch`` verb).

It shares the browser context's cookies (as the original does) but never passes the page's
routes, so ``runner.intercept()`` does not see it.
"""

from __future__ import annotations

import base64
import json
import time
from typing import TYPE_CHECKING, Any

from runner.commands.context import TestContext
from runner.commands.records import Record
from runner.engine.network_verbs import BodyRefusedError
from runner.errors import CommandError, UsageError
from runner.net.bodies import decode_body
from runner.usercode.tracebacks import first_line

if TYPE_CHECKING:
    from runner.engine.network_verbs import FetchedResponse

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
    params = {str(k): v for k, v in opts["qs"].items()} if opts.get("qs") else None
    form: dict[str, str | float | bool] | None = None
    data: str | bytes | None = None
    if opts.get("form"):
        if not isinstance(body, dict):
            raise UsageError(f"runner.request(form=True) needs a dict body; found {body!r}.")
        form = {str(k): str(v) for k, v in body.items()}
    elif body is not None:
        if isinstance(body, (bytes, str)):
            data = body
        else:
            data = json.dumps(body)
            if not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"

    async def send() -> tuple[FetchedResponse, float]:
        started = time.perf_counter()
        response = await ctx.browser.fetch(url, method=method, headers=headers, timeout_ms=timeout,
                                           max_redirects=20 if follow else 0, params=params,
                                           form=form, data=data)
        return response, (time.perf_counter() - started) * 1000

    try:
        response, duration = ctx.run(send(), timeout)
    except CommandError:
        raise
    except BodyRefusedError as err:
        raise CommandError(
            f"runner.request() failed: {err}.\nA body this large is not read into the test; fetch it from "
            "the page, or ask the server for a smaller one."
        ) from err
    except Exception as err:  # the engine's PageError, or its bound ran out (TimeoutError)
        first = first_line(err)
        if "Timeout" in first or isinstance(err, TimeoutError):
            raise CommandError(
                f"runner.request() timed out waiting {int(timeout)}ms for a response from {method} {url} "
                f"({'its timeout= argument' if 'timeout' in opts else 'responseTimeout'}).\n"
                f"Pass {'a larger ' if 'timeout' in opts else ''}timeout= to wait longer."
            ) from err
        raise CommandError(
            f"runner.request() failed: {method} {url} got no response: {first}\n"
            "Is the server running, and is the URL right?"
        ) from err
    status, response_headers, content = response["status"], response["headers"], response["body"]
    record = Record(
        status=status, status_code=status, status_text=response["status_text"],
        headers=response_headers, body=decode_body(content, response_headers.get("content-type"))[0],
        duration=round(duration, 1), url=response["url"], method=method,
        redirected_to=response_headers.get("location") if 300 <= status < 400 else None,
        is_ok_status_code=200 <= status < 400,
    )
    if opts.get("fail_on_status_code", True) and status >= 400:
        shown = content[:500].decode("utf-8", "replace")
        raise CommandError(
            f"runner.request() failed on:\n\n  {method} {url}\n\n"
            f"The response was: {status} {response['status_text']}\n{shown}\n\n"
            "This counts as a failure because the status code was not 2xx or 3xx.\n"
            "Pass fail_on_status_code=False if this status is expected."
        )
    return record
