"""click, type, clear, check, select, trigger: user actions and their actionability checks."""

from __future__ import annotations

import pytest

from runner import CommandError, UsageError


def test_type_and_submit_with_enter(runner):
    runner.visit("/forms.html")
    runner.get("#name").type("Grace{enter}")
    runner.get("#out").should("have.text", "sent:Grace")


def test_type_special_sequences_and_clear(runner):
    runner.visit("/forms.html")
    runner.get("#name").type("abc{backspace}{backspace}x").should("have.value", "ax")
    runner.get("#name").type("{selectall}new").should("have.value", "new")
    runner.get("#name").clear().should("have.value", "")
    runner.get("#name").type("{{}braces}").should("have.value", "{braces}")
    with pytest.raises(UsageError) as caught:
        runner.get("#name").type("{nope}")
    assert "{enter}" in str(caught.value)


def test_click_counts_and_dblclick(runner):
    runner.visit("/forms.html")
    runner.get("#counter").click()
    runner.get("#counter").should("have.text", "clicked 1")
    runner.get("#counter").dblclick()
    runner.get("#counter").should("have.text", "clicked 3")
    runner.get("#counter").rightclick()
    # each is told by the name the test called, in the command log as in the report's rows
    assert [(e.name, e.message) for e in runner._ctx.log if e.name.endswith("click")] == [
        ("click", "get('#counter')"), ("dblclick", "get('#counter')"), ("rightclick", "get('#counter')")]


def test_click_on_several_elements_needs_multiple(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("li.item").click()
    assert "multiple=True" in str(caught.value)
    runner.get("li.item").click(multiple=True)


def test_click_waits_for_a_disabled_button_then_fails_clearly(runner):
    runner.visit("/forms.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#off").click(timeout=300)
    assert "is disabled" in str(caught.value)


def test_click_refuses_a_covered_element_unless_forced(runner):
    runner.visit("/forms.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#covered").click(timeout=300)
    assert "covered by another element" in str(caught.value)
    runner.get("#overlay").click()  # removes itself
    runner.get("#covered").click()
    runner.get("#out").should("have.text", "covered clicked")


def test_click_waits_for_animations_to_settle(runner):
    runner.visit("/moving.html")
    runner.get("#mover").click()
    runner.get("#mover").should("have.text", "caught at 400")


def test_an_element_creeping_below_the_threshold_is_clicked_at_once(runner):
    runner.visit("/creeping.html")
    runner.get("#creeper").click(timeout=1500)  # Playwright's own stability wait never ends here
    runner.get("#creeper").should("have.text", "caught")


@pytest.mark.runner(animation_distance_threshold=0)
def test_a_zero_threshold_counts_any_motion(runner):
    runner.visit("/creeping.html")
    with pytest.raises(CommandError, match="still animating"):
        runner.get("#creeper").click(timeout=300)


@pytest.mark.runner(wait_for_animations=False)
def test_wait_for_animations_false_acts_on_a_moving_element_at_once(runner):
    runner.visit("/creeping.html")
    runner.get("#runner").click(timeout=1500)  # moving 100 px a second: no wait for it to stop
    runner.get("#runner").should("contain", "caught at")


def test_check_uncheck_radio_and_select(runner):
    runner.visit("/forms.html")
    runner.get("#agree").check().should("be.checked")
    runner.get("#agree").uncheck().should("not.be.checked")
    runner.get("input[name=size]").check("l")
    runner.get("#large").should("be.checked")
    runner.get("#color").select("Green").should("have.value", "g")
    runner.get("#color").select("b").should("have.value", "b")
    with pytest.raises(CommandError):
        runner.get("#name").check()


def test_trigger_dispatches_events(runner):
    runner.visit("/forms.html")
    runner.get("#hover").trigger("mouseover").should("have.text", "hovered")


def test_hidden_elements_cannot_be_clicked(runner):
    runner.visit("/index.html")
    with pytest.raises(CommandError) as caught:
        runner.get("#hidden-box").click(timeout=300)
    assert "not visible" in str(caught.value)
