"""Secrets stay secret: a real ``runner run`` with secrets planted in runner.env.json, a RUNNER_
variable, an Authorization header, a cookie, a typed password (``log=False``) and the ``redact``
option's header, query parameter and body key (in stubbed requests and a spied one); no artifact runner wrote holds one of them, and
``[redacted]`` stands where they were."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from tests.cli.conftest import base_project, run_runner

ENV_FILE_SECRET = "envfile-secret-1"
RUNNER_VAR_SECRET = "runner-var-secret-2"
COOKIE_SECRET = "cookie-secret-3"
TYPED_SECRET = "typed-secret-4"
API_KEY_SECRET = "apikey-secret-5"  # an X-Api-Key header: hidden through redact.headers
PIN_SECRET = "pin-secret-6"  # a JSON body key: redact.bodyKeys
SIG_SECRET = "sig-secret-7"  # a query parameter: redact.queryParams
SECRETS = (ENV_FILE_SECRET, RUNNER_VAR_SECRET, COOKIE_SECRET, TYPED_SECRET, API_KEY_SECRET, PIN_SECRET,
           SIG_SECRET)

PAGE = """<html><body>
<input id="user"><input id="pw" type="password"><button id="go">go</button><p id="out"></p>
<p id="count">1 item</p>
<script src="/app.js"></script>
</body></html>"""
# the page's own constants: in no report unless runner leaks what the page sent
APP = f"""
document.querySelector('#go').addEventListener('click', async () => {{
  const pw = document.querySelector('#pw').value;
  await fetch('/api/login?sig={SIG_SECRET}&page=2', {{method: 'POST',
    headers: {{'Authorization': 'Bearer ' + pw, 'X-Api-Key': '{API_KEY_SECRET}', 'Content-Type': 'application/json'}},
    body: JSON.stringify({{pin: '{PIN_SECRET}', name: 'ann'}})}});
  await fetch('/api/me');
  await fetch('/ping.json?sig={SIG_SECRET}', {{headers: {{'Authorization': 'Bearer ' + pw, 'X-Api-Key': '{API_KEY_SECRET}'}}}});
  document.querySelector('#out').textContent = 'done';
}});
"""
# the cookie comes from the app's side (a file here), as a server's would: the spec's source, which
# traces copy, holds no literal of it
SPEC = f"""
    from pathlib import Path


    def test_logs_in(runner):
        cookie = (Path(__file__).parents[2] / "cookie.txt").read_text()
        runner.intercept("POST", "/api/login*", {{"body": {{"ok": True}},
                         "headers": {{"set-cookie": f"sid={{cookie}}; Path=/"}}}}).as_("login")
        runner.intercept("/api/me", {{"body": {{"name": "ann"}}}}).as_("me")
        runner.intercept("/ping.json*").as_("ping")  # a spy: the request goes to the server as sent
        runner.visit("/")
        runner.get("#user").type(runner.env("password"))
        runner.get("#pw").type("{TYPED_SECRET}", log=False)
        runner.log("token " + runner.env("API_TOKEN"))
        runner.get("#go").click()
        runner.wait("@login")
        runner.wait("@me")
        runner.wait("@ping")
        runner.get("#out").should("have.text", "done")
        runner.get("#count").should("have.text", "1 item")


    def test_fails_on_the_secret(runner):
        runner.visit("/")
        assert runner.env("password") == "something else"
"""
CONFIG = {"video": False, "trace": "on",
          "redact": {"headers": ["X-Api-Key"], "queryParams": ["sig"], "bodyKeys": ["pin"], "traceBodies": False}}


def _texts(root: Path) -> dict[str, str]:
    """Every file runner wrote under runner/ (and the json report), each zip's entries read."""
    texts: dict[str, str] = {}
    for path in [*sorted((root / "runner").rglob("*")), root / "results.json", root / "junit.xml"]:
        if not path.is_file() or "integration" in path.parts:
            continue
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    texts[f"{path}!{name}"] = archive.read(name).decode("utf-8", errors="replace")
        else:
            texts[str(path)] = path.read_bytes().decode("utf-8", errors="replace")
    return texts


