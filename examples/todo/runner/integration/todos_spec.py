"""The todo list: queries, actions and retrying assertions."""

import pytest


def test_shows_the_todos_from_the_api(home):
    home.get("li.todo").first().should("have.class", "done")
    home.contains("Stub the users API").should("be.visible")
    home.get("#count").should("have.text", "1 item left")


def test_adds_a_todo(home):
    home.add_todo("Buy milk")  # a custom command of runner/support/todos.py
    home.get("li.todo").should("have.length", 3).last().should("contain", "Buy milk")
    home.get("#count").should("have.text", "2 items left")


def test_checks_a_todo_and_hides_done_ones(home):
    home.get("li.todo").eq(1).find("input").check()
    home.get("#count").should("have.text", "0 items left")
    home.get("#hide-done").check()
    home.get("li.todo").should("not.exist")


@pytest.mark.runner(viewportWidth=375, viewportHeight=667)
def test_runs_on_a_phone_sized_viewport(home):
    assert home.config("viewportWidth") == 375
    home.get("h1").should("be.visible").and_("have.text", "Todos")
    home.screenshot("phone")
