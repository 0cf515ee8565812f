"""runner.mount(): markup (a Jinja2 template here) rendered into a page of its own, with the
project's stylesheets and scripts, and every command and intercept working on it."""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest
from tests.support.page_fetch import fetch

from runner import CommandError, UsageError

COMPONENTS = Path(__file__).parent / "site" / "pages" / "components"


def render_card(**values) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(COMPONENTS), autoescape=True)
    return env.get_template("card.html.j2").render(**values)


def test_a_jinja2_template_is_mounted_with_the_projects_assets(runner):
    card = runner.mount(render_card(name="Ada <Lovelace>", role="analyst", skills=["maths", "poetry"]),
                        stylesheets=["components/card.css"], scripts=["components/counter.js"])
    card.should("be.visible")
    card.find("h2").should("have.text", "Ada <Lovelace>")  # escaped by Jinja2, shown as text
    card.find("h2").should("have.css", "color", "rgb(0, 0, 255)")  # the stylesheet loaded
    card.find("li").should("have.length", 2)
    card.find("button").click().should("have.text", "clicked 1")  # the script ran
    assert runner.url().startswith("http://127.0.0.1:") and "/__runner__/mount/" in runner.url()


def test_intercept_works_on_a_mounted_component(runner):
    runner.intercept("GET", "/api/user", {"name": "Grace"}).as_("user")
    runner.mount('<p id="who">...</p><script>fetch("/api/user").then(r => r.json())'
                 '.then(u => { document.getElementById("who").textContent = u.name; });</script>')
    runner.get("#who").should("have.text", "Grace")
    assert runner.wait("@user").response.body == {"name": "Grace"}
    assert json.loads(fetch(runner, "/api/user")["text"]) == {"name": "Grace"}


def test_each_mount_replaces_the_last(runner):
    runner.mount("<p class='one'>one</p>")
    runner.mount("<p class='two'>two</p>")
    runner.get(".two").should("exist")
    runner.get(".one").should("not.exist")


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda r: r.mount(42), "found int: 42"),
        (lambda r: r.mount("<p></p>", stylesheets=[1]), "stylesheets must be a list of URL strings"),
    ],
)
def test_misuse_says_what_was_expected(runner, call, says):
    with pytest.raises(UsageError, match=says):
        call(runner)


def test_a_mount_that_cannot_load_says_mount_not_visit(runner):
    runner.network_conditions(offline=True)
    with pytest.raises(CommandError, match=r"^runner\.mount\(\) failed trying to load") as failed:
        runner.mount("<p>hi</p>")
    assert "runner.visit()" not in str(failed.value) and "fail_on_status_code" not in str(failed.value)
