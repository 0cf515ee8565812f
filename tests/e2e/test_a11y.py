"""runner.check_a11y(): axe-core run in a real Chromium on pages with known violations.

The site's a11y.html has three known violations in its #broken section (an image without alt,
an input without a label, faint grey text) and none in #clean; a11y-clean.html has none in its
own document and one (an input without a label) in the iframe it embeds.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runner import CommandError, UsageError
from runner.events import A11yChecked

pytestmark = pytest.mark.e2e

KNOWN = {"image-alt": "critical", "label": "critical", "color-contrast": "serious"}


@pytest.fixture
def checked(request: pytest.FixtureRequest) -> Iterator[list[A11yChecked]]:
    """The a11y.checked events of the test, as the run's bus tells them."""
    from runner.plugin import _SESSION_KEY

    seen: list[A11yChecked] = []
    unsubscribe = request.config.stash[_SESSION_KEY].bus.subscribe(seen.append, (A11yChecked,))
    try:
        yield seen
    finally:
        unsubscribe()


def _log(runner) -> list[str]:
    return [entry.line for entry in runner._ctx.log]


def test_known_violations_fail_each_named_in_the_message_the_log_and_the_event(runner, checked, told):
    runner.visit("/a11y.html")
    with pytest.raises(CommandError) as info:
        runner.check_a11y()
    message = str(info.value)
    assert message.startswith("runner.check_a11y(): 3 accessibility violations (impact 'minor' and up) "
                              "in the document:")
    for rule, impact in KNOWN.items():
        assert f"{rule} ({impact}): " in message
        assert "https://dequeuniversity.com/rules/axe/" in message and f"/{rule}?application=axeAPI" in message
    assert '#logo <img src="data:image/gif;base64,' in message and "#nameless <input" in message
    assert "Images must have alternative text" in message and "Form elements must have labels" in message
    (event,) = checked
    assert event.scope is None and event.impact == "minor" and event.warn is None and event.axe.startswith("4.")
    assert {v["rule"]: (v["impact"], v["outcome"]) for v in event.violations} == {
        rule: (impact, "failed") for rule, impact in KNOWN.items()}
    contrast = next(v for v in event.violations if v["rule"] == "color-contrast")
    assert contrast["nodes"][0]["target"] == "#faint" and contrast["help_url"].startswith("https://")
    assert "contrast" in contrast["nodes"][0]["summary"]
    # the event names its command, which ended failed with the summary as what it found
    started = next(e for e in told if e.kind == "command.started" and e.name == "check_a11y")
    ended = next(e for e in told if e.kind == "command.ended" and e.id == started.id)
    assert event.command == started.id and ended.state == "failed"
    assert ended.result == "the document: 3 violations (3 failed)"
    log = _log(runner)
    assert "check_a11y: the document: 3 violations (3 failed)" in log
    assert any(line.startswith("a11y: image-alt (critical): Images must have alternative text — #logo <img")
               and line.endswith("/image-alt?application=axeAPI") for line in log)


def test_a_clean_page_passes_and_says_so(runner, checked):
    runner.visit("/a11y-clean.html")
    assert runner.check_a11y() == []
    assert checked[0].violations == [] and checked[0].ignored == 0
    assert "check_a11y: the document: no violations" in _log(runner)


def test_a_subject_scopes_the_check_and_is_waited_for(runner, checked):
    runner.visit("/a11y.html")
    assert runner.check_a11y("#clean") == []
    with pytest.raises(CommandError):
        runner.check_a11y(runner.get("#broken").find("p"))
    assert [v["rule"] for v in checked[-1].violations] == ["color-contrast"]  # only #broken's <p>: its contrast
    with pytest.raises(CommandError) as info:
        runner.check_a11y(runner.get("#broken"))
    assert "3 accessibility violations (impact 'minor' and up) in get('#broken'):" in str(info.value)
    assert checked[-1].scope == "get('#broken')"
    # a subject that never appears fails as any command's subject does, after its timeout
    with pytest.raises(CommandError, match=r"Timed out retrying after \d+ms: get\('#nowhere'\) to exist"):
        runner.check_a11y("#nowhere", timeout=300)


