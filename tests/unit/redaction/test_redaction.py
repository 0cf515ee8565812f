"""runner.redaction: what is secret in a run and how each kind of value is shown without it."""

from __future__ import annotations

import base64
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from runner.config import load_config
from runner.events import (
    AttemptEnded,
    CommandStarted,
    EventBus,
    LogLine,
    RequestIntercepted,
    RunStarted,
    ScreenshotTaken,
    SpecStarted,
)
from runner.redaction import REDACTED, Redactor, redact_config, redact_event
from runner.redaction.traces import scrub_trace

SECRET = "s3cret-value"


@pytest.mark.parametrize(("text", "shown"), [
    (f"password is {SECRET}", "password is [redacted]"),
    (f"/login?user=ann&token={SECRET}x", "/login?user=ann&token=[redacted]x"),  # the value, not the param
    ("/x?sig=abc&page=2", "/x?sig=[redacted]&page=2"),
    ("/x?SIG=abc#top", "/x?SIG=[redacted]#top"),
    ("/x?signature=abc", "/x?signature=abc"),  # another name
    ("/x?sig=", "/x?sig="),  # nothing to hide
    ("1 item, true, 8080", "1 item, true, 8080"),  # short values are not searched for
    (f"{SECRET}-longer and {SECRET}", "[redacted] and [redacted]"),  # the longer secret whole
])
def test_texts(text: str, shown: str) -> None:
    redactor = Redactor(values=[SECRET, f"{SECRET}-longer", "1", True, "8080", None], query_params=["sig"])
    assert redactor.text(text) == shown


def test_a_typed_secret_is_learned() -> None:
    redactor = Redactor()
    assert redactor.text("typed hunter22") == "typed hunter22"
    redactor.learn("hunter22", "abc")
    assert redactor.text("typed hunter22, abc") == "typed [redacted], abc"


def test_a_secret_is_hidden_as_a_form_url_or_json_encodes_it() -> None:
    # a login form posts a typed password URL-encoded ("!" is %21, "#" %23, " " + or %20); a
    # JSON body written by the page escapes '"' and '\\': each is the secret, as the page sent it
    redactor = Redactor(values=['S3cret!pw#42', 'pass "word" 1'])
    assert redactor.text("username=root&password=S3cret%21pw%2342&csrf=x") == "username=root&password=[redacted]&csrf=x"
    assert redactor.text("/login?p=S3cret!pw%2342") == "/login?p=S3cret!pw%2342"  # half-encoded: another text
    assert redactor.text("a=pass+%22word%22+1 b=pass%20%22word%22%201") == "a=[redacted] b=[redacted]"
    assert redactor.text('{"pw": "pass \\"word\\" 1"}') == '{"pw": "[redacted]"}'
    body = _body("username=root&password=S3cret%21pw%2342")
    assert redactor.body(body)["data"] == "username=root&password=[redacted]"
    assert redactor.values == {'S3cret!pw#42', 'pass "word" 1'}  # what was given, not its encodings


def test_redacting_twice_changes_nothing() -> None:
    redactor = Redactor(values=[SECRET, "redacted"], query_params=["sig"])
    once = redactor.text(f"{SECRET} /x?sig=1")
    assert once == "[redacted] /x?sig=[redacted]" and redactor.text(once) == once


def test_nested_env_values_are_searched_as_their_texts() -> None:
    redactor = Redactor(values=[{"user": "ann", "key": "k-123456"}, [1234567, False]])
    assert redactor.text("ann k-123456 1234567 False") == "ann [redacted] [redacted] False"


def test_headers() -> None:
    redactor = Redactor(headers=["X-Api-Key"], values=[SECRET])
    shown = redactor.header_map({"Authorization": "Bearer x", "cookie": "a=b", "Set-Cookie": "s=1",
                                 "proxy-authorization": "p", "x-api-key": "k", "accept": "*/*",
                                 "x-echo": f"v {SECRET}"})
    assert shown == {"Authorization": REDACTED, "cookie": REDACTED, "Set-Cookie": REDACTED,
                     "proxy-authorization": REDACTED, "x-api-key": REDACTED, "accept": "*/*",
                     "x-echo": "v [redacted]"}


def test_request_auth_is_an_authorization_header() -> None:
    # runner.request(url, auth=...) sends these as the Authorization header: its command's
    # arguments hide them as they hide that header
    redactor = Redactor()
    assert redactor.value({"username": "ann", "password": "pw"}, "auth") == {"username": "ann", "password": REDACTED}
    assert redactor.value({"user": "ann", "pass": "pw"}, "auth") == {"user": "ann", "pass": REDACTED}
    assert redactor.value({"bearer": "tok"}, "auth") == {"bearer": REDACTED}
    assert redactor.value({"password": "pw"}, "other") == {"password": "pw"}


