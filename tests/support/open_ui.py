"""A sample project for ``runner open``'s tests, and the command started on it (bounded)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

PAGE = ("<html><head><title>Sample</title></head><body><h1 id='h'>Hi</h1>"
        "<button id='b' onclick=\"fetch('/api/x').then(r => r.json())"
        ".then(d => document.getElementById('h').textContent = d.msg)\">go</button>"
        "<input id='name' name='name'><button data-cy='save' onclick=\"document.getElementById('h')"
        ".textContent = 'saved ' + document.getElementById('name').value\">save</button></body></html>")

SPEC = '''
def test_click(runner):
    runner.intercept("GET", "/api/x", {"body": {"msg": "<script>window.pwned = 1</script><b>bold</b>"}}).as_("x")
    runner.visit("/")
    runner.get("#b").click()
    runner.wait("@x")
    runner.get("#h").should("contain", "bold")


def test_fails(runner):
    runner.visit("/")
    runner.get("#missing", timeout=200).should("exist")
'''


def write_sample(root: Path, config: dict | None = None, spec: str = SPEC) -> Path:
    (root / "site").mkdir(parents=True, exist_ok=True)
    (root / "site" / "index.html").write_text(PAGE, encoding="utf-8")
    (root / "runner" / "integration").mkdir(parents=True, exist_ok=True)
    (root / "runner" / "integration" / "a_spec.py").write_text(textwrap.dedent(spec).lstrip(), encoding="utf-8")
    (root / "runner.json").write_text(json.dumps({"fileServerFolder": "site", "video": False, **(config or {})}),
                                      encoding="utf-8")
    return root


class OpenSocket:
    """The UI's WebSocket, as the page speaks it (aiohttp's client), for tests that check what the
    server tells without a browser: ``await OpenSocket.connect(url)``, then :meth:`send` and
    :meth:`until` (bounded)."""

    def __init__(self, session, ws) -> None:
        self.session = session
        self.ws = ws
        self.seen: list[dict] = []

    @classmethod
    async def connect(cls, url: str) -> OpenSocket:
        import aiohttp

        base, _, token = url.partition("/?token=")
        session = aiohttp.ClientSession(cookies={"runner_open_token": token})
        ws = await session.ws_connect(base + "/ws", headers={"Origin": base})
        return cls(session, ws)

    async def send(self, message: dict) -> None:
        await self.ws.send_str(json.dumps(message))

    async def until(self, check, bound: float = 60.0) -> dict:
        """The first message (seen from now on) for which ``check(message)`` holds."""
        import asyncio

        async def wait() -> dict:
            while True:
                message = json.loads((await self.ws.receive()).data)
                self.seen.append(message)
                if check(message):
                    return message

        return await asyncio.wait_for(wait(), bound)

    def events(self, kind: str) -> list[dict]:
        return [m["event"] for m in self.seen if m.get("t") == "event" and m["event"].get("kind") == kind]

    async def close(self) -> None:
        await self.ws.close()
        await self.session.close()


def run_done(message: dict) -> bool:
    return message.get("t") == "run" and message["run"].get("state") in ("done", "stopped")


def run_all_and_hello(url: str) -> tuple[OpenSocket, dict]:
    """Run every spec over the UI's socket until the run ends, then connect again: the socket of
    the run (what it saw) and the ``hello`` a page gets afterwards (bounded)."""
    import asyncio

    async def scenario() -> tuple[OpenSocket, dict]:
        sock = await OpenSocket.connect(url)
        try:
            await sock.send({"t": "run"})
            await sock.until(run_done)
        finally:
            await sock.close()
        again = await OpenSocket.connect(url)
        try:
            hello = await again.until(lambda m: m.get("t") == "hello", bound=10)
        finally:
            await again.close()
        return sock, hello

    return asyncio.run(scenario())