def test_a_frame_subject_checks_the_frames_document(runner, checked):
    runner.visit("/a11y-clean.html")
    assert runner.check_a11y() == []  # the page's own document: its iframe's content is not in it
    with pytest.raises(CommandError) as info:
        runner.check_a11y(runner.frame("#framed"))
    assert "1 accessibility violation (impact 'minor' and up) in frame('#framed'):" in str(info.value)
    assert "#framed-nameless <input" in str(info.value)
    assert [v["rule"] for v in checked[-1].violations] == ["label"]


def test_rules_switch_off_run_only_and_name_what_axe_does_not_know(runner, checked):
    runner.visit("/a11y.html")
    with pytest.raises(CommandError) as info:
        runner.check_a11y(rules={"color-contrast": False})
    assert "2 accessibility violations" in str(info.value) and "color-contrast" not in str(info.value)
    with pytest.raises(CommandError) as info:
        runner.check_a11y(rules=["image-alt"])
    assert [v["rule"] for v in checked[-1].violations] == ["image-alt"]
    with pytest.raises(CommandError):
        runner.check_a11y(rules=["cat.color"])  # a tag: the rules it holds
    assert [v["rule"] for v in checked[-1].violations] == ["color-contrast"]
    # target-size is off by default: named by its id (alone, among tags, or switched on) it runs
    with pytest.raises(CommandError):
        runner.check_a11y(rules=["target-size"])
    assert [(v["rule"], v["elements"]) for v in checked[-1].violations] == [("target-size", 2)]
    with pytest.raises(CommandError):
        runner.check_a11y(rules=["cat.color", "target-size"])
    assert [v["rule"] for v in checked[-1].violations] == ["color-contrast", "target-size"]
    with pytest.raises(CommandError):
        runner.check_a11y(rules={"target-size": True})
    assert sorted(v["rule"] for v in checked[-1].violations) == sorted([*KNOWN, "target-size"])
    with pytest.raises(UsageError, match=r"knows no rule id 'colour-contrast' \(did you mean 'color-contrast'\?\)"):
        runner.check_a11y(rules={"colour-contrast": False})
    with pytest.raises(UsageError, match=r"found the string 'image-alt'\. Write rules=\['image-alt'\]"):
        runner.check_a11y(rules="image-alt")
    with pytest.raises(UsageError, match=r"maps a rule id to True \(on\) or False \(off\); found 'label': 'off'"):
        runner.check_a11y(rules={"label": "off"})
    with pytest.raises(UsageError, match=r"found an empty list"):
        runner.check_a11y(rules=[])


def test_the_impact_threshold_counts_only_what_reaches_it(runner, checked):
    runner.visit("/a11y.html")
    with pytest.raises(CommandError) as info:
        runner.check_a11y(impact="critical")
    assert "2 accessibility violations (impact 'critical' and up)" in str(info.value)
    assert "color-contrast" not in str(info.value)
    assert checked[-1].ignored == 1 and checked[-1].impact == "critical"
    assert "check_a11y: the document: 2 violations (2 failed), 1 under the thresholds not counted" in _log(runner)
    assert runner.check_a11y("#broken p", impact="critical") == []
    with pytest.raises(UsageError, match=r"impact must be one of 'minor', 'moderate', 'serious', 'critical'; "
                                         r"found 'high'"):
        runner.check_a11y(impact="high")


def test_warn_logs_the_violations_without_failing(runner, checked):
    runner.visit("/a11y.html")
    found = runner.check_a11y(warn=True)
    assert sorted(v["rule"] for v in found) == sorted(KNOWN) and {v["outcome"] for v in found} == {"warned"}
    assert checked[-1].impact is None and checked[-1].warn == "minor"
    log = _log(runner)
    assert "check_a11y: the document: 3 violations (3 warned)" in log
    assert sum(line.startswith("warning: ") for line in log) == 3
    # per impact: what reaches `impact` fails, what reaches `warn` only warns
    with pytest.raises(CommandError) as info:
        runner.check_a11y(impact="critical", warn="serious")
    assert "2 accessibility violations" in str(info.value) and "color-contrast" not in str(info.value)
    assert {v["rule"]: v["outcome"] for v in checked[-1].violations} == {
        "image-alt": "failed", "label": "failed", "color-contrast": "warned"}
    with pytest.raises(UsageError, match=r"warn='critical' is the lowest impact warned of, so it must be below "
                                         r"impact='serious'"):
        runner.check_a11y(impact="serious", warn="critical")


