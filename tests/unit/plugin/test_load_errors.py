"""A spec that cannot be imported: its report without pytest's import machinery, and one line."""

from __future__ import annotations

import sysconfig

import pytest

from runner.plugin.outcomes import load_error_summary as _load_error_summary
from runner.plugin.outcomes import load_error_text as _load_error_text

SITE = sysconfig.get_path("purelib")
STDLIB = sysconfig.get_path("stdlib")

SYNTAX = f"""{SITE}/_pytest/python.py:528: in importtestmodule
    mod = import_path(
{SITE}/_pytest/pathlib.py:616: in import_path
    mod = _import_module_using_spec(module_name, path, insert_modules=True)
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
{STDLIB}/ast.py:50: in parse
    return compile(source, filename, mode, flags,
E     File "/p/runner/integration/c_spec.py", line 2
E       x = = 1
E           ^
E   SyntaxError: invalid syntax"""

AT_IMPORT = """runner/integration/d_spec.py:1: in <module>
    raise RuntimeError("boom")
E   RuntimeError: boom"""

MISSING_MODULE = """ImportError while importing test module '/p/runner/integration/e_spec.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
runner/integration/e_spec.py:1: in <module>
    import nonexistent_mod
E   ModuleNotFoundError: No module named 'nonexistent_mod'"""


def test_the_import_machinery_is_left_out():
    assert _load_error_text(SYNTAX) == "\n".join(SYNTAX.splitlines()[-4:])
    assert _load_error_text(AT_IMPORT) == AT_IMPORT  # the user's own frame stays
    assert _load_error_text(MISSING_MODULE) == MISSING_MODULE


@pytest.mark.parametrize(("text", "kind", "line"), [
    (SYNTAX, "SyntaxError", "SyntaxError: invalid syntax (c_spec.py, line 2)"),
    (AT_IMPORT, "RuntimeError", "RuntimeError: boom"),
    (MISSING_MODULE, "ModuleNotFoundError", "ModuleNotFoundError: No module named 'nonexistent_mod'"),
    ("something pytest said", None, None),
    ('runner/integration/f_spec.py:1: in <module>\n    raise ValueError("exploded:\\nsecond line")\n'
     "E   ValueError: exploded:\nE   second line", "ValueError", "ValueError: exploded:"),
])
def test_one_line_and_type(text, kind, line):
    assert _load_error_summary(text) == (kind, line)
