"""A server-rendered component: a Jinja2 template, rendered by Jinja2 and mounted by runner."""

from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
jinja = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)


def render_card(**person):
    return jinja.get_template("card.html.j2").render(person=person)


def test_an_admin_card_shows_the_badge(runner):
    card = runner.mount(render_card(name="Ada", role="analyst", admin=True), stylesheets=["card.css"])
    card.find("h2").should("have.text", "Ada").and_("have.css", "color", "rgb(40, 90, 200)")
    card.find(".badge").should("have.text", "admin")


def test_a_name_is_text_never_markup(runner):
    card = runner.mount(render_card(name="<b>Bob</b>", role="", admin=False))
    card.find("h2").should("have.text", "<b>Bob</b>")
    card.find(".badge").should("not.exist")


def test_the_component_block_applies(runner):
    assert runner.config("viewportWidth") == 480