def test_request_qs_hides_the_query_parameters_named() -> None:
    # runner.request(url, qs={...}) puts them in the URL, where redact.queryParams hides them
    redactor = Redactor(query_params=["sig"])
    assert redactor.value({"SIG": "abc", "page": 2}, "qs") == {"SIG": REDACTED, "page": 2}
    assert redactor.value({"sig": "abc"}, "other") == {"sig": "abc"}


def _body(data: str, encoding: str = "utf-8", cut: bool = False) -> dict[str, Any]:
    return {"size": len(data), "content_type": "", "encoding": encoding, "data": data, "cut": cut}


@pytest.mark.parametrize(("data", "shown"), [
    ('{"user": "ann", "pin": "1234", "deep": [{"PIN": 5}]}',
     '{"user": "ann", "pin": "[redacted]", "deep": [{"PIN": "[redacted]"}]}'),
    ('{"user": "ann"}', '{"user": "ann"}'),  # untouched: formatting kept
    ('{"user": "ann", "pin": "12', '{"user": "ann", "pin": "[redacted]"'),  # cut short: no parse
    ("user=ann&pin=1234&sig=9", "user=ann&pin=[redacted]&sig=[redacted]"),  # a form body
    (f"note {SECRET}", "note [redacted]"),
])
def test_bodies(data: str, shown: str) -> None:
    redactor = Redactor(values=[SECRET], body_keys=["pin"], query_params=["sig"])
    assert redactor.body(_body(data))["data"] == shown


def test_a_binary_body_has_its_secret_bytes_replaced() -> None:
    raw = b"\x00\x01" + SECRET.encode() + b"\xff"
    record = _body(base64.b64encode(raw).decode(), encoding="base64")
    hidden = Redactor(values=[SECRET]).body(record)
    assert base64.b64decode(hidden["data"]) == b"\x00\x01[redacted]\xff"


def test_for_config_takes_env_values_from_the_env_file_and_runner_variables_only(tmp_path: Path) -> None:
    (tmp_path / "runner.json").write_text(json.dumps({
        "env": {"fromFile": "config-value-1"}, "redact": {"showEnv": ["apiUrl"], "headers": ["x-k"]}}))
    (tmp_path / "runner.env.json").write_text(json.dumps({"password": "envfile-1", "flag": "1",
                                                          "apiUrl": "http://localhost:8080"}))
    config = load_config(tmp_path, environ={"RUNNER_TOKEN": "variable-1", "RUNNER_VIEWPORT_WIDTH": "900"},
                         cli_env="fromCli=cli-value-1")
    redactor = Redactor.for_config(config)
    assert redactor.env_names == {"password", "flag", "TOKEN"}
    assert redactor.values == {"envfile-1", "variable-1"}  # "1" is too short to search for
    assert "x-k" in redactor.headers
    assert redact_config(redactor, config.as_dict())["env"] == {
        "fromFile": "config-value-1", "password": REDACTED, "flag": REDACTED, "apiUrl": "http://localhost:8080",
        "TOKEN": REDACTED, "fromCli": "cli-value-1"}


def test_events_are_redacted_whole_and_left_alone_without_secrets() -> None:
    redactor = Redactor(values=[SECRET], env_names=["password"])
    started = RunStarted(run_id="r", runner_version="1", browser="b", specs=[],
                         config={"env": {"password": "1", "other": "x"}, "baseUrl": f"http://h/?k={SECRET}"})
    hidden = redact_event(redactor, started)
    assert isinstance(hidden, RunStarted)
    assert hidden.config == {"env": {"password": REDACTED, "other": "x"}, "baseUrl": "http://h/?k=[redacted]"}
    request = RequestIntercepted(nodeid="n", id="1", method="GET", url="http://h/", route_ids=[], aliases=[],
                                 stubbed=True, state="Complete", request_headers={"Cookie": "a=b"},
                                 response_body=_body(f'"{SECRET}"'))
    hidden_request = redact_event(redactor, request)
    assert isinstance(hidden_request, RequestIntercepted)
    assert hidden_request.request_headers == {"Cookie": REDACTED}
    assert hidden_request.response_body is not None
    assert hidden_request.response_body["data"] == '"[redacted]"'
    plain = CommandStarted(nodeid="n", id=1, name="visit", args="'/'")
    assert redact_event(redactor, plain) is plain


