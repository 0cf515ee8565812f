"""The reset between two tests of one run (its clearing steps are sent together): the next test
finds no cookie, no storage and no HTTP cache of the last one, on every origin it touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.servers import serving

from runner.run.session import RunSession

pytestmark = [pytest.mark.e2e]

PAGE = "<html><head><script src='/cached.js'></script></head><body><h1 id='t'>page</h1></body></html>"


def test_the_next_test_finds_no_cookie_storage_or_cached_response_of_the_last(tmp_path: Path) -> None:
    with serving() as server, serving() as other:
        for where in (server, other):
            where.page("/page", PAGE)
            where.route("/cached.js", lambda h: h.send(200, "window.loaded = 1", content_type="text/javascript",
                                                      headers={"Cache-Control": "max-age=3600"}))
        root = tmp_path / "project"
        (root / "runner" / "integration").mkdir(parents=True)
        (root / "runner.json").write_text(json.dumps({"baseUrl": server.url, "video": False, "trace": "off",
                                                      "reportFolder": False, "eventsFile": False}))
        session = RunSession.create(root=root, mode="run")

        def fetched(where: object) -> int:
            return sum(1 for r in where.received if r["path"] == "/cached.js")  # type: ignore[attr-defined]

        try:
            runner = session.begin_test(session.config, spec_relative="a_spec.py", title="test_1")
            for url in (server.url, other.url):
                runner.visit(url + "/page")
                runner.set_local_storage("left", "behind")
                runner.set_session_storage("left", "behind")
                runner.set_cookie("left", "behind")
                runner.visit(url + "/page")  # served from the HTTP cache within the test
            assert (fetched(server), fetched(other)) == (1, 1)
            session.end_test()

            runner = session.begin_test(session.config, spec_relative="a_spec.py", title="test_2")
            assert runner.get_all_cookies() == []
            for url in (server.url, other.url):
                runner.visit(url + "/page")
                assert runner.get_local_storage() == {} and runner.get_session_storage() == {}
            assert (fetched(server), fetched(other)) == (2, 2)  # the cache went with the last test
            session.end_test()
        finally:
            session.close()
