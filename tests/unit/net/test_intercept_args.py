"""The forms of runner.intercept(...) and every validation message (1a.10, 1b.2, 1d.2)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from runner.errors import UsageError
from runner.net import RunnerDeprecationWarning
from runner.net.route import build_route, validate_alias


def handler(req: Any) -> None:
    pass


@pytest.mark.parametrize(
    ("args", "source", "kind"),
    [
        (("/users",), {"url": "/users"}, "spy"),
        (("GET", "/users"), {"method": "GET", "url": "/users"}, "spy"),
        (("delete", "/users"), {"method": "delete", "url": "/users"}, "spy"),
        (("QUERY", "/users"), {"method": "QUERY", "url": "/users"}, "spy"),
        (("PROPFIND", "/dav"), {"method": "PROPFIND", "url": "/dav"}, "spy"),
        (({"method": "POST", "url": "/users"},), {"method": "POST", "url": "/users"}, "spy"),
        (("/users", "hello"), {"url": "/users"}, "static"),
        (("/users", {"fixture": "users.json"}), {"url": "/users"}, "static"),
        (("POST", "/users", {"statusCode": 201}), {"method": "POST", "url": "/users"}, "static"),
        (({"url": "/users"}, {"body": "x"}), {"url": "/users"}, "static"),
        (("/users", {"method": "POST"}, {"body": "x"}), {"url": "/users", "method": "POST"}, "static"),
        (("/users", handler), {"url": "/users"}, "function"),
        (("GET", "/users", handler), {"method": "GET", "url": "/users"}, "function"),
        (({"url": "/users"}, handler), {"url": "/users"}, "function"),
        (("/users", {"method": "GET"}, handler), {"url": "/users", "method": "GET"}, "function"),
        ((re.compile("users"),), {"url": re.compile("users")}, "spy"),
        (("GET", re.compile("users"), "x"), {"method": "GET", "url": re.compile("users")}, "static"),
        # a method name with no second argument is a URL
        (("GET",), {"url": "GET"}, "spy"),
        # `log` only: passes through (spy)
        (("/users", {"log": False}), {"url": "/users"}, "spy"),
    ],
)
def test_forms(args: tuple[Any, ...], source: dict[str, Any], kind: str) -> None:
    route = build_route(args)
    assert route.matcher.source == source
    assert route.kind == kind


async def async_handler(req: Any) -> None:
    pass


def test_async_handler_and_middleware() -> None:
    route = build_route(({"url": "/x", "middleware": True}, async_handler))
    assert route.middleware and route.kind == "function"


@pytest.mark.parametrize(
    ("handler_value", "body"),
    [
        ({"name": "Ada"}, {"name": "Ada"}),  # no StaticResponse key: the whole dict is the JSON body
        ([1, 2], [1, 2]),
        ("text", "text"),
        (b"\x00\x01", b"\x00\x01"),
    ],
)
def test_body_classification(handler_value: Any, body: Any) -> None:
    route = build_route(("/x", handler_value))
    assert route.static is not None and route.static.body == body


def test_empty_dict_is_an_empty_static_response() -> None:
    route = build_route(("/x", {}))
    assert route.static is not None and route.kind == "static"  # an empty 200 (1a.10)
    assert build_route(("/x", {"log": False})).kind == "spy"  # `log` alone is not a response (1b.3)


def test_snake_case_static_keys() -> None:
    route = build_route(("/x", {"status_code": 404, "force_network_error": False, "throttle_kbps": 10}))
    assert route.static is not None
    assert route.static.status_code == 404 and route.static.throttle_kbps == 10


def test_log_false_is_kept() -> None:
    route = build_route(("/x", {"body": "x", "log": False}))
    assert route.log is False and route.static is not None


PREFIX_RM = "An invalid RouteMatcher was supplied to `runner.intercept()`. "


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (({},), PREFIX_RM + "The RouteMatcher does not contain any keys. You must pass something to match on. You passed: {}"),
        (({"url": 5},), PREFIX_RM + "`url` must be a string or a regular expression. You passed: {\"url\": 5}"),
        (({"path": True},), PREFIX_RM + "`path` must be a string or a regular expression."),
        (({"pathname": 1},), PREFIX_RM + "`pathname` must be a string or a regular expression."),
        (({"method": 1},), PREFIX_RM + "`method` must be a string or a regular expression."),
        (({"headers": {"wrong": 1}},), PREFIX_RM + "`headers.wrong` must be a string or a regular expression."),
        (({"query": {"q": 1}},), PREFIX_RM + "`query.q` must be a string or a regular expression."),
        (({"auth": {"username": 1}},), PREFIX_RM + "`auth.username` must be a string or a regular expression."),
        (({"https": "yes"},), PREFIX_RM + "`https` must be a boolean."),
        (({"url": "/x", "middleware": 1},), PREFIX_RM + "`middleware` must be a boolean."),
        (({"hostname": "http://website.web"},), PREFIX_RM + "`hostname` must be a valid host name or domain name."),
        (({"hostname": ""},), PREFIX_RM + "`hostname` must be a valid host name or domain name."),
        (({"port": "80"},), PREFIX_RM + "`port` must be a number or a list of numbers."),
        (({"port": [80, "x"]},), PREFIX_RM + "`port` must be a number or a list of numbers."),
        (({"port": True},), PREFIX_RM + "`port` must be a number or a list of numbers."),
        (({"url": "/x", "times": 9.75},), PREFIX_RM + "`times` must be a positive integer."),
        (({"url": "/x", "times": 0},), PREFIX_RM + "`times` must be a positive integer."),
        (({"url": "/x", "times": -1},), PREFIX_RM + "`times` must be a positive integer."),
        (({"headers": {"FOO": "a", "foo": "b"}},),
         PREFIX_RM + "`foo` was specified more than once in `headers`. Header fields can only be matched once "
         "(HTTP header field names are case-insensitive)."),
        (({"url": "/x", "matchUrlAgainstPath": True},), PREFIX_RM + "`matchUrlAgainstPath` is not a RouteMatcher property in runner: remove it."),
        (({"url": "/x", "wrong": 1},), PREFIX_RM + "An unknown `RouteMatcher` property was passed: `wrong`. Valid properties are: auth, graphql, headers, hostname, https, json, method, middleware, path, pathname, port, query, resourceType, times, url."),
        (("/a", "b", "c"), "The `runner.intercept(url, handler?)` signature accepts a maximum of 2 arguments, but 3 arguments were passed."),
        (("GET", "/a", "b", "c"), "The `runner.intercept(method, url, handler?)` signature accepts a maximum of 3 arguments, but 4 arguments were passed."),
        (("/a", {"method": "GET"}, "b", "c"), "The `runner.intercept(url, mergeRouteMatcher, handler)` signature accepts a maximum of 3 arguments, but 4 arguments were passed."),
        (("/a", {"url": "/b"}, "x"), "When invoking `runner.intercept()` with a `RouteMatcher` as the second parameter, `url` can only be specified as the first parameter."),
        (("/a", {"method": "GET"}), "When invoking `runner.intercept()` with a `RouteMatcher` as the second parameter, a handler (function or `StaticResponse`) must be specified as the third parameter."),
        (("/a", 5), "`runner.intercept()`'s `handler` argument must be a str, a StaticResponse dict, or a function. You passed: 5"),
        (("/a", False), "`runner.intercept()`'s `handler` argument must be a str, a StaticResponse dict, or a function. You passed: false"),
        (({"url": "/a", "middleware": True}, "x"), "`runner.intercept()`'s `handler` argument must be a function when `middleware` is set to `true`. You passed: \"x\""),
        ((), PREFIX_RM + "The RouteMatcher does not contain any keys."),
        ((5,), PREFIX_RM + "The RouteMatcher must be a dict"),
    ],
)
def test_matcher_and_form_errors(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(UsageError) as info:
        build_route(args)
    assert message in str(info.value)
    if "RouteMatcher was supplied" in message:
        assert "You passed: " in str(info.value)


def test_resource_type_is_deprecated_but_works() -> None:
    with pytest.warns(RunnerDeprecationWarning, match="resourceType"):
        route = build_route(({"resource_type": "fetch"},))
    assert route.matcher.source == {"resourceType": "fetch"}


PREFIX_SR = "An invalid StaticResponse was supplied to `runner.intercept()`. "


@pytest.mark.parametrize(
    ("static", "message"),
    [
        ({"forceNetworkError": True, "body": "x"}, "`forceNetworkError`, if passed, must be the only option in the StaticResponse."),
        ({"forceNetworkError": True, "statusCode": 200}, "`forceNetworkError`, if passed, must be the only option"),
        ({"forceNetworkError": True, "headers": {}}, "`forceNetworkError`, if passed, must be the only option"),
        ({"body": "x", "fixture": "a.json"}, "`body` and `fixture` cannot both be set, pick one."),
        ({"fixture": 5}, "`fixture` must be a string containing a path and, optionally, an encoding separated by a comma (for example, \"foo.txt,ascii\")."),
        ({"statusCode": 0}, "`statusCode` must be a number between 100 and 999 (inclusive)."),
        ({"statusCode": 1}, "`statusCode` must be a number between 100 and 999 (inclusive)."),
        ({"statusCode": 1000}, "`statusCode` must be a number between 100 and 999 (inclusive)."),
        ({"statusCode": "200"}, "`statusCode` must be a number between 100 and 999 (inclusive)."),
        ({"statusCode": 200.5}, "`statusCode` must be a number between 100 and 999 (inclusive)."),
        ({"headers": {"a": 1}}, "`headers` must be a map of strings to strings."),
        ({"headers": "a"}, "`headers` must be a map of strings to strings."),
        ({"throttleKbps": -1}, "`throttleKbps` must be a finite, positive number."),
        ({"throttleKbps": float("inf")}, "`throttleKbps` must be a finite, positive number."),
        ({"delay": -5}, "`delay` must be a finite, positive number."),
        ({"delay": float("nan")}, "`delay` must be a finite, positive number."),
        ({"delay": "5"}, "`delay` must be a finite, positive number."),
        ({"log": "no"}, "`log` must be a boolean."),
        ({"statusCode": 200, "foo": "x"}, "Unknown StaticResponse key(s): `foo`."),
    ],
)
def test_static_response_errors(static: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as info:
        build_route(({"url": "/x"}, static))
    text = str(info.value)
    assert text.startswith(PREFIX_SR)
    assert message in text
    assert "You passed: " in text


def test_unknown_static_keys_show_how_to_send_a_dict_body() -> None:
    with pytest.raises(UsageError, match=r'put it under `body`: \{"body": \{\.\.\.\}\}'):
        build_route(("/x", {"statusCode": 200, "name": "Ada"}))


@pytest.mark.parametrize(
    ("static", "ok"),
    [
        ({"statusCode": 777}, True),
        ({"statusCode": 100}, True),
        ({"delay": 0}, True),
        ({"throttleKbps": 0}, True),
        ({"body": "", "fixture": "a.json"}, True),  # an empty body plus a fixture passes
    ],
)
def test_static_response_accepted(static: dict[str, Any], ok: bool) -> None:
    assert build_route(({"url": "/x"}, static)).static is not None


def test_headers_only_dict_after_a_url_is_a_route_matcher() -> None:
    # as in the original: every key is a RouteMatcher key, so a third argument is needed
    with pytest.raises(UsageError, match="must be specified as the third parameter"):
        build_route(("/x", {"headers": {"a": "b"}}))


@pytest.mark.parametrize(
    ("alias", "message"),
    [
        (5, "`.as_()` only accepts a string as the alias name."),
        ("", "`.as_()` cannot be passed an empty string."),
        ("@users", "`@users` cannot be named starting with the `@` symbol. Try renaming the alias to `users`"),
        ("test", "`test` cannot be used as an alias: it is a reserved word."),
        ("skip", "reserved word"),
    ],
)
def test_alias_validation(alias: Any, message: str) -> None:
    with pytest.raises(UsageError) as info:
        validate_alias(alias)
    assert message in str(info.value)


def test_route_handle(env: Any) -> None:
    handle = env.intercept("/users")
    assert handle.alias is None and handle.call_count == 0 and handle.calls == []
    assert handle.as_("users") is handle
    assert handle.alias == "users"
    assert env.interceptor.has_routes()
    assert env.changes == 1
    with pytest.raises(AttributeError):
        handle.alias = "x"  # read only


# -- globs past the brace limits, headers the HTTP grammar forbids ---------------------------------

MANY = "{a,b}" * 40  # 2^40 patterns: compiling it would never end


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((f"/api/{MANY}",), "url"),
        (("GET", f"**/{MANY}"), "url"),
        ((f"https://x.test/{'{a,b}' * 12}", "stub"), "url"),
        (({"path": f"/{MANY}"},), "path"),
        (({"pathname": f"/{MANY}"},), "pathname"),
        (({"hostname": f"{MANY}.test"},), "hostname"),
        (({"method": MANY},), "method"),
        (({"url": "/x", "headers": {"x-id": MANY}},), "headers.x-id"),
        (({"url": "/x", "query": {"q": MANY}},), "query.q"),
        (({"url": "/x", "auth": {"username": MANY}},), "auth.username"),
        (({"url": "/x" + "{" * 101 + "a,b" + "}" * 101},), "url"),
    ],
)
def test_a_glob_past_the_brace_limits_is_refused_where_the_route_is_defined(
    args: tuple[Any, ...], field: str
) -> None:
    started = time.perf_counter()
    with pytest.raises(UsageError) as info:
        build_route(args)
    assert time.perf_counter() - started < 1.0  # counted, never expanded: milliseconds
    text = str(info.value)
    assert text.startswith(PREFIX_RM + f"`{field}` ")
    assert "at most" in text and "You passed: " in text


def test_globs_within_the_limits_and_regexes_are_accepted() -> None:
    build_route(("/api/{users,groups}/{1..100}/*",))  # 200 patterns
    build_route(({"method": "/^(GET|P{1,2}OST)$/", "url": "/x"},))  # a regex string, not a glob
    build_route((re.compile("{a,b}" * 40),))  # a regex is never brace-expanded


@pytest.mark.parametrize(
    ("headers", "fragment"),
    [
        ({"x bad": "1"}, "The header name 'x bad' is not a valid HTTP field name"),
        ({"x:bad": "1"}, "The header name 'x:bad' is not a valid HTTP field name"),
        ({"": "1"}, "The header name '' is not a valid HTTP field name"),
        ({"x-a\n": "1"}, "The header name 'x-a\\n' is not a valid HTTP field name"),
        ({"x-a\x00": "1"}, "The header name 'x-a\\x00' is not a valid HTTP field name"),
        ({"é": "1"}, "The header name 'é' is not a valid HTTP field name"),
        ({"x-a": "1\r\nSet-Cookie: a=b"}, "The value of the header `x-a` contains a carriage return (\\r)"),
        ({"x-a": "1\nb"}, "The value of the header `x-a` contains a line feed (\\n)"),
        ({"x-a": "1\x00"}, "The value of the header `x-a` contains a NUL (\\0)"),
    ],
)
def test_a_header_the_http_grammar_forbids_is_refused(headers: dict[str, str], fragment: str) -> None:
    with pytest.raises(UsageError) as info:
        build_route(({"url": "/x"}, {"headers": headers}))
    text = str(info.value)
    assert text.startswith(PREFIX_SR)
    assert fragment in text
    assert "You passed: " in text


def test_headers_the_grammar_allows_are_accepted() -> None:
    allowed = {"X-Weird!#$%&'*+-.^_`|~1": "v", "x-tab": "a\tb", "x-latin": "café", "x-empty": ""}
    assert build_route(({"url": "/x"}, {"headers": allowed})).static is not None