def test_paths_of_files_are_left_as_they_are() -> None:
    # "public" kept in runner.env.json and a spec public_spec.py: the trace and screenshot paths
    # must still name the files runner wrote (the report copies them; the terminal prints them)
    redactor = Redactor(values=["public"])
    spec = "/p/runner/integration/public_spec.py"
    started = redact_event(redactor, SpecStarted(spec="public_spec.py", absolute=spec))
    assert isinstance(started, SpecStarted) and started.absolute == spec
    shot = "/p/runner/screenshots/public_spec.py/test_public (failed).png"
    taken = redact_event(redactor, ScreenshotTaken(nodeid="n", path=shot, failure=True))
    assert isinstance(taken, ScreenshotTaken) and taken.path == shot
    trace = "/p/runner/traces/public_spec.py/test_public.zip"
    ended = redact_event(redactor, AttemptEnded(spec="public_spec.py", nodeid="n", attempt=1, state="failed",
                                                duration_ms=1, screenshots=[shot], trace=trace,
                                                message="the public key"))
    assert isinstance(ended, AttemptEnded) and (ended.screenshots, ended.trace) == ([shot], trace)
    assert ended.message == "the [redacted] key"  # texts are still searched
    command = redact_event(redactor, CommandStarted(nodeid="n", id=1, name="log", args="'public'", file=spec))
    assert isinstance(command, CommandStarted) and (command.file, command.args) == (spec, "'[redacted]'")


def test_the_bus_hands_every_subscriber_the_redacted_event() -> None:
    bus = EventBus()
    redactor = Redactor(values=[SECRET])
    bus.transform = lambda event: redact_event(redactor, event)
    seen: list[list[str]] = [[], []]
    bus.subscribe(lambda e: seen[0].append(e.message) if isinstance(e, LogLine) else None)
    bus.subscribe(lambda e: seen[1].append(e.message) if isinstance(e, LogLine) else None)
    bus.publish(LogLine(nodeid="n", message=f"the key is {SECRET}"))
    assert seen == [["the key is [redacted]"], ["the key is [redacted]"]]


def _trace(path: Path) -> None:
    network = {"type": "resource-snapshot", "snapshot": {
        "request": {"url": "http://h/api?sig=abc", "headers": [{"name": "Authorization", "value": "Bearer t"}],
                    "cookies": [{"name": "sid", "value": "c"}], "queryString": [{"name": "sig", "value": "abc"}],
                    "postData": {"mimeType": "application/json", "text": "", "_sha1": "req.json"}},
        "response": {"headers": [{"name": "Content-Type", "value": "application/json"}],
                     "content": {"size": 2, "mimeType": "application/json", "_sha1": "resp.json"}}}}
    action = {"type": "before", "method": "keyboardType", "params": {"text": SECRET}, "title": f"type {SECRET}"}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("trace.trace", json.dumps(action) + "\n")
        archive.writestr("trace.network", json.dumps(network) + "\n")
        archive.writestr("resources/req.json", '{"pin": 1}')
        archive.writestr("resources/resp.json", "{}")
        archive.writestr("resources/page.jpeg", b"\xff\xd8")
        archive.writestr("src/spec.py", f"runner.get('#pw').type('{SECRET}', log=False)\n")


@pytest.mark.parametrize("drop_bodies", [False, True])
def test_a_trace_is_scrubbed_and_its_bodies_dropped_on_request(tmp_path: Path, drop_bodies: bool) -> None:
    path = tmp_path / "t.zip"
    _trace(path)
    scrub_trace(path, Redactor(values=[SECRET], query_params=["sig"]), drop_bodies=drop_bodies)
    with zipfile.ZipFile(path) as archive:
        names = sorted(archive.namelist())
        action = json.loads(archive.read("trace.trace"))
        snapshot = json.loads(archive.read("trace.network"))["snapshot"]
        source = archive.read("src/spec.py").decode()
    assert action["params"]["text"] == REDACTED and action["title"] == "type [redacted]"
    assert "[redacted]" in source and SECRET not in source
    request = snapshot["request"]
    assert request["url"] == "http://h/api?sig=[redacted]"
    assert request["headers"] == [{"name": "Authorization", "value": REDACTED}]
    assert request["cookies"] == [{"name": "sid", "value": REDACTED}]
    assert request["queryString"] == [{"name": "sig", "value": REDACTED}]
    assert snapshot["response"]["headers"] == [{"name": "Content-Type", "value": "application/json"}]
    bodies = ["resources/req.json", "resources/resp.json"]
    if drop_bodies:
        assert names == ["resources/page.jpeg", "src/spec.py", "trace.network", "trace.trace"]
        assert "_sha1" not in request["postData"] and "_sha1" not in snapshot["response"]["content"]
    else:
        assert names == sorted(["resources/page.jpeg", *bodies, "src/spec.py", "trace.network", "trace.trace"])
        assert snapshot["response"]["content"]["_sha1"] == "resp.json"
