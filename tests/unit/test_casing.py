"""The one camelCase <-> snake_case converter, with net's camel-only rule as its option."""

from __future__ import annotations

import pytest

from runner.casing import camel_to_snake, snake_to_camel


@pytest.mark.parametrize(("name", "plain", "camel_only"), [
    ("statusCode", "status_code", "status_code"),
    ("status_code", "status_code", "status_code"),
    ("experimentalInteractiveRunEvents", "experimental_interactive_run_events",
     "experimental_interactive_run_events"),
    ("e2e", "e2e", "e2e"),
    ("StatusCode", "status_code", "Status_code"),  # net: a capitalised name is no camelCase spelling
    ("Url", "url", "Url"),
    ("_privateName", "_private_name", "_privateName"),  # net: private names are left alone
    ("fooÄbc", "fooäbc", "fooÄbc"),  # only ASCII capitals are word boundaries; lower() takes all
    ("", "", ""),
])  # fmt: skip
def test_camel_to_snake(name: str, plain: str, camel_only: str) -> None:
    assert camel_to_snake(name) == plain
    assert camel_to_snake(name, camel_only=True) == camel_only


@pytest.mark.parametrize(("name", "camel"), [
    ("status_code", "statusCode"), ("viewport_width", "viewportWidth"), ("url", "url"),
    ("a_B", "aB"), ("", ""),
])  # fmt: skip
def test_snake_to_camel(name: str, camel: str) -> None:
    assert snake_to_camel(name) == camel