@pytest.mark.slow
def test_no_artifact_holds_a_secret_and_redacted_stands_in_their_place(project):
    root = project(base_project({"runner/integration/login_spec.py": SPEC, "site/app.js": APP,
                                 "runner.env.json": json.dumps({"password": ENV_FILE_SECRET, "short": "1"}),
                                 "site/ping.json": '{"pong": true}', "cookie.txt": COOKIE_SECRET},
                                CONFIG, page=PAGE))
    env = {"RUNNER_API_TOKEN": RUNNER_VAR_SECRET}
    result = run_runner("run", "--reporter", "json", "-o", "output=results.json", cwd=root, env=env)
    assert result.code == 1, result.text  # the second test fails on purpose
    events_file = root / "runner/results/events.jsonl"
    replay = run_runner("report", "--from", str(events_file), "--reporter", "junit",
                        "-o", "mochaFile=junit.xml", cwd=root)
    assert (root / "junit.xml").is_file(), replay.text
    shown = run_runner("config", cwd=root, env=env)
    shown_json = run_runner("config", "--json", cwd=root, env=env)
    assert shown.code == 0 and shown_json.code == 0, shown.text + shown_json.text

    texts = _texts(root)
    assert any("report" in name for name in texts) and any(".zip!" in name for name in texts)
    texts.update({"runner run's output": result.text, "runner report's output": replay.text,
                  "runner config": shown.text, "runner config --json": shown_json.text})
    leaks = [(secret, name) for name, text in texts.items() for secret in SECRETS if secret in text]
    assert leaks == [], '\n'.join(f'{s} in {n}' for s, n in leaks)

    # [redacted] where they were: the events
    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    started = next(e for e in events if e["kind"] == "run.started")
    assert started["config"]["env"]["password"] == "[redacted]"
    assert started["config"]["env"]["short"] == "[redacted]"  # hidden where the entry is shown...
    typed = [e["args"] for e in events if e["kind"] == "command.started" and e["name"] == "type"]
    assert typed == ["'[redacted]'", "[redacted], log=False"]
    logs = [e["message"] for e in events if e["kind"] == "log"]
    assert logs == ["token [redacted]"]
    requests = {e["url"].split("/")[-1]: e for e in events if e["kind"] == "request.intercepted"}
    login, me = requests["login?sig=[redacted]&page=2"], requests["me"]
    headers = {k.lower(): v for k, v in login["request_headers"].items()}
    assert headers["authorization"] == "[redacted]" and headers["x-api-key"] == "[redacted]"
    assert headers["content-type"] == "application/json"
    assert {k.lower(): v for k, v in login["response_headers"].items()}["set-cookie"] == "[redacted]"
    assert {k.lower(): v for k, v in me["request_headers"].items()}["cookie"] == "[redacted]"
    assert json.loads(login["request_body"]["data"]) == {"pin": "[redacted]", "name": "ann"}
    spied = requests["ping.json?sig=[redacted]"]  # a spied request's event: told the short way too
    assert spied["stubbed"] is False and spied["status"] == 200
    headers = {k.lower(): v for k, v in spied["request_headers"].items()}
    assert headers["authorization"] == "[redacted]" and headers["x-api-key"] == "[redacted]"
    ended = {e["nodeid"].rsplit("::", 1)[1]: e for e in events if e["kind"] == "attempt.ended"}
    assert "[redacted]" in ended["test_fails_on_the_secret"]["error"]
    assert "type: get('#pw') [redacted]" in ended["test_logs_in"]["log"]
    # ...but a short value is not searched for: "1 item" is not "[redacted] item"
    should = [e["args"] for e in events if e["kind"] == "command.started" and e["name"] == "should"]
    assert "'have.text', '1 item'" in should

    # the trace: runner's step and Playwright's own keyboard action, the network log, no bodies
    trace = root / "runner/traces/login_spec.py/test_logs_in.zip"
    with zipfile.ZipFile(trace) as archive:
        actions = [json.loads(line) for line in archive.read("trace.trace").decode().splitlines()]
        network = [json.loads(line) for line in archive.read("trace.network").decode().splitlines()]
        names = archive.namelist()
    titles = [a.get("title") for a in actions if a.get("type") == "before"]
    assert "get('#pw').type([redacted], log=False)" in titles
    typed_params = [a["params"].get("text") for a in actions
                    if a.get("type") == "before" and a.get("method") == "keyboardType"]
    assert "[redacted]" in typed_params
    posted = next(n["snapshot"] for n in network if "/api/login" in n["snapshot"]["request"]["url"])
    sent = {h["name"].lower(): h["value"] for h in posted["request"]["headers"]}
    assert sent["authorization"] == "[redacted]" and sent["x-api-key"] == "[redacted]"
    assert "_file" not in posted["response"]["content"]
    assert "_file" not in (posted["request"].get("postData") or {})
    assert not [n for n in names if n.startswith("resources/") and not n.endswith((".jpeg", ".png"))]

    # runner config: the env entries hidden, shown with --show-secrets
    assert '"[redacted]"' in shown.text
    assert json.loads(shown_json.out)["env"] == {"password": "[redacted]", "short": "[redacted]",
                                                  "API_TOKEN": "[redacted]"}
    revealed = run_runner("config", "--json", "--show-secrets", cwd=root, env=env)
    assert json.loads(revealed.out)["env"] == {"password": ENV_FILE_SECRET, "short": "1",
                                                "API_TOKEN": RUNNER_VAR_SECRET}


OPEN_SPEC = """
    def test_types_the_password(runner):
        runner.visit("/")
        runner.get("#name").type(runner.env("password"))
        runner.log("logged in with " + runner.env("password"))
"""


@pytest.mark.slow
def test_runner_open_tells_its_pages_no_secret(tmp_path: Path) -> None:
    from tests.support.open_ui import run_all_and_hello, write_sample
    from tests.support.show_trace import start_serving, stop_serving

    project = write_sample(tmp_path, {"watchForFileChanges": False}, spec=OPEN_SPEC)
    (project / "runner.env.json").write_text(json.dumps({"password": ENV_FILE_SECRET}), encoding="utf-8")
    proc, url = start_serving(["open", "--no-open"], project)
    try:
        sock, hello = run_all_and_hello(url)
    finally:
        err = stop_serving(proc)
    assert proc.returncode == 0 and "Traceback" not in err, err
    told = json.dumps([sock.seen, hello])
    assert [a["state"] for a in sock.events("attempt.ended")] == ["passed"]
    assert ENV_FILE_SECRET not in told
    assert [e["message"] for e in sock.events("log")] == ["logged in with [redacted]"]
    assert [e["args"] for e in sock.events("command.started") if e["name"] == "type"] == ["'[redacted]'"]
