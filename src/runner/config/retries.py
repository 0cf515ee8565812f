"""What the ``retries`` option means: how many attempts a test gets, when they stop, its verdict.

``retries`` is a number, ``{"runMode": n, "openMode": n}``, or one of the original's experimental
retry strategies (``experimentalStrategy`` with its ``experimentalOptions``; the modes are then
booleans saying whether the strategy applies). :class:`RetryPolicy` is that value for one mode;
:meth:`RetryPolicy.decide` says, after each attempt, whether another one runs and, when not, the
test's outcome and the words that explain it. The rules follow the original's:

* no attempt failed yet: the test passed, no more attempts;
* ``detect-flake-and-pass-on-threshold``: passed once ``passesRequired`` attempts passed; another
  attempt while one is left and the passes still needed can be reached; else failed;
* ``detect-flake-but-always-fail``: another attempt while one is left (with ``stopIfAnyPassed``,
  only while none passed); then failed, even when attempts passed (a flaky test fails);
* no strategy: another attempt while one is left; passed at the first pass.

The schema checks the shape (runner.schema.json); :func:`retries_problem` gives the reason
appended to its message (the refused key, or the one rule a schema cannot say:
``passesRequired`` at most ``maxRetries``), and :func:`global_only_problem`
the original's refusal of the experimental keys in a suite's or test's override.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ALWAYS_FAIL",
    "PASS_ON_THRESHOLD",
    "RetryPolicy",
    "Verdict",
    "global_only_problem",
    "retries_problem",
]

PASS_ON_THRESHOLD = "detect-flake-and-pass-on-threshold"
ALWAYS_FAIL = "detect-flake-but-always-fail"
#: The original's implicit options of each strategy when ``experimentalOptions`` leaves them out.
_DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    PASS_ON_THRESHOLD: {"maxRetries": 2, "passesRequired": 2},
    ALWAYS_FAIL: {"maxRetries": 2, "stopIfAnyPassed": False},
}
_GLOBAL_ONLY = ("experimentalStrategy", "experimentalOptions")


@dataclass(frozen=True)
class Verdict:
    """After an attempt: ``more`` (another attempt runs), else the test's ``outcome`` ("passed"
    or "failed") and ``text``, the strategy's words for it (None without a strategy)."""

    more: bool
    outcome: str | None = None
    text: str | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """The retries of one mode: ``retries`` (attempts after the first, at most), the
    ``strategy`` (None: the plain retries), its options, and ``deferred`` (a failed test's
    retries run after the spec's other tests)."""

    retries: int
    strategy: str | None = None
    passes_required: int = 1
    stop_if_any_passed: bool = False
    deferred: bool = False

    @classmethod
    def of(cls, value: Any, mode: str) -> RetryPolicy:
        """The policy of a valid ``retries`` value in ``mode`` ("runMode" or "openMode")."""
        if not isinstance(value, dict):
            return cls(retries=value if isinstance(value, int) and not isinstance(value, bool) else 0)
        deferred = value.get("deferred") is True
        strategy = value.get("experimentalStrategy")
        if strategy not in _DEFAULT_OPTIONS:
            count = value.get(mode)
            return cls(retries=count if isinstance(count, int) and not isinstance(count, bool) else 0,
                       deferred=deferred)
        if value.get(mode) is not True:  # the strategy is off in this mode: one attempt, as the original
            return cls(retries=0, deferred=deferred)
        options = {**_DEFAULT_OPTIONS[strategy], **(value.get("experimentalOptions") or {})}
        return cls(retries=int(options["maxRetries"]), strategy=strategy,
                   passes_required=int(options.get("passesRequired", 1)),
                   stop_if_any_passed=bool(options.get("stopIfAnyPassed", False)), deferred=deferred)

    @property
    def attempts_allowed(self) -> int:
        return self.retries + 1

    def decide(self, passed: int, failed: int) -> Verdict:
        """After ``passed + failed`` attempts (a skipped attempt counts as passed: it did not
        fail), whether another runs, else the outcome."""
        ran = passed + failed
        left = self.attempts_allowed - ran
        if failed == 0:
            return Verdict(False, "passed", None)
        if self.strategy == ALWAYS_FAIL:
            if left > 0 and not (self.stop_if_any_passed and passed):
                return Verdict(True)
            return Verdict(False, "failed", self._always_fail_text(passed, ran))
        if passed >= self.passes_required:
            return Verdict(False, "passed", self._threshold_text(passed, ran))
        if left > 0 and left >= self.passes_required - passed:
            return Verdict(True)
        return Verdict(False, "failed", self._threshold_text(passed, ran))

    def _threshold_text(self, passed: int, ran: int) -> str | None:
        if self.strategy is None:
            return None
        return f"passed {passed} of {ran} attempts, {self.passes_required} required ({self.strategy})"

    def _always_fail_text(self, passed: int, ran: int) -> str:
        flaky = "flaky, " if passed else ""
        return f"{flaky}passed {passed} of {ran} attempts; failed by {ALWAYS_FAIL}"


