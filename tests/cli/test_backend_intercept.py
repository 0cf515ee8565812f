"""runner.intercept_backend end to end: the example project (a real Flask app whose page shows what
a real weather API on 127.0.0.1 says, the app calling it through runner's proxy) run by a real
`runner run`, with specs of ours beside it: stubs, a handler that changes the response, a wait on
an alias, unrouted calls going by, strictNetwork failing on one, routes ending with their test,
and the records, events and command log marking the server's requests."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from tests.cli.conftest import run_runner

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "backend"

# runs first (file names sort): no server has been given runner's proxy in this process yet
NO_PROXY_SPEC = '''
def test_intercept_backend_before_any_server_uses_the_proxy(runner):
    runner.intercept_backend("GET", "**/forecast?*")
'''

MORE_SPEC = '''
import pytest


def test_a_stub_of_the_server(runner, weather_app):
    runner.intercept_backend("GET", "**/forecast?*", {"body": {"city": "Oslo", "summary": "Hail", "high": 1}})
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Hail")


def test_the_next_test_has_no_route_left(runner, weather_app):
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Sunny")


def test_page_routes_never_see_the_servers_requests(runner, weather_app):
    runner.intercept("GET", "**/forecast?*", {"body": {"summary": "Page"}}).as_("page")
    runner.intercept_backend("GET", "**/nothing-calls-this").as_("never")
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Sunny")
    runner.assert_no_request("@page")
    runner.assert_no_request("@never", within=200)


@pytest.mark.runner(strict_network=True)
def test_strict_mode_fails_on_an_unrouted_server_call(runner, weather_app):
    runner.intercept_backend("GET", "**/unused")  # matches nothing: the call stays unrouted
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Sunny")
'''


@pytest.mark.slow
def test_the_servers_requests_are_intercepted_recorded_and_marked(tmp_path: Path) -> None:
    root = tmp_path / "backend"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("results", "report", "__pycache__"))
    integration = root / "runner" / "integration"
    (integration / "a_no_proxy_spec.py").write_text(textwrap.dedent(NO_PROXY_SPEC), encoding="utf-8")
    (integration / "more_spec.py").write_text(textwrap.dedent(MORE_SPEC), encoding="utf-8")
    result = run_runner("run", cwd=root, timeout=300)
    assert result.code == 2, result.text  # two tests fail, as they must

    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    verdicts = {e["nodeid"].split("::")[1]: e["state"] for e in events if e["kind"] == "test.ended"}
    failed = {name for name, state in verdicts.items() if state == "failed"}
    assert failed == {"test_intercept_backend_before_any_server_uses_the_proxy",
                      "test_strict_mode_fails_on_an_unrouted_server_call"}, verdicts
    assert len(verdicts) == 10 and set(verdicts.values()) == {"passed", "failed"}, verdicts

    errors = {e["nodeid"].split("::")[1]: e for e in events if e["kind"] == "attempt.ended" and e["state"] == "failed"}
    no_proxy = json.dumps(errors["test_intercept_backend_before_any_server_uses_the_proxy"])
    assert "found no app server sending its requests through runner's proxy in this process" in no_proxy
    strict = json.dumps(errors["test_strict_mode_fails_on_an_unrouted_server_call"])
    assert "strictNetwork: the app's server made 1 request that no route matched" in strict, strict
    assert "/forecast?city=Lisbon (made by the app's server)" in strict, strict
    # the spec reporter says the strict failure once, as its headline, without pytest's "E" lines
    # or its "All traceback entries are hidden" (the message was given two more times)
    told = result.out[result.out.index("test_strict_mode_fails_on_an_unrouted_server_call\n     CommandError"):]
    told = told[:told.index("command log:")]
    assert told.count("made 1 request that no route matched") == 1, told
    assert told.count("/forecast?city=Lisbon (made by the app's server)") == 1, told
    assert "All traceback entries are hidden" not in result.out and "E   " not in told, told
    # the failing test's Routes table says whose requests its route takes
    assert '(server) {"method": "GET", "url": "**/unused"}' in result.out, result.out

    requests: dict[str, list[dict]] = {}
    for e in events:
        if e["kind"] == "request.intercepted":
            requests.setdefault(e["nodeid"].split("::")[1], []).append(e)
    # unrouted server calls go by untouched and are recorded nowhere
    for name in ("test_shows_the_real_forecast", "test_the_next_test_has_no_route_left",
                 "test_page_routes_never_see_the_servers_requests",
                 "test_strict_mode_fails_on_an_unrouted_server_call"):
        assert name not in requests, requests.get(name)
    # each routed server call: one record, marked as the server's, in its own test
    expected = {"test_stubs_the_weather_api_on_the_server": (200, True),
                "test_waits_on_the_servers_call_by_alias": (200, False),
                "test_rewrites_the_apis_answer": (200, False),
                "test_shows_an_error_when_the_api_fails": (503, True),
                "test_a_stub_of_the_server": (200, True)}
    for name, (status, stubbed) in expected.items():
        [record] = requests[name]
        assert (record["server"], record["status"], record["stubbed"], record["state"]) == \
            (True, status, stubbed, "Complete"), record
        assert record["url"].endswith("/forecast?city=Lisbon") and record["request_headers"]["user-agent"].startswith(
            "Python-urllib"), record
        assert record["request_headers"]["authorization"] == "[redacted]", record  # the API key, hidden
    assert set(requests) == set(expected), set(requests)
    # the response the handler changed is the one recorded (the page showed "Rain")
    rewritten = requests["test_rewrites_the_apis_answer"][0]
    assert json.loads(rewritten["response_body"]["data"])["summary"] == "Rain", rewritten
    routes = [e for e in events if e["kind"] == "route.added"]
    mixed = "test_page_routes_never_see_the_servers_requests"
    # a route says whose requests it takes: the page's (runner.intercept) or the server's
    assert {e["server"] for e in routes if not e["nodeid"].endswith(mixed)} == {True}, routes
    by_route = {e["route_id"]: e["server"] for e in routes}
    aliased = {e["alias"]: by_route[e["route_id"]] for e in events if e["kind"] == "route.aliased"}
    assert aliased["page"] is False and aliased["never"] is True, aliased

    # the command log tells the server's request as the server's
    attempts = {e["nodeid"].split("::")[1]: e for e in events if e["kind"] == "attempt.ended"}
    logged = [line for line in attempts["test_stubs_the_weather_api_on_the_server"]["log"] if "forecast" in line]
    assert any(line.startswith("request: (server) GET 200 http://127.0.0.1:") and line.endswith(
        "/forecast?city=Lisbon stubbed") for line in logged), logged
    # one that went on to the weather API says so in words of the server's side, not "to the server"
    waited = [line for line in attempts["test_waits_on_the_servers_call_by_alias"]["log"] if "forecast" in line]
    assert any(line.startswith("request: (server) GET 200 http://127.0.0.1:") and line.endswith(
        "/forecast?city=Lisbon @forecast to the service") for line in waited), waited
    [row] = attempts["test_waits_on_the_servers_call_by_alias"]["requests"]
    assert row["server"] is True and row["aliases"] == ["forecast"], row


HTTPS_CLIENT = """
import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=20) as response:
    print(json.dumps({"status": response.status, "body": response.read().decode()}))
