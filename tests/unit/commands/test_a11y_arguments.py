"""check_a11y's arguments read without a browser: the rules' shapes, the thresholds, the
violations sorted into failed, warned and not counted, and the elements' HTML shortened."""

from __future__ import annotations

from typing import Any

import pytest

from runner.commands.a11y import _sorted, _thresholds, plan_of, shorten_html
from runner.errors import UsageError


@pytest.mark.parametrize(("rules", "plan"), [
    (None, {}),
    (["image-alt", "wcag2aa"], {"only": ["image-alt", "wcag2aa"]}),
    (("label",), {"only": ["label"]}),
    ({"color-contrast": False, "region": True}, {"rules": {"color-contrast": False, "region": True}}),
])
def test_the_shapes_of_rules(rules: Any, plan: dict[str, Any]) -> None:
    assert plan_of(rules) == plan


@pytest.mark.parametrize(("rules", "message"), [
    ("image-alt", "found the string 'image-alt'. Write rules=['image-alt'] to run only it, or "
                  "rules={'image-alt': False} to switch it off."),
    ([], "found an empty list"),
    (["label", 3], "found 3 in it"),
    ({"label": "off"}, "found 'label': 'off'"),
    ({"label": 1}, "found 'label': 1"),
    (42, "found int 42"),
])
def test_a_bad_shape_is_named(rules: Any, message: str) -> None:
    with pytest.raises(UsageError) as info:
        plan_of(rules)
    assert message in str(info.value)


@pytest.mark.parametrize(("impact", "warn", "limits"), [
    ("minor", None, ("minor", None)),
    ("serious", False, ("serious", None)),
    ("serious", True, (None, "serious")),
    ("critical", "moderate", ("critical", "moderate")),
])
def test_the_thresholds(impact: str, warn: Any, limits: tuple[str | None, str | None]) -> None:
    assert _thresholds(impact, warn) == limits


@pytest.mark.parametrize(("impact", "warn", "message"), [
    ("high", None, "impact must be one of 'minor', 'moderate', 'serious', 'critical'; found 'high'."),
    (None, None, "found None"),
    ("minor", "loud", "warn must be one of"),
    ("serious", "serious", "warn='serious' is the lowest impact warned of, so it must be below impact='serious'"),
])
def test_bad_thresholds_are_named(impact: Any, warn: Any, message: str) -> None:
    with pytest.raises(UsageError) as info:
        _thresholds(impact, warn)
    assert message in str(info.value)


def _violation(rule: str, impact: str | None, nodes: int = 1) -> dict[str, Any]:
    return {"id": rule, "impact": impact, "help": f"help {rule}", "helpUrl": f"https://example.test/{rule}",
            "nodes": [{"target": f"#e{i}", "html": f"<b id='e{i}'>x</b>", "summary": "fix"} for i in range(nodes)]}


def test_violations_are_sorted_failed_first_then_by_impact() -> None:
    raw = [_violation("a", "minor"), _violation("b", "critical"), _violation("c", "moderate"),
           _violation("d", "serious", nodes=25), _violation("e", None)]
    counted, ignored = _sorted(raw, "serious", "moderate")
    assert [(v["rule"], v["outcome"]) for v in counted] == [("b", "failed"), ("d", "failed"), ("c", "warned")]
    assert ignored == 2  # minor, and the one axe gave no impact (the least)
    many = counted[1]
    assert many["elements"] == 25 and len(many["nodes"]) == 20 and many["help_url"] == "https://example.test/d"
    counted, ignored = _sorted(raw, None, "minor")  # warn=True
    assert {v["outcome"] for v in counted} == {"warned"} and len(counted) == 5 and ignored == 0


def test_html_is_one_line_and_cut() -> None:
    assert shorten_html("<p>\n  two\n  lines</p>") == "<p> two lines</p>"
    long = "<p>" + "x" * 400 + "</p>"
    assert shorten_html(long) == long[:159] + "…" and len(shorten_html(long)) == 160
