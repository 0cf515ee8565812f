"""What a run produced, as plain data every reporter reads: specs, tests, attempts, errors."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["AttemptResult", "TestResult", "SpecResult", "RunResult"]


@dataclass
class AttemptResult:
    """One run of a test (a test with retries has several)."""

    state: str  # "passed" | "failed" | "pending" | "skipped"
    duration_ms: float
    error: str | None = None
    error_type: str | None = None
    screenshots: list[str] = field(default_factory=list)


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    nodeid: str
    title: list[str]  # suite titles then the test name
    state: str  # final state: "passed" | "failed" | "pending" | "skipped"
    attempts: list[AttemptResult] = field(default_factory=list)
    duration_ms: float = 0.0
    slow: bool = False
    log: list[str] = field(default_factory=list)
    routes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def full_title(self) -> str:
        return " ".join(self.title)

    @property
    def flaky(self) -> bool:
        return self.state == "passed" and len(self.attempts) > 1

    @property
    def error(self) -> str | None:
        for attempt in reversed(self.attempts):
            if attempt.error:
                return attempt.error
        return None


@dataclass
class SpecResult:
    relative: str  # path relative to the project root
    absolute: str
    tests: list[TestResult] = field(default_factory=list)
    error: str | None = None  # the spec could not be loaded (syntax error, import error)
    duration_ms: float = 0.0
    video: str | None = None
    screenshots: list[str] = field(default_factory=list)

    def count(self, state: str) -> int:
        return sum(1 for t in self.tests if t.state == state)

    @property
    def failures(self) -> int:
        return self.count("failed") + (1 if self.error else 0)

    @property
    def ok(self) -> bool:
        return self.failures == 0


@dataclass
class RunResult:
    specs: list[SpecResult] = field(default_factory=list)
    duration_ms: float = 0.0
    browser: str = ""
    runner_version: str = ""
    config: dict[str, Any] = field(default_factory=dict)

    def total(self, state: str) -> int:
        return sum(s.count(state) for s in self.specs)

    @property
    def tests(self) -> int:
        return sum(len(s.tests) for s in self.specs)

    @property
    def failures(self) -> int:
        return sum(s.failures for s in self.specs)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