def test_a_bad_subject_is_refused(runner):
    runner.visit("/a11y-clean.html")
    with pytest.raises(UsageError, match=r"subject must be a selector or a subject .*; found int 42"):
        runner.check_a11y(42)


def test_a_check_before_any_visit_is_refused_not_run_on_the_blank_page(runner, checked):
    # the test's page is about:blank until it visits: axe would find an empty document's
    # violations (no title, no lang, no main), which say nothing about the app
    with pytest.raises(UsageError, match=r"check_a11y\(\): the page is at about:blank: nothing was visited yet.* runner\.visit"):
        runner.check_a11y()
    assert checked == []


def test_a_page_not_written_for_it_is_checked_as_a_new_user_would(runner, checked):
    # the site's forms page (written for the form commands): unlabeled controls, no landmarks
    runner.visit("/forms.html")
    found = {v["rule"]: v for v in runner.check_a11y(warn=True)}
    assert found["label"]["impact"] == "critical" and found["label"]["elements"] == 5
    assert found["html-has-lang"]["impact"] == "serious"
    region = found["region"]
    assert region["elements"] == 7 and len(region["nodes"]) == 7
    # the log names five elements of a violation and counts the rest
    line = next(line for line in _log(runner) if line.startswith("warning: region (moderate)"))
    assert line.count(" <") == 5 and "; and 2 more — https://" in line
    with pytest.raises(CommandError) as info:
        runner.check_a11y(impact="critical")
    assert "label (critical)" in str(info.value) and "select-name (critical)" in str(info.value)
    assert checked[-1].ignored == len(found) - 2


INNER = ('<!doctype html><html lang="en"><head><title>Inner</title></head><body><main><h1>Inner</h1>'
         '<input type="text" id="inner-nameless"></main></body></html>')


def test_a_frame_of_another_origin_and_a_strict_csp_page_are_checked(runner, server, checked):
    server.page("/inner.html", INNER)
    strict = f"default-src 'none'; img-src data:; frame-src http://localhost:{server.port}"
    server.route("/outer.html", lambda h: h.send(200, (
        '<!doctype html><html lang="en"><head><title>Outer</title></head><body><main><h1>Outer</h1>'
        f'<iframe id="other" title="Other origin" src="http://localhost:{server.port}/inner.html"></iframe>'
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="bare"></main></body></html>'),
        headers={"Content-Security-Policy": strict}, content_type="text/html"))
    runner.visit(f"http://127.0.0.1:{server.port}/outer.html")
    with pytest.raises(CommandError) as info:
        runner.check_a11y()  # the page's CSP allows no script: axe is put in all the same
    assert [v["rule"] for v in checked[-1].violations] == ["image-alt"]
    assert "#bare <img" in str(info.value)
    other = runner.frame("#other")
    other.get("#inner-nameless").should("exist")  # the frame's document loaded: the state to check
    with pytest.raises(CommandError) as info:
        runner.check_a11y(other)
    assert "#inner-nameless <input" in str(info.value) and [v["rule"] for v in checked[-1].violations] == ["label"]


def test_a_popups_runner_checks_the_popups_page(runner, checked):
    runner.visit("/tabs.html")
    with runner.popup() as tab:
        runner.get("#receipt-link").click()
    tab.value.get("h1").should("have.text", "Receipt")
    found = {v["rule"]: v for v in tab.value.check_a11y(warn=True)}
    assert [n["html"] for n in found["region"]["nodes"]][0] == "<h1>Receipt</h1>"  # the popup's, not the test's page
    assert "tab[1] check_a11y: the document: 3 violations (3 warned)" in _log(runner)
