"""The end-to-end spec of this project: `runner run` runs it, `runner run --component` never does."""


def test_the_home_page(runner):
    runner.visit("/")
    runner.get("h1").should("have.text", "Team")
    assert runner.config("viewportWidth") == 1000  # the component block does not apply here
