"""The short way a request.intercepted event is redacted (one search over its texts) gives exactly
what the long way (every field searched on its own, as any event's) gives."""

from __future__ import annotations

import base64
import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest

from runner.events import RequestIntercepted
from runner.redaction import REDACTED, Redactor, redact_event
from runner.redaction.events import (
    REQUEST_HEADERS,
    REQUEST_PLAIN,
    REQUEST_SEARCHED,
    REQUEST_TEXT_LISTS,
    REQUEST_TEXTS,
)

SECRET = "s3cret-value"


@dataclass(frozen=True, kw_only=True)
class _LongWay(RequestIntercepted):
    """The same fields, another class: redact_event takes the long way for it."""


HEADERS = {"accept": "*/*", "user-agent": "Mozilla/5.0 HeadlessChrome/156", "referer": "http://127.0.0.1:5555/app"}
RESPONSE_HEADERS = {"content-type": "application/json", "content-length": "33", "date": "Fri, 27 Nov 2026"}


def _event(**changes: Any) -> RequestIntercepted:
    fields: dict[str, Any] = dict(
        nodeid="tests/test_x.py::test_y", attempt=1, id="interceptedRequest12", method="GET",
        url="http://127.0.0.1:5555/api/items?page=2", route_ids=["route-1"], aliases=["items"], stubbed=False,
        state="Complete", status=200, error=None, resource_type="fetch", request_headers=dict(HEADERS),
        response_headers=dict(RESPONSE_HEADERS), request_body_size=0, response_body_size=None,
        timings={"queued": 0.1, "handler": 0.0, "upstream": 1.2, "total": 1.5}, request_body=None,
        response_body=None, log=True, open=False, late=False, server=False)
    fields.update(changes)
    return RequestIntercepted(**fields)


def _body(data: str, encoding: str = "utf-8") -> dict[str, Any]:
    return {"size": len(data), "content_type": "", "encoding": encoding, "data": data, "cut": False}


REDACTORS = {
    "no secrets": Redactor(),
    "a secret value": Redactor(values=[SECRET], env_names=["password"]),
    "query params and body keys": Redactor(values=[SECRET], query_params=["sig", "token"], body_keys=["pin"]),
    "a header of redact.headers": Redactor(headers=["X-Api-Key"]),
}

EVENTS = {
    "nothing secret": _event(),
    "the secret in the url": _event(url=f"http://127.0.0.1:5555/api?q={SECRET}"),
    "a secret query parameter": _event(url="http://127.0.0.1:5555/api?sig=abc&page=2"),
    "a secret query parameter first": _event(url="sig=abc"),
    "an empty secret query parameter": _event(url="http://127.0.0.1:5555/api?sig=&page=2"),
    "the secret in a header": _event(request_headers={**HEADERS, "x-note": f"v={SECRET}"}),
    "an authorization header": _event(request_headers={**HEADERS, "Authorization": "Bearer abc"}),
    "a cookie and set-cookie": _event(request_headers={**HEADERS, "cookie": "a=b"},
                                      response_headers={**RESPONSE_HEADERS, "Set-Cookie": "sid=1"}),
    "a header of redact.headers": _event(request_headers={**HEADERS, "x-api-key": "k-123456"}),
    "the secret in an alias, a route id and the test's id": _event(
        aliases=[f"a{SECRET}"], route_ids=[f"route-{SECRET}"], nodeid=f"t.py::test[{SECRET}]"),
    "the secret in the error": _event(error=f"failed: {SECRET}", status=None, state="Errored"),
    "a secret split between two texts": _event(method="s3cret", url="-value"),
    "a secret query parameter split between two texts": _event(method="GET&sig", url="=abc"),
    "a json body with a secret key": _event(request_body=_body('{"pin": "1234", "name": "ann"}')),
    "the secret in a text body": _event(response_body=_body(f"hello {SECRET}")),
    "the secret in a base64 body": _event(
        response_body=_body(base64.b64encode(f"\x00{SECRET}".encode()).decode(), "base64")),
    "a plain body": _event(response_body=_body('{"ok": true}')),
    "timings with no queued time": _event(timings={"queued": None, "handler": 0.0, "upstream": 0.0, "total": None}),
    "timings of another shape": _event(timings={"queued": f"{SECRET}"}),
    "a header value that is no text": _event(request_headers={**HEADERS, "x-n": 5}),
    "a flag that is no flag": _event(log=f"{SECRET}"),
    "no error, no aliases, no routes": _event(aliases=[], route_ids=[]),
}


@pytest.mark.parametrize("redactor_name", REDACTORS)
@pytest.mark.parametrize("event_name", EVENTS)
def test_the_short_way_gives_what_the_long_way_gives(redactor_name: str, event_name: str) -> None:
    redactor, event = REDACTORS[redactor_name], EVENTS[event_name]
    short = redact_event(redactor, event)
    long = redact_event(redactor, _LongWay(**{f.name: getattr(event, f.name) for f in dataclasses.fields(event)}))
    assert type(short) is RequestIntercepted
    assert short.to_json() == long.to_json()
    if short.to_json() == event.to_json():
        assert short is event  # nothing to hide: the same event, as before


def test_secrets_are_hidden_the_short_way_too() -> None:
    redactor = REDACTORS["query params and body keys"]
    event = _event(url="http://127.0.0.1:5555/api?sig=abc&page=2",
                   request_headers={**HEADERS, "Authorization": "Bearer abc", "x-note": SECRET},
                   request_body=_body('{"pin": "1234"}'))
    hidden = redact_event(redactor, event)
    assert isinstance(hidden, RequestIntercepted)
    assert hidden.url == f"http://127.0.0.1:5555/api?sig={REDACTED}&page=2"
    assert hidden.request_headers["Authorization"] == REDACTED and hidden.request_headers["x-note"] == REDACTED
    assert hidden.request_body is not None and hidden.request_body["data"] == f'{{"pin": "{REDACTED}"}}'


def test_the_groups_name_every_field_once() -> None:
    """A field added to request.intercepted must be given a group, or this fails (a field in no
    group would never be searched the short way)."""
    groups = [*REQUEST_TEXTS, *REQUEST_TEXT_LISTS, *REQUEST_HEADERS, *REQUEST_PLAIN, *REQUEST_SEARCHED]
    assert len(groups) == len(set(groups))
    assert sorted(groups) == sorted(f.name for f in dataclasses.fields(RequestIntercepted) if f.name != "at")


def test_a_secret_learned_later_is_hidden_the_short_way() -> None:
    redactor = Redactor()
    event = _event(url=f"http://127.0.0.1:5555/api?q={SECRET}")
    assert redact_event(redactor, event) is event
    redactor.learn(SECRET)  # type(..., log=False) while requests are told
    hidden = redact_event(redactor, event)
    assert isinstance(hidden, RequestIntercepted) and hidden.url == f"http://127.0.0.1:5555/api?q={REDACTED}"
