"""``retries``: its validation messages (the original's words), the override refused per test,
and the retry strategies' decision after each attempt, as tables."""

from __future__ import annotations

import pytest

from runner.config import load_config
from runner.config.retries import ALWAYS_FAIL, PASS_ON_THRESHOLD, RetryPolicy
from runner.config.validate import problems_of
from runner.errors import ConfigError

PHRASE = ('a positive number or null or an object with keys "openMode" and "runMode" with values of numbers, '
          'booleans, or nulls, or experimental configuration with key "experimentalStrategy" with value '
          '"detect-flake-but-always-fail" or "detect-flake-and-pass-on-threshold" and key "experimentalOptions" '
          'to provide a valid configuration for your selected strategy')


def _strategy(name: str, **more: object) -> dict[str, object]:
    return {"experimentalStrategy": name, "runMode": True, "openMode": False, **more}


@pytest.mark.parametrize("value", [
    0, 3, None, {}, {"runMode": 2}, {"runMode": None, "openMode": 1}, {"runMode": 1, "deferred": True},
    _strategy(PASS_ON_THRESHOLD), _strategy(ALWAYS_FAIL),
    _strategy(PASS_ON_THRESHOLD, experimentalOptions={"maxRetries": 3, "passesRequired": 3}),
    _strategy(PASS_ON_THRESHOLD, experimentalOptions={"maxRetries": 5}),
    _strategy(ALWAYS_FAIL, experimentalOptions={"maxRetries": 1, "stopIfAnyPassed": True}, deferred=False),
])
def test_valid_retries_values(value):
    assert problems_of({"retries": value}) == []
    assert problems_of({"e2e": {"retries": value}}) == []


@pytest.mark.parametrize(("value", "reason"), [
    (-1, None), ("2", None), (True, None), (1.5, None),  # not an object: the message names it whole
    ({"runMode": True, "openMode": False},  # booleans only with a strategy
     "`runMode` must be a whole number from 0 to 2147483647 or null, found true"),
    ({"runMode": -1}, "`runMode` must be a whole number from 0 to 2147483647 or null, found -1"),
    ({"runMode": 1, "attempts": 2}, "unknown key `attempts`"),
    ({"runMode": 2, "deferred": True, "extra": 1}, "unknown key `extra`"),
    ({"runMode": 1, "deferred": "yes"}, '`deferred` must be a boolean, found "yes"'),
    ({"experimentalOptions": {"maxRetries": 2}}, "`experimentalOptions` needs `experimentalStrategy`"),
    (_strategy("retry-until-green"),
     f'`experimentalStrategy` must be "{PASS_ON_THRESHOLD}" or "{ALWAYS_FAIL}", found "retry-until-green"'),
    ({"experimentalStrategy": ALWAYS_FAIL, "runMode": 2, "openMode": False},  # modes must be booleans
     "`runMode` must be a boolean with `experimentalStrategy`, found 2"),
    ({"experimentalStrategy": ALWAYS_FAIL, "runMode": True},  # both modes must be set
     "`openMode` is required with `experimentalStrategy`: true or false"),
    (_strategy(PASS_ON_THRESHOLD, experimentalOptions={"maxRetries": 2, "stopIfAnyPassed": True}),
     f"unknown key `experimentalOptions.stopIfAnyPassed` for {PASS_ON_THRESHOLD}"),
    (_strategy(ALWAYS_FAIL, experimentalOptions={"passesRequired": 1}),
     f"unknown key `experimentalOptions.passesRequired` for {ALWAYS_FAIL}"),
    (_strategy(ALWAYS_FAIL, experimentalOptions={"maxRetries": 0}), "`maxRetries` must be 1 or more, found 0"),
    (_strategy(ALWAYS_FAIL, experimentalOptions={"maxRetries": 1.5}),
     "`maxRetries` must be a whole number from 1 to 2147483647, found 1.5"),
    (_strategy(ALWAYS_FAIL, experimentalOptions={"stopIfAnyPassed": "yes"}),
     '`stopIfAnyPassed` must be a boolean, found "yes"'),
    (_strategy(PASS_ON_THRESHOLD, experimentalOptions={"passesRequired": 0}),
     "`passesRequired` must be 1 or more, found 0"),
    (_strategy(PASS_ON_THRESHOLD, experimentalOptions="fast"), '`experimentalOptions` must be an object, found "fast"'),
    (_strategy(PASS_ON_THRESHOLD, deferred=1), "`deferred` must be a boolean, found 1"),
])
def test_a_bad_retries_value_is_one_message_in_the_originals_words_with_the_reason(value, reason):
    (problem,) = problems_of({"retries": value})
    assert problem.path == "retries"
    assert problem.text.startswith(f"Expected `retries` to be {PHRASE} (numbers from 0 to 2147483647). "
                                   "Instead the value was: `")
    if reason is None:
        assert problem.text.endswith("`")
    else:
        assert problem.text.endswith(f"` ({reason}).")
    (in_block,) = problems_of({"e2e": {"retries": value}})
    assert in_block.text.replace("`e2e.retries`", "`retries`") == problem.text


@pytest.mark.parametrize(("options", "found"), [
    ({"maxRetries": 2, "passesRequired": 3}, "(3) cannot be more than `experimentalOptions.maxRetries` (2)"),
    ({"maxRetries": 1}, "(2) cannot be more than `experimentalOptions.maxRetries` (1)"),  # the default 2 passes
])
def test_passes_required_cannot_exceed_max_retries(options, found):
    (problem,) = problems_of({"component": {"retries": _strategy(PASS_ON_THRESHOLD, experimentalOptions=options)}})
    assert problem.path == "component.retries"
    assert problem.text.startswith(f"Expected `component.retries` to be {PHRASE}")
    assert f"(`experimentalOptions.passesRequired` {found})." in problem.text