_MODES = ("runMode", "openMode")
_KEYS = (*_MODES, "deferred", *_GLOBAL_ONLY)
_OPTION_KEYS = {PASS_ON_THRESHOLD: ("maxRetries", "passesRequired"), ALWAYS_FAIL: ("maxRetries", "stopIfAnyPassed")}
_MOST = 2147483647


def _found(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= _MOST


def _plain_problem(value: dict[str, Any]) -> str | None:
    """The fault of ``{"runMode": n, "openMode": n}`` (no strategy)."""
    if "experimentalOptions" in value:
        return "`experimentalOptions` needs `experimentalStrategy`"
    for mode in _MODES:
        count = value.get(mode)
        if mode in value and count is not None and not _whole(count, 0):
            return f"`{mode}` must be a whole number from 0 to {_MOST} or null, found {_found(count)}"
    return None


def _strategy_problem(value: dict[str, Any]) -> str | None:
    """The fault of a strategy's object, its options checked against the strategy's own keys."""
    strategy = value["experimentalStrategy"]
    if strategy not in _OPTION_KEYS:
        return (f"`experimentalStrategy` must be \"{PASS_ON_THRESHOLD}\" or \"{ALWAYS_FAIL}\", "
                f"found {_found(strategy)}")
    for mode in _MODES:
        if mode not in value:
            return f"`{mode}` is required with `experimentalStrategy`: true or false"
        if not isinstance(value[mode], bool):
            return f"`{mode}` must be a boolean with `experimentalStrategy`, found {_found(value[mode])}"
    options = value.get("experimentalOptions", {})
    if not isinstance(options, dict):
        return f"`experimentalOptions` must be an object, found {_found(options)}"
    for key, option in options.items():
        if key not in _OPTION_KEYS[strategy]:
            return f"unknown key `experimentalOptions.{key}` for {strategy}"
        if key == "stopIfAnyPassed" and not isinstance(option, bool):
            return f"`stopIfAnyPassed` must be a boolean, found {_found(option)}"
        if key != "stopIfAnyPassed" and not _whole(option, 1):
            wanted = "1 or more" if _whole(option, -_MOST) else f"a whole number from 1 to {_MOST}"
            return f"`{key}` must be {wanted}, found {_found(option)}"
    return None


def _shape_problem(value: dict[str, Any]) -> str | None:
    """Which key of a ``retries`` object the schema refuses, and why (the schema's own error of
    a ``oneOf`` names no branch, so its message alone cannot say)."""
    unknown = next((key for key in value if key not in _KEYS), None)
    if unknown is not None:
        return f"unknown key `{unknown}`"
    if "deferred" in value and not isinstance(value["deferred"], bool):
        return f"`deferred` must be a boolean, found {_found(value['deferred'])}"
    if "experimentalStrategy" in value:
        return _strategy_problem(value)
    return _plain_problem(value)


def retries_problem(value: Any) -> str | None:
    """The reason a ``retries`` object is refused, appended to the original's message: the key
    the schema refuses (:func:`_shape_problem`), or what a schema cannot say, the passes a
    strategy requires (``passesRequired``, its default 2 when left out) against the attempts it
    allows (``maxRetries``, default 2). None when fine, and for a value that is not an object
    (the original's message names it whole)."""
    if not isinstance(value, dict):
        return None
    shape = _shape_problem(value)
    if shape is not None or value.get("experimentalStrategy") != PASS_ON_THRESHOLD:
        return shape
    given = value.get("experimentalOptions")
    options = {**_DEFAULT_OPTIONS[PASS_ON_THRESHOLD], **(given if isinstance(given, dict) else {})}
    required, most = options.get("passesRequired"), options.get("maxRetries")
    if isinstance(required, int) and isinstance(most, int) and required > most:
        return (f"`experimentalOptions.passesRequired` ({required}) cannot be more than "
                f"`experimentalOptions.maxRetries` ({most})")
    return None


def global_only_problem(value: Any) -> str | None:
    """The original's message for a suite's or test's ``retries`` override that sets a strategy
    (its override level is ``global_only``), else None."""
    if not isinstance(value, dict):
        return None
    key = next((k for k in _GLOBAL_ONLY if k in value), None)
    if key is None:
        return None
    return (f"The `retries.{key}` configuration can only be set globally (its override level is global_only): "
            "set it in runner.json, the environment, --config or the plugins file.")
