"""Aliases, runner.wait() and runner.get() (1d.1-1d.4), the interception object, clear()."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from runner.errors import CommandError, UsageError
from runner.net import InterceptionState
from runner.net.interception import Its

URL = "http://localhost:3000/api/users"


def test_wait_from_the_test_thread_for_a_request_that_comes_later(env: Any) -> None:
    env.intercept("/api/users").as_("users")
    timer = threading.Timer(0.05, lambda: env.start(URL))
    timer.start()
    ic = env.wait("@users")
    timer.join()
    assert ic.request.url == URL and ic.response.status_code == 200
    assert ic.state is InterceptionState.COMPLETE
    assert ic.request_waited and ic.response_waited
    assert ic.request.alias == "users"


def test_wait_request_timeout_message_and_ordinals(env: Any) -> None:
    env.intercept("/api/users").as_("getUsers")
    env.send(URL)
    env.wait("@getUsers")
    with pytest.raises(CommandError) as info:
        env.wait("@getUsers", timeout=30)
    assert str(info.value) == (
        "runner.wait() timed out waiting 30ms for the 2nd request to the route: `getUsers`. "
        "No further request occurred.\nRequests it already yielded (1):\n"
        f"  GET {URL} (200, to the server)"
    )


def test_wait_request_timeout_uses_request_timeout_config(env: Any) -> None:
    env.config["requestTimeout"] = 20
    env.intercept("/api/users").as_("getUsers")
    with pytest.raises(CommandError, match=r"^runner.wait\(\) timed out waiting 20ms for the 1st request to the route: `getUsers`. No request ever occurred.$"):
        env.wait("@getUsers")


def test_wait_camel_case_options(env: Any) -> None:
    env.intercept("/api/users").as_("a")
    with pytest.raises(CommandError, match="waiting 15ms"):
        env.wait("@a", requestTimeout=15)
    with pytest.raises(UsageError, match="unknown option 'bogus'"):
        env.wait("@a", bogus=1)


def test_wait_response_timeout(env: Any) -> None:
    release = threading.Event()
    env.intercept("/api/users", lambda req: release.wait(5)).as_("slowOne")
    _ex, future = env.start(URL)
    try:
        with pytest.raises(CommandError, match=r"timed out waiting 30ms for the 1st response to the route: `slowOne`. No response ever occurred."):
            env.wait("@slowOne", request_timeout=2000, response_timeout=30)
    finally:
        release.set()
        future.result(5)


def test_wait_request_specifier_then_response(env: Any) -> None:
    release = threading.Event()
    env.intercept("/api/users", lambda req: release.wait(5)).as_("a")
    _ex, future = env.start(URL)
    ic = env.wait("@a.request")
    assert ic.state in (InterceptionState.RECEIVED, InterceptionState.INTERCEPTED)
    assert ic.request_waited and not ic.response_waited
    release.set()
    future.result(5)
    same = env.wait("@a.response")
    assert same is ic and ic.response_waited


def test_waits_consume_in_order(env: Any) -> None:
    env.intercept("/api/*").as_("api")
    for n in (1, 2, 3):
        env.send(f"http://localhost:3000/api/{n}")
    urls = [env.wait("@api").request.url[-1] for _ in range(3)]
    assert urls == ["1", "2", "3"]
    with pytest.raises(CommandError, match="4th request"):
        env.wait("@api", timeout=10)


def test_wait_on_several_aliases_returns_in_the_order_given(env: Any) -> None:
    env.intercept("/api/a").as_("a")
    env.intercept("/api/b").as_("b")
    env.send("http://localhost:3000/api/b")
    env.send("http://localhost:3000/api/a")
    a, b = env.wait(["@a", "@b"])
    assert a.request.url.endswith("/a") and b.request.url.endswith("/b")
    env.send("http://localhost:3000/api/a")
    assert isinstance(env.wait(["@a"]), list)


def test_wait_on_the_same_alias_twice_in_a_list(env: Any) -> None:
    env.intercept("/api/*").as_("api")
    env.send("http://localhost:3000/api/1")
    env.send("http://localhost:3000/api/2")
    first, second = env.wait(["@api", "@api"])
    assert first.request.url.endswith("1") and second.request.url.endswith("2")


def test_errored_requests_count_as_done(env: Any) -> None:
    env.intercept("/api/users", {"forceNetworkError": True}).as_("a")
    env.send(URL)
    ic = env.wait("@a")
    assert ic.error.message == "forceNetworkError called" and ic.response is None
    assert ic.its("state") == "Errored"


def test_dynamic_alias(env: Any) -> None:
    seen: list[Any] = []

    def newer(req: Any) -> None:
        req.alias = "fromHandler"

    def older(req: Any) -> None:
        seen.append(req.alias)  # each handler sets its own alias

    env.intercept("/api/users", older).as_("fromAs")
    env.intercept("/api/users", newer)
    env.send(URL)
    assert seen == [None]
    ic = env.wait("@fromHandler")
    assert ic.request.url == URL
    # each alias keeps its own count: waiting on one does not use the request up for the other
    assert env.wait("@fromAs", timeout=10) is ic
    with pytest.raises(CommandError, match="2nd"):
        env.wait("@fromAs", timeout=10)
    assert env.get("@fromAs") is ic and env.get("@fromHandler") is ic


def test_dynamic_alias_with_dots_and_graphql_style(env: Any) -> None:
    def handler(req: Any) -> None:
        req.alias = f"gql.{req.body['operationName']}"

    env.intercept("POST", "/graphql", handler)
    for op in ("GetUser", "ListUsers", "GetUser"):
        env.send("http://localhost:3000/graphql", method="POST", headers={"content-type": "application/json"},
                 body=f'{{"operationName":"{op}"}}')
    assert env.wait("@gql.GetUser").request.body == {"operationName": "GetUser"}
    assert env.wait("@gql.ListUsers.request").request.body == {"operationName": "ListUsers"}
    assert len(env.get("@gql.GetUser.all")) == 2
    assert env.get("@gql.GetUser.2").request.body == {"operationName": "GetUser"}


def test_wait_on_a_possible_dynamic_alias_waits(env: Any) -> None:
    env.intercept("/api/users", lambda req: setattr(req, "alias", "later"))
    timer = threading.Timer(0.05, lambda: env.start(URL))
    timer.start()
    ic = env.wait("@later")
    timer.join()
    assert ic.request.alias == "later"


def test_alias_pooling_and_candidate_order(env: Any) -> None:
    env.intercept("/api/a").as_("pool")
    env.intercept("/api/b").as_("pool")
    env.intercept("/api/c", lambda req: setattr(req, "alias", "pool"))
    env.send("http://localhost:3000/api/b")
    env.send("http://localhost:3000/api/a")
    env.send("http://localhost:3000/api/c")
    # whichever route (or handler) named them, an alias's requests come in arrival order
    assert [ic.request.url[-1] for ic in env.get("@pool.all")] == ["b", "a", "c"]
    assert [env.wait("@pool", timeout=10).request.url[-1] for _ in range(3)] == ["b", "a", "c"]


def test_one_request_matching_two_aliased_routes_is_one_record(env: Any) -> None:
    env.intercept("/api/*").as_("all")
    env.intercept("/api/users").as_("users")
    env.send(URL)
    assert env.get("@all") is env.get("@users")
    assert len(env.get("@all").route_ids) == 2
    # and each alias can wait on it
    assert env.wait("@users", timeout=10) is env.wait("@all", timeout=10)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("@nope", "`runner.wait()` could not find a registered alias for: `@nope`.\nAvailable aliases are: `users, posts`."),
        ("users", "Invalid alias: `users`.\nYou forgot the `@`. It should be written as: `@users`."),
        ("@users.all", "`runner.wait()` does not support waiting on `@users.all`"),
        ("@users.2", "Use `runner.get('@users.2')`"),
        ("nothing", "`runner.wait()` only accepts a number, an alias of a route, or a list of aliases of routes. You passed: \"nothing\""),
        ([], "`runner.wait()` only accepts a number, an alias of a route, or a list of aliases of routes. You passed: []"),
        ({"a": 1}, "You passed: {\"a\": 1}"),
    ],
)
def test_wait_misuse(env: Any, target: Any, message: str) -> None:
    env.intercept("/api/users").as_("users")
    env.intercept("/api/posts").as_("posts")
    with pytest.raises(UsageError) as info:
        env.wait(target)
    assert message in str(info.value)


def test_wait_with_no_alias_at_all(env: Any) -> None:
    with pytest.raises(UsageError, match="could not find a registered alias for: `@x`.\nYou have not aliased anything yet."):
        env.wait("@x")


def test_get_forms(env: Any) -> None:
    env.intercept("/api/*").as_("api")
    assert env.get("@api") is None
    assert env.get("@api.all") == []
    for n in (1, 2):
        env.send(f"http://localhost:3000/api/{n}")
    assert env.get("@api").request.url.endswith("2")
    assert [ic.request.url[-1] for ic in env.get("@api.all")] == ["1", "2"]
    assert env.get("@api.1").request.url.endswith("1")
    assert env.get("@api.3") is None
    with pytest.raises(UsageError, match=r"^`0` is not a valid alias property. Are you trying to ask for the first response\? If so write `@api.1`$"):
        env.get("@api.0")
    with pytest.raises(UsageError, match="could not find a registered alias for: `@nope`"):
        env.get("@nope")


def test_get_returns_the_object_wait_yielded(env: Any) -> None:
    env.intercept("/api/*").as_("api")
    env.send("http://localhost:3000/api/1")
    env.send("http://localhost:3000/api/2")
    env.wait("@api")
    second = env.wait("@api")
    assert env.get("@api") is second


def test_alias_with_a_dot_that_is_registered(env: Any) -> None:
    env.intercept("/api/users").as_("get.url")
    env.send(URL)
    assert env.wait("@get.url").request.url == URL


def test_interception_object(env: Any) -> None:
    env.server(200, {"items": [1, 2]}, {"x-a": "b"})
    env.intercept("POST", "/api/users", lambda req: req.continue_(lambda res: None)).as_("a")
    env.send(URL, method="POST", headers={"content-type": "application/json"}, body='{"name":"Ada"}', id="b-7")
    ic = env.wait("@a")
    assert ic.id.startswith("interceptedRequest") and ic.browser_request_id == "b-7" and ic.browserRequestId == "b-7"
    assert ic.routeId == ic.route_id is not None
    assert ic.its("response.statusCode") == 200
    assert ic.its("response.status_code") == 200
    assert ic.its("response.body.items.1") == 2
    assert ic.its("request.body.name") == "Ada"
    assert ic.its("request.httpVersion") == "1.1"
    assert ic.its("response.statusCode").should("eq", 200).should("be.a", "number").value == 200
    # .value() is the plain value, as every subject's read; the older attribute still compares
    assert type(ic.its("response.statusCode").value()) is int
    assert ic.its("response.body").value() == {"items": [1, 2]} and ic.its("response.body").value["items"] == [1, 2]
    assert ic.its("error").value() is None
    assert ic.its("response").its("body.items.length") == 2
    with pytest.raises(CommandError):
        ic.its("response.statusCode").should("eq", 201)
    assert ic.should("have.property", "error", None) is ic
    ic.its("response").status_code  # noqa: B018
    assert ic.should("have.nested.property", "response.statusCode", 200) is ic
    with pytest.raises(CommandError):
        ic.should("have.nested.property", "response.statusCode", 404)
    with pytest.raises(CommandError, match="no property 'nope'"):
        ic.its("response.nope")
    assert ic.state == "Complete" and str(ic.state) == "Complete"


def test_clear_drops_everything(env: Any) -> None:
    env.intercept("/api/users").as_("a")
    env.send(URL)
    env.interceptor.clear()
    assert not env.interceptor.has_routes()
    assert env.interceptor.routes_table() == [] and env.interceptor.requests_log() == []
    with pytest.raises(UsageError, match="You have not aliased anything yet"):
        env.get("@a")
    assert env.send(URL).calls == ["let_go"]


def test_clear_with_a_request_in_flight(env: Any) -> None:
    started = threading.Event()
    release = threading.Event()

    def first(req: Any) -> None:
        started.set()
        release.wait(5)
        raise ValueError("must not fail the next test")

    older_ran: list[str] = []
    env.intercept("/api/users", lambda req: older_ran.append("older"))
    env.intercept("/api/users", first).as_("a")
    ex, future = env.start(URL)
    assert started.wait(5)
    env.interceptor.clear()  # the next test begins
    env.intercept("/api/users").as_("a")
    release.set()
    future.result(5)
    assert ex.answered.is_set()
    assert env.errors == []  # the old handler's failure does not fail the new test
    assert older_ran == []
    assert env.get("@a") is None  # never recorded in the new test
    assert env.interceptor.requests_log() == []


def test_clear_during_the_response_phase(env: Any) -> None:
    started = threading.Event()
    release = threading.Event()

    def before(res: Any) -> None:
        started.set()
        release.wait(5)

    later: list[str] = []
    env.intercept("/api/users", lambda req: (req.on("before:response", before),
                                            req.on("response", lambda res: later.append("x"))))
    ex, future = env.start(URL)
    assert started.wait(5)
    env.interceptor.clear()
    release.set()
    future.result(5)
    assert ex.calls == ["fetch", "fulfill"] and later == []


def test_lazy_body_of_a_passed_through_response(env: Any) -> None:
    env.server(200, {"a": 1})
    env.intercept("/api/users").as_("a")
    ex = env.send(URL)
    ic = env.wait("@a")
    assert ex.body_loads == 0
    assert ic.response.body == {"a": 1}
    assert ic.its("response.body.a") == 1
    assert ex.body_loads == 1


@pytest.mark.parametrize(("value", "path", "message"), [
    ({"a": 1}, "b", """its('b'): the key 'b' does not exist in {"a": 1}."""),
    ({"a": {"b": 1}}, "a.c", """its('a.c'): the key 'c' does not exist in {"b": 1}."""),
    ([1, 2], "5", "its('5'): no item '5' in a list of 2."),
    ([1, 2], "first", "its('first'): no item 'first' in a list of 2."),
    ({"a": None}, "a.b", "its('a.b'): cannot read 'b' of None."),
    ({"a": 1.5}, "a.b", "its('a.b'): float has no property 'b'."),
])
def test_its_says_which_segment_is_missing(value: Any, path: str, message: str) -> None:
    with pytest.raises(CommandError) as caught:
        Its(value, "x").its(path)
    assert str(caught.value) == message


def test_its_reads_what_the_shared_walker_reads() -> None:
    value = Its({"user": {"first_name": "Ada", "tags": ("a", "b")}}, "x")
    assert value.its("user.firstName") == "Ada"
    assert value.its("user.tags.length") == 2 and value.its("user.tags.-1") == "b"
    assert value.its("user.first_name.length") == 3
    with pytest.raises(UsageError, match="its\\(\\) needs a dotted path string"):
        value.its("")