def test_the_strategy_cannot_be_overridden_per_suite_or_test(tmp_path):
    config = load_config(tmp_path, config_file="false")
    for level in ("suite", "test"):
        with pytest.raises(ConfigError) as caught:
            config.merged({"retries": _strategy(ALWAYS_FAIL)}, source=level, origin="the runner mark on t",
                          level=level)
        assert "The `retries.experimentalStrategy` configuration can only be set globally" in str(caught.value)
        assert str(caught.value).count("\n- ") == 1  # one message, not the schema's too
    # a number or the modes' numbers may be set per test, over a global strategy
    strategy = config.merged({"retries": _strategy(ALWAYS_FAIL)}, source="cli", origin="--config")
    assert strategy.retry_policy("runMode").strategy == ALWAYS_FAIL
    plain = strategy.merged({"retries": 1}, source="test", origin="the runner mark on t", level="test")
    assert plain.retry_policy("runMode") == RetryPolicy(retries=1)


def test_the_options_only_key_is_named(tmp_path):
    config = load_config(tmp_path, config_file="false")
    with pytest.raises(ConfigError, match=r"`retries\.experimentalOptions` configuration can only be set globally"):
        config.merged({"retries": {"experimentalOptions": {"maxRetries": 2}, "runMode": 1}}, source="test",
                      origin="the runner mark on t", level="test")


@pytest.mark.parametrize(("value", "mode", "policy"), [
    (3, "runMode", RetryPolicy(retries=3)),
    (None, "openMode", RetryPolicy(retries=0)),
    ({"runMode": 2, "deferred": True}, "runMode", RetryPolicy(retries=2, deferred=True)),
    ({"runMode": 2}, "openMode", RetryPolicy(retries=0)),
    (_strategy(PASS_ON_THRESHOLD), "runMode", RetryPolicy(retries=2, strategy=PASS_ON_THRESHOLD, passes_required=2)),
    (_strategy(PASS_ON_THRESHOLD), "openMode", RetryPolicy(retries=0)),  # openMode false: off
    (_strategy(ALWAYS_FAIL, experimentalOptions={"maxRetries": 4, "stopIfAnyPassed": True}), "runMode",
     RetryPolicy(retries=4, strategy=ALWAYS_FAIL, stop_if_any_passed=True)),
])
def test_the_policy_of_each_shape(value, mode, policy):
    assert RetryPolicy.of(value, mode) == policy


def _play(policy: RetryPolicy, outcomes: str) -> tuple[str, str | None, str | None]:
    """Run attempts whose outcomes are ``outcomes`` ("F" failed, "P" passed) until the policy
    stops: the attempts it ran, its outcome and its words."""
    passed = failed = 0
    for ran, outcome in enumerate(outcomes, 1):
        passed, failed = passed + (outcome == "P"), failed + (outcome == "F")
        verdict = policy.decide(passed, failed)
        if not verdict.more:
            return outcomes[:ran], verdict.outcome, verdict.text
    raise AssertionError(f"the policy wanted more than {outcomes!r}")


THRESHOLD_2_OF_3 = RetryPolicy(retries=3, strategy=PASS_ON_THRESHOLD, passes_required=2)


@pytest.mark.parametrize(("policy", "outcomes", "expected"), [
    (RetryPolicy(retries=2), "P", ("P", "passed", None)),
    (RetryPolicy(retries=2), "FFP", ("FFP", "passed", None)),
    (RetryPolicy(retries=2), "FFF", ("FFF", "failed", None)),
    (RetryPolicy(retries=0), "F", ("F", "failed", None)),
    (THRESHOLD_2_OF_3, "P", ("P", "passed", None)),  # no failure: no strategy to apply
    (THRESHOLD_2_OF_3, "FPFP", ("FPFP", "passed", f"passed 2 of 4 attempts, 2 required ({PASS_ON_THRESHOLD})")),
    (THRESHOLD_2_OF_3, "FPP", ("FPP", "passed", f"passed 2 of 3 attempts, 2 required ({PASS_ON_THRESHOLD})")),
    # two failures of four: two passes still reachable; three: not, it stops early
    (THRESHOLD_2_OF_3, "FFPP", ("FFPP", "passed", f"passed 2 of 4 attempts, 2 required ({PASS_ON_THRESHOLD})")),
    (THRESHOLD_2_OF_3, "FFFP", ("FFF", "failed", f"passed 0 of 3 attempts, 2 required ({PASS_ON_THRESHOLD})")),
    (THRESHOLD_2_OF_3, "FPFF", ("FPFF", "failed", f"passed 1 of 4 attempts, 2 required ({PASS_ON_THRESHOLD})")),
    (RetryPolicy(retries=2, strategy=ALWAYS_FAIL), "FPP",
     ("FPP", "failed", f"flaky, passed 2 of 3 attempts; failed by {ALWAYS_FAIL}")),
    (RetryPolicy(retries=2, strategy=ALWAYS_FAIL), "FFF", ("FFF", "failed", f"passed 0 of 3 attempts; failed by {ALWAYS_FAIL}")),
    (RetryPolicy(retries=3, strategy=ALWAYS_FAIL, stop_if_any_passed=True), "FFPF",
     ("FFP", "failed", f"flaky, passed 1 of 3 attempts; failed by {ALWAYS_FAIL}")),
    (RetryPolicy(retries=3, strategy=ALWAYS_FAIL), "P", ("P", "passed", None)),
])
def test_the_decision_after_each_attempt(policy, outcomes, expected):
    assert _play(policy, outcomes) == expected
