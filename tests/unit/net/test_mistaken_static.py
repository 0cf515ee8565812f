"""A dict sent as a JSON body that reads as a mistaken StaticResponse is told (``{"status": 500}``
sends a 200); a body that merely has such a key is not."""

from __future__ import annotations

from typing import Any

import pytest

from runner.errors import UsageError
from runner.net.static_response import mistaken_keys, mistaken_static_warning, parse_static


@pytest.mark.parametrize(("body", "keys"), [
    ({"status": 500}, {"status": "statusCode"}),
    ({"status": 404, "header": {"x-a": "1"}}, {"status": "statusCode", "header": "headers"}),
    ({"statusCod": 503}, {"statusCod": "statusCode"}),
    ({"StatusCode": 201}, {"StatusCode": "statusCode"}),
    ({"status-code": 201}, {"status-code": "statusCode"}),
    ({"stauts": 500}, {"stauts": "statusCode"}),  # two letters swapped
    ({"delayMs": 300}, {"delayMs": "delay"}),
    ({"delay_ms": 300}, {"delay_ms": "delay"}),
    ({"fixtures": "users.json"}, {"fixtures": "fixture"}),
    ({"Headers": {"a": "b"}}, {"Headers": "headers"}),
    ({"throttle_kbs": 64}, {"throttle_kbs": "throttleKbps"}),
    ({"force_network_eror": True}, {"force_network_eror": "forceNetworkError"}),
    # bodies: a key that is no misspelling, or a value the StaticResponse key does not take
    ({"status": "ok"}, {}),
    ({"status": 200, "data": [1, 2]}, {}),
    ({"status": 500, "message": "boom"}, {}),
    ({"status": 42}, {}),
    ({"status": True}, {}),
    ({"header": "x"}, {}),
    ({"fixtures": ["a.json"]}, {}),
    ({"delay": 100, "status": 500}, {}),  # has a StaticResponse key: a StaticResponse, not a body
    ({"name": "Ada"}, {}),
    ({"code": 500}, {}),
    ({"relays": 3}, {}),
    ({}, {}),
    ([{"status": 500}], {}),
])
def test_a_body_is_told_only_when_every_key_misspells_a_static_response_key(body: Any, keys: dict[str, str]) -> None:
    assert mistaken_keys(body) == keys


def test_the_warning_says_what_was_sent_what_was_meant_and_how_to_keep_the_body() -> None:
    text = mistaken_static_warning({"status": 500}, {"status": "statusCode"})
    assert text == (
        'runner.intercept() sends {"status": 500} as the JSON body of a 200 response: a dict with no '
        "StaticResponse key is the body. Did you mean `statusCode` for `status`? As a StaticResponse: "
        '{"statusCode": 500}. To send this dict as the body and not be told again, write {"body": {"status": 500}}.'
    )


def test_an_unknown_key_beside_a_static_response_key_gets_its_suggestion() -> None:
    with pytest.raises(UsageError, match=r"`status` \(did you mean `statusCode`\?\)"):
        parse_static({"status": 500, "body": "x"}, "runner.intercept")
