"""type(text, log=False): the text is a secret of the run, found as the field and the page get it."""

from __future__ import annotations


def test_a_secret_typed_around_special_keys_is_hidden_as_the_field_gets_it(runner):
    # the usual login: the password and {enter}; the form sends the password alone, and
    # Playwright's keyboard action (in the trace) types each run of plain text on its own
    runner.visit("/forms.html")
    runner.get("#name").type("{selectall}S3cret!pw{{}x{enter}", log=False)
    runner.get("#out").should("have.text", "sent:S3cret!pw{x")
    hide = runner._ctx.redactor.text
    assert hide("sent:S3cret!pw{x") == "sent:[redacted]"
    assert hide("name=S3cret%21pw%7Bx&a=1") == "name=[redacted]&a=1"
    assert hide('{"text": "S3cret!pw"}') == '{"text": "[redacted]"}'