"""


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # mitmproxy's own, on its pyOpenSSL use
def test_https_through_the_proxy_with_the_runs_own_ca(tmp_path: Path) -> None:
    """A server's HTTPS call is decrypted with the run's CA (the bundle the environment names),
    stubbed for a host that does not exist (a stub reaches no service), and the CA's folder is
    the run's own, gone once the proxy stops."""
    import asyncio
    import os
    import subprocess
    import sys
    import threading

    from runner.backend import BackendProxy
    from runner.net import Interceptor

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    errors: list[BaseException] = []
    settings = {"defaultCommandTimeout": 4000, "requestTimeout": 5000, "responseTimeout": 10000}
    interceptor = Interceptor(loop=loop, config=settings.__getitem__, load_fixture=lambda spec: b"",
                              report_error=errors.append)
    proxy = BackendProxy(lambda: (interceptor, loop))
    try:
        env = proxy.environment()
        assert env["HTTPS_PROXY"] == env["https_proxy"] == f"http://127.0.0.1:{proxy.port}"
        assert env["NO_PROXY"] == env["no_proxy"] == ""
        bundle = Path(env["SSL_CERT_FILE"])
        assert env["REQUESTS_CA_BUNDLE"] == env["CURL_CA_BUNDLE"] == env["NODE_EXTRA_CA_CERTS"] == str(bundle)
        ca_file = proxy.ca_file
        assert ca_file is not None and ca_file.parent == bundle.parent
        assert ca_file.parent != Path.home() / ".mitmproxy"
        ca = ca_file.read_text()
        assert bundle.read_text().endswith(ca) and bundle.read_text().count("BEGIN CERTIFICATE") > 1
        interceptor.intercept_backend("GET", "https://payments.invalid/charge", {"body": {"paid": True}}).as_("pay")
        script = tmp_path / "client.py"
        script.write_text(HTTPS_CLIENT, encoding="utf-8")
        clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        done = subprocess.run([sys.executable, str(script), "https://payments.invalid/charge"],
                              env={**clean, **env}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"status": 200, "body": '{"paid":true}'}
        call = interceptor.wait("@pay")
        assert call.request.url == "https://payments.invalid/charge"
        [row] = interceptor.requests_log()
        assert row["server"] is True and row["stubbed"] is True, row
        # without the run's CA the client refuses the proxy's certificate
        untrusting = subprocess.run([sys.executable, str(script), "https://payments.invalid/charge"],
                                    env={**clean, **{k: v for k, v in env.items() if "CA" not in k and "CERT" not in k},
                                         "SSL_CERT_FILE": "/nonexistent.pem"},
                                    capture_output=True, text=True, timeout=60)
        assert untrusting.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in untrusting.stderr, untrusting.stderr
        assert errors == []
    finally:
        proxy.stop()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
    assert not bundle.parent.exists()  # the run's CA goes with the proxy
    assert not proxy.started


SECOND_SPEC = '''
import os


def test_a_stub_in_another_worker(runner, weather_app):
    runner.intercept_backend("GET", "**/forecast?*", {"body": {"city": "Rome", "summary": "Fog", "high": 9}})
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Fog")
    print("worker:", os.environ.get("PYTEST_XDIST_WORKER"))
'''


@pytest.mark.slow
def test_each_worker_has_its_own_proxy_and_server(tmp_path: Path) -> None:
    root = tmp_path / "backend"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("results", "report", "__pycache__"))
    (root / "runner" / "integration" / "second_spec.py").write_text(textwrap.dedent(SECOND_SPEC), encoding="utf-8")
    result = run_runner("run", "--workers", "2", cwd=root, timeout=300)
    assert result.code == 0, result.text
    events = [json.loads(line) for line in
              (root / "runner" / "results" / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    specs = {e["nodeid"].split("::")[0].rsplit("/", 1)[-1] for e in events if e["kind"] == "request.intercepted"
             and e["server"] and e["stubbed"]}
    assert specs == {"weather_spec.py", "second_spec.py"}, specs
    assert sum(e["kind"] == "test.ended" and e["state"] == "passed" for e in events) == 6
