"""RouteMatcher `json` and `graphql` end to end: one endpoint, a route and an alias per operation."""

from __future__ import annotations

import json
import re

import pytest

from runner import UsageError


def graphql_server(server):
    def answer(h):
        body = json.loads(h.request_body or b"{}")
        h.send(200, {"data": {"server": body.get("operationName")}})

    server.route("/graphql", answer)
    runner_page = server.page("/app", "<html><body><h1>app</h1><script>"
                              "window.gql = (operationName, query, variables) => fetch('/graphql', {"
                              "method: 'POST', headers: {'content-type': 'application/json'},"
                              "body: JSON.stringify({operationName, query, variables})}).then(r => r.json());"
                              "</script></body></html>")
    return runner_page


def gql(runner, name, query, variables):
    return runner._ctx.run(runner._ctx.browser.page.evaluate(
        "([n, q, v]) => window.gql(n, q, v)", [name, query, variables]))


def test_one_endpoint_stubbed_and_aliased_per_operation(runner, server):
    runner.visit(graphql_server(server))
    runner.intercept({"url": "/graphql", "graphql": {"operationName": "GetUser"}},
                     {"body": {"data": {"user": {"name": "stubbed Ann"}}}}).as_("GetUser")
    runner.intercept({"method": "POST", "url": "/graphql", "graphql": {"operationName": "AddTodo",
                      "variables": {"todo": {"title": "*milk*"}}}}).as_("AddMilk")
    runner.intercept({"url": "/graphql", "json": {"variables": {"todo": {"done": True}}}}).as_("AddDone")

    assert gql(runner, "GetUser", "query GetUser { user { name } }", {}) == {"data": {"user": {"name": "stubbed Ann"}}}
    assert gql(runner, "AddTodo", "mutation AddTodo($todo: T) { add(todo: $todo) }",
               {"todo": {"title": "buy milk", "done": False}}) == {"data": {"server": "AddTodo"}}
    assert gql(runner, "AddTodo", "mutation AddTodo($todo: T) { add(todo: $todo) }",
               {"todo": {"title": "walk", "done": True}}) == {"data": {"server": "AddTodo"}}
    assert gql(runner, "Other", "query Other { x }", {}) == {"data": {"server": "Other"}}

    assert runner.wait("@GetUser").stubbed
    milk = runner.wait("@AddMilk")
    assert milk.request.body["variables"]["todo"]["title"] == "buy milk" and not milk.stubbed
    assert runner.wait("@AddDone").request.body["variables"]["todo"]["title"] == "walk"
    assert len(runner.get("@GetUser.all")) == 1 and len(runner.get("@AddMilk.all")) == 1
    server_saw = [json.loads(r["body"])["operationName"] for r in server.received if r["path"] == "/graphql"]
    assert server_saw == ["AddTodo", "AddTodo", "Other"]  # GetUser never left the browser


def test_a_body_matcher_with_a_regex_and_a_handler_per_operation(runner, server):
    runner.visit(graphql_server(server))

    def rename(req):
        req.alias = "gql." + req.body["operationName"]
        req.reply({"data": {"handled": req.body["operationName"]}})

    runner.intercept({"url": "/graphql", "graphql": {"query": re.compile(r"^\s*mutation")}}, rename)
    assert gql(runner, "Save", "  mutation Save { save }", {}) == {"data": {"handled": "Save"}}
    assert gql(runner, "Load", "query Load { load }", {}) == {"data": {"server": "Load"}}
    assert runner.wait("@gql.Save").response.body == {"data": {"handled": "Save"}}


def test_a_bad_body_matcher_is_refused_where_the_route_is_defined(runner, server):
    runner.visit(graphql_server(server))
    with pytest.raises(UsageError, match=r"`graphql.operation` is not a GraphQL key: use operationName, query, variables."):
        runner.intercept({"url": "/graphql", "graphql": {"operation": "GetUser"}})
