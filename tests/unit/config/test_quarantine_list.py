"""The ``quarantine`` option's entries: which test ids each names (a table, no browser)."""

from __future__ import annotations

import pytest

from runner.config.quarantine import QuarantineList

SPEC = "runner/integration/login_spec.py"


@pytest.mark.parametrize(("entry", "test_id", "named"), [
    (f"{SPEC}::test_sign_in", f"{SPEC}::test_sign_in", True),  # the id itself
    (f"{SPEC}::test_sign_in", f"{SPEC}::test_sign_out", False),
    (f"{SPEC}::test_sizes[large]", f"{SPEC}::test_sizes[large]", True),  # brackets as written, not a class
    (f"{SPEC}::test_sizes*", f"{SPEC}::test_sizes[large]", True),  # every parameter set
    ("login_spec.py::*", f"{SPEC}::test_sign_in", True),  # matchBase: a bare spec name, wherever it lies
    ("login_spec.py::*", "runner/integration/cart_spec.py::test_total", False),
    ("**/login_spec.py::test_sign_*", f"{SPEC}::test_sign_out", True),
    ("runner/integration/**", f"{SPEC}::TestForm::test_submit", True),
    ("runner/integration/*::test_sign_in", f"{SPEC}::test_sign_in", True),
    ("runner/integration/*::test_sign_in", "runner/integration/deep/x_spec.py::test_sign_in", False),
    (f"{SPEC}::TestForm::*", f"{SPEC}::TestForm::test_submit", True),  # a class's tests
    (f"{SPEC}::TestForm::*", f"{SPEC}::test_submit", False),
])
def test_an_entry_names_a_test_by_its_id_or_a_glob(entry: str, test_id: str, named: bool) -> None:
    listed = QuarantineList([entry])
    assert (listed.entry_for(test_id) == entry) is named
    assert (listed.reason_for(test_id) is not None) is named


def test_the_reason_names_the_entry_and_where_it_came_from() -> None:
    listed = QuarantineList(["a_spec.py::*", "b_spec.py::*"], source="--config")
    assert listed.reason_for("x/b_spec.py::test_one") == "listed in quarantine ('b_spec.py::*', --config)"
    assert listed.reason_for("x/c_spec.py::test_one") is None
    assert not QuarantineList([]) and listed


def test_entries_that_name_no_test_are_stale() -> None:
    listed = QuarantineList(["a_spec.py::*", "gone_spec.py::test_x", f"{SPEC}::test_sign_in"])
    ids = [f"{SPEC}::test_sign_in", "runner/integration/a_spec.py::test_one"]
    assert listed.unmatched(ids) == ["gone_spec.py::test_x"]
    assert listed.unmatched([]) == listed.entries
