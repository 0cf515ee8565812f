"""The packaged schema: valid draft-04, every interface.md property, derived data in sync."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator

from runner.casing import camel_to_snake as snake_name
from runner.casing import snake_to_camel as camel_name
from runner.config import defaults, option_names, override_level, schema, schema_text
from runner.config.generate import render_accessors
from runner.config.reference import BEGIN_MARK, END_MARK, render_reference

REPO = Path(__file__).resolve().parents[3]

# interface.md 2.1, with python-api.md's two Python file defaults and the brief's "not given" ones.
INTERFACE_DEFAULTS: dict[str, Any] = {
    "baseUrl": None,
    "env": {},
    "numTestsKeptInMemory": 50,
    "port": None,
    "reporter": "spec",
    "reporterOptions": None,
    "slowTestThreshold": 10000,
    "quarantine": [],  # issue 27: no test is quarantined unless named
    "testFiles": "**/*.*",
    "watchForFileChanges": True,
    "defaultCommandTimeout": 4000,
    "execTimeout": 60000,
    "taskTimeout": 60000,
    "pageLoadTimeout": 60000,
    "requestTimeout": 5000,
    "responseTimeout": 30000,
    "fileServerFolder": ".",
    "fixturesFolder": "runner/fixtures",
    "integrationFolder": "runner/integration",
    "downloadsFolder": "runner/downloads",
    "componentFolder": False,
    "pluginsFile": "runner/plugins/index.py",
    "screenshotOnRunFailure": True,
    "screenshotsFolder": "runner/screenshots",
    "supportFile": "runner/support/index.py",
    "videosFolder": "runner/videos",
    "trashAssetsBeforeRuns": True,
    "videoCompression": 32,
    "video": True,
    "videoUploadOnPasses": True,
    "eventsFile": "runner/results/events.jsonl",
    "historyRuns": 30,
    "trace": "retain-on-failure",
    "updateSnapshots": None,
    "traceScreenshots": False,
    "tracesFolder": "runner/traces",
    "reportFolder": "runner/report",
    "chromeWebSecurity": True,
    "userAgent": None,
    "blockHosts": None,
    "modifyObstructiveCode": True,
    "viewportHeight": 660,
    "viewportWidth": 1000,
    "animationDistanceThreshold": 5,
    "waitForAnimations": True,
    "scrollBehavior": "top",
    "projectId": None,
    "nodeVersion": "system",
    "experimentalInteractiveRunEvents": False,
    "experimentalSourceRewriting": False,
    "testIsolation": True,
    "experimentalSessionSupport": False,
    "experimentalFetchPolyfill": False,
    "experimentalStudio": False,
    "selectorPriority": ["data-cy", "data-test", "data-testid", "id", "name", "class", "tag", "attributes",
                         "nth-child"],
    "retries": {"runMode": 0, "openMode": 0},
    "includeShadowDom": False,
    "clientCertificates": [],
    "strictNetwork": False,
    "networkConditions": None,
    "redact": {"headers": [], "queryParams": [], "bodyKeys": [], "showEnv": [], "traceBodies": True},
    "webServer": None,
}

ANY = {
    "animationDistanceThreshold", "baseUrl", "blockHosts", "defaultCommandTimeout", "env",
    "execTimeout", "includeShadowDom", "numTestsKeptInMemory", "pageLoadTimeout", "reporter",
    "reporterOptions", "requestTimeout", "responseTimeout", "retries", "screenshotOnRunFailure",
    "scrollBehavior", "slowTestThreshold", "taskTimeout", "viewportHeight", "viewportWidth",
    "waitForAnimations", "trace", "traceScreenshots", "strictNetwork", "testIsolation",
    "networkConditions",
}  # fmt: skip


def test_schema_is_valid_draft4() -> None:
    document = schema()
    assert document["$schema"] == "http://json-schema.org/draft-04/schema#"
    Draft4Validator.check_schema(document)
    assert document["additionalProperties"] is False


def test_schema_text_is_the_pretty_schema() -> None:
    assert json.loads(schema_text()) == schema()
    assert schema_text() == json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def test_schema_returns_a_copy() -> None:
    schema()["properties"].clear()
    assert "baseUrl" in schema()["properties"]


def test_every_interface_property_with_its_default() -> None:
    assert set(option_names()) == set(INTERFACE_DEFAULTS) | {"ignoreTestFiles"}
    values = defaults()
    for name, default in INTERFACE_DEFAULTS.items():
        assert values[name] == default, name
        assert type(values[name]) is type(default), name


def test_ignore_test_files_is_not_given_by_default() -> None:
    assert defaults()["ignoreTestFiles"] is None


def test_every_option_is_described_typed_and_valid_by_default() -> None:
    document = schema()
    validator = Draft4Validator(document)
    for name in option_names():
        prop = document["properties"][name]
        assert prop["description"] and prop["type"] and "default" in prop, name
        assert prop["x-override"] in ("any", "never"), name
        assert prop["x-expected"], name
        assert not list(validator.iter_errors({name: prop["default"]})), name


def test_override_levels() -> None:
    for name in option_names():
        assert override_level(name) == ("any" if name in ANY else "never"), name


def test_blocks_reuse_every_option_and_do_not_nest() -> None:
    document = schema()
    block = document["definitions"]["testingTypeOptions"]
    assert block["additionalProperties"] is False
    assert set(block["properties"]) == set(option_names())
    for name, prop in block["properties"].items():
        assert prop == {"$ref": f"#/properties/{name}"}
    for key in ("e2e", "component"):
        assert document["properties"][key]["allOf"][0] == {"$ref": "#/definitions/testingTypeOptions"}
        assert document["properties"][key]["default"] == {}
    assert len(document["properties"]["e2e"]["allOf"]) == 1
    # the one narrowing of a block: component tests always start clean, as in the original
    component_only = document["properties"]["component"]["allOf"][1:]
    assert component_only == [{"properties": {"testIsolation": {
        "enum": [True],
        "x-expected": "true (component tests always start clean; only e2e tests can turn testIsolation off)"}}}]


def test_dollar_schema_is_allowed_but_not_an_option() -> None:
    assert "$schema" in schema()["properties"]
    assert "$schema" not in option_names()


@pytest.mark.parametrize(
    ("camel", "snake"),
    [("baseUrl", "base_url"), ("viewportWidth", "viewport_width"), ("env", "env"),
     ("experimentalInteractiveRunEvents", "experimental_interactive_run_events")],
)  # fmt: skip
def test_name_conversions(camel: str, snake: str) -> None:
    assert snake_name(camel) == snake
    assert camel_name(snake) == camel


def test_generated_accessors_are_up_to_date() -> None:
    path = REPO / "src" / "runner" / "config" / "accessors.py"
    assert path.read_text(encoding="utf-8") == render_accessors(), (
        "accessors.py is stale: run `python -m runner.config.generate`"
    )


def test_docs_contain_exactly_the_generated_reference() -> None:
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    start = text.index(BEGIN_MARK) + len(BEGIN_MARK)
    generated = text[start : text.index(END_MARK)]
    assert generated == "\n" + render_reference(), (
        "docs/configuration.md is stale: run `python -m runner.config.generate`"
    )


def test_reference_lists_every_option_with_default_and_level() -> None:
    table = render_reference()
    for name in option_names():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
        assert f"`{json.dumps(defaults()[name])}`" in row
        assert f"| {override_level(name)} |" in row
