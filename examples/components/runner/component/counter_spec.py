"""A JavaScript component, loaded as an ES module from the front end's dev server."""


def test_the_counter_counts(runner):
    counter = runner.mount('<div data-counter data-start="2"></div>', modules=["counter.js"])
    counter.find("button").should("have.text", "count: 2").click()
    counter.find("button").should("have.text", "count: 3")


def test_requests_of_a_component_are_intercepted(runner):
    runner.intercept("GET", "/api/start", {"start": 40}).as_("start")
    counter = runner.mount(
        '<div id="c"></div><script type="module">'
        'import { mountCounter } from "./counter.js";'
        'const { start } = await (await fetch("/api/start")).json();'
        'mountCounter(document.getElementById("c"), start);'
        "</script>")
    runner.wait("@start")
    counter.find("button").should("have.text", "count: 40")
